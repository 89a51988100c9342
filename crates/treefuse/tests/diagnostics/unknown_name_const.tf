// A global can only use earlier globals.
global A: i64 = B + 1;
global B: i64 = 2;
global C: i64 = C;
tree Leaf { n: i64 = missing; }
