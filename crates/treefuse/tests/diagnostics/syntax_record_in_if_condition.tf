// As in Rust, a record value cannot stand directly as the condition of
// `if`; `{` opens the block.
record R { ok: bool }
tree Leaf {
    b: bool;
    traversal f() {
        if R { ok: true }.ok { self.b = true; }
    }
}
