//! The copy from ruff's syntax tree keeps every kind of node: a file that
//! uses every construct of Python produces a node of every concrete type
//! of `lint/python.tf`, and the tree's node count matches the nodes the
//! copy made.

use std::collections::BTreeSet;

use treefuse_pylint::lower::lower_module;

fn concrete_types() -> BTreeSet<String> {
    let source = include_str!("../lint/python.tf");
    source
        .lines()
        .filter_map(|l| l.strip_prefix("tree "))
        .map(|rest| {
            rest.split([' ', ':', '{'])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn every_node_type_is_built() {
    let source = include_str!("every_node.py");
    let parsed = ruff_python_parser::parse_unchecked_source(source, Default::default());
    assert_eq!(parsed.errors(), &[], "every_node.py parses");
    let tree = lower_module(parsed.syntax(), source, parsed.tokens().len())
        .expect("lowering builds a valid tree");
    let built: BTreeSet<String> = tree
        .node
        .iter()
        .map(|n| n.kind.name().to_string())
        .collect();
    let expected = concrete_types();
    assert!(
        expected.len() > 80,
        "found the tree types of python.tf: {expected:?}"
    );
    let missing: Vec<_> = expected.difference(&built).collect();
    assert!(
        missing.is_empty(),
        "node types never built from every_node.py: {missing:?}"
    );
}

#[test]
fn a_syntax_error_still_builds_the_recovered_tree() {
    let source = "def f(:\n    return 1 +\n";
    let parsed = ruff_python_parser::parse_unchecked_source(source, Default::default());
    assert!(!parsed.errors().is_empty());
    let tree = lower_module(parsed.syntax(), source, parsed.tokens().len())
        .expect("the recovered tree is valid");
    assert!(tree.node_count() > 3);
}
