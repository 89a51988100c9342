// Abstract types with body-less traversals that every concrete subtype
// defines (directly or through an intermediate type).
abstract tree Shape {
    area: f64;
    traversal compute_area();
    traversal scale(by: f64);
}

abstract tree Polygon : Shape {
    traversal compute_area() { self.area = 0.0; }
}

tree Square : Polygon {
    side: f64 = 1.0;
    traversal compute_area() { self.area = self.side * self.side; }
    traversal scale(by: f64) { self.side = self.side * by; }
}

tree Triangle : Polygon {
    traversal scale(by: f64) { self.area = self.area * by * by; }
}

tree Circle : Shape {
    r: f64;
    traversal compute_area() { self.area = 3.14159 * self.r * self.r; }
    traversal scale(by: f64) { self.r = self.r * by; }
}

tree Scene {
    child shape: Shape;
    traversal run(by: f64) {
        self.shape.scale(by);
        self.shape.compute_area();
    }
}

fuse f(root: Scene, by: f64) { root.run(by); }
