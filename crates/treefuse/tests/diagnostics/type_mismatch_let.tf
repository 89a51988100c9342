// A `let` annotation must match the value.
tree Node {
    child next: Node;
    traversal f() {
        let a: i64 = true;
        let n: i64 = self.next;
        let k: Node = 3;
        let xs: [i64] = [1.0];
    }
}
