//! Structural comparison of two trees of the same program.
//!
//! Used to show what a run changed and to check that a fused run left the
//! tree exactly as the unfused one did. Iterative, like everything that
//! walks trees here, and reporting each difference by JSON path.

use crate::json::write_value;
use crate::store::{NodeId, SlotRef, Tree};
use treefuse_sema::{DataType, FieldKind, Program, Value};

/// One difference between two trees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// JSON path of the differing node or field.
    pub path: String,
    /// The left tree's side, as JSON (or a description).
    pub left: String,
    /// The right tree's side.
    pub right: String,
}

fn render(program: &Program, ty: &DataType, v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, program, ty, v);
    s
}

/// Compares the trees reachable from both roots and returns up to `limit`
/// differences in pre-order. Floats compare by value, and NaN equals NaN.
pub fn diff_trees(program: &Program, left: &Tree, right: &Tree, limit: usize) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut stack: Vec<(NodeId, NodeId, String)> = vec![(left.root, right.root, "$".to_string())];
    while let Some((a, b, path)) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        let (ta, tb) = (left.type_of(a), right.type_of(b));
        if ta != tb {
            out.push(Difference {
                path: format!("{path}.type"),
                left: format!("\"{}\"", program.type_name(ta)),
                right: format!("\"{}\"", program.type_name(tb)),
            });
            continue;
        }
        let fields = &program.types[ta.index()].fields;
        let mut children = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let field = &program.fields[f.index()];
            let fpath = format!("{path}.{}", field.name);
            match (left.slot(a, i as u32), right.slot(b, i as u32)) {
                (SlotRef::Data(x), SlotRef::Data(y)) => {
                    if !x.same_as(&y) {
                        let ty = match &field.kind {
                            FieldKind::Data(t) => t.clone(),
                            _ => DataType::Int,
                        };
                        out.push(Difference {
                            path: fpath,
                            left: render(program, &ty, &x),
                            right: render(program, &ty, &y),
                        });
                    }
                }
                (SlotRef::Child(x), SlotRef::Child(y)) => children.push((x, y, fpath)),
                (SlotRef::Empty, SlotRef::Empty) => {}
                (SlotRef::Empty, SlotRef::Child(y)) => out.push(Difference {
                    path: fpath,
                    left: "null".into(),
                    right: format!("a `{}` node", program.type_name(right.type_of(y))),
                }),
                (SlotRef::Child(x), SlotRef::Empty) => out.push(Difference {
                    path: fpath,
                    left: format!("a `{}` node", program.type_name(left.type_of(x))),
                    right: "null".into(),
                }),
                (SlotRef::List(xs), SlotRef::List(ys)) => {
                    if xs.len() != ys.len() {
                        out.push(Difference {
                            path: fpath,
                            left: format!("a list of {} nodes", xs.len()),
                            right: format!("a list of {} nodes", ys.len()),
                        });
                    } else {
                        for (k, (x, y)) in xs.iter().zip(ys.iter()).enumerate() {
                            children.push((*x, *y, format!("{fpath}[{k}]")));
                        }
                    }
                }
                _ => out.push(Difference {
                    path: fpath,
                    left: "?".into(),
                    right: "?".into(),
                }),
            }
        }
        stack.extend(children.into_iter().rev());
    }
    out.truncate(limit);
    out
}

/// Compares two global vectors; differences are reported at
/// `$.globals.NAME`.
pub fn diff_globals(program: &Program, left: &[Value], right: &[Value]) -> Vec<Difference> {
    program
        .globals
        .iter()
        .zip(left.iter().zip(right))
        .filter(|(_, (x, y))| !x.same_as(y))
        .map(|(g, (x, y))| Difference {
            path: format!("$.globals.{}", g.name),
            left: render(program, &g.ty, x),
            right: render(program, &g.ty, y),
        })
        .collect()
}
