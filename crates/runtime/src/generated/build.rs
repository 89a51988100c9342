//! Building trees through a generated module's typed API: the error of
//! `Tree::add` when a child is missing or of the wrong kind.

/// A node could not be added: a child (or list element) it names is not
/// in the tree, or is a node of a type the field does not accept. Adding
/// checks every child, so a tree built node by node is always well typed;
/// the traversals never meet a child of the wrong kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// The type of the node being added.
    pub node_type: &'static str,
    /// The child field.
    pub field: &'static str,
    /// The type the field accepts (it or a subtype).
    pub expected: &'static str,
    /// The type of the node found, or `None` if the id names no node
    /// (for example a child left at its default).
    pub found: Option<&'static str>,
}

impl BuildError {
    /// The error for `node_type.field`, which accepts `expected` nodes and
    /// got a `found` node (or none).
    #[cold]
    pub fn new(
        node_type: &'static str,
        field: &'static str,
        expected: &'static str,
        found: Option<&'static str>,
    ) -> BuildError {
        BuildError {
            node_type,
            field,
            expected,
            found,
        }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (t, field, expected) = (self.node_type, self.field, self.expected);
        match self.found {
            Some(found) => write!(
                f,
                "`{t}.{field}` takes a `{expected}` node, not a `{found}`"
            ),
            None => write!(
                f,
                "`{t}.{field}` takes a `{expected}` node, but no node of the tree has that id \
                 (add children before their parent)"
            ),
        }
    }
}

impl std::error::Error for BuildError {}
