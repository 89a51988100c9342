// `break;` is allowed only inside a `while` body, not in a `for` nested
// in one (LANGUAGE §8.6).
global n: i64 = 0;
tree Node {
    child items: [Node];
    traversal f() {
        if n > 3 {
            break;
        }
        while n < 10 limit 20 {
            for x in self.items {
                x.f();
                break;
            }
            n = n + 1;
        }
    }
}
fuse run(root: Node) {
    root.f();
    break;
}
