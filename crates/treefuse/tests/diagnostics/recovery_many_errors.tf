// One run reports several independent errors, syntax and semantic.
record Border { size: i64, size: i64 }

tree Box {
    width: i64;
    traversal f() {
        self.width = 1 +;
        self.height = 2;
        self.width = true;
    }
    traversal g() {
        let x = ;
        self.width = undefined_thing;
    }
}

global G: i64 = "text";

tree Broken {
    n i64;
    m: i64;
}

pure fn p(x: i64) -> i64 = y;

fuse run(root: Box) { root.nope(); }
