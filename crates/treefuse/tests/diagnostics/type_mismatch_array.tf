// Array elements share one type.
global XS: [i64] = [1, 2.0, 3];
