// A subtree can be moved only once.
tree Pair {
    child left: Pair;
    child right: Pair;
    traversal f() {
        self.left = new Pair { left: self.left.left, right: self.left.left };
        self.right = new Pair { left: self.right.left, right: self.right.left.right };
    }
}
