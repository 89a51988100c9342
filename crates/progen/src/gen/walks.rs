//! LANGUAGE.md §8.1–§8.4 in random programs: default walks (`traversal f()
//! walk;`, `walk;` and `walk(args);` with pre- and post-order work, bodies
//! with `walk` on an abstract type that each concrete type walks with its
//! own children), traversals added by `impl` blocks (some written before
//! the type they extend), subtypes' own defaults for inherited fields, and
//! aliases through casts of loop variables, together with the statements
//! that make walks interesting to fuse: order-sensitive global updates,
//! reads of children written by other passes, receivers replacing
//! themselves before or after their walk.
//!
//! In one program in two ([`WALKS_ONE_IN`]) a part of its own is appended:
//! a small hierarchy (`W`, `WLeaf`, `WTiny`, `WPair`, `WList`, `WRoot`),
//! globals `wg0`, `wg1`, traversals `wt0`.. and a `fuse` item `wgo`. Every
//! choice is drawn from a generator seeded from the program's seed, so the
//! rest of each program is what the seed gave before.

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// One in how many programs get the part.
const WALKS_ONE_IN: u32 = 2;

/// The concrete types of the `W` hierarchy that a walk may reach.
const CONCRETE: [&str; 4] = ["WLeaf", "WTiny", "WPair", "WList"];

struct Walks {
    rng: ChaCha8Rng,
    /// Per traversal: whether it takes a parameter `p: i64`.
    params: Vec<bool>,
    /// Runtime errors still allowed (a division by a field).
    risk: u32,
}

/// The part for `seed`, or nothing.
pub(super) fn part(seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7761_6c6b_735f_7631);
    if rng.gen_range(0..WALKS_ONE_IN) != 0 {
        return String::new();
    }
    let mut w = Walks {
        rng,
        params: Vec::new(),
        risk: 1,
    };
    w.emit()
}

impl Walks {
    fn below(&mut self, n: u32) -> u32 {
        self.rng.gen_range(0..n)
    }

    fn chance(&mut self, n: u32) -> bool {
        self.below(n) == 0
    }

    fn emit(&mut self) -> String {
        let mut out =
            String::from("\n// Default walks, impl blocks, subtype defaults, cast aliases.\n");
        let n = 2 + self.below(3) as usize;
        self.params = (0..n).map(|_| self.chance(2)).collect();
        let mut impls = Vec::new();
        for m in 0..n {
            impls.extend(self.traversal(m));
        }
        // Some impl blocks come before the types they extend.
        let early = self.below(impls.len() as u32 + 1) as usize;
        for block in impls.drain(..early) {
            out.push_str(&block);
        }
        out.push_str("global wg0: i64 = 0;\nglobal wg1: i64 = 1;\n");
        out.push_str("abstract tree W { wv: i64; wb: bool; }\n");
        let leaf_default = self.below(5) as i64 - 1;
        out.push_str(&format!("tree WLeaf : W {{ wv = {leaf_default}; }}\n"));
        out.push_str("tree WTiny : WLeaf { wb = true; }\n");
        out.push_str("tree WPair : W { child wl: W; child wr: W; }\n");
        out.push_str("tree WList : W { child wit: [W]; child wlast: W; }\n");
        out.push_str("tree WRoot { wn: i64; child wtop: W; child wrest: [W]; }\n");
        for block in impls {
            out.push_str(&block);
        }
        let calls: Vec<String> = (0..1 + self.below(4))
            .map(|_| {
                let m = self.below(n as u32) as usize;
                let arg = if self.params[m] {
                    (self.below(7) as i64 - 2).to_string()
                } else {
                    String::new()
                };
                format!("root.wt{m}({arg});")
            })
            .collect();
        out.push_str(&format!(
            "fuse wgo(root: WRoot) {{ {} }}\n",
            calls.join(" ")
        ));
        out
    }

    fn sig(&self, m: usize) -> String {
        let p = if self.params[m] { "p: i64" } else { "" };
        format!("wt{m}({p})")
    }

    /// The `impl` blocks that give traversal `m` its bodies.
    fn traversal(&mut self, m: usize) -> Vec<String> {
        let sig = self.sig(m);
        let mut blocks = Vec::new();
        // On the base: the walk body, or a body with `walk` every concrete
        // type inherits (and walks with its own children).
        if self.chance(2) {
            blocks.push(format!("impl W {{ traversal {sig} walk; }}\n"));
        } else {
            let body = self.body(m, "W");
            blocks.push(format!(
                "impl W {{\n    traversal {sig} {{\n{body}    }}\n}}\n"
            ));
        }
        for ty in CONCRETE {
            if self.chance(2) {
                let body = self.body(m, ty);
                blocks.push(format!(
                    "impl {ty} {{\n    traversal {sig} {{\n{body}    }}\n}}\n"
                ));
            }
        }
        if self.chance(2) {
            blocks.push(format!("impl WRoot {{ traversal {sig} walk; }}\n"));
        } else {
            let arg = self.walk_args(m);
            blocks.push(format!(
                "impl WRoot {{\n    traversal {sig} {{\n        wg0 = wg0 * 2 + self.wn;\n        {arg}\n        self.wn = self.wn + wg1;\n    }}\n}}\n"
            ));
        }
        blocks
    }

    /// `walk;` or `walk(e);` for traversal `m`.
    fn walk_args(&mut self, m: usize) -> String {
        if !self.params[m] || self.chance(3) {
            return "walk;".into();
        }
        let e = match self.below(3) {
            0 => "p + 1".to_string(),
            1 => "wg1 - p".to_string(),
            _ => "p * 2 - wg0 % 5".to_string(),
        };
        format!("walk({e});")
    }

    /// A body on `ty`: pre-order statements, maybe a walk, post-order ones.
    fn body(&mut self, m: usize, ty: &str) -> String {
        let mut lines = Vec::new();
        for _ in 0..self.below(3) {
            lines.push(self.stmt(m, ty, false));
        }
        if ty == "WPair" && self.chance(5) {
            lines.push(
                "if self.wb && self.wl is WLeaf { self = new WTiny { wv: self.wl.wv }; }".into(),
            );
        }
        if ty != "WLeaf" && ty != "WTiny" || self.chance(2) {
            let w = self.walk_args(m);
            lines.push(w);
        }
        for _ in 0..self.below(3) {
            lines.push(self.stmt(m, ty, true));
        }
        if ty == "WPair" && self.chance(3) {
            lines.push(
                "if self.wl is WLeaf && self.wr is WLeaf { self = new WLeaf { wv: self.wl.wv - self.wr.wv }; }".into(),
            );
        }
        lines
            .into_iter()
            .map(|l| format!("        {l}\n"))
            .collect()
    }

    /// One statement of a body on `ty` (`post`: after the walk).
    fn stmt(&mut self, m: usize, ty: &str, post: bool) -> String {
        let p = if self.params[m] { "p" } else { "1" };
        let general = 5;
        let special = match ty {
            "WPair" => 3,
            "WList" => 3,
            _ => 0,
        };
        let k = self.below(general + special);
        match k {
            0 => "wg0 = wg0 * 3 + self.wv;".into(),
            1 => "wg1 = wg1 + 1;".into(),
            2 => format!("self.wv = self.wv + {p};"),
            3 => "if self.wb { wg0 = wg0 - self.wv; } else { self.wb = true; }".into(),
            4 if self.risk > 0 && self.chance(3) => {
                self.risk -= 1;
                "wg0 = wg0 + 100 / self.wv;".into()
            }
            4 => format!("self.wb = self.wv > {p};"),
            _ if ty == "WPair" => match k - general {
                0 => "self.wv = self.wl.wv - self.wr.wv;".into(),
                1 => "if self.wr is WLeaf { self.wr.wv = self.wr.wv + wg1; }".into(),
                _ if post => "wg0 = wg0 + self.wl.wv;".into(),
                _ => "self.wl.wb = !self.wl.wb;".into(),
            },
            _ => match k - general {
                0 => "self.wv = len(self.wit) + self.wlast.wv;".into(),
                1 => "for x in self.wit { if x is WPair { let a = (x as WPair); a.wv = a.wv + wg1; wg0 = wg0 * 2 + a.wl.wv; } }".into(),
                _ => "for x in self.wit { if x is WLeaf { let l = (x as WLeaf); wg0 = wg0 * 5 + l.wv; l.wb = !l.wb; } }".into(),
            },
        }
    }
}
