// `Enum::Variant` must name a declared enum and one of its variants.
enum Op { Add, Sub }
tree Leaf {
    op: Op;
    traversal f() {
        self.op = Op::Div;
        self.op = Opp::Add;
    }
}
