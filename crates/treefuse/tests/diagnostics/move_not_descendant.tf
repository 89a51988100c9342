// Only a descendant of the replaced slot can move into it.
tree Pair {
    child left: Pair;
    child right: Pair;
    traversal f() {
        self.left = self.right;
        self.left = self.left;
        self.left = self.right.left;
        self.left = new Pair { left: self.right, right: self.left.right };
    }
}
