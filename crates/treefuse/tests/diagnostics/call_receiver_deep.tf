// Traversing calls only on self, a child of self, or a for variable.
tree Node {
    child next: Node;
    child tail: Leaf;
    traversal f() {
        self.next.next.f();
        (self.next as Node).f();
    }
}
tree Leaf : Node {}
