// Float literals must be finite.
global F: f64 = 1e400;
