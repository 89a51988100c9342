// F841 unused-variable: a local variable of a function or lambda that is
// assigned (`=`, `+=`, `x: T = v`, `:=`, `with ... as x`, a `match`
// capture, `type X = ...`) and never read, reported at the name; and an
// `except ... as e` name (in any scope) never read in its handler.
// As ruff's semantic model and `unused_variable`:
// - only the last binding of each name in the scope is checked, and a
//   binding inherits the reads of the one it replaces (so `x = 1; f(x);
//   x = 2` is fine) unless that was a `del` (outside `if`/`while`/`match`/
//   handlers/`else`) or the end of an `except ... as x` handler;
// - function and lambda bodies are visited after their enclosing scope:
//   a name a nested function reads without binding it first marks the
//   *last* binding of that name in the nearest enclosing function (class
//   scopes are skipped); `nonlocal x` reads the enclosing `x`;
// - class bodies and comprehensions are scopes of their own, read inline
//   (a comprehension's first iterable before its targets are bound);
// - exempt: loop variables, parameters, imports, `def`/`class` names,
//   unpacking (`a, b = t`, `with f() as (a, b)`, ruff's
//   `is_unpacking_assignment`), names declared `global`/`nonlocal`,
//   functions that call `locals()`, dummy names (`_`, `_x`, not `_x_`), and
//   `__tracebackhide__`, `__traceback_info__`, `__traceback_supplement__`,
//   `__debuggerskip__`.
// Known gaps: `case P as name` and `{**rest}` captures (python.tf has no
// position for those names) are not reported.
global F841: [Diag] = [];

// The current function, lambda or module scope: for each name, where its
// last binding starts (-1: a binding of a kind that is never reported),
// whether that binding was read, and whether it is declared global or
// nonlocal.
global F841_START: {str: i64} = {};
global F841_USED: {str: bool} = {};
global F841_DECL: {str: bool} = {};
// Names read by nested functions and lambdas, resolved when the scope ends.
global F841_PENDING: {str: bool} = {};
// Names this scope reads that it did not bind (yet): the enclosing scope's.
global F841_FREE: {str: bool} = {};
// Whether the current function calls `locals()` (a lambda's call is not
// checked: ruff exempts only functions).
global F841_LOCALS: bool = false;
// Names of the `except ... as name` handlers being visited, and the reads
// their binding had when something rebound the name inside the handler
// (a binding counts only the reads made while it is the current one).
global F841_WATCH: {str: bool} = {};
global F841_SNAP: {str: bool} = {};
// Class bodies and comprehensions inside the current scope: their names
// (with whether they were read).
global F841_INLINE: {str: bool} = {};
global F841_IN_INLINE: bool = false;
global F841_IN_COMP: bool = false;
global F841_ENTER_COMP: bool = false;
// What Store names visited now bind: 0 never reported (loop variables,
// imports), 1 an assignment, 2 an annotation (`x: int`).
global F841_MODE: i64 = 0;
global F841_UNPACKED: bool = false;
// Inside `if`, `while`, `match`, an `except` handler or an `else:` clause.
global F841_COND: i64 = 0;

// Whether `s` starts with `_` and is all underscores or does not end with
// one (ruff's default `dummy-variable-rgx`); walks characters by their
// UTF-8 length, read from comparisons (no substr inside a character).
pure fn f841_dummy(s: str) -> bool {
    if !(s >= "_" && s < "`") { return false; }
    let n: i64 = len(s);
    let next: i64 = 0;
    let all: bool = true;
    let last: str = "";
    for k in 0..n {
        if k == next {
            let rest: str = substr(s, k, n);
            let width: i64 = if rest < "\u{80}" { 1 } else if rest < "\u{800}" { 2 }
                else if rest < "\u{10000}" { 3 } else { 4 };
            last = substr(s, k, k + width);
            all = all && last == "_";
            next = k + width;
        }
    }
    return all || last != "_";
}
// A new binding of a name inherits the reads of the one it replaces: its
// entry in F841_USED stays as it is, or is made (unread) when it has none.
pure fn f841_snap(snap: {str: bool}, watch: {str: bool}, n: str, used: bool) -> {str: bool} {
    if contains(watch, n) && !contains(snap, n) { return insert(snap, n, used); }
    return snap;
}
pure fn f841_exempt(s: str) -> bool =
    s == "__tracebackhide__" || s == "__traceback_info__"
    || s == "__traceback_supplement__" || s == "__debuggerskip__" || f841_dummy(s);

impl Node { traversal f841() walk; }

// ------------------------------------------------------------- names
impl Name {
    traversal f841() {
        if self.ctx == ExprContext::Load {
            // Maps are values: an insert copies a path of the map, so a
            // name read again (the usual case) is only looked up.
            if F841_IN_INLINE && contains(F841_INLINE, self.id) {
                if !F841_INLINE[self.id] { F841_INLINE[self.id] = true; }
            } else if contains(F841_START, self.id) {
                if !get(F841_USED, self.id, false) { F841_USED[self.id] = true; }
            } else if !contains(F841_FREE, self.id) {
                F841_FREE[self.id] = true;
            }
        } else if self.ctx == ExprContext::Store {
            if F841_IN_INLINE {
                F841_INLINE[self.id] = get(F841_INLINE, self.id, false);
            } else if F841_MODE == 2 {
                if !contains(F841_START, self.id) {
                    F841_START[self.id] = -1;
                    F841_USED[self.id] = false;
                }
            } else {
                let used: bool = get(F841_USED, self.id, false);
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.id, used); F841_START[self.id] = if F841_MODE == 1 && !F841_UNPACKED && !get(F841_DECL, self.id, false) {
                    self.start
                } else { -1 };
                if !contains(F841_USED, self.id) { F841_USED[self.id] = false; }
            }
        } else if self.ctx == ExprContext::Del {
            if F841_IN_INLINE {
                if contains(F841_INLINE, self.id) { F841_INLINE[self.id] = true; }
            } else {
                if contains(F841_START, self.id) { F841_USED[self.id] = true; }
                if F841_COND == 0 {
                    F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.id, get(F841_USED, self.id, false)); F841_START[self.id] = -1;
                    F841_USED = remove(F841_USED, self.id);
                    F841_DECL = remove(F841_DECL, self.id);
                }
            }
        }
    }
}
impl Named {
    traversal f841() {
        self.value.f841();
        if self.target is Name {
            let t = (self.target as Name);
            if F841_IN_INLINE && !F841_IN_COMP {
                F841_INLINE[t.id] = get(F841_INLINE, t.id, false);
            } else {
                // In a comprehension, `:=` binds in the enclosing scope.
                let used: bool = get(F841_USED, t.id, false);
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, t.id, used); F841_START[t.id] = if !F841_UNPACKED && !get(F841_DECL, t.id, false) { t.start } else { -1 };
                if !contains(F841_USED, t.id) { F841_USED[t.id] = false; }
            }
        }
    }
}
impl Call {
    traversal f841() {
        walk;
        if self.func is Name && (self.func as Name).id == "locals" && !F841_IN_INLINE {
            F841_LOCALS = true;
        }
    }
}

// ------------------------------------------------------------ statements
impl Assign {
    traversal f841() {
        let value_tuple: bool = self.value is Tuple || self.value is List || self.value is Set;
        let all_tuples: bool = true;
        for t in self.targets { if !(t is Tuple || t is List || t is Set) { all_tuples = false; } }
        F841_UNPACKED = all_tuples && !value_tuple;
        self.value.f841();
        F841_MODE = 1;
        for t in self.targets {
            F841_UNPACKED = (all_tuples || t is Tuple || t is List || t is Set) && (!value_tuple || !all_tuples);
            t.f841();
        }
        F841_UNPACKED = false;
        F841_MODE = 0;
    }
}
impl AugAssign {
    traversal f841() {
        if self.target is Name {
            let t = (self.target as Name);
            if F841_IN_INLINE && contains(F841_INLINE, t.id) { F841_INLINE[t.id] = true; }
            else if contains(F841_START, t.id) { F841_USED[t.id] = true; }
            else { F841_FREE[t.id] = true; }
        }
        self.value.f841();
        F841_MODE = 1;
        self.target.f841();
        F841_MODE = 0;
    }
}
impl AnnAssign {
    traversal f841() {
        self.annotation.f841();
        self.value.f841();
        F841_MODE = if self.value is none { 2 } else { 1 };
        self.target.f841();
        F841_MODE = 0;
    }
}
impl TypeAlias {
    traversal f841() {
        F841_MODE = 1;
        self.name.f841();
        F841_MODE = 0;
        for t in self.type_params { t.f841(); }
        self.value.f841();
    }
}
impl For {
    traversal f841() {
        self.iter.f841();
        F841_MODE = 0;
        self.target.f841();
        for s in self.body { s.f841(); }
        F841_COND = F841_COND + 1;
        for s in self.orelse { s.f841(); }
        F841_COND = F841_COND - 1;
    }
}
impl While { traversal f841() { F841_COND = F841_COND + 1; walk; F841_COND = F841_COND - 1; } }
impl If { traversal f841() { F841_COND = F841_COND + 1; walk; F841_COND = F841_COND - 1; } }
impl Match { traversal f841() { F841_COND = F841_COND + 1; walk; F841_COND = F841_COND - 1; } }
impl Try {
    traversal f841() {
        for s in self.body { s.f841(); }
        F841_COND = F841_COND + 1;
        for h in self.handlers { h.f841(); }
        for s in self.orelse { s.f841(); }
        F841_COND = F841_COND - 1;
        for s in self.finalbody { s.f841(); }
    }
}
impl WithItem {
    traversal f841() {
        self.context_expr.f841();
        F841_MODE = 1;
        F841_UNPACKED = self.optional_vars is Tuple;
        self.optional_vars.f841();
        F841_MODE = 0;
        F841_UNPACKED = false;
    }
}
impl ExceptHandler {
    traversal f841() {
        // The calls are the walk's (the type, then the body), unconditional,
        // so that they fuse with the other rules' walks of the handler.
        self.exc_type.f841();
        let n: str = self.name;
        let watch: {str: bool} = F841_WATCH; let snap: {str: bool} = F841_SNAP;
        if n != "" {
            if F841_IN_INLINE {
                F841_INLINE[n] = get(F841_INLINE, n, false);
            } else {
                // Like any binding, it inherits the reads of the one it replaces.
                let used: bool = get(F841_USED, n, false);
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, n, used);
                snap = F841_SNAP;
                F841_START[n] = -1;
                if !contains(F841_USED, n) { F841_USED[n] = false; }
                F841_WATCH[n] = true;
                F841_SNAP = remove(F841_SNAP, n);
            }
        }
        for s in self.body { s.f841(); }
        if n != "" {
            let read: bool = if F841_IN_INLINE { get(F841_INLINE, n, false) }
                else { get(F841_SNAP, n, get(F841_USED, n, false)) };
            if !read && !f841_dummy(n) {
                F841 = append(F841, Diag { start: self.name_start,
                    message: "Local variable `" + n + "` is assigned to but never used" });
            }
            // The name is unbound after the handler.
            if F841_IN_INLINE {
                F841_INLINE = remove(F841_INLINE, n);
            } else {
                F841_WATCH = watch; F841_SNAP = snap;
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, n, get(F841_USED, n, false));
                F841_START[n] = -1;
                F841_USED = remove(F841_USED, n);
                F841_DECL = remove(F841_DECL, n);
            }
        }
    }
}
impl Global {
    traversal f841() {
        for n in self.names {
            if F841_IN_INLINE { F841_INLINE[n.id] = false; }
            else { F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, n.id, get(F841_USED, n.id, false)); F841_START[n.id] = -1; F841_USED[n.id] = false; F841_DECL[n.id] = true; }
        }
    }
}
impl Nonlocal {
    traversal f841() {
        for n in self.names {
            // `nonlocal x` reads the enclosing function's `x`.
            F841_FREE[n.id] = true;
            if F841_IN_INLINE { F841_INLINE[n.id] = false; }
            else { F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, n.id, get(F841_USED, n.id, false)); F841_START[n.id] = -1; F841_USED[n.id] = false; F841_DECL[n.id] = true; }
        }
    }
}
impl Import {
    traversal f841() {
        for a in self.names {
            let bound: str = if a.asname != "" { a.asname } else { f841_first_segment(a.name) };
            if F841_IN_INLINE { F841_INLINE[bound] = get(F841_INLINE, bound, false); }
            else { F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, bound, get(F841_USED, bound, false)); F841_START[bound] = -1; if !contains(F841_USED, bound) { F841_USED[bound] = false; } }
        }
    }
}
impl ImportFrom {
    traversal f841() {
        for a in self.names {
            if a.name != "*" {
                let bound: str = if a.asname != "" { a.asname } else { a.name };
                if F841_IN_INLINE { F841_INLINE[bound] = get(F841_INLINE, bound, false); }
                else { F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, bound, get(F841_USED, bound, false)); F841_START[bound] = -1; if !contains(F841_USED, bound) { F841_USED[bound] = false; } }
            }
        }
    }
}
pure fn f841_first_segment(s: str) -> str {
    for i in 0..len(s) { if substr(s, i, i + 1) == "." { return substr(s, 0, i); } }
    return s;
}

// ------------------------------------------------------------- patterns
impl MatchAs {
    traversal f841() {
        walk;
        if self.name != "" {
            if F841_IN_INLINE {
                F841_INLINE[self.name] = get(F841_INLINE, self.name, false);
            } else {
                let used: bool = get(F841_USED, self.name, false);
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.name, used);
                F841_START[self.name] = if !get(F841_DECL, self.name, false) { self.name_start } else { -1 };
                if !contains(F841_USED, self.name) { F841_USED[self.name] = false; }
            }
        }
    }
}
impl MatchStar {
    traversal f841() {
        if self.name != "" {
            if F841_IN_INLINE {
                F841_INLINE[self.name] = get(F841_INLINE, self.name, false);
            } else {
                let used: bool = get(F841_USED, self.name, false);
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.name, used);
                F841_START[self.name] = if !get(F841_DECL, self.name, false) { self.name_start } else { -1 };
                if !contains(F841_USED, self.name) { F841_USED[self.name] = false; }
            }
        }
    }
}
impl MatchMapping {
    traversal f841() {
        walk;
        if self.rest != "" {
            if F841_IN_INLINE {
                F841_INLINE[self.rest] = get(F841_INLINE, self.rest, false);
            } else {
                let used: bool = get(F841_USED, self.rest, false);
                F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.rest, used);
                F841_START[self.rest] = if !get(F841_DECL, self.rest, false) { self.rest_start } else { -1 };
                if !contains(F841_USED, self.rest) { F841_USED[self.rest] = false; }
            }
        }
    }
}

// ------------------------------------------------------------ comprehensions
// The first iterable is read in the enclosing scope, then the targets are
// bound in the comprehension's own scope (class names are not visible).
impl Comprehension {
    traversal f841() {
        let enter: bool = F841_ENTER_COMP;
        F841_ENTER_COMP = false;
        self.iter.f841();
        if enter {
            if !F841_IN_COMP { F841_INLINE = {}; }
            F841_IN_INLINE = true;
            F841_IN_COMP = true;
        }
        F841_MODE = 0;
        self.target.f841();
        for c in self.ifs { c.f841(); }
    }
}
impl Comp {
    traversal f841() {
        let inline: {str: bool} = F841_INLINE; let in_inline: bool = F841_IN_INLINE; let in_comp: bool = F841_IN_COMP;
        F841_ENTER_COMP = true;
        walk;
        F841_INLINE = inline; F841_IN_INLINE = in_inline; F841_IN_COMP = in_comp;
    }
}

// ------------------------------------------------------------ scopes
impl ClassDef {
    traversal f841() {
        for d in self.decorators { d.f841(); }
        for t in self.type_params { t.f841(); }
        for b in self.bases { b.f841(); }
        for k in self.keywords { k.f841(); }
        let inline: {str: bool} = F841_INLINE; let in_inline: bool = F841_IN_INLINE; let in_comp: bool = F841_IN_COMP;
        F841_INLINE = {}; F841_IN_INLINE = true; F841_IN_COMP = false;
        for s in self.body { s.f841(); }
        F841_INLINE = inline; F841_IN_INLINE = in_inline; F841_IN_COMP = in_comp;
        if F841_IN_INLINE { F841_INLINE[self.name] = get(F841_INLINE, self.name, false); }
        else { F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.name, get(F841_USED, self.name, false)); F841_START[self.name] = -1; if !contains(F841_USED, self.name) { F841_USED[self.name] = false; } }
    }
}
impl FunctionDef {
    traversal f841() {
        for d in self.decorators { d.f841(); }
        for t in self.type_params { t.f841(); }
        self.parameters.f841();
        self.returns.f841();
        if F841_IN_INLINE { F841_INLINE[self.name] = get(F841_INLINE, self.name, false); }
        else { F841_SNAP = f841_snap(F841_SNAP, F841_WATCH, self.name, get(F841_USED, self.name, false)); F841_START[self.name] = -1; if !contains(F841_USED, self.name) { F841_USED[self.name] = false; } }
        // The body: a scope of its own, visited (by ruff) after this one.
        let start: {str: i64} = F841_START; let used: {str: bool} = F841_USED;
        let decl: {str: bool} = F841_DECL; let pending: {str: bool} = F841_PENDING;
        let free: {str: bool} = F841_FREE; let locals: bool = F841_LOCALS;
        let watch: {str: bool} = F841_WATCH; let snap: {str: bool} = F841_SNAP;
        let inline: {str: bool} = F841_INLINE; let in_inline: bool = F841_IN_INLINE; let in_comp: bool = F841_IN_COMP;
        let unpacked: bool = F841_UNPACKED;
        F841_START = {}; F841_USED = {}; F841_DECL = {}; F841_PENDING = {}; F841_FREE = {};
        F841_LOCALS = false; F841_WATCH = {}; F841_SNAP = {};
        F841_INLINE = {}; F841_IN_INLINE = false; F841_IN_COMP = false; F841_UNPACKED = false;
        let p = self.parameters;
        for a in p.posonlyargs { F841_START[a.name] = -1; F841_USED[a.name] = false; }
        for a in p.args { F841_START[a.name] = -1; F841_USED[a.name] = false; }
        if !(p.vararg is none) { F841_START[p.vararg.name] = -1; F841_USED[p.vararg.name] = false; }
        for a in p.kwonlyargs { F841_START[a.name] = -1; F841_USED[a.name] = false; }
        if !(p.kwarg is none) { F841_START[p.kwarg.name] = -1; F841_USED[p.kwarg.name] = false; }
        for s in self.body { s.f841(); }
        // Reads by nested functions find this scope's last bindings.
        for n in keys(F841_PENDING) {
            if contains(F841_START, n) { F841_USED[n] = true; } else { F841_FREE[n] = true; }
        }
        if !F841_LOCALS {
            for n in keys(F841_START) {
                if F841_START[n] >= 0 && !F841_USED[n] && !f841_exempt(n) {
                    F841 = append(F841, Diag { start: F841_START[n],
                        message: "Local variable `" + n + "` is assigned to but never used" });
                }
            }
        }
        let out: {str: bool} = F841_FREE;
        F841_START = start; F841_USED = used; F841_DECL = decl; F841_PENDING = pending;
        F841_FREE = free; F841_LOCALS = locals; F841_WATCH = watch; F841_SNAP = snap;
        F841_INLINE = inline; F841_IN_INLINE = in_inline; F841_IN_COMP = in_comp; F841_UNPACKED = unpacked;
        for n in keys(out) { F841_PENDING[n] = true; }
    }
}
impl Lambda {
    traversal f841() {
        self.parameters.f841();
        let start: {str: i64} = F841_START; let used: {str: bool} = F841_USED;
        let decl: {str: bool} = F841_DECL; let pending: {str: bool} = F841_PENDING;
        let free: {str: bool} = F841_FREE; let locals: bool = F841_LOCALS;
        let watch: {str: bool} = F841_WATCH; let snap: {str: bool} = F841_SNAP;
        let inline: {str: bool} = F841_INLINE; let in_inline: bool = F841_IN_INLINE; let in_comp: bool = F841_IN_COMP;
        F841_START = {}; F841_USED = {}; F841_DECL = {}; F841_PENDING = {}; F841_FREE = {};
        F841_LOCALS = false; F841_WATCH = {}; F841_SNAP = {};
        F841_INLINE = {}; F841_IN_INLINE = false; F841_IN_COMP = false;
        if !(self.parameters is none) {
            let p = (self.parameters as Parameters);
            for a in p.posonlyargs { F841_START[a.name] = -1; F841_USED[a.name] = false; }
            for a in p.args { F841_START[a.name] = -1; F841_USED[a.name] = false; }
            if !(p.vararg is none) { F841_START[p.vararg.name] = -1; F841_USED[p.vararg.name] = false; }
            for a in p.kwonlyargs { F841_START[a.name] = -1; F841_USED[a.name] = false; }
            if !(p.kwarg is none) { F841_START[p.kwarg.name] = -1; F841_USED[p.kwarg.name] = false; }
        }
        self.body.f841();
        for n in keys(F841_PENDING) {
            if contains(F841_START, n) { F841_USED[n] = true; } else { F841_FREE[n] = true; }
        }
        for n in keys(F841_START) {
            if F841_START[n] >= 0 && !F841_USED[n] && !f841_exempt(n) {
                F841 = append(F841, Diag { start: F841_START[n],
                    message: "Local variable `" + n + "` is assigned to but never used" });
            }
        }
        let out: {str: bool} = F841_FREE;
        F841_START = start; F841_USED = used; F841_DECL = decl; F841_PENDING = pending;
        F841_FREE = free; F841_LOCALS = locals; F841_WATCH = watch; F841_SNAP = snap;
        F841_INLINE = inline; F841_IN_INLINE = in_inline; F841_IN_COMP = in_comp;
        // A name the comprehension around the lambda binds is that comprehension's.
        for n in keys(out) {
            if F841_IN_COMP && contains(F841_INLINE, n) { F841_INLINE[n] = true; }
            else { F841_PENDING[n] = true; }
        }
    }
}
