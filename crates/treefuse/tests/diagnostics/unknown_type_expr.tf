// Unknown types in `new`, `is`, `as`, record values and `let`.
abstract tree Element {}
tree End : Element {}
tree Leaf {
    child c: Element;
    b: bool;
    traversal f() {
        self.c = new Missing {};
        self.b = self.c is Mising;
        self.b = (self.c as Gone).b;
        self.b = Nope { x: 1 }.x;
        let x: Unknown = 3;
    }
}
