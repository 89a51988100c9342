// A map value may not give the same constant key twice.
enum Op { Add, Sub }
global ops: {Op: str} = {Op::Add: "+", Op::Sub: "-", Op::Add: "plus"};
global ok: {i64: i64} = {1: 1, 2: 2};
tree Leaf {
    m: {str: i64};
    traversal f() {
        self.m = {"a": 1, "b": 2, "a": 3};
    }
}
