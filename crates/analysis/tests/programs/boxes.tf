global changed: bool = false;
global total: i64 = 0;
record Border { size: i64, color: i64 }
pure fn half(x: i64) -> i64 = x / 2;
pure fn twice(x: i64) -> i64 = x * 2;
abstract tree Elem {
    width: i64;
    border: Border;
    xs: [i64];
    traversal w() {}
}
tree Box : Elem {
    child next: Elem;
    traversal w() {
        self.width = self.next.width + 1;
        self.border.size = 3;
        let b = self.border;
        self.xs[0] = 1;
        changed = true;
        if self.next is End { return; }
        let n = self.next;
        n.width = twice(b.size);
        self.next.w();
        total = total + half(self.width);
    }
}
tree End : Elem {}
