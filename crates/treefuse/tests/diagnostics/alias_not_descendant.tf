// A tree alias names a descendant of self.
abstract tree Node {
    child next: Node;
    traversal f() {
        let me = self;
        let also_me = (self as Node);
    }
}
