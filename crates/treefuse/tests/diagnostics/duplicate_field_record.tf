// A record declares each field once.
record Point { x: i64, y: i64, x: f64 }
