// B006 mutable-argument-default: a default of a `def`'s parameter (not a
// lambda's, not `*args`/`**kwargs`) that is a mutable expression, unless the
// parameter's annotation is immutable; reported at the default.
// As ruff's `is_mutable_expr`: a list, dict or set display or comprehension,
// or a call of a function whose qualified name is `list`, `dict`, `set`
// (builtins, unshadowed, or through `import builtins`) or
// `collections.{Counter,OrderedDict,defaultdict,deque}` (`f[...]()` calls
// `f`). As `is_immutable_annotation`: `None`, a name of an immutable type
// (`int`, `str`, `tuple`, `typing.Sequence`, ...), `G[...]` of an immutable
// generic `G`, `Union[...]` whose elements all are, `Optional[X]` and
// `Annotated[X, ...]` for an immutable `X`, and `X | Y` for both.
// Qualified names follow ruff's resolution: a map of the names bound in the
// visible scopes (imports to their dotted path, any other binding to ""),
// builtins written `.name` (ruff's segments ["", name]); class scopes are
// invisible from the functions inside them. Expressions are evaluated
// bottom-up: each visit leaves its qualified name in B006_Q, whether it is
// an immutable annotation in B006_IMM and a mutable expression in B006_MUT.
// Only a parameter's annotation and default need them: the walk's argument
// `eval` is true below those, and elsewhere names are neither looked up nor
// joined into dotted paths (bindings are recorded everywhere).
global B006: [Diag] = [];
// Bindings visible here, and those a function defined here would see.
global B006_SCOPE: {str: str} = {};
global B006_BASE: {str: str} = {};
global B006_IN_CLASS: bool = false;
// Store names of `x: T` (no value) are annotations, not bindings.
global B006_NO_BIND: bool = false;
global B006_IN_LAMBDA: bool = false;
global B006_Q: str = "";
global B006_IMM: bool = false;
global B006_MUT: bool = false;
// For a tuple just visited: all its elements, its first element immutable.
global B006_IMM_ALL: bool = false;
global B006_IMM_FIRST: bool = false;

pure fn b006_first_segment(s: str) -> str {
    for i in 0..len(s) { if substr(s, i, i + 1) == "." { return substr(s, 0, i); } }
    return s;
}
pure fn b006_mutable_call(q: str) -> bool =
    q == ".dict" || q == ".list" || q == ".set"
    || q == "builtins.dict" || q == "builtins.list" || q == "builtins.set"
    || q == "collections.Counter" || q == "collections.OrderedDict"
    || q == "collections.defaultdict" || q == "collections.deque";
pure fn b006_immutable_plain(q: str) -> bool =
    q == "collections.abc.Sized" || q == "typing.LiteralString" || q == "typing.Sized"
    || q == ".bool" || q == ".bytes" || q == ".complex" || q == ".float"
    || q == ".int" || q == ".object" || q == ".range" || q == ".str";
pure fn b006_immutable_generic(q: str) -> bool =
    q == ".frozenset" || q == ".tuple" || q == ".frozendict"
    || q == "builtins.frozenset" || q == "builtins.tuple" || q == "builtins.frozendict"
    || q == "collections.abc.ByteString" || q == "collections.abc.Collection"
    || q == "collections.abc.Container" || q == "collections.abc.Iterable"
    || q == "collections.abc.Mapping" || q == "collections.abc.Reversible"
    || q == "collections.abc.Sequence" || q == "collections.abc.Set"
    || q == "typing.AbstractSet" || q == "typing.ByteString" || q == "typing.Callable"
    || q == "typing.Collection" || q == "typing.Container" || q == "typing.FrozenSet"
    || q == "typing.Iterable" || q == "typing.Literal" || q == "typing.Mapping"
    || q == "typing.Never" || q == "typing.NoReturn" || q == "typing.Reversible"
    || q == "typing.Sequence" || q == "typing.Tuple";

// Whether binding `name` can change what a later name resolves to: it is
// bound already (an import, say, that it shadows), or it is a builtin that
// the rule knows by name. Binding any other name leaves it unresolved
// either way (`.name`, a builtin the rule does not know), so it is not
// recorded: most bindings of a program are not.
pure fn b006_matters(scope: {str: str}, name: str) -> bool =
    contains(scope, name) || match name {
        "dict" | "list" | "set" | "bool" | "bytes" | "complex" | "float" | "int" | "object"
            | "range" | "str" | "frozenset" | "tuple" | "frozendict" | "builtins" => true,
        _ => false,
    };

impl Node { traversal b006(eval: bool) walk; }

// ------------------------------------------------------------ expressions
impl Expr {
    traversal b006(eval: bool) { walk; B006_Q = ""; B006_IMM = false; B006_MUT = false; }
}
impl Name {
    traversal b006(eval: bool) {
        if self.ctx == ExprContext::Load {
            B006_Q = if !eval { "" } else if contains(B006_SCOPE, self.id) { B006_SCOPE[self.id] }
                else { "." + self.id };
        } else {
            B006_Q = "";
            if !B006_NO_BIND && b006_matters(B006_SCOPE, self.id) {
                B006_SCOPE[self.id] = "";
                if !B006_IN_CLASS { B006_BASE[self.id] = ""; }
            }
        }
        B006_IMM = B006_Q != "" && (b006_immutable_plain(B006_Q) || b006_immutable_generic(B006_Q));
        B006_MUT = false;
    }
}
impl Attribute {
    traversal b006(eval: bool) {
        walk;
        B006_Q = if eval && (self.value is Name || self.value is Attribute) && B006_Q != "" {
            B006_Q + "." + self.attr
        } else { "" };
        B006_IMM = B006_Q != "" && (b006_immutable_plain(B006_Q) || b006_immutable_generic(B006_Q));
        B006_MUT = false;
    }
}
impl Subscript {
    traversal b006(eval: bool) {
        self.value.b006(eval);
        let q: str = if self.value is Name || self.value is Attribute { B006_Q } else { "" };
        self.slice.b006(eval);
        let tuple: bool = self.slice is Tuple;
        if q == "" {
            B006_IMM = false;
        } else if b006_immutable_generic(q) {
            B006_IMM = true;
        } else if q == "typing.Union" {
            B006_IMM = tuple && B006_IMM_ALL;
        } else if q == "typing.Optional" {
            // B006_IMM is the slice's.
        } else if q == "typing.Annotated" || q == "typing_extensions.Annotated" {
            B006_IMM = tuple && B006_IMM_FIRST;
        } else {
            B006_IMM = false;
        }
        // A call of `f[...]` is a call of `f` (ruff's `map_subscript`).
        B006_Q = q;
        B006_MUT = false;
    }
}
impl Tuple {
    traversal b006(eval: bool) {
        let all: bool = true;
        let first: bool = false;
        let i: i64 = 0;
        for e in self.elts {
            e.b006(eval);
            if i == 0 { first = B006_IMM; }
            all = all && B006_IMM;
            i = i + 1;
        }
        B006_IMM_ALL = all;
        B006_IMM_FIRST = first;
        B006_Q = ""; B006_IMM = false; B006_MUT = false;
    }
}
impl BinOp {
    traversal b006(eval: bool) {
        self.left.b006(eval);
        let left: bool = B006_IMM;
        self.right.b006(eval);
        B006_IMM = self.op == Operator::BitOr && left && B006_IMM;
        B006_Q = ""; B006_MUT = false;
    }
}
impl NoneLiteral { traversal b006(eval: bool) { B006_Q = ""; B006_IMM = true; B006_MUT = false; } }
impl Call {
    traversal b006(eval: bool) {
        self.func.b006(eval);
        let q: str = B006_Q;
        for a in self.args { a.b006(eval); }
        for k in self.keywords { k.b006(eval); }
        B006_Q = ""; B006_IMM = false;
        B006_MUT = q != "" && b006_mutable_call(q);
    }
}
impl List { traversal b006(eval: bool) { walk; B006_Q = ""; B006_IMM = false; B006_MUT = true; } }
impl Dict { traversal b006(eval: bool) { walk; B006_Q = ""; B006_IMM = false; B006_MUT = true; } }
impl Set { traversal b006(eval: bool) { walk; B006_Q = ""; B006_IMM = false; B006_MUT = true; } }
// Comprehensions have their own scope: their targets do not leak.
// A comprehension's bindings stay inside it; the displays it builds are
// mutable, a generator is not.
impl Comp {
    traversal b006(eval: bool) {
        let scope: {str: str} = B006_SCOPE; let base: {str: str} = B006_BASE;
        walk;
        B006_SCOPE = scope; B006_BASE = base;
        B006_Q = ""; B006_IMM = false; B006_MUT = !(self is Generator);
    }
}
impl Lambda {
    traversal b006(eval: bool) {
        let outer: bool = B006_IN_LAMBDA;
        B006_IN_LAMBDA = true;
        walk;
        B006_IN_LAMBDA = outer;
        B006_Q = ""; B006_IMM = false; B006_MUT = false;
    }
}

// ------------------------------------------------------------ parameters
impl Parameter {
    traversal b006(eval: bool) {
        self.annotation.b006(true);
        let immutable: bool = !(self.annotation is none) && B006_IMM;
        self.default.b006(true);
        if !B006_IN_LAMBDA && !(self.default is none) && B006_MUT && !immutable {
            B006 = append(B006, Diag { start: self.default.start,
                message: "Do not use mutable data structures for argument defaults" });
        }
    }
}

// ------------------------------------------------------------ bindings
impl AnnAssign {
    traversal b006(eval: bool) {
        let outer: bool = B006_NO_BIND;
        B006_NO_BIND = self.value is none;
        walk;
        B006_NO_BIND = outer;
    }
}
impl Import {
    traversal b006(eval: bool) {
        for a in self.names {
            let bound: str = if a.asname != "" { a.asname } else { b006_first_segment(a.name) };
            let q: str = if a.asname != "" { a.name } else { bound };
            B006_SCOPE[bound] = q;
            if !B006_IN_CLASS { B006_BASE[bound] = q; }
        }
    }
}
impl ImportFrom {
    traversal b006(eval: bool) {
        for a in self.names {
            if a.name != "*" {
                let bound: str = if a.asname != "" { a.asname } else { a.name };
                // Relative imports resolve against the module's own path: never
                // one of the names this rule knows.
                let q: str = if self.level > 0 { "" } else { self.module + "." + a.name };
                B006_SCOPE[bound] = q;
                if !B006_IN_CLASS { B006_BASE[bound] = q; }
            }
        }
    }
}
impl Global {
    traversal b006(eval: bool) {
        for n in self.names { B006_SCOPE[n.id] = ""; if !B006_IN_CLASS { B006_BASE[n.id] = ""; } }
    }
}
impl Nonlocal {
    traversal b006(eval: bool) {
        for n in self.names { B006_SCOPE[n.id] = ""; if !B006_IN_CLASS { B006_BASE[n.id] = ""; } }
    }
}
impl MatchAs {
    traversal b006(eval: bool) {
        walk;
        if self.name != "" { B006_SCOPE[self.name] = ""; if !B006_IN_CLASS { B006_BASE[self.name] = ""; } }
    }
}
impl MatchStar {
    traversal b006(eval: bool) {
        if self.name != "" { B006_SCOPE[self.name] = ""; if !B006_IN_CLASS { B006_BASE[self.name] = ""; } }
    }
}
impl MatchMapping {
    traversal b006(eval: bool) {
        walk;
        if self.rest != "" { B006_SCOPE[self.rest] = ""; if !B006_IN_CLASS { B006_BASE[self.rest] = ""; } }
    }
}
// `except E as name:` binds `name` in the handler only; the previous
// binding comes back after it.
impl ExceptHandler {
    traversal b006(eval: bool) {
        let scope: {str: str} = B006_SCOPE; let base: {str: str} = B006_BASE;
        if self.name != "" {
            B006_SCOPE[self.name] = "";
            if !B006_IN_CLASS { B006_BASE[self.name] = ""; }
        }
        walk;
        if self.name != "" {
            B006_SCOPE = if contains(scope, self.name) { insert(B006_SCOPE, self.name, scope[self.name]) }
                else { remove(B006_SCOPE, self.name) };
            B006_BASE = if contains(base, self.name) { insert(B006_BASE, self.name, base[self.name]) }
                else { remove(B006_BASE, self.name) };
        }
    }
}
impl ClassDef {
    traversal b006(eval: bool) {
        let scope: {str: str} = B006_SCOPE; let base: {str: str} = B006_BASE;
        let in_class: bool = B006_IN_CLASS;
        B006_IN_CLASS = true;
        walk;
        B006_SCOPE = scope; B006_BASE = base; B006_IN_CLASS = in_class;
        B006_SCOPE[self.name] = "";
        if !B006_IN_CLASS { B006_BASE[self.name] = ""; }
    }
}
impl FunctionDef {
    traversal b006(eval: bool) {
        for d in self.decorators { d.b006(eval); }
        for t in self.type_params { t.b006(eval); }
        self.parameters.b006(eval);
        self.returns.b006(eval);
        let scope: {str: str} = B006_SCOPE; let base: {str: str} = B006_BASE;
        let in_class: bool = B006_IN_CLASS;
        B006_SCOPE = B006_BASE;
        B006_IN_CLASS = false;
        let p = self.parameters;
        for a in p.posonlyargs { if b006_matters(B006_SCOPE, a.name) { B006_SCOPE[a.name] = ""; } }
        for a in p.args { if b006_matters(B006_SCOPE, a.name) { B006_SCOPE[a.name] = ""; } }
        if !(p.vararg is none) && b006_matters(B006_SCOPE, p.vararg.name) { B006_SCOPE[p.vararg.name] = ""; }
        for a in p.kwonlyargs { if b006_matters(B006_SCOPE, a.name) { B006_SCOPE[a.name] = ""; } }
        if !(p.kwarg is none) && b006_matters(B006_SCOPE, p.kwarg.name) { B006_SCOPE[p.kwarg.name] = ""; }
        B006_BASE = B006_SCOPE;
        for s in self.body { s.b006(eval); }
        B006_SCOPE = scope; B006_BASE = base; B006_IN_CLASS = in_class;
        B006_SCOPE[self.name] = "";
        if !B006_IN_CLASS { B006_BASE[self.name] = ""; }
    }
}
