// Python's syntax tree, as the parser of ruff (`ruff_python_ast`) builds it,
// written as treefuse tree types. Every node of a parsed module has a node
// here (nothing is dropped); the lowering in `src/lower.rs` is a one-to-one
// copy. Names follow Python's `ast` module where they do not clash with a
// base type of this file (`Expr` the statement is `ExprStmt`).
//
// Children are declared in the order Python evaluates them (an
// assignment's value before its targets, a loop's iterable before its
// target, a comprehension's generators before its element), so the default
// walk (LANGUAGE §8.1) visits them in that order, and a rule that must
// follow evaluation order (the scopes of F841) fuses with the others.
//
// Every node records `start`, the byte offset where its source range
// begins; the host turns offsets into line and column only for the
// diagnostics it prints. Names in the source (a function's name, an
// `except ... as NAME`) carry their own offset where a rule reports them.
// An absent identifier is the empty string (Python identifiers are never
// empty).

enum Operator { Add, Sub, Mult, MatMult, Div, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd, FloorDiv }
enum UnaryOperator { Invert, Not, UAdd, USub }
enum BoolOperator { And, Or }
enum CmpOperator { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn }
enum ExprContext { Load, Store, Del, Invalid }
enum NumberKind { Int, Float, Complex }
enum Singleton { None, True, False }

abstract tree Node { start: i64; }

// One source file: the root of a tree.
tree Module : Node { child body: [Stmt]; }

// ---------------------------------------------------------------- statements

abstract tree Stmt : Node {}

tree FunctionDef : Stmt {
    is_async: bool;
    name: str;
    name_start: i64;
    child decorators: [Decorator];
    child type_params: [TypeParam];
    child parameters: Parameters;
    child returns: Expr?;
    child body: [Stmt];
}
tree ClassDef : Stmt {
    name: str;
    name_start: i64;
    child decorators: [Decorator];
    child type_params: [TypeParam];
    // The parenthesized arguments after the name: bases, then keywords.
    child bases: [Expr];
    child keywords: [Keyword];
    child body: [Stmt];
}
tree Return : Stmt { child value: Expr?; }
tree Delete : Stmt { child targets: [Expr]; }
tree TypeAlias : Stmt { child name: Expr; child type_params: [TypeParam]; child value: Expr; }
tree Assign : Stmt { child value: Expr; child targets: [Expr]; }
tree AugAssign : Stmt { child value: Expr; op: Operator; child target: Expr; }
tree AnnAssign : Stmt { child annotation: Expr; child value: Expr?; child target: Expr; simple: bool; }
tree For : Stmt { is_async: bool; child iter: Expr; child target: Expr; child body: [Stmt]; child orelse: [Stmt]; }
tree While : Stmt { child test: Expr; child body: [Stmt]; child orelse: [Stmt]; }
// `if`, then its `elif` and `else` clauses in order (an `else` has no test).
tree If : Stmt { child test: Expr; child body: [Stmt]; child clauses: [ElifElse]; }
tree With : Stmt { is_async: bool; child items: [WithItem]; child body: [Stmt]; }
tree Match : Stmt { child subject: Expr; child cases: [MatchCase]; }
tree Raise : Stmt { child exc: Expr?; child cause: Expr?; }
tree Try : Stmt {
    is_star: bool;
    child body: [Stmt];
    child handlers: [ExceptHandler];
    child orelse: [Stmt];
    child finalbody: [Stmt];
}
tree Assert : Stmt { child test: Expr; child msg: Expr?; }
tree Import : Stmt { child names: [Alias]; }
// `module` is empty for `from . import x`; `level` counts the dots.
tree ImportFrom : Stmt { module: str; level: i64; child names: [Alias]; }
tree Global : Stmt { child names: [Identifier]; }
tree Nonlocal : Stmt { child names: [Identifier]; }
tree ExprStmt : Stmt { child value: Expr; }
tree Pass : Stmt {}
tree Break : Stmt {}
tree Continue : Stmt {}

// --------------------------------------------------------------- expressions

// `end`: the byte offset where the expression's source range ends (a rule
// quotes an expression's source with `source_snippet(e.start, e.end)`).
abstract tree Expr : Node { end: i64; }

tree BoolOp : Expr { op: BoolOperator; child values: [Expr]; }
tree Named : Expr { child value: Expr; child target: Expr; }
tree BinOp : Expr { child left: Expr; op: Operator; child right: Expr; }
tree UnaryOp : Expr { op: UnaryOperator; child operand: Expr; }
tree Lambda : Expr { child parameters: Parameters?; child body: Expr; }
tree IfExp : Expr { child test: Expr; child body: Expr; child orelse: Expr; }
tree Dict : Expr { child items: [DictItem]; }
tree Set : Expr { child elts: [Expr]; }
// The comprehensions (`[..]`, `{..}`, `{k: v ..}`, `(..)`): a scope of
// their own; the generators are evaluated before what they build.
abstract tree Comp : Expr { child generators: [Comprehension]; }
tree ListComp : Comp { child elt: Expr; }
tree SetComp : Comp { child elt: Expr; }
tree DictComp : Comp { child key: Expr?; child value: Expr; }
tree Generator : Comp { child elt: Expr; parenthesized: bool; }
tree Await : Expr { child value: Expr; }
tree Yield : Expr { child value: Expr?; }
tree YieldFrom : Expr { child value: Expr; }
// `left ops[0] comparators[0] ops[1] comparators[1] ...`
tree Compare : Expr { child left: Expr; ops: [CmpOperator]; child comparators: [Expr]; }
tree Call : Expr { child func: Expr; child args: [Expr]; child keywords: [Keyword]; }
// An f-string, or several string parts written next to each other of which
// at least one is an f-string (implicit concatenation).
tree FString : Expr { child parts: [StringPart]; }
// A t-string (Python 3.14), parts as for `FString`.
tree TString : Expr { child parts: [StringPart]; }
// `value` is the concatenation of its parts' values.
tree StringLiteral : Expr { value: str; implicit_concatenated: bool; }
tree BytesLiteral : Expr { implicit_concatenated: bool; }
// `text` is the number as written in the source (`0x10`, `1_000`, `2j`).
tree NumberLiteral : Expr { kind: NumberKind; text: str; }
tree BooleanLiteral : Expr { value: bool; }
tree NoneLiteral : Expr {}
tree EllipsisLiteral : Expr {}
tree Attribute : Expr { child value: Expr; attr: str; ctx: ExprContext; }
tree Subscript : Expr { child value: Expr; child slice: Expr; ctx: ExprContext; }
tree Starred : Expr { child value: Expr; ctx: ExprContext; }
tree Name : Expr { id: str; ctx: ExprContext; }
tree List : Expr { child elts: [Expr]; ctx: ExprContext; }
tree Tuple : Expr { child elts: [Expr]; ctx: ExprContext; parenthesized: bool; }
tree Slice : Expr { child lower: Expr?; child upper: Expr?; child step: Expr?; }

// ------------------------------------------- parts of f-strings and t-strings

abstract tree StringPart : Node {}
// A plain string literal between f-string parts.
tree LiteralPart : StringPart { value: str; }
// One `f"..."` (or `t"..."`) literal: text and `{...}` interpolations.
tree InterpolatedPart : StringPart { child elements: [InterpolatedElement]; }

abstract tree InterpolatedElement : Node {}
tree LiteralElement : InterpolatedElement { value: str; }
// `{expression!conversion:format_spec}`; `conversion` is `s`, `r`, `a` or
// empty, `debug` whether the expression is followed by `=`.
tree Interpolation : InterpolatedElement {
    child expression: Expr;
    debug: bool;
    conversion: str;
    has_format_spec: bool;
    child format_spec: [InterpolatedElement];
}

// ---------------------------------------------------------- the other nodes

// `else` (no test) or `elif test`.
tree ElifElse : Node { child test: Expr?; child body: [Stmt]; }
tree Decorator : Node { child expression: Expr; }
// A function's or lambda's parameters, in the groups Python has.
tree Parameters : Node {
    child posonlyargs: [Parameter];
    child args: [Parameter];
    child vararg: Parameter?;
    child kwonlyargs: [Parameter];
    child kwarg: Parameter?;
}
// `default` is empty for `*args`, `**kwargs` and parameters without one.
// `start` is at the star of `*args` and `**kwargs`, `name_start` at the name.
tree Parameter : Node { name: str; name_start: i64; child annotation: Expr?; child default: Expr?; }
// `arg` is empty for `**mapping`.
tree Keyword : Node { arg: str; child value: Expr; }
// `import name as asname` (`asname` empty when absent).
tree Alias : Node { name: str; asname: str; }
// A name of `global` and `nonlocal`.
tree Identifier : Node { id: str; }
tree WithItem : Node { child context_expr: Expr; child optional_vars: Expr?; }
tree DictItem : Node { child key: Expr?; child value: Expr; }
tree Comprehension : Node { is_async: bool; child iter: Expr; child target: Expr; child ifs: [Expr]; }
// `except exc_type as name:` (`name` empty and `name_start` 0 when absent).
tree ExceptHandler : Node { child exc_type: Expr?; name: str; name_start: i64; child body: [Stmt]; }
tree MatchCase : Node { child pattern: Pattern; child guard: Expr?; child body: [Stmt]; }

abstract tree TypeParam : Node { name: str; }
tree TypeVar : TypeParam { child bound: Expr?; child default: Expr?; }
tree TypeVarTuple : TypeParam { child default: Expr?; }
tree ParamSpec : TypeParam { child default: Expr?; }

abstract tree Pattern : Node {}
tree MatchValue : Pattern { child value: Expr; }
tree MatchSingleton : Pattern { value: Singleton; }
tree MatchSequence : Pattern { child patterns: [Pattern]; }
tree MatchMapping : Pattern { child keys: [Expr]; child patterns: [Pattern]; rest: str; rest_start: i64; }
tree MatchClass : Pattern { child cls: Expr; child patterns: [Pattern]; child keywords: [PatternKeyword]; }
tree PatternKeyword : Node { attr: str; child pattern: Pattern; }
tree MatchStar : Pattern { name: str; name_start: i64; }
// Captured names carry their offset (`name_start`, `rest_start`; 0 when absent).
tree MatchAs : Pattern { child pattern: Pattern?; name: str; name_start: i64; }
tree MatchOr : Pattern { child patterns: [Pattern]; }

// ------------------------------------------------------------- diagnostics

// The source text from byte offset `start` to `end` of the file being
// linted, or "..." when it is wider than 50 columns or spans lines: how
// ruff quotes code in a message. Supplied by the host (`src/host.rs`).
pure fn source_snippet(start: i64, end: i64) -> str;

// One finding of a rule: where it starts (a byte offset of the file) and
// ruff's message for it. Each rule appends to its own global array, named
// by its code, so the rules never share an effect and fuse freely.
record Diag { start: i64, message: str }
