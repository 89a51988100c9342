// A tree field named `type` (JSON spends that key on the node's type);
// a record field of that name is fine, and the rest of the type still
// checks: `name` is known below.
record Origin { type: str, line: i64 }

tree Handler {
    type: str;
    name: str;
    at: Origin;
    traversal show() {
        self.name = self.at.type;
    }
}
