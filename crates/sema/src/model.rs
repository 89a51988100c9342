//! The checked program: the semantic model every later stage consumes.
//!
//! Names are resolved to dense ids ([`TypeId`], [`FieldId`], ...), every
//! expression carries its [`DataType`], overloaded operators are resolved
//! to monomorphic ones, and tree paths are explicit [`NodePath`]s. Access
//! analysis, fusion and both engines read this model and never look at the
//! syntax tree again; spans stay for diagnostics and runtime errors.
//!
//! Field layout follows single inheritance: a type's fields are its base's
//! fields followed by its own, so a field has the same slot index in every
//! subtype and engines index node storage without dispatch.

use crate::ops::{BinaryOp, Builtin, UnaryOp};
use crate::value::Value;
use treefuse_syntax::Span;

macro_rules! id_type {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
        #[$doc]
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub u32);
        impl $name {
            /// The id as an index.
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}

id_type! {
    /// A tree type.
    TypeId,
    /// A record type.
    RecordId,
    /// A field of a tree type (child, list or data).
    FieldId,
    /// A traversal *name* as declared on its topmost type; overrides share it.
    MethodId,
    /// One traversal definition (a body on a type, or a body-less declaration).
    BodyId,
    /// A pure function.
    PureFnId,
    /// A global.
    GlobalId,
    /// A data local (parameter, `let`, pure-function loop variable) in a frame.
    LocalId,
    /// A node variable in a frame: a tree alias or a `for` loop variable.
    NodeVarId,
    /// An enum type.
    EnumId,
}

/// The type of a data value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `i64`
    Int,
    /// `f64`
    Float,
    /// `bool`
    Bool,
    /// `str`
    Str,
    /// A record.
    Record(RecordId),
    /// `[T]`
    Array(Box<DataType>),
    /// An enum.
    Enum(EnumId),
    /// `{K: V}`: `K` is `i64`, `str`, `bool` or an enum.
    Map(Box<DataType>, Box<DataType>),
}

/// A checked program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Record types.
    pub records: Vec<Record>,
    /// Tree types.
    pub types: Vec<TreeType>,
    /// All fields of all tree types (each declared once, on its owner).
    pub fields: Vec<Field>,
    /// Traversal names.
    pub methods: Vec<Method>,
    /// Traversal definitions.
    pub bodies: Vec<TraversalBody>,
    /// Pure functions.
    pub pure_fns: Vec<PureFn>,
    /// Globals with their initial values.
    pub globals: Vec<Global>,
    /// `fuse` items.
    pub fuses: Vec<Fuse>,
    /// Enum types.
    pub enums: Vec<EnumDef>,
    /// Warnings of the checker (unreachable `match` patterns).
    pub warnings: Vec<treefuse_syntax::Diagnostic>,
    /// Traversals split into a head and a tail for the fuser (`split.rs`);
    /// their parts are synthetic methods at the end of `methods`.
    pub splits: Vec<SplitTraversal>,
}

/// A parameterless traversal `whole` and its synthetic parts: on every
/// type, running `head` then `tail` on a node runs exactly the statements
/// of `whole`, in order; `head` never replaces or leaves the node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitTraversal {
    /// The traversal written in the source.
    pub whole: MethodId,
    /// `whole$head`: its statements up to the last call on a child.
    pub head: MethodId,
    /// `whole$tail`: the rest.
    pub tail: MethodId,
    /// The concrete types on which the head runs a statement (directly, or
    /// in a head it calls): splitting a call on a node of another type
    /// only adds the tail's visit.
    pub walks: Vec<TypeId>,
}

/// An enum type.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// Variant names; a value of the enum is an index into them.
    pub variants: Vec<String>,
}

/// A record type.
#[derive(Clone, Debug)]
pub struct Record {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// Fields in order.
    pub fields: Vec<RecordField>,
}

/// A field of a record.
#[derive(Clone, Debug)]
pub struct RecordField {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: DataType,
}

/// A tree type.
#[derive(Clone, Debug)]
pub struct TreeType {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// `abstract`?
    pub is_abstract: bool,
    /// Direct base type.
    pub base: Option<TypeId>,
    /// Every field, inherited first; `fields[i]` lives in slot `i`.
    pub fields: Vec<FieldId>,
    /// This type and all its transitive subtypes that are concrete.
    pub concrete_subtypes: Vec<TypeId>,
    /// Dispatch table indexed by [`MethodId`]: the body that runs for a
    /// node of exactly this type, if the method is visible on it.
    pub vtable: Vec<Option<BodyId>>,
    /// Defaults this type gives inherited data fields (`name = value;`,
    /// LANGUAGE.md §8.3), its base's included; see
    /// [`Program::field_default`].
    pub default_overrides: Vec<(FieldId, Value)>,
}

/// What a field holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// `child name: T`
    Child(TypeId),
    /// `child name: [T]`
    List(TypeId),
    /// A data field.
    Data(DataType),
}

/// A field of a tree type.
#[derive(Clone, Debug)]
pub struct Field {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// The type that declares it.
    pub owner: TypeId,
    /// Slot index in every node of `owner` or a subtype.
    pub slot: u32,
    /// Kind and type.
    pub kind: FieldKind,
    /// Default value of a data field (the zero value if none was written).
    pub default: Option<Value>,
    /// `child name: T?` (LANGUAGE §8.7): a [`FieldKind::Child`] slot that
    /// may hold no node. Everything that treats it as a path step treats
    /// it as a child; engines check it is full where they follow it.
    pub optional: bool,
}

/// A traversal name, introduced by its topmost declaration.
#[derive(Clone, Debug)]
pub struct Method {
    /// Name.
    pub name: String,
    /// The type whose declaration introduced the name.
    pub declared_on: TypeId,
    /// Parameter types (overrides keep them).
    pub params: Vec<DataType>,
    /// The introducing declaration.
    pub span: Span,
}

/// One traversal definition on one type.
#[derive(Clone, Debug)]
pub struct TraversalBody {
    /// Which traversal this defines.
    pub method: MethodId,
    /// The type it is written on (the static type of `self`).
    pub owner: TypeId,
    /// Declaration.
    pub span: Span,
    /// Frame layout: data locals (parameters first) and node variables.
    pub frame: FrameLayout,
    /// Statements; `None` for a declaration without a body.
    pub body: Option<Vec<Stmt>>,
}

/// The locals of a traversal or pure function.
#[derive(Clone, Debug, Default)]
pub struct FrameLayout {
    /// Number of parameters; they occupy the first data locals.
    pub num_params: usize,
    /// Data locals: name and type.
    pub locals: Vec<(String, DataType)>,
    /// Node variables: tree aliases and `for` loop variables.
    pub node_vars: Vec<NodeVar>,
}

/// A node variable of a frame.
#[derive(Clone, Debug)]
pub struct NodeVar {
    /// Name as written.
    pub name: String,
    /// Static type.
    pub ty: TypeId,
    /// For an alias, the path it was bound to, with aliases in it already
    /// expanded (so it starts at `self` or at a loop variable). `None` for
    /// a `for` loop variable.
    pub origin: Option<NodePath>,
}

/// A pure function.
#[derive(Clone, Debug)]
pub struct PureFn {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// Types of the data parameters, in order (the first data locals of
    /// the frame).
    pub params: Vec<DataType>,
    /// Tree-node parameters (LANGUAGE §8.8), in order: node parameter `i`
    /// is node variable `i` of the frame, and stands at position `.0` of
    /// the parameter list as written (data parameters fill the other
    /// positions, in order). Empty for a function of data only.
    pub node_params: Vec<(usize, TypeId)>,
    /// Result type.
    pub ret: DataType,
    /// Frame layout (parameters first).
    pub frame: FrameLayout,
    /// Body.
    pub body: PureBody,
}

impl PureFn {
    /// The number of parameters as written (data and node parameters).
    pub fn arity(&self) -> usize {
        self.params.len() + self.node_params.len()
    }

    /// Whether parameter `i` as written is a tree node: `Some(k)` for
    /// node parameter `k`, `None` for a data parameter.
    pub fn node_param_at(&self, i: usize) -> Option<usize> {
        self.node_params.iter().position(|(p, _)| *p == i)
    }
}

/// The body of a pure function.
#[derive(Clone, Debug)]
pub enum PureBody {
    /// `= expr;`
    Expr(Expr),
    /// A block that returns on every path.
    Block(Vec<Stmt>),
    /// Supplied by the host program.
    Host,
}

/// A global.
#[derive(Clone, Debug)]
pub struct Global {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// Type.
    pub ty: DataType,
    /// Initial value.
    pub init: Value,
}

/// A `fuse` item: a sequence of traversal calls on one root.
#[derive(Clone, Debug)]
pub struct Fuse {
    /// Name.
    pub name: String,
    /// Declaration.
    pub span: Span,
    /// Name of the root parameter.
    pub root_name: String,
    /// Static type of the root.
    pub root_type: TypeId,
    /// Extra parameters (data locals `0..n` of the fuse frame).
    pub frame: FrameLayout,
    /// Every call of the item, in the order written (indexed by
    /// [`FuseStmt::Call`]).
    pub calls: Vec<FuseCall>,
    /// What the item runs: calls, global assignments and `while` loops
    /// (LANGUAGE §7.7). An item of calls only is `[Call(0), Call(1), ..]`.
    pub body: Vec<FuseStmt>,
}

/// A statement of a `fuse` item.
#[derive(Clone, Debug)]
pub enum FuseStmt {
    /// `root.f(args);`: index into [`Fuse::calls`].
    Call(usize),
    /// `g = e;` on a global.
    SetGlobal {
        /// The global.
        global: GlobalId,
        /// The new value (reads parameters and globals).
        value: Expr,
        /// The statement.
        span: Span,
    },
    /// `while cond limit N { body }`: runs `body` while `cond` holds,
    /// at most `limit` times; reaching the limit is not an error.
    While {
        /// Read before each iteration.
        cond: Expr,
        /// An `i64` expression (parameters, globals, constants), evaluated
        /// once before the first iteration; `<= 0` runs no iteration
        /// (LANGUAGE §8.6).
        limit: Expr,
        /// The loop body.
        body: Vec<FuseStmt>,
        /// The whole loop.
        span: Span,
    },
    /// `break;` inside a `while` body: ends that loop at once (§8.6).
    Break {
        /// The statement.
        span: Span,
    },
}

impl Fuse {
    /// Whether the item is a plain sequence of calls (no global
    /// assignment, no loop).
    pub fn is_call_sequence(&self) -> bool {
        self.body.iter().all(|s| matches!(s, FuseStmt::Call(_)))
    }
}

/// One call of a `fuse` item.
#[derive(Clone, Debug)]
pub struct FuseCall {
    /// The traversal.
    pub method: MethodId,
    /// Arguments, evaluated when the call runs.
    pub args: Vec<Expr>,
    /// The call statement.
    pub span: Span,
}

/// A checked statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it is written.
    pub span: Span,
}

/// Statement forms of the checked model.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// A traversing call, dynamically dispatched on the receiver.
    Call {
        /// `self`, `self.c` or a loop variable.
        receiver: NodePath,
        /// The traversal.
        method: MethodId,
        /// Arguments.
        args: Vec<Expr>,
    },
    /// `let x = e;` for a data local.
    Let {
        /// The local.
        local: LocalId,
        /// Its value.
        value: Expr,
    },
    /// `let n = path;`, a tree alias bound to the node the path reaches now.
    Alias {
        /// The node variable.
        var: NodeVarId,
        /// The descendant path.
        path: NodePath,
    },
    /// A data write.
    Assign {
        /// Where.
        place: Place,
        /// What.
        value: Expr,
    },
    /// `slot = new T { .. };`
    Replace {
        /// The child slot replaced.
        slot: ChildSlot,
        /// The new subtree.
        tree: NewTree,
    },
    /// `slot = path;`: a descendant subtree of the slot moves up into it.
    Move {
        /// The child slot replaced.
        slot: ChildSlot,
        /// The descendant that moves.
        source: NodePath,
    },
    /// `if`; an `else if` is an `If` alone in `else_branch`.
    If {
        /// Condition.
        cond: Expr,
        /// Then branch.
        then_branch: Vec<Stmt>,
        /// Else branch (empty if absent).
        else_branch: Vec<Stmt>,
    },
    /// `for x in self.list { }` over a snapshot of a list child.
    ForChildren {
        /// Loop variable.
        var: NodeVarId,
        /// The list, a path whose last step is a list field.
        list: ChildSlot,
        /// Body.
        body: Vec<Stmt>,
    },
    /// `for x in array { }` (pure functions).
    ForArray {
        /// Loop variable.
        var: LocalId,
        /// The array.
        array: Expr,
        /// Body.
        body: Vec<Stmt>,
    },
    /// `for i in a..b { }` (pure functions).
    ForRange {
        /// Loop variable.
        var: LocalId,
        /// Start, inclusive.
        start: Expr,
        /// End, exclusive.
        end: Expr,
        /// Body.
        body: Vec<Stmt>,
    },
    /// `return;` in a traversal, `return e;` in a pure function.
    Return(Option<Expr>),
    /// `while cond limit N { body }` in a traversal (LANGUAGE §8.6): `limit`
    /// is evaluated once, before the first iteration (`<= 0` runs none);
    /// `cond` is read before each iteration; the body runs at most `limit`
    /// times, and reaching the limit ends the loop without an error.
    While {
        /// Read before each iteration.
        cond: Expr,
        /// An `i64` expression, evaluated once.
        limit: Expr,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `break;` directly in a `while` body or in `if` branches inside it
    /// (never inside a `for` there): ends the innermost `while` at once.
    Break,
    /// `self = SUBTREE;` (LANGUAGE.md §7.1): the subtree takes the
    /// receiver's place (its parent's slot, its list position, or the
    /// root), and the traversal ends at this node.
    ReplaceSelf {
        /// The replacement.
        with: Subtree,
    },
    /// `self = [..];` or `self = PATH;` with a list child (§7.2): the
    /// receiver, standing in a list, is replaced by zero or more nodes (a
    /// *thicket*); a runtime error when it does not stand in a list. Ends
    /// the traversal like `return`.
    SpliceSelf {
        /// The nodes, in order.
        items: Vec<ListItem>,
    },
    /// An edit of a list child by the node that owns it (§7.2).
    EditList {
        /// The list.
        list: ChildSlot,
        /// The edit.
        edit: ListEdit,
    },
    /// `slot = copy(PATH);` (§7.3): a deep copy of a subtree into a child
    /// slot.
    CopyTo {
        /// The child slot replaced.
        slot: ChildSlot,
        /// The subtree copied.
        source: NodePath,
    },
    /// `slot = none;` (§8.7): an optional child slot emptied; its old
    /// subtree is dropped.
    Clear {
        /// The optional child slot.
        slot: ChildSlot,
    },
}

/// A subtree given where one node goes (§7.1–7.3).
#[derive(Clone, Debug)]
pub enum Subtree {
    /// `new T {..}`.
    New(NewTree),
    /// A subtree moved from below the place it goes to (or the receiver
    /// itself, in a thicket or wrapped by `new`).
    Move(NodePath),
    /// `copy(PATH)`: a deep copy.
    Copy(NodePath),
}

/// One element of a list value of children.
#[derive(Clone, Debug)]
pub enum ListItem {
    /// A single node.
    One(Subtree),
    /// `..PATH`: every element of a list child, moved.
    Spread(ChildSlot),
}

/// An edit of a list child (§7.2).
#[derive(Clone, Debug)]
pub enum ListEdit {
    /// `L[i] = SUBTREE;` (a runtime error when `i` is out of range).
    Set(Expr, Subtree),
    /// `L.push(SUBTREE);`
    Push(Subtree),
    /// `L.insert(i, SUBTREE);` (§8.5): the subtree goes before element
    /// `i`; a runtime error unless `0 <= i <= len(L)`.
    Insert(Expr, Subtree),
    /// `L.remove(i);` (§8.5): element `i` is dropped; a runtime error
    /// unless `0 <= i < len(L)`.
    Remove(Expr),
    /// `L = [..];` or `L = PATH;` (a list child moved whole).
    Assign(Vec<ListItem>),
}

/// Where a path starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathRoot {
    /// The node the traversal runs on.
    SelfNode,
    /// A tree alias or loop variable.
    Var(NodeVarId),
}

/// A step of a node path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathStep {
    /// Go to a single child.
    Child(FieldId),
    /// Checked downcast: a runtime error unless the node is a subtype.
    Cast(TypeId),
    /// Go to element `i` of a list child (`self.stmts[i]`, §7.2): a
    /// runtime error when out of range.
    Elem(FieldId, IndexExpr),
}

/// The index expression of a [`PathStep::Elem`]. Two of them are equal
/// when they are the same source expression (same span), which is what
/// the model's path comparisons need.
#[derive(Clone, Debug)]
pub struct IndexExpr(pub Box<Expr>);

impl PartialEq for IndexExpr {
    fn eq(&self, other: &Self) -> bool {
        self.0.span == other.0.span
    }
}

impl Eq for IndexExpr {}

impl std::hash::Hash for IndexExpr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.span.start.hash(state);
        self.0.span.end.hash(state);
    }
}

/// A path to a node: a root and steps down through child fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodePath {
    /// Start.
    pub root: PathRoot,
    /// Steps.
    pub steps: Vec<PathStep>,
    /// Static type of the node reached.
    pub ty: TypeId,
    /// Source text of the path.
    pub span: Span,
}

impl NodePath {
    /// The child fields the path goes through, casts left out (an element
    /// step gives its list field).
    pub fn fields(&self) -> impl Iterator<Item = FieldId> + '_ {
        self.steps.iter().filter_map(|s| match s {
            PathStep::Child(f) | PathStep::Elem(f, _) => Some(*f),
            PathStep::Cast(_) => None,
        })
    }

    /// Whether following the path can fail: a cast, or a list index.
    pub fn has_cast(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, PathStep::Cast(_) | PathStep::Elem(..)))
    }

    /// Whether both paths surely reach the same node whenever they are
    /// followed with nothing changed in between: the same root and steps,
    /// whatever their source text (element steps are equal only when they
    /// are the same source expression, so paths with list indices of two
    /// places in the source never are).
    pub fn same_steps(&self, other: &NodePath) -> bool {
        self.root == other.root && self.steps == other.steps
    }

    /// The index expressions of its element steps, in order.
    pub fn index_exprs(&self) -> impl Iterator<Item = &Expr> + '_ {
        self.steps.iter().filter_map(|s| match s {
            PathStep::Elem(_, i) => Some(&*i.0),
            _ => None,
        })
    }
}

/// A child slot: a field (single or list child) of the node a path reaches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChildSlot {
    /// The node that owns the slot.
    pub parent: NodePath,
    /// The child or list field.
    pub field: FieldId,
}

/// A subtree built by `new`.
#[derive(Clone, Debug)]
pub struct NewTree {
    /// Concrete type built.
    pub ty: TypeId,
    /// One initializer per field of `ty`, in slot order.
    pub fields: Vec<NewField>,
    /// The `new` expression.
    pub span: Span,
}

/// The initial content of one field of a new node.
#[derive(Clone, Debug)]
pub enum NewField {
    /// A data field's value (a written expression or the default).
    Data(Expr),
    /// A single child built by a nested `new`.
    New(Box<NewTree>),
    /// A single child moved from a descendant of the replaced slot.
    Move(NodePath),
    /// A list child given element by element.
    List(Vec<NewField>),
    /// A list child moved whole from a descendant of the replaced slot.
    MoveList(ChildSlot),
    /// `copy(PATH)`: a deep copy of a subtree (§7.3).
    Copy(NodePath),
    /// An optional child left empty (`none`, or not written, §8.7).
    Empty,
}

/// The target of a data write.
#[derive(Clone, Debug)]
pub struct Place {
    /// The variable or field written.
    pub root: PlaceRoot,
    /// Record members and array elements below it.
    pub projections: Vec<Projection>,
}

/// The variable or field a [`Place`] starts from.
#[derive(Clone, Debug)]
pub enum PlaceRoot {
    /// A data local or parameter.
    Local(LocalId),
    /// A global.
    Global(GlobalId),
    /// A data field of a node.
    Field(NodePath, FieldId),
}

/// A step into a data value.
#[derive(Clone, Debug)]
pub enum Projection {
    /// Record member by index.
    Member(u32),
    /// Array element.
    Index(Expr),
    /// Map entry, inserted or updated (always the last projection).
    Key(Expr),
}

/// A typed expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type.
    pub ty: DataType,
    /// Where it is written.
    pub span: Span,
}

/// Expression forms of the checked model.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant.
    Const(Value),
    /// Read a data local.
    Local(LocalId),
    /// Read a global.
    Global(GlobalId),
    /// Read a data field of a node.
    Field(NodePath, FieldId),
    /// Read a record member.
    Member(Box<Expr>, u32),
    /// Read an array element.
    Index(Box<Expr>, Box<Expr>),
    /// Unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// Binary operation (`&&` and `||` short-circuit).
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Call of a built-in.
    Builtin(Builtin, Vec<Expr>),
    /// Call of a pure function.
    Call(PureFnId, Vec<Expr>),
    /// Call of a pure function that takes tree nodes (LANGUAGE §8.8): the
    /// arguments in written order, evaluated in that order. A function of
    /// data only is called with [`ExprKind::Call`].
    NodeCall(PureFnId, Vec<PureArg>),
    /// Array value.
    Array(Vec<Expr>),
    /// Record value, members in declaration order.
    Record(RecordId, Vec<Expr>),
    /// Dynamic type test (false on an empty optional child, §8.7).
    Is(NodePath, TypeId),
    /// `PATH is none`: whether the optional child the path ends in is
    /// empty (§8.7); the path's last step is an optional child.
    IsNone(NodePath),
    /// Conditional expression.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `len(L)` of a list child (§7.2).
    ListLen(ChildSlot),
    /// `in_list()`: whether the receiver stands in a list child (§7.2).
    InList,
    /// `match`: the first arm whose patterns contain the value; the arms
    /// cover every value (the checker made sure) and none is unreachable.
    Match(Box<Expr>, Vec<MatchArm>),
}

/// An argument of a [`ExprKind::NodeCall`].
#[derive(Clone, Debug)]
pub enum PureArg {
    /// For a data parameter.
    Data(Expr),
    /// For a node parameter: a tree path (a read of the whole subtree
    /// below it, for the analysis).
    Node(NodePath),
}

/// One arm of a checked `match`.
#[derive(Clone, Debug)]
pub struct MatchArm {
    /// The constants it matches; empty for the final `_`.
    pub patterns: Vec<Value>,
    /// Its value.
    pub body: Expr,
}

impl Program {
    /// Whether `sub` is `sup` or a transitive subtype of it.
    pub fn is_subtype(&self, mut sub: TypeId, sup: TypeId) -> bool {
        loop {
            if sub == sup {
                return true;
            }
            match self.types[sub.index()].base {
                Some(b) => sub = b,
                None => return false,
            }
        }
    }

    /// The type with this name.
    pub fn type_named(&self, name: &str) -> Option<TypeId> {
        self.types
            .iter()
            .position(|t| t.name == name)
            .map(|i| TypeId(i as u32))
    }

    /// Whether `f` is an optional child (`child c: T?`, §8.7).
    pub fn is_optional(&self, f: FieldId) -> bool {
        self.fields[f.index()].optional
    }

    /// Whether following `p` may meet an empty optional child: a step
    /// through one, the last step included (a runtime error where a node
    /// is needed, §8.7).
    pub fn path_has_optional(&self, p: &NodePath) -> bool {
        p.steps
            .iter()
            .any(|s| matches!(s, PathStep::Child(f) if self.is_optional(*f)))
    }

    /// The optional child `p` ends in, if its last step is one: a call on
    /// it, `is T` and `is none` take an empty slot without failing.
    pub fn ends_in_optional(&self, p: &NodePath) -> Option<FieldId> {
        match p.steps.last() {
            Some(PathStep::Child(f)) if self.is_optional(*f) => Some(*f),
            _ => None,
        }
    }

    /// The field called `name` of type `ty` (inherited ones included).
    pub fn field_named(&self, ty: TypeId, name: &str) -> Option<FieldId> {
        self.types[ty.index()]
            .fields
            .iter()
            .copied()
            .find(|f| self.fields[f.index()].name == name)
    }

    /// The default of data field `field` in a node of type `ty`: the
    /// type's own default for it if it (or a base between it and the
    /// field's owner) gives one, else the field's declared default.
    pub fn field_default(&self, ty: TypeId, field: FieldId) -> Option<&Value> {
        self.types[ty.index()]
            .default_overrides
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, v)| v)
            .or(self.fields[field.index()].default.as_ref())
    }

    /// The `fuse` item with this name.
    pub fn fuse_named(&self, name: &str) -> Option<&Fuse> {
        self.fuses.iter().find(|f| f.name == name)
    }

    /// The head and tail of `method`, if it is split ([`SplitTraversal`]).
    pub fn split_of(&self, method: MethodId) -> Option<&SplitTraversal> {
        self.splits.iter().find(|s| s.whole == method)
    }

    /// Whether `method` is the head or tail of a split traversal: no
    /// source can call it and the unfused engines never run it.
    pub fn is_synthetic(&self, method: MethodId) -> bool {
        self.splits
            .iter()
            .any(|s| s.head == method || s.tail == method)
    }

    /// The traversal visible on `ty` under `name`.
    pub fn method_named(&self, ty: TypeId, name: &str) -> Option<MethodId> {
        self.methods
            .iter()
            .enumerate()
            .find(|(i, m)| {
                m.name == name
                    && self.is_subtype(ty, m.declared_on)
                    && !self.is_synthetic(MethodId(*i as u32))
            })
            .map(|(i, _)| MethodId(i as u32))
    }

    /// The body that runs for `method` on a node of concrete type `ty`.
    pub fn dispatch(&self, ty: TypeId, method: MethodId) -> Option<BodyId> {
        self.types[ty.index()]
            .vtable
            .get(method.index())
            .copied()
            .flatten()
    }

    /// Every (concrete type, traversal) pair with a body, and the body, by
    /// type then traversal.
    pub fn concrete_functions(&self) -> impl Iterator<Item = (TypeId, MethodId, BodyId)> + '_ {
        self.types
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_abstract)
            .flat_map(move |(ti, _)| {
                let ty = TypeId(ti as u32);
                (0..self.methods.len()).filter_map(move |mi| {
                    let m = MethodId(mi as u32);
                    self.dispatch(ty, m).map(|b| (ty, m, b))
                })
            })
    }

    /// A readable name for a type.
    pub fn type_name(&self, ty: TypeId) -> &str {
        &self.types[ty.index()].name
    }

    /// The variant names of the enum that keys a map built-in's key
    /// argument (`args[1]` of `m[k]`), for naming an absent key in its
    /// runtime error; `None` when the key is not an enum value.
    pub fn key_variants(&self, args: &[Expr]) -> Option<&[String]> {
        match args.get(1).map(|k| &k.ty) {
            Some(DataType::Enum(id)) => self.enums.get(id.index()).map(|e| e.variants.as_slice()),
            _ => None,
        }
    }

    /// `Type.method`, naming a body in messages.
    pub fn body_name(&self, body: BodyId) -> String {
        let b = &self.bodies[body.index()];
        format!(
            "{}.{}",
            self.types[b.owner.index()].name,
            self.methods[b.method.index()].name
        )
    }

    /// Renders a data type as written.
    pub fn data_type_name(&self, ty: &DataType) -> String {
        match ty {
            DataType::Int => "i64".into(),
            DataType::Float => "f64".into(),
            DataType::Bool => "bool".into(),
            DataType::Str => "str".into(),
            DataType::Record(r) => self.records[r.index()].name.clone(),
            DataType::Array(t) => format!("[{}]", self.data_type_name(t)),
            DataType::Enum(e) => self.enums[e.index()].name.clone(),
            DataType::Map(k, v) => {
                format!("{{{}: {}}}", self.data_type_name(k), self.data_type_name(v))
            }
        }
    }

    /// The zero value of a data type: `0`, `0.0`, `false`, `""`, `[]`, or a
    /// record of zero values.
    pub fn zero_value(&self, ty: &DataType) -> Value {
        match ty {
            DataType::Int => Value::Int(0),
            DataType::Float => Value::Float(0.0),
            DataType::Bool => Value::Bool(false),
            DataType::Str => Value::Str("".into()),
            DataType::Array(_) => Value::Array(Default::default()),
            DataType::Enum(_) => Value::Enum(0),
            DataType::Map(..) => Value::Map(Default::default()),
            DataType::Record(r) => Value::Record(std::sync::Arc::new(
                self.records[r.index()]
                    .fields
                    .iter()
                    .map(|f| self.zero_value(&f.ty))
                    .collect(),
            )),
        }
    }
}
