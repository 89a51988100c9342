// `self` does not exist in a global initial value.
global X: i64 = self.n;
