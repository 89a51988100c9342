//! Exposing a tree's children: the [`Rewritable`] trait.
//!
//! Everything in this crate needs exactly two things from a user's AST: a way
//! to *rebuild* a node from new children (the blog's `map`) and a way to
//! *look at* the children without consuming them (for the checker). Both are
//! shallow: they touch the direct children only, and the recursion lives in
//! the caller. That keeps the trait derivable for any enum or struct and
//! leaves the choice of traversal (top-down, bottom-up, fused, one rule at a
//! time) to the engine.

/// A tree type whose direct children (values of the same type) can be
/// rebuilt and visited.
///
/// Usually derived with [`#[derive(Rewritable)]`](derive@crate::Rewritable):
/// fields whose type is the derived type itself wrapped in any nesting of
/// `Box`, `Vec` and `Option` are children; other fields are moved through
/// unchanged; `#[rewrite(skip)]` excludes a field.
///
/// # Contract
///
/// * `map_children` calls `f` exactly once per direct child, and puts each
///   result back in the child's place, leaving everything else as it was.
/// * `for_each_child` visits the same children in the same order. The
///   position of a child in that order is its *index*, used by
///   [`first_difference`](crate::first_difference) paths.
///
/// ```
/// use treefuse_rewrite::Rewritable;
///
/// #[derive(Debug, PartialEq, Rewritable)]
/// enum Tree {
///     Leaf(u32),
///     Node(Vec<Tree>),
///     Wrap { label: String, inner: Box<Tree> },
/// }
///
/// let t = Tree::Node(vec![Tree::Leaf(1), Tree::Wrap { label: "w".into(), inner: Box::new(Tree::Leaf(2)) }]);
/// assert_eq!(t.child_count(), 2);
/// // Bottom-up rebuild with the provided `transform_up`:
/// let t = t.transform_up(&mut |n| match n {
///     Tree::Leaf(k) => Tree::Leaf(k * 10),
///     other => other,
/// });
/// assert_eq!(
///     t,
///     Tree::Node(vec![Tree::Leaf(10), Tree::Wrap { label: "w".into(), inner: Box::new(Tree::Leaf(20)) }])
/// );
/// ```
pub trait Rewritable: Sized {
    /// Rebuilds this node with every direct child replaced by `f(child)`.
    fn map_children<F>(self, f: &mut F) -> Self
    where
        F: FnMut(Self) -> Self;

    /// Calls `f` on every direct child, in the same order as
    /// [`map_children`](Rewritable::map_children).
    fn for_each_child<'a, F>(&'a self, f: &mut F)
    where
        F: FnMut(&'a Self);

    /// Number of direct children.
    fn child_count(&self) -> usize {
        let mut n = 0;
        self.for_each_child(&mut |_| n += 1);
        n
    }

    /// The `index`-th direct child (in [`for_each_child`](Rewritable::for_each_child) order).
    fn child(&self, index: usize) -> Option<&Self> {
        let mut i = 0;
        let mut found = None;
        self.for_each_child(&mut |c| {
            if i == index {
                found = Some(c);
            }
            i += 1;
        });
        found
    }

    /// Rebuilds the whole tree bottom-up: children first, then `f` on the
    /// rebuilt node. Recursive (see the crate docs on depth).
    fn transform_up<F>(self, f: &mut F) -> Self
    where
        F: FnMut(Self) -> Self,
    {
        let node = self.map_children(&mut |c| c.transform_up(f));
        f(node)
    }

    /// Rebuilds the whole tree top-down: `f` on the node first, then on the
    /// children of its result. Recursive (see the crate docs on depth).
    fn transform_down<F>(self, f: &mut F) -> Self
    where
        F: FnMut(Self) -> Self,
    {
        f(self).map_children(&mut |c| c.transform_down(f))
    }
}

/// Number of nodes in the tree (iterative, so safe on very deep trees).
pub fn node_count<T: Rewritable>(tree: &T) -> usize {
    let mut stack = vec![tree];
    let mut n = 0;
    while let Some(t) = stack.pop() {
        n += 1;
        t.for_each_child(&mut |c| stack.push(c));
    }
    n
}

/// Drops a tree without recursion.
///
/// A derived or compiler-generated `Drop` of a `Box`-linked tree recurses
/// once per level and overflows the stack on trees a few hundred thousand
/// levels deep. `dismantle` detaches children one level at a time, replacing
/// each by `leaf()` (which should be a childless, cheap node), so that every
/// node is dropped shallowly.
///
/// ```
/// use treefuse_rewrite::{dismantle, Rewritable};
/// #[derive(Rewritable)]
/// enum L { Nil, Cons(u8, Box<L>) }
/// let mut l = L::Nil;
/// for _ in 0..1_000_000 { l = L::Cons(0, Box::new(l)); }
/// dismantle(l, || L::Nil);
/// ```
pub fn dismantle<T: Rewritable>(tree: T, leaf: impl Fn() -> T) {
    let mut stack = vec![tree];
    while let Some(t) = stack.pop() {
        let shallow = t.map_children(&mut |c| {
            stack.push(c);
            leaf()
        });
        drop(shallow);
    }
}
