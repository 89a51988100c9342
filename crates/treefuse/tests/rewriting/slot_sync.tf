// Child slots assigned by the fused function itself (`self.a = new ..`)
// and by a call on `self` (`helper`): generated fused code that reads the
// receiver's child ids once must read the new child after either.
global seen: i64 = 0;

abstract tree N {
    v: i64 = 0;
    traversal f() {}
    traversal g() {}
    traversal helper() {}
}

tree Leaf : N {
    traversal f() { self.v = self.v + 1; }
    traversal g() { self.v = self.v * 10; }
}

tree Pair : N {
    child a: N;
    child b: N;

    traversal f() {
        self.a.f();
        if self.a.v > 1 {
            self.a = new Leaf { v: self.a.v + 100 };
        }
        self.b.f();
        self.v = self.a.v + self.b.v;
    }

    traversal g() {
        self.a.g();
        self.b.g();
        self.v = self.v + self.a.v;
    }
}

tree Helped : N {
    child a: N;

    traversal helper() {
        self.a = new Leaf { v: 7 };
    }

    traversal f() {
        seen = self.a.v;
        self.helper();
        seen = seen + self.a.v;
    }

    traversal g() {
        self.a.g();
    }
}

fuse main(root: N) {
    root.f();
    root.g();
}
