//! Linter-shaped programs: R rules over an AST of T node types.
//!
//! Linters and middle ends are the programs fusion is for, and the ones
//! whose size stresses it: dozens to hundreds of small passes, each
//! interested in a few node types of a large hierarchy and walking the rest
//! (§8.1 default walks). [`linter_program`] writes such a program the way
//! its author would: shared tree types (a `Module` root, abstract `Stmt`
//! and `Expr` with concrete types of Python-like shapes), then one `impl`
//! section per rule (a walk on `Node`, bodies on one to three target
//! types), then a `fuse` item calling every rule on the root. Rules are of
//! four kinds, as in real linters: a pattern on a node's own fields that
//! appends a diagnostic to the rule's global array, a pattern on a child's
//! type, a post-order counter, and a rule with context passed down as a
//! walk argument (a nesting depth).
//!
//! Every rule writes only its own globals, so a sound fuser runs all of
//! them in one walk: fused visits equal the node count. The scaling
//! benchmark (`fusion-scaling` in `treefuse-bench`) measures analysis and
//! fusion time and memory as R grows.

use std::fmt::Write;

/// The size of a linter-shaped program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinterShape {
    /// Number of rules (traversals), each called once by the `fuse` item.
    pub rules: usize,
    /// Number of concrete node types besides `Module` (at least 6).
    pub types: usize,
    /// Seed for the choice of target types and constants.
    pub seed: u64,
}

/// The child fields of a concrete node type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Leaf,
    OneExpr,
    TwoExprs,
    ExprList,
    ExprAndBody,
    BodyAndElse,
    OptionalExprAndBody,
    OptionalExprAndExpr,
}

impl Shape {
    /// `(field, type)` of each child, in declaration order.
    fn children(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Shape::Leaf => &[],
            Shape::OneExpr => &[("value", "Expr")],
            Shape::TwoExprs => &[("left", "Expr"), ("right", "Expr")],
            Shape::ExprList => &[("items", "[Expr]")],
            Shape::ExprAndBody => &[("test", "Expr"), ("body", "[Stmt]")],
            Shape::BodyAndElse => &[("body", "[Stmt]"), ("orelse", "[Stmt]")],
            Shape::OptionalExprAndBody => &[("annotation", "Expr?"), ("body", "[Stmt]")],
            Shape::OptionalExprAndExpr => &[("default", "Expr?"), ("value", "Expr")],
        }
    }

    fn has_body(self) -> bool {
        self.children().iter().any(|(_, ty)| *ty == "[Stmt]")
    }

    /// The first single (not list, not optional) `Expr` child, if any.
    fn single_expr(self) -> Option<&'static str> {
        self.children()
            .iter()
            .find(|(_, ty)| *ty == "Expr")
            .map(|(f, _)| *f)
    }
}

const STMT_SHAPES: [Shape; 6] = [
    Shape::Leaf,
    Shape::OneExpr,
    Shape::ExprAndBody,
    Shape::BodyAndElse,
    Shape::OptionalExprAndBody,
    Shape::ExprList,
];

const EXPR_SHAPES: [Shape; 6] = [
    Shape::Leaf,
    Shape::Leaf,
    Shape::OneExpr,
    Shape::TwoExprs,
    Shape::ExprList,
    Shape::OptionalExprAndExpr,
];

struct NodeType {
    name: String,
    shape: Shape,
}

/// A small deterministic generator (splitmix64), so a shape and seed
/// always give the same program.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The concrete node types of a shape: a third statements, the rest
/// expressions, shapes taken in turn so both kinds have leaves.
fn node_types(types: usize) -> Vec<NodeType> {
    let types = types.max(6);
    (0..types)
        .map(|i| {
            if i % 3 == 0 {
                NodeType {
                    name: format!("S{i}"),
                    shape: STMT_SHAPES[(i / 3) % STMT_SHAPES.len()],
                }
            } else {
                NodeType {
                    name: format!("E{i}"),
                    shape: EXPR_SHAPES[(i - i / 3 - 1) % EXPR_SHAPES.len()],
                }
            }
        })
        .collect()
}

/// The source of a linter-shaped program (one file).
///
/// ```
/// use treefuse_progen::linter::{linter_program, LinterShape};
/// let src = linter_program(LinterShape { rules: 4, types: 12, seed: 1 });
/// assert!(src.contains("fuse lint(root: Module)"));
/// treefuse::compile_source("lint.tf", &src).unwrap();
/// ```
pub fn linter_program(shape: LinterShape) -> String {
    let types = node_types(shape.types);
    let mut rng = SplitMix(shape.seed ^ 0x6c69_6e74);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// A linter-shaped program: {} rules over {} node types (seed {}).\n",
        shape.rules,
        types.len(),
        shape.seed
    );
    out.push_str("record Diag { path: str, line: i64, col: i64 }\n\n");
    out.push_str("abstract tree Node { line: i64 = 0; col: i64 = 0; op: i64 = 0; }\n");
    out.push_str("tree Module : Node { path: str = \"m.py\"; child body: [Stmt]; }\n");
    out.push_str("abstract tree Stmt : Node {}\n");
    out.push_str("abstract tree Expr : Node { name: str = \"\"; }\n");
    for ty in &types {
        let base = if ty.name.starts_with('S') {
            "Stmt"
        } else {
            "Expr"
        };
        let _ = write!(out, "tree {} : {base} {{", ty.name);
        for (field, field_ty) in ty.shape.children() {
            let _ = write!(out, " child {field}: {field_ty};");
        }
        out.push_str(" }\n");
    }
    let with_body: Vec<&NodeType> = types.iter().filter(|t| t.shape.has_body()).collect();
    let with_expr: Vec<&NodeType> = types
        .iter()
        .filter(|t| t.shape.single_expr().is_some())
        .collect();
    let exprs: Vec<&NodeType> = types.iter().filter(|t| t.name.starts_with('E')).collect();
    let mut calls = Vec::new();
    for r in 0..shape.rules {
        let rule = format!("r{r}");
        let diags = format!("D{r}");
        let push = format!(
            "{diags} = append({diags}, Diag {{ path: path, line: self.line, col: self.col }});"
        );
        let targets: Vec<&NodeType> = (0..1 + rng.below(3))
            .map(|_| &types[rng.below(types.len())])
            .collect();
        let mut targets_seen: Vec<&str> = Vec::new();
        let constant = rng.below(4);
        let _ = writeln!(out, "\n// Rule {r}.");
        match r % 4 {
            0 | 1 => {
                let _ = writeln!(out, "global {diags}: [Diag] = [];");
                let _ = writeln!(out, "impl Node {{ traversal {rule}(path: str) walk; }}");
                let _ = writeln!(
                    out,
                    "impl Module {{ traversal {rule}(path: str) {{ walk(self.path); }} }}"
                );
                let child_rule = r % 4 == 1 && !with_expr.is_empty();
                let targets = if child_rule {
                    vec![with_expr[rng.below(with_expr.len())]]
                } else {
                    targets
                };
                for target in targets {
                    if targets_seen.contains(&target.name.as_str()) {
                        continue;
                    }
                    targets_seen.push(&target.name);
                    let test = match target.shape.single_expr() {
                        Some(field) if child_rule => {
                            let other = exprs[rng.below(exprs.len())];
                            format!("self.{field} is {}", other.name)
                        }
                        _ => format!("self.op == {constant}"),
                    };
                    let _ = writeln!(
                        out,
                        "impl {} {{ traversal {rule}(path: str) {{ if {test} {{ {push} }} walk; }} }}",
                        target.name
                    );
                }
                calls.push(format!("root.{rule}(\"\");"));
            }
            2 => {
                let counter = format!("N{r}");
                let _ = writeln!(out, "global {counter}: i64 = 0;");
                let _ = writeln!(out, "impl Node {{ traversal {rule}() walk; }}");
                for target in targets {
                    if targets_seen.contains(&target.name.as_str()) {
                        continue;
                    }
                    targets_seen.push(&target.name);
                    let _ = writeln!(
                        out,
                        "impl {} {{ traversal {rule}() {{ walk; if self.op > {constant} {{ {counter} = {counter} + 1; }} }} }}",
                        target.name
                    );
                }
                calls.push(format!("root.{rule}();"));
            }
            _ => {
                let _ = writeln!(out, "global {diags}: [Diag] = [];");
                let _ = writeln!(
                    out,
                    "impl Node {{ traversal {rule}(path: str, depth: i64) walk; }}"
                );
                let _ = writeln!(
                    out,
                    "impl Module {{ traversal {rule}(path: str, depth: i64) {{ walk(self.path, 0); }} }}"
                );
                let nesting = with_body[rng.below(with_body.len())];
                targets_seen.push(&nesting.name);
                let _ = writeln!(
                    out,
                    "impl {} {{ traversal {rule}(path: str, depth: i64) {{ walk(path, depth + 1); }} }}",
                    nesting.name
                );
                for target in targets {
                    if targets_seen.contains(&target.name.as_str()) {
                        continue;
                    }
                    targets_seen.push(&target.name);
                    let _ = writeln!(
                        out,
                        "impl {} {{ traversal {rule}(path: str, depth: i64) {{ if depth > {} {{ {push} }} walk; }} }}",
                        target.name,
                        constant + 1
                    );
                }
                calls.push(format!("root.{rule}(\"\", 0);"));
            }
        }
    }
    out.push_str("\nfuse lint(root: Module) {\n");
    for call in calls {
        let _ = writeln!(out, "    {call}");
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_compiles() {
        for (rules, types) in [(1, 6), (4, 12), (9, 30), (20, 60)] {
            let src = linter_program(LinterShape {
                rules,
                types,
                seed: 3,
            });
            if let Err(e) = treefuse::compile_source("lint.tf", &src) {
                panic!("{rules}x{types}:\n{}\n{src}", e.render(false));
            }
        }
    }
}
