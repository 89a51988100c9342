//! Scope resolution written by hand in Rust: the baseline that the code
//! generated from `examples/scopes/scopes.tf` is measured against.
//!
//! It works on the same generated `scopes::Tree` (same arenas, same node
//! layout) and uses the same persistent map (`ValueMap` with `Arc<str>`
//! keys, the map type of generated code), so the comparison isolates what the generated
//! traversal code costs: dispatch, the environment passed by value, the
//! stack check per visit, `Result` plumbing. It computes exactly what the
//! program computes (`scopes-bench` checks the trees and globals equal
//! before timing). What an expert would do differently: lend the
//! environment to expressions by reference (they never extend it) and
//! match on the node kind directly, without a per-visit dispatcher.
//!
//! Recursion follows the block and expression nesting of the input, which
//! the benchmark's generator keeps a few levels deep.

use crate::scopes::{ExprId, ExprKind, Globals, StmtId, StmtKind, Tree};
use std::sync::Arc;
use treefuse_runtime::generated::ValueMap;

/// Names visible at a point, to their declarations' slots.
type Env = ValueMap<Arc<str>, i64>;

/// Resolves every name of the program in `t`, like `fuse resolve`.
pub fn run(t: &mut Tree, g: &mut Globals) {
    let Some(program) = t.root.program() else {
        return;
    };
    let body = t[program].body;
    block(t, g, body, Env::new(), 0);
}

/// A block at `depth`: each statement sees `env` extended by the
/// declarations before it.
fn block(t: &mut Tree, g: &mut Globals, b: StmtId, mut env: Env, depth: i64) {
    let stmts = t[b].stmts.clone();
    for &s in stmts.iter() {
        match t[s].kind {
            StmtKind::Decl => {
                let init = t[s].init();
                expr(t, g, init, &env);
                let slot = g.slots;
                g.slots = g.slots.wrapping_add(1);
                let node = &mut t[s];
                node.slot = slot;
                node.depth = depth + 1;
                env.insert(node.name.clone(), slot);
            }
            StmtKind::ExprStmt => {
                let e = t[s].e();
                expr(t, g, e, &env);
            }
            StmtKind::Block => block(t, g, s, env.clone(), depth + 1),
        }
    }
}

fn expr(t: &mut Tree, g: &mut Globals, e: ExprId, env: &Env) {
    match t[e].kind {
        ExprKind::Num => {}
        ExprKind::Var => {
            let slot = env.get(&t[e].name).copied().unwrap_or(-1);
            *t[e].slot_mut() = slot;
            if slot < 0 {
                g.unresolved = g.unresolved.wrapping_add(1);
            }
        }
        ExprKind::Add => {
            let (l, r) = (t[e].l, t[e].r);
            expr(t, g, l, env);
            expr(t, g, r, env);
        }
    }
}
