//! Node families: the [`Node`] trait and what the library does with it.
//!
//! A compiler's AST is rarely one type: `Program` holds `Function`s, which
//! hold `Stmt`s, which hold `Expr`s, and each of those may hold the others.
//! Every type of such a *family* implements [`Node`] (usually with
//! `#[derive(Rewritable)]`), which tells the library three things about a
//! node, all of them *shallow* (direct children only, the recursion is the
//! caller's):
//!
//! * how to walk its children in place ([`Node::walk_children`], generic
//!   over a [`Walker`], so the engine's walk is statically dispatched and
//!   inlines; `Vec`s of nodes are handed over whole, so that rules can
//!   remove and splice elements);
//! * how to look at them ([`Node::for_each_child`], as `&dyn` [`DynNode`]:
//!   used off the hot path, by the checker and by [`node_count`]);
//! * how to take a node apart, compare one node's own fields, and copy one
//!   node given copies of its children ([`Node::into_children`],
//!   [`Node::shallow_eq`], [`Node::clone_with`]), from which this module
//!   builds [`dismantle`], [`deep_eq`], [`deep_clone`] and
//!   [`first_difference`] with explicit work stacks, so that they work on
//!   trees a million levels deep where derived `Drop`, `PartialEq` and
//!   `Clone` overflow the stack.
//!
//! The traversal works on `&mut` nodes, in place: a rule that fails or
//! panics leaves a whole tree behind (see [`crate::manager`]).

use std::any::Any;
use std::fmt;

/// The kind of a node: its type's name and its variant's name (the type's
/// name again for structs). What [`Cx::ancestors`](crate::Cx::ancestors)
/// and the checker's paths are made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    /// The node's type, e.g. `"Stmt"`.
    pub ty: &'static str,
    /// The node's variant, e.g. `"If"` (the type name for structs).
    pub variant: &'static str,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ty == self.variant {
            f.write_str(self.ty)
        } else {
            write!(f, "{}::{}", self.ty, self.variant)
        }
    }
}

/// Receives the children of a node from [`Node::walk_children`]: single
/// children one by one, `Vec`s of nodes whole (so the walker can edit the
/// list).
pub trait Walker {
    /// Why a walk stopped early (the engine's is a zero-sized marker; the
    /// actual error is kept aside).
    type Stop;
    /// Visits one child in place.
    fn visit<N: Node>(&mut self, node: &mut N) -> Result<(), Self::Stop>;
    /// Visits a list of children in place; the walker may remove, replace
    /// and insert elements.
    fn visit_list<N: Node>(&mut self, list: &mut Vec<N>) -> Result<(), Self::Stop>;
}

/// Where [`Node::into_children`] puts children that are dropped later, one
/// at a time (see [`dismantle`]).
pub type Graveyard = Vec<Box<dyn Explode>>;

/// A node type of a family. Derive it with
/// [`#[derive(Rewritable)]`](derive@crate::Rewritable).
///
/// # Contract
///
/// Every method looks at direct children only, and all of them agree on
/// what the children are and on their order (declaration order of the
/// fields, `Vec`s first to last): `walk_children`, `for_each_child`,
/// `clone_with` (which takes the copies of the children in that order) and
/// `shallow_eq` (which compares everything except the children's contents,
/// including how many children there are).
pub trait Node: Sized + 'static {
    /// The type's name (`"Expr"`).
    const TYPE_NAME: &'static str;

    /// The variant's name (`"Add"`; the type name for structs).
    fn variant(&self) -> &'static str;

    /// The node's [`Kind`].
    #[inline]
    fn kind(&self) -> Kind {
        Kind {
            ty: Self::TYPE_NAME,
            variant: self.variant(),
        }
    }

    /// Hands every direct child to `w`, in place: single children (also
    /// inside `Box` and `Option`) to [`Walker::visit`], `Vec`s of nodes to
    /// [`Walker::visit_list`].
    fn walk_children<W: Walker>(&mut self, w: &mut W) -> Result<(), W::Stop>;

    /// Calls `f` on every direct child.
    fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(&'a dyn DynNode));

    /// Moves the node's children out (boxed children and lists are pushed
    /// onto `out` to be taken apart later, without recursion) and drops the
    /// rest of the node.
    fn into_children(self, out: &mut Graveyard);

    /// Drops the node, recursing into its children at most `budget` levels
    /// deep and moving what lies deeper onto `out` (to be dropped without
    /// recursion). Cheap for the common, shallow case; safe for any depth.
    /// The default moves every child onto `out`.
    fn drop_within(self, budget: u32, out: &mut Graveyard) {
        let _ = budget;
        self.into_children(out)
    }

    /// Whether `self` and `other` are equal apart from the contents of their
    /// children: same variant, equal other fields, same number of children
    /// in each place.
    fn shallow_eq(&self, other: &Self) -> bool;

    /// A copy of this node whose children are taken, in child order, from
    /// `children` (each a `Box` of the child's type).
    fn clone_with(&self, children: &mut dyn FnMut() -> Box<dyn Any>) -> Self;
}

/// Object-safe view of any [`Node`], for the library's code that is not on
/// the hot path (checking, counting, copying, comparing).
pub trait DynNode: Any {
    /// The node's kind.
    fn dyn_kind(&self) -> Kind;
    /// `self` as `Any`.
    fn as_any(&self) -> &dyn Any;
    /// Calls `f` on every direct child.
    fn dyn_children<'a>(&'a self, f: &mut dyn FnMut(&'a dyn DynNode));
    /// [`Node::shallow_eq`] against a node of possibly another type.
    fn dyn_shallow_eq(&self, other: &dyn DynNode) -> bool;
    /// [`Node::clone_with`], boxed.
    fn dyn_clone_with(&self, children: &mut dyn FnMut() -> Box<dyn Any>) -> Box<dyn Any>;
}

impl<N: Node> DynNode for N {
    fn dyn_kind(&self) -> Kind {
        self.kind()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn dyn_children<'a>(&'a self, f: &mut dyn FnMut(&'a dyn DynNode)) {
        self.for_each_child(f)
    }
    fn dyn_shallow_eq(&self, other: &dyn DynNode) -> bool {
        match other.as_any().downcast_ref::<N>() {
            Some(o) => self.shallow_eq(o),
            None => false,
        }
    }
    fn dyn_clone_with(&self, children: &mut dyn FnMut() -> Box<dyn Any>) -> Box<dyn Any> {
        Box::new(self.clone_with(children))
    }
}

/// Something [`dismantle`] takes apart one level at a time: a boxed node,
/// or a list of nodes.
pub trait Explode {
    /// Moves the children out onto `out` and drops the rest.
    fn explode(self: Box<Self>, out: &mut Graveyard);
}

impl<N: Node> Explode for N {
    fn explode(self: Box<Self>, out: &mut Graveyard) {
        (*self).into_children(out)
    }
}

/// A `Vec` of nodes waiting in a [`Graveyard`] (the derive pushes lists as
/// one entry, so that nested lists are not taken apart recursively).
pub struct NodeList<N>(pub Vec<N>);

impl<N: Node> Explode for NodeList<N> {
    fn explode(self: Box<Self>, out: &mut Graveyard) {
        for n in self.0 {
            n.into_children(out);
        }
    }
}

/// Takes the next child copy out of a [`Node::clone_with`] source, as the
/// expected type. Used by derived code.
///
/// # Panics
///
/// If the source hands over a value of another type, which only a
/// hand-written [`Node`] whose `for_each_child` and `clone_with` disagree on
/// the children can cause.
pub fn take_child<N: 'static>(children: &mut dyn FnMut() -> Box<dyn Any>) -> Box<N> {
    match children().downcast::<N>() {
        Ok(b) => b,
        Err(_) => panic!(
            "Node contract broken: clone_with expected a child of type {} (for_each_child and clone_with disagree)",
            std::any::type_name::<N>()
        ),
    }
}

/// Number of nodes in the tree, of every type of the family (iterative).
pub fn node_count<T: Node>(tree: &T) -> usize {
    let mut stack: Vec<&dyn DynNode> = vec![tree];
    let mut n = 0;
    while let Some(t) = stack.pop() {
        n += 1;
        t.dyn_children(&mut |c| stack.push(c));
    }
    n
}

/// Drops a tree without recursion, however deep, across node types.
///
/// Derived `Drop` glue recurses once per level and overflows the stack on
/// trees a few hundred thousand levels deep; this takes the tree apart one
/// node at a time with an explicit stack instead.
///
/// ```
/// use treefuse_rewrite::{dismantle, Rewritable};
/// #[derive(Clone, PartialEq, Rewritable)]
/// enum L { Nil, Cons(u8, Box<L>) }
/// let mut l = L::Nil;
/// for _ in 0..1_000_000 { l = L::Cons(0, Box::new(l)); }
/// dismantle(l);
/// ```
pub fn dismantle<T: Node>(tree: T) {
    let mut out: Graveyard = Vec::new();
    tree.into_children(&mut out);
    drain_graveyard(&mut out);
}

/// How deep [`drop_node`] recurses before it defers to the graveyard.
const DROP_RECURSION: u32 = 256;

/// Drops a node of any depth: by recursion for its first
/// [`DROP_RECURSION`] levels, iteratively below. `out` is a reusable
/// work stack (empty before and after).
#[inline]
pub(crate) fn drop_node<N: Node>(node: N, out: &mut Graveyard) {
    node.drop_within(DROP_RECURSION, out);
    if !out.is_empty() {
        drain_graveyard(out);
    }
}

/// Drops everything in `out`, one level at a time.
pub(crate) fn drain_graveyard(out: &mut Graveyard) {
    while let Some(b) = out.pop() {
        b.explode(out);
    }
}

/// A deep copy of the tree, made without recursion.
///
/// ```
/// use treefuse_rewrite::{deep_clone, deep_eq, dismantle, Rewritable};
/// #[derive(Clone, Debug, PartialEq, Rewritable)]
/// enum L { Nil, Cons(u8, Box<L>) }
/// let mut l = L::Nil;
/// for i in 0..1_000_000 { l = L::Cons(i as u8, Box::new(l)); }
/// let c = deep_clone(&l);
/// assert!(deep_eq(&l, &c));
/// dismantle(l);
/// dismantle(c);
/// ```
pub fn deep_clone<T: Node>(tree: &T) -> T {
    // Pre-order list; built backwards, every node finds the copies of its
    // children on top of `done`, first child on top.
    let mut order: Vec<&dyn DynNode> = Vec::new();
    let mut stack: Vec<&dyn DynNode> = vec![tree];
    let mut kids: Vec<&dyn DynNode> = Vec::new();
    while let Some(t) = stack.pop() {
        order.push(t);
        t.dyn_children(&mut |c| kids.push(c));
        stack.extend(kids.drain(..).rev());
    }
    let mut done: Vec<Box<dyn Any>> = Vec::with_capacity(16);
    for t in order.iter().skip(1).rev() {
        let copy = t.dyn_clone_with(&mut || match done.pop() {
            Some(c) => c,
            None => Box::new(()),
        });
        done.push(copy);
    }
    tree.clone_with(&mut || match done.pop() {
        Some(c) => c,
        None => Box::new(()),
    })
}

/// One step of a path into a tree: the kind of the node stepped from and
/// the index of the child stepped into (in child order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathStep {
    /// The kind of the parent.
    pub parent: Kind,
    /// The child's index among the parent's children.
    pub child: usize,
}

/// Renders a path as `root/Stmt::If[1]/Expr::Add[0]`.
pub struct PathDisplay<'a>(pub &'a [PathStep]);

impl fmt::Display for PathDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("root")?;
        for s in self.0 {
            write!(f, "/{}[{}]", s.parent, s.child)?;
        }
        Ok(())
    }
}

/// The path to the first node, in pre-order, where `a` and `b` differ
/// (different own fields or variant, or different numbers of children);
/// `None` when the trees are equal. Iterative.
///
/// ```
/// use treefuse_rewrite::first_difference;
/// use treefuse_rewrite::toy::parse;
/// let a = parse("1 / (2 / 3)").unwrap();
/// let b = parse("1 / (2 / 4)").unwrap();
/// let path = first_difference(&a, &b).unwrap();
/// assert_eq!(path.iter().map(|s| s.child).collect::<Vec<_>>(), [1, 1]);
/// assert_eq!(first_difference(&a, &a.clone()), None);
/// ```
pub fn first_difference<T: Node>(a: &T, b: &T) -> Option<Vec<PathStep>> {
    let mut path: Vec<PathStep> = Vec::new();
    // (a, b, depth of the step that leads here, that step)
    type Pending<'t> = (&'t dyn DynNode, &'t dyn DynNode, usize, Option<PathStep>);
    let mut stack: Vec<Pending<'_>> = vec![(a, b, 0, None)];
    let mut xs: Vec<&dyn DynNode> = Vec::new();
    let mut ys: Vec<&dyn DynNode> = Vec::new();
    while let Some((x, y, depth, step)) = stack.pop() {
        path.truncate(depth);
        if let Some(s) = step {
            path.push(s);
        }
        if !x.dyn_shallow_eq(y) {
            return Some(path);
        }
        xs.clear();
        ys.clear();
        x.dyn_children(&mut |c| xs.push(c));
        y.dyn_children(&mut |c| ys.push(c));
        if xs.len() != ys.len() {
            return Some(path);
        }
        let parent = x.dyn_kind();
        for (i, (p, q)) in xs.iter().zip(&ys).enumerate().rev() {
            stack.push((*p, *q, path.len(), Some(PathStep { parent, child: i })));
        }
    }
    None
}

/// Whether two trees are equal (iterative, so safe on deep trees).
pub fn deep_eq<T: Node>(a: &T, b: &T) -> bool {
    first_difference(a, b).is_none()
}

/// The node at `path`, if the tree has one there.
pub fn subtree_at<'a, T: Node>(tree: &'a T, path: &[PathStep]) -> Option<&'a dyn DynNode> {
    let mut t: &dyn DynNode = tree;
    for s in path {
        let mut i = 0;
        let mut found = None;
        t.dyn_children(&mut |c| {
            if i == s.child {
                found = Some(c);
            }
            i += 1;
        });
        t = found?;
    }
    Some(t)
}

/// Owns a tree and drops it with [`dismantle`], for trees too deep for
/// derived `Drop`.
pub struct DeepTree<T: Node>(Option<T>);

impl<T: Node> DeepTree<T> {
    /// Wraps a tree.
    pub fn new(tree: T) -> Self {
        DeepTree(Some(tree))
    }
    /// The tree.
    pub fn get(&self) -> &T {
        match &self.0 {
            Some(t) => t,
            None => unreachable!("DeepTree is only emptied by into_inner and drop"),
        }
    }
    /// The tree, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        match &mut self.0 {
            Some(t) => t,
            None => unreachable!("DeepTree is only emptied by into_inner and drop"),
        }
    }
    /// Unwraps the tree (its drop is recursive again).
    pub fn into_inner(mut self) -> T {
        match self.0.take() {
            Some(t) => t,
            None => unreachable!("DeepTree is only emptied by into_inner and drop"),
        }
    }
}

impl<T: Node> Drop for DeepTree<T> {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            dismantle(t);
        }
    }
}
