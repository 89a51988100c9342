// A string literal that never ends.
global NAME: str = "tree;
