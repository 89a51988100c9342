// A child must be a tree type.
record R { n: i64 }
tree Leaf {
    child n: i64;
    child r: R;
    child xs: [f64];
}
