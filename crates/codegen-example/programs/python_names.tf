// Names of Python's AST and of Rust: node types `Set`, `List`, `Dict`,
// `Tuple`, `Match`, `Try`, `Await`, `Yield`, `Box`, `Type`, `Ok`,
// `Default`, `u32` and `ListId` (the id type the hierarchy `List` would
// derive); traversals `clone`, `set`, `Set` and `fooBar` beside
// `foo_bar` (one snake-case name); a global `Tree`, a record `Option`, an
// enum `Result` with variants `Ok` and `Err`, a child `List`, and fields
// `self_`, `move`, `box`, `union` and `gen`. The module compiles without a
// warning and computes what the interpreter computes (hand-computed in
// `crates/codegen-example/tests/differential.rs`, `python_names`).

global Tree: i64 = 0;
record Option { Some: i64, None: bool }
enum Result { Ok, Err }

abstract tree Type {
    self_: i64 = 0;
    traversal clone() {}
    traversal set(v: Option) {}
    traversal Set() {}
    traversal fooBar() {}
    traversal foo_bar() {}
}

tree Match : Type {
    child List: [Type];
    box: Result = Result::Ok;
    traversal clone() { for x in self.List { x.clone(); } }
    traversal set(v: Option) { for x in self.List { x.set(v); } self.self_ = v.Some; }
    traversal Set() { for x in self.List { x.Set(); } }
    traversal fooBar() { for x in self.List { x.fooBar(); } }
    traversal foo_bar() { for x in self.List { x.foo_bar(); } Tree = Tree + 1; }
}

tree Try : Type {
    child Await: Type;
    move: i64 = 1;
    traversal clone() { self.Await.clone(); self.move = self.move + 1; }
    traversal set(v: Option) { self.Await.set(v); if v.None { self.self_ = -1; } }
    traversal Set() { self.Await.Set(); self.move = self.move * 10; }
    traversal fooBar() { self.Await.fooBar(); Tree = Tree + self.move; }
    traversal foo_bar() { self.Await.foo_bar(); }
}

tree Yield : Type {
    union: i64 = 5;
    gen: Result = Result::Err;
    traversal clone() { self.union = self.union + 1; }
    traversal set(v: Option) { self.self_ = v.Some + self.union; }
    traversal Set() { if self.gen == Result::Err { self.union = 0; } }
    traversal fooBar() { Tree = Tree + 100; }
    traversal foo_bar() { Tree = Tree * 2; }
}

tree Box : Type {}
tree Dict : Type {}
tree Tuple : Type {}
tree Ok : Type {}
tree Default : Type {}
tree u32 : Type {}
tree ListId : Type {}

fuse Await(root: Type) {
    root.clone();
    root.set(Option { Some: 3, None: false });
    root.Set();
    root.fooBar();
    root.foo_bar();
}
