// walk-signature: a default walk calls the traversal with the same
// arguments on every child whose type has it, so the child's traversal of
// that name must take the same parameters.
tree Leaf { traversal count(depth: str) {} }
tree Pair {
    child l: Leaf;
    child r: [Leaf];
    traversal count(depth: i64) walk;
}
