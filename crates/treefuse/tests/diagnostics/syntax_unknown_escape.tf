// An escape sequence that does not exist.
global NAME: str = "a\qb";
