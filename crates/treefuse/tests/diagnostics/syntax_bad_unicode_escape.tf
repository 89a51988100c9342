// A unicode escape that is not a valid code point.
global NAME: str = "\u{110000}";
