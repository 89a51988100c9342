// E722 (pycodestyle bare-except): `except:` without an exception type.
//
// As ruff's `bare_except`: a handler with no type whose body has no bare
// `raise` statement directly in it (a `raise` nested in an `if` does not
// count, nor `raise e`). Reported at the `except` keyword, where the
// handler starts.
global E722: [Diag] = [];

impl Node { traversal e722() walk; }
impl ExceptHandler {
    traversal e722() {
        if self.exc_type is none {
            let reraises = false;
            for s in self.body {
                if s is Raise && (s as Raise).exc is none { reraises = true; }
            }
            if !reraises {
                E722 = append(E722, Diag { start: self.start, message: "Do not use bare `except`" });
            }
        }
        walk;
    }
}
