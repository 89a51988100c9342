//! `while COND limit N` loops and `break;` (LANGUAGE §8.6) in generated
//! traversals and `fuse` items.
//!
//! Where a loop goes is drawn from a generator of its own ([`Gen::loop_rng`]),
//! so a program that gets no loop is the one its seed gave before loops
//! existed. A traversal's loop counts its iterations in a fresh local
//! (read by the condition, carried across iterations), takes its limit
//! from a constant (zero and negative ones included), a parameter, a field,
//! the global `g0` or that local, always `% 4` or smaller, so a loop runs
//! at most three times, and may `break` under a condition. Termination and
//! size stay bounded as the module docs of `gen` require: inside a loop
//! (`Ctx::in_while`) calls on children and loop variables go only to
//! traversals of lower order than the running one, like calls on `self`,
//! so nested repetition is bounded by the number of traversals, not by
//! the depth of the tree.

use super::{Ctx, DTy, Gen};
use rand::Rng;

/// One in how many statements of a traversal body (where nesting allows
/// a block) is a `while` loop.
const WHILE_ONE_IN: u32 = 9;

impl Gen {
    fn loop_chance(&mut self, n: u32) -> bool {
        self.loop_rng.gen_range(0..n) == 0
    }

    fn loop_below(&mut self, n: u32) -> u32 {
        self.loop_rng.gen_range(0..n)
    }

    /// Sometimes (drawn from [`Gen::loop_rng`]) a `while` statement for a
    /// traversal body, with `nest` levels of blocks left.
    pub(super) fn maybe_while(&mut self, cx: &mut Ctx, nest: u32) -> Option<Vec<String>> {
        if nest == 0 || !self.loop_chance(WHILE_ONE_IN) {
            return None;
        }
        Some(self.while_stmt(cx, nest))
    }

    /// `let w = 0; while COND limit N { w = w + 1; .. }` with an optional
    /// `if C { break; }` somewhere in the body.
    fn while_stmt(&mut self, cx: &mut Ctx, nest: u32) -> Vec<String> {
        let w = self.fresh("w");
        let limit = self.loop_limit(cx, &w);
        let cond = match self.loop_below(4) {
            0 => format!("{w} < {}", self.loop_below(4)),
            1 => "true".to_string(),
            2 => format!("{w} < 3 && {}", self.expr(cx, DTy::Bool, 1)),
            _ => self.expr(cx, DTy::Bool, 2),
        };
        let saved = cx.in_while;
        cx.in_while = true;
        cx.locals.push((w.clone(), DTy::Int));
        let n = 1 + self.below(3);
        let mut body = vec![format!("{w} = {w} + 1;")];
        body.extend(self.block(cx, n, nest - 1));
        if self.loop_chance(2) {
            if let Some(run) = self.call_run(cx) {
                body.extend(run);
            }
        }
        if self.loop_chance(2) {
            let c = self.expr(cx, DTy::Bool, 1);
            let at = 1 + self.loop_below(body.len() as u32) as usize;
            // Only between whole statements: find a line at the body's
            // own level (not indented) at or after `at`.
            let at = (at..=body.len())
                .find(|&i| {
                    i == body.len() || !body[i].starts_with(' ') && !body[i].starts_with('}')
                })
                .unwrap_or(body.len());
            body.splice(
                at..at,
                [
                    format!("if {c} {{"),
                    "    break;".to_string(),
                    "}".to_string(),
                ],
            );
        }
        cx.in_while = saved;
        let mut out = vec![
            format!("let {w}: i64 = 0;"),
            format!("while {cond} limit {limit} {{"),
        ];
        out.extend(Self::indent(body));
        out.push("}".into());
        out
    }

    /// Two or three consecutive calls on one child of `self` (lower-order
    /// traversals, as every call in a loop), the shape whose calls the
    /// fuser merges within one iteration; their arguments may read the
    /// child or globals the earlier calls write, which keeps them apart.
    fn call_run(&mut self, cx: &mut Ctx) -> Option<Vec<String>> {
        if cx.loopvar.is_some() || cx.child_calls >= self.cfg.max_child_calls {
            return None;
        }
        let singles = self.singles(cx.ty);
        if singles.is_empty() {
            return None;
        }
        let (c, ct) = singles[self.loop_below(singles.len() as u32) as usize].clone();
        let mut ms = self.visible_methods(ct);
        ms.retain(|&m| self.methods[m].order < cx.order);
        if ms.is_empty() {
            return None;
        }
        let calls = 2 + self.loop_below(2);
        cx.child_calls += calls;
        Some(
            (0..calls)
                .map(|_| {
                    let m = ms[self.loop_below(ms.len() as u32) as usize];
                    let args = self.args(cx, m);
                    format!("self.{c}.{}({args});", self.methods[m].name)
                })
                .collect(),
        )
    }

    /// The limit of a traversal's loop: at most 3, possibly `<= 0`.
    fn loop_limit(&mut self, cx: &Ctx, w: &str) -> String {
        let ints: Vec<String> = cx
            .locals
            .iter()
            .filter(|(_, t)| *t == DTy::Int)
            .map(|(n, _)| n.clone())
            .collect();
        let fields = self.data_fields_of(cx.ty, Some(DTy::Int));
        match self.loop_below(6) {
            0 if !ints.is_empty() => {
                let p = ints[self.loop_below(ints.len() as u32) as usize].clone();
                format!("{p} % 4")
            }
            1 if !fields.is_empty() => {
                let (f, _) = fields[self.loop_below(fields.len() as u32) as usize].clone();
                format!("self.{f} % 4")
            }
            // (Not where traversals keep to the commutative counter: a
            // read of `g0` would order their loops.)
            2 if !self.cfg.private_globals => "g0 % 3".to_string(),
            3 => format!("{w} + {}", self.loop_below(4) as i64 - 1),
            _ => (self.loop_below(5) as i64 - 1).to_string(),
        }
    }

    /// For a `fuse` item's loop: a limit expression in place of the
    /// literal `limit` (sometimes; over the item's parameter `lim` and the
    /// global `g0`, at most 3), and whether the loop's body ends with
    /// `break;`.
    pub(super) fn fuse_loop_extras(&mut self, limit: u32, lim: bool) -> (String, bool) {
        let limit = match self.loop_below(6) {
            0 if lim => "lim % 4".to_string(),
            1 => "g0 % 3 + 1".to_string(),
            2 => format!("{} - 2", limit),
            _ => limit.to_string(),
        };
        (limit, self.loop_chance(4))
    }
}
