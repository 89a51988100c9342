// A record value names every field exactly once.
record P { x: i64, y: i64 }
global A: P = P { x: 1 };
global B: P = P { x: 1, y: 2, z: 3 };
global C: P = P { x: 1, x: 2, y: 3 };
