// A tree alias cannot be the receiver of a traversing call.
tree Node {
    child next: Node;
    traversal f() {
        let n = self.next;
        n.f();
    }
}
