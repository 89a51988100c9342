// A tree type declares each field once.
tree Leaf {
    n: i64;
    child next: Leaf;
    n: bool;
    child next: Leaf;
}
