// `none` empties only an optional child (`child c: T?`).
tree Node {
    child next: Node;
    child maybe: Node?;
    traversal f() {
        self.next = none;
    }
    traversal g() {
        self.maybe = new Node { next: none, maybe: none };
    }
}
tree List {
    child items: [List];
    traversal h() {
        self.items.push(none);
    }
}
tree Solo {
    traversal k() {
        self = none;
    }
}
