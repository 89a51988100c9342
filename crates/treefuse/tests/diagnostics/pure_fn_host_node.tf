// The host supplies a pure function without a body, and the host takes
// data, not tree nodes.
abstract tree E {}
tree Num : E { v: i64; }
pure fn weight(e: E, k: i64) -> i64;
