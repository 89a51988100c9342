// Records nest (not recursively), are read and written whole or by member,
// and record values name every field in any order.
record Point { x: i64, y: i64 }
record Rect { min: Point, max: Point, label: str, }
record Empty {}

tree Shape {
    bounds: Rect;
    corners: [Point];
    nothing: Empty;
    traversal normalize() {
        let r: Rect = self.bounds;
        if r.min.x > r.max.x {
            let tmp = r.min.x;
            r.min.x = r.max.x;
            r.max.x = tmp;
        }
        self.bounds = r;
        self.bounds.max.y = self.bounds.min.y + 1;
        self.bounds.min = Point { y: 0, x: 0 };
        self.corners = [self.bounds.min, Point { x: r.max.x, y: r.max.y }];
        self.corners[0].x = 3;
        self.nothing = Empty {};
        self.bounds.label = "unit";
    }
}

fuse f(root: Shape) { root.normalize(); }
