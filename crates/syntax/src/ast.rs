//! The syntax tree: the program exactly as written, with spans.
//!
//! Nothing here is resolved: names are strings, types are as written. The
//! semantic checker (`treefuse-sema`) turns this into the checked model.
//! Tree paths, data paths and field reads all share [`ExprKind::Field`];
//! only the checker knows which names are children, data or records.

use crate::span::Span;

/// An identifier with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A whole source file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceFile {
    /// Items in source order.
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `global NAME: T = e;`
    Global(GlobalDecl),
    /// `record NAME { ... }`
    Record(RecordDecl),
    /// `[abstract] tree NAME [: BASE] { ... }`
    Tree(TreeDecl),
    /// `pure fn NAME(...) -> T ...`
    PureFn(PureFnDecl),
    /// `fuse NAME(root: T, ...) { ... }`
    Fuse(FuseDecl),
    /// `enum NAME { A, B, ... }`
    Enum(EnumDecl),
    /// `impl NAME { traversal ... }` (LANGUAGE.md §8.2): traversals added
    /// to a tree type declared elsewhere.
    Impl(ImplDecl),
}

/// `impl NAME { traversal ...* }`: traversal declarations and bodies of
/// the tree type `NAME`, exactly as if written inside its declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct ImplDecl {
    /// The tree type extended.
    pub ty: Ident,
    /// The traversals, in order.
    pub traversals: Vec<TraversalDecl>,
    /// The whole item.
    pub span: Span,
}

/// `enum NAME { A, B, ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    /// Name.
    pub name: Ident,
    /// Variants in declaration order (which is their order as map keys).
    pub variants: Vec<Ident>,
    /// The whole item.
    pub span: Span,
}

/// A type as written: `i64`, `Border`, `[i64]`, `Element`, `[Stmt]`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExpr {
    /// A named type.
    Named(Ident),
    /// `[T]`.
    Array(Box<TypeExpr>, Span),
    /// `{K: V}`.
    Map(Box<TypeExpr>, Box<TypeExpr>, Span),
    /// `T?`: an optional child (LANGUAGE §8.7); only a single child's
    /// type may be optional, which the checker enforces.
    Optional(Box<TypeExpr>, Span),
}

impl TypeExpr {
    /// Where the type is written.
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(i) => i.span,
            TypeExpr::Array(_, s) | TypeExpr::Map(_, _, s) | TypeExpr::Optional(_, s) => *s,
        }
    }
}

/// `global NAME: T = e;`
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalDecl {
    /// Name.
    pub name: Ident,
    /// Declared type.
    pub ty: TypeExpr,
    /// Constant initial value.
    pub init: Expr,
    /// The whole item.
    pub span: Span,
}

/// A `name: T` pair in a record or parameter list.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Name.
    pub name: Ident,
    /// Type.
    pub ty: TypeExpr,
}

/// `record NAME { f: T, ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct RecordDecl {
    /// Name.
    pub name: Ident,
    /// Fields in order.
    pub fields: Vec<Param>,
    /// The whole item.
    pub span: Span,
}

/// `[abstract] tree NAME [: BASE] { members }`
#[derive(Clone, Debug, PartialEq)]
pub struct TreeDecl {
    /// Whether `abstract` was written.
    pub is_abstract: bool,
    /// Name.
    pub name: Ident,
    /// Base type, if any.
    pub base: Option<Ident>,
    /// Fields and traversals in order.
    pub members: Vec<TreeMember>,
    /// The whole item.
    pub span: Span,
}

/// A member of a tree type.
#[derive(Clone, Debug, PartialEq)]
pub enum TreeMember {
    /// `child NAME: T;` or `child NAME: [T];`
    Child {
        /// Name.
        name: Ident,
        /// Node type, or `[T]` for a list of children.
        ty: TypeExpr,
        /// The whole member.
        span: Span,
    },
    /// `NAME: T [= default];`
    Data {
        /// Name.
        name: Ident,
        /// Data type.
        ty: TypeExpr,
        /// Default value, a constant expression.
        default: Option<Expr>,
        /// The whole member.
        span: Span,
    },
    /// `traversal NAME(params) { body }` or `traversal NAME(params);`
    Traversal(TraversalDecl),
    /// `NAME = default;`: a subtype's own default for an inherited data
    /// field (LANGUAGE.md §8.3).
    Default {
        /// The inherited field.
        name: Ident,
        /// Its new default, a constant expression.
        value: Expr,
        /// The whole member.
        span: Span,
    },
}

/// A traversal declaration or definition.
#[derive(Clone, Debug, PartialEq)]
pub struct TraversalDecl {
    /// Name.
    pub name: Ident,
    /// Parameters (data only).
    pub params: Vec<Param>,
    /// The body; `None` when declared without one. A default walk
    /// (`traversal f(..) walk;`) is the block `{ walk; }`.
    pub body: Option<Block>,
    /// Whether the body is the default walk, written `walk;` in place of a
    /// block (LANGUAGE.md §8.1).
    pub is_walk: bool,
    /// The whole member.
    pub span: Span,
}

/// The body of a pure function.
#[derive(Clone, Debug, PartialEq)]
pub enum PureBody {
    /// `= expr;`
    Expr(Expr),
    /// `{ statements }`
    Block(Block),
    /// No body: supplied by the host.
    Host,
}

/// `pure fn NAME(params) -> T body`
#[derive(Clone, Debug, PartialEq)]
pub struct PureFnDecl {
    /// Name.
    pub name: Ident,
    /// Parameters.
    pub params: Vec<Param>,
    /// Result type.
    pub ret: TypeExpr,
    /// Body.
    pub body: PureBody,
    /// The whole item.
    pub span: Span,
}

/// `fuse NAME(root: T, extra: U) { root.f(); ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct FuseDecl {
    /// Name.
    pub name: Ident,
    /// Parameters; the first is the root node.
    pub params: Vec<Param>,
    /// The call sequence (checked to contain only calls on the root).
    pub body: Block,
    /// The whole item.
    pub span: Span,
}

/// `{ stmt* }`
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
}

/// Statement forms.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `receiver.method(args);`
    Call {
        /// The node the traversal runs on (`self`, `self.c`, `x`).
        receiver: Expr,
        /// Traversal name.
        method: Ident,
        /// Arguments.
        args: Vec<Expr>,
    },
    /// `let NAME [: T] = e;`
    Let {
        /// Bound name.
        name: Ident,
        /// Optional type annotation.
        ty: Option<TypeExpr>,
        /// Value (a data expression or a tree path).
        init: Expr,
    },
    /// `place = e;` (also `slot = new T {..};` and `slot = path;`).
    Assign {
        /// Left-hand side.
        target: Expr,
        /// Right-hand side.
        value: Expr,
    },
    /// `if c { } else ...`
    If {
        /// Condition.
        cond: Expr,
        /// Then branch.
        then_block: Block,
        /// `else` block, or an `else if` as a one-statement block.
        else_block: Option<Block>,
    },
    /// `for NAME in ITER { }`; `ITER` is a list child, an array, or a range.
    For {
        /// Loop variable.
        var: Ident,
        /// What is iterated.
        iter: ForIter,
        /// Body.
        body: Block,
    },
    /// `return;` or `return e;` (pure functions).
    Return(Option<Expr>),
    /// `walk;` or `walk(args);` (LANGUAGE.md §8.1): the walk body of the
    /// receiver's concrete type, with the traversal's own arguments
    /// (`None`) or with these.
    Walk(Option<Vec<Expr>>),
    /// `while COND limit N { }` (in `fuse` items, LANGUAGE §7.7, and in
    /// traversals, §8.6).
    While {
        /// Condition, read before each iteration.
        cond: Expr,
        /// The iteration limit as written, any `i64` expression (`None`
        /// when `limit N` is missing, which the checker reports).
        limit: Option<Expr>,
        /// Body.
        body: Block,
    },
    /// `break;` (LANGUAGE §8.6): ends the innermost `while` loop. `break`
    /// is an ordinary name everywhere else.
    Break,
}

/// What a `for` loop iterates over.
#[derive(Clone, Debug, PartialEq)]
pub enum ForIter {
    /// A list child (`self.stmts`) or an array value.
    Expr(Expr),
    /// `A..B`
    Range(Expr, Expr),
}

/// One arm of a `match`: patterns joined by `|`, and the value.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchArm {
    /// Literals, variants or `_` (a [`ExprKind::Name`] `_`), as written.
    pub patterns: Vec<Expr>,
    /// The arm's value.
    pub body: Expr,
    /// The whole arm.
    pub span: Span,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinaryOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// Expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal (a negated literal is folded, so `i64::MIN` fits).
    Int(i64),
    /// Float literal.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// String literal.
    Str(String),
    /// `self`
    SelfRef,
    /// A bare name: local, parameter, global, alias or loop variable.
    Name(Ident),
    /// `e.name`
    Field(Box<Expr>, Ident),
    /// `e[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `name(args)`: a pure function or built-in.
    Call(Ident, Vec<Expr>),
    /// Unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// Binary operation.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `[a, b, c]`; elements may be spreads `..PATH` (list values of
    /// children, LANGUAGE.md §7.2).
    Array(Vec<Expr>),
    /// `..PATH` inside a list value: the elements of a list child.
    Spread(Box<Expr>),
    /// `Rec { f: e, ... }`
    Record(Ident, Vec<(Ident, Expr)>),
    /// `new T { f: e, ... }`
    New(Ident, Vec<(Ident, Expr)>),
    /// `path is T`
    Is(Box<Expr>, Ident),
    /// `(path as T)`
    As(Box<Expr>, Ident),
    /// `if c { a } else { b }`
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A parenthesized expression (kept so that spans stay exact).
    Paren(Box<Expr>),
    /// `Enum::Variant`
    Variant(Ident, Ident),
    /// `match e { p1 | p2 => e1, _ => e2 }`
    Match(Box<Expr>, Vec<MatchArm>),
    /// `{k1: v1, k2: v2}` (a map value; `{}` is the empty map)
    Map(Vec<(Expr, Expr)>),
    /// Placeholder for an expression that failed to parse.
    Error,
}
