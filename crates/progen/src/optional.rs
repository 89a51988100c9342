//! The optional-children part of a random program (LANGUAGE.md §8.7):
//! types `Op*`, globals `opg` and `opl`, `fuse opmain`.
//!
//! Every type inherits an optional child `t: OpLeaf?` from `OpE`;
//! `OpPair` adds an optional `l` and a plain `r`, `OpBox` an optional `o`
//! and a list `items`. The bodies of the three traversals `opa(k)`,
//! `opb(k)` and `opc()` are random statements over those slots: calls on
//! optional children (plain, guarded by `is none`, `is T` or data, with
//! arguments that may fail), `is none` tests in conditions and values,
//! emptying (`= none`, also of a slot below a child), filling with `new`
//! (optional children of the new node given as `none` or left out),
//! moves out of and into optional children, copies, reads through them
//! (guarded by a test, or left unguarded as the program's risky sites,
//! which fail when the child is empty), aliases of them, `return`, and
//! nodes replacing themselves where they stand in an optional child.
//! Order-sensitive updates of `opl` (`opl = opl * 3 + ..`) make the
//! passes depend on each other, so the fuser must keep their order where
//! they meet.
//!
//! Termination: calls go only to children, and every statement that may
//! make a subtree taller (filling an empty optional child, copying into a
//! slot, pushing onto a list, a `new` node wrapping a slot's old subtree)
//! is paid with the fuel global `opf`, so a run grows the tree a bounded
//! number of times. (Without fuel, a traversal that fills an empty child
//! and then calls the child runs forever.) Wrapping comes only at the end
//! of `opc`, after its calls.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A slot of a type: (name, static type, optional).
#[derive(Clone, Copy)]
struct SlotDef {
    name: &'static str,
    ty: &'static str,
    optional: bool,
}

/// One concrete type of the part.
struct TypeDef {
    name: &'static str,
    /// Its own single children (the inherited `t` comes first).
    slots: &'static [SlotDef],
    /// Its list child, if any.
    list: Option<&'static str>,
    /// Its `i64` data field.
    data: &'static str,
}

const T: SlotDef = SlotDef {
    name: "t",
    ty: "OpLeaf",
    optional: true,
};

const TYPES: [TypeDef; 3] = [
    TypeDef {
        name: "OpLeaf",
        slots: &[],
        list: None,
        data: "v",
    },
    TypeDef {
        name: "OpPair",
        slots: &[
            SlotDef {
                name: "l",
                ty: "OpE",
                optional: true,
            },
            SlotDef {
                name: "r",
                ty: "OpE",
                optional: false,
            },
        ],
        list: None,
        data: "w",
    },
    TypeDef {
        name: "OpBox",
        slots: &[SlotDef {
            name: "o",
            ty: "OpE",
            optional: true,
        }],
        list: Some("items"),
        data: "n",
    },
];

/// The traversals: name and whether it takes `k`.
const METHODS: [(&str, bool); 3] = [("opa", true), ("opb", true), ("opc", false)];

struct OpGen<'a> {
    rng: &'a mut ChaCha8Rng,
    /// Unguarded sites that may fail left to place.
    risk_left: u32,
    /// Aliases named so far.
    fresh: u32,
    /// The receivers the body being generated calls already.
    called: Vec<String>,
}

/// The optional-children part of a program, drawn from `rng`.
pub(crate) fn part(rng: &mut ChaCha8Rng) -> String {
    let risk_left = rng.gen_range(0..3);
    let mut g = OpGen {
        rng,
        risk_left,
        fresh: 0,
        called: Vec::new(),
    };
    g.emit()
}

impl OpGen<'_> {
    fn below(&mut self, n: u32) -> u32 {
        self.rng.gen_range(0..n)
    }

    fn chance(&mut self, n: u32) -> bool {
        self.below(n) == 0
    }

    fn pick<X: Clone>(&mut self, xs: &[X]) -> X {
        xs[self.rng.gen_range(0..xs.len())].clone()
    }

    /// Whether to place an unguarded site that may fail here.
    fn risky(&mut self) -> bool {
        if self.risk_left > 0 && self.chance(6) {
            self.risk_left -= 1;
            true
        } else {
            false
        }
    }

    fn emit(&mut self) -> String {
        let mut out = String::new();
        out.push_str("global opg: i64 = 0;\n");
        out.push_str("global opl: i64 = 1;\n");
        out.push_str(&format!("global opf: i64 = {};\n", 2 + self.below(6)));
        out.push_str("abstract tree OpE {\n");
        out.push_str("    child t: OpLeaf?;\n");
        out.push_str("    traversal opa(k: i64) {}\n");
        out.push_str("    traversal opb(k: i64) {}\n");
        out.push_str("    traversal opc() {}\n");
        out.push_str("}\n");
        for ty in &TYPES {
            out.push_str(&format!("tree {} : OpE {{\n", ty.name));
            for s in ty.slots {
                let q = if s.optional { "?" } else { "" };
                out.push_str(&format!("    child {}: {}{q};\n", s.name, s.ty));
            }
            if let Some(l) = ty.list {
                out.push_str(&format!("    child {l}: [OpE];\n"));
            }
            out.push_str(&format!("    {}: i64;\n", ty.data));
            for (m, has_k) in METHODS {
                if self.chance(4) {
                    continue;
                }
                let params = if has_k { "k: i64" } else { "" };
                out.push_str(&format!("    traversal {m}({params}) {{\n"));
                for stmt in self.body(ty, has_k, m == "opc") {
                    for line in stmt.lines() {
                        out.push_str(&format!("        {line}\n"));
                    }
                }
                out.push_str("    }\n");
            }
            out.push_str("}\n");
        }
        let calls: Vec<String> = (0..2 + self.below(3))
            .map(|_| {
                let (m, has_k) = self.pick(&METHODS);
                if has_k {
                    format!("root.{m}({});", self.rng.gen_range(-1..4))
                } else {
                    format!("root.{m}();")
                }
            })
            .collect();
        out.push_str(&format!(
            "fuse opmain(root: OpE) {{ {} }}\n",
            calls.join(" ")
        ));
        out
    }

    /// The single children of a type, `t` first.
    fn slots(ty: &TypeDef) -> Vec<SlotDef> {
        let mut v = vec![T];
        v.extend_from_slice(ty.slots);
        v
    }

    fn body(&mut self, ty: &TypeDef, has_k: bool, is_opc: bool) -> Vec<String> {
        let n = 1 + self.below(6);
        self.called.clear();
        let mut lines: Vec<String> = (0..n).map(|_| self.stmt(ty, has_k)).collect();
        if is_opc && self.chance(2) {
            let wrap = self.wrap(ty);
            lines.push(Self::fueled(wrap));
        }
        lines
    }

    /// `stmt`, which may make a subtree taller, paid with fuel (`opf`):
    /// the guard lines are never deleted on their own by the minimizer.
    fn fueled(stmt: String) -> String {
        format!("if opf > 0 {{ // keep\n    opf = opf - 1; // keep\n    {stmt}\n}}")
    }

    /// A value for `k` in calls and updates (`1` where there is no `k`).
    fn k(has_k: bool) -> &'static str {
        if has_k {
            "k"
        } else {
            "1"
        }
    }

    /// A call of a random traversal on `recv`.
    /// One call per receiver and body: each invocation then visits each
    /// child at most once, so a pass visits each node at most once (more
    /// calls on a chain of `t`s took time exponential in its length).
    fn call(&mut self, ty: &TypeDef, recv: &str, has_k: bool) -> String {
        if self.called.iter().any(|c| c == recv) {
            return "opg = opg + 1;".to_string();
        }
        self.called.push(recv.to_string());
        let (m, takes_k) = self.pick(&METHODS);
        if !takes_k {
            return format!("{recv}.{m}();");
        }
        let d = ty.data;
        let k = Self::k(has_k);
        let arg = if self.risky() {
            format!("{k} / self.{d}")
        } else {
            self.pick(&[
                k.to_string(),
                format!("{k} + 1"),
                format!("self.{d}"),
                "opg".to_string(),
                "0".to_string(),
            ])
        };
        format!("{recv}.{m}({arg});")
    }

    /// A test of an optional child `s`.
    fn opt_test(&mut self, s: &SlotDef) -> String {
        let n = s.name;
        match self.below(5) {
            0 => format!("self.{n} is none"),
            1 | 2 => format!("!(self.{n} is none)"),
            3 if s.ty == "OpE" => {
                format!("self.{n} is {}", self.pick(&["OpLeaf", "OpPair", "OpBox"]))
            }
            _ => format!("self.{n} is OpLeaf"),
        }
    }

    /// A node of static type `ty` built with `new`.
    fn new_node(&mut self, ty: &str, has_k: bool) -> String {
        let k = Self::k(has_k);
        if ty == "OpLeaf" || self.chance(2) {
            return match self.below(3) {
                0 => format!("new OpLeaf {{ v: {k} }}"),
                1 => "new OpLeaf { v: 2, t: none }".to_string(),
                _ => format!("new OpLeaf {{ v: opg, t: new OpLeaf {{ v: {k} }} }}"),
            };
        }
        match self.below(3) {
            0 => format!("new OpPair {{ r: new OpLeaf {{ v: 1 }}, w: {k} }}"),
            1 => "new OpPair { l: none, r: new OpLeaf { v: 3 }, w: 2 }".to_string(),
            _ => "new OpBox { o: new OpLeaf { v: 4 }, items: [new OpLeaf { v: 5 }] }".to_string(),
        }
    }

    fn stmt(&mut self, ty: &TypeDef, has_k: bool) -> String {
        let slots = Self::slots(ty);
        let opts: Vec<SlotDef> = slots.iter().copied().filter(|s| s.optional).collect();
        let s = self.pick(&opts);
        let (n, d, k) = (s.name, ty.data, Self::k(has_k));
        match self.below(26) {
            // Calls on an optional child.
            0..=3 => self.call(ty, &format!("self.{n}"), has_k),
            4..=6 => {
                let test = if self.chance(3) {
                    format!("self.{d} > 0")
                } else {
                    self.opt_test(&s)
                };
                let call = self.call(ty, &format!("self.{n}"), has_k);
                format!("if {test} {{ {call} }}")
            }
            // Calls on a plain child or the list.
            7 | 8 => {
                let plain: Vec<SlotDef> = slots.iter().copied().filter(|s| !s.optional).collect();
                match (plain.first(), ty.list) {
                    (Some(p), _) => self.call(ty, &format!("self.{}", p.name), has_k),
                    (None, Some(l)) => {
                        let call = self.call(ty, "x", has_k);
                        format!("for x in self.{l} {{ {call} }}")
                    }
                    (None, None) => self.call(ty, &format!("self.{n}"), has_k),
                }
            }
            // `is none` in a condition or a value.
            9 => format!("if self.{n} is none {{ self.{d} = self.{d} + 1; }} else {{ opl = opl * 3 + 1; }}"),
            10 => format!("self.{d} = if self.{n} is none {{ {k} }} else {{ self.{d} * 2 }};"),
            // Emptying.
            11 => format!("self.{n} = none;"),
            12 => {
                let test = if self.chance(2) {
                    format!("self.{d} > 2")
                } else {
                    self.opt_test(&s)
                };
                format!("if {test} {{ self.{n} = none; }}")
            }
            13 => {
                // A slot below an optional child.
                if self.risky() {
                    format!("self.{n}.t = none;")
                } else {
                    format!("if !(self.{n} is none) {{ self.{n}.t = none; }}")
                }
            }
            // Filling.
            14 | 15 => {
                let node = self.new_node(s.ty, has_k);
                Self::fueled(if self.chance(2) {
                    format!("if self.{n} is none {{ self.{n} = {node}; }}")
                } else {
                    format!("self.{n} = {node};")
                })
            }
            // Moves out of optional children.
            16 => {
                if s.ty == "OpLeaf" || self.chance(2) {
                    if self.risky() {
                        format!("self.{n} = self.{n}.t;")
                    } else {
                        format!("if !(self.{n} is none) && !(self.{n}.t is none) {{ self.{n} = self.{n}.t; }}")
                    }
                } else if self.chance(2) {
                    format!("if self.{n} is OpPair {{ self.{n} = (self.{n} as OpPair).r; }}")
                } else if self.risky() {
                    format!("self.{n} = (self.{n} as OpPair).l;")
                } else {
                    format!("if self.{n} is OpPair && !((self.{n} as OpPair).l is none) {{ self.{n} = (self.{n} as OpPair).l; }}")
                }
            }
            17 => match slots.iter().find(|s| !s.optional) {
                // Into a plain child, out of an optional one below it.
                Some(p) => {
                    let p = p.name;
                    format!("if self.{p} is OpPair && !((self.{p} as OpPair).l is none) {{ self.{p} = (self.{p} as OpPair).l; }}")
                }
                None => format!("if self.{n} is none {{ self.{d} = 0; }}"),
            },
            // Copies.
            18 => Self::fueled(match slots.iter().find(|s| !s.optional) {
                Some(p) if s.ty == "OpE" => {
                    let p = p.name;
                    if self.chance(2) {
                        format!("if self.{n} is none {{ self.{n} = copy(self.{p}); }}")
                    } else {
                        format!("if !(self.{n} is none) {{ self.{p} = copy(self.{n}); }}")
                    }
                }
                _ if s.ty == "OpLeaf" => {
                    format!("if !(self.{n} is none) {{ self.{n}.t = copy(self.{n}); }}")
                }
                _ => format!("if self.{n} is OpLeaf {{ self.t = copy((self.{n} as OpLeaf)); }}"),
            }),
            // Reads through an optional child.
            19 | 20 => {
                let read = if s.ty == "OpLeaf" {
                    format!("self.{n}.v")
                } else {
                    format!("(self.{n} as OpLeaf).v")
                };
                let update = self.pick(&[
                    format!("opl = opl * 3 + {read};"),
                    format!("self.{d} = self.{d} + {read};"),
                    format!("opg = opg + {read};"),
                ]);
                if self.risky() {
                    update
                } else if s.ty == "OpLeaf" {
                    format!("if !(self.{n} is none) {{ {update} }}")
                } else {
                    format!("if self.{n} is OpLeaf {{ {update} }}")
                }
            }
            // Data and globals.
            21 => self.pick(&[
                format!("self.{d} = self.{d} * 2 + {k};"),
                format!("opl = opl * 3 + self.{d};"),
                "opg = opg + 1;".to_string(),
            ]),
            // Aliases of optional children.
            22 => {
                self.fresh += 1;
                let a = format!("a{}", self.fresh);
                if s.ty == "OpLeaf" {
                    if self.risky() {
                        format!("let {a} = self.{n}; {a}.v = {a}.v + {k};")
                    } else {
                        format!("if !(self.{n} is none) {{ let {a} = self.{n}; {a}.v = {a}.v + {k}; }}")
                    }
                } else {
                    format!("if !(self.{n} is none) {{ let {a} = self.{n}; if {a} is OpLeaf {{ opl = opl * 3 + ({a} as OpLeaf).v; }} }}")
                }
            }
            23 => format!("if self.{d} > 4 {{ return; }}"),
            // The receiver replaces itself (where it may stand in an
            // optional child: `t` holds only `OpLeaf`s).
            24 => match ty.name {
                "OpLeaf" => self.pick(&[
                    "if self.v > 3 { self = new OpLeaf { v: self.v - 3 }; }".to_string(),
                    "if !(self.t is none) && self.v < 0 { self = self.t; }".to_string(),
                ]),
                "OpPair" => self.pick(&[
                    "if !(self.l is none) && self.w > 2 { self = self.l; }".to_string(),
                    "if self.w < 0 { self = self.r; }".to_string(),
                ]),
                _ => "if self.o is OpPair { self = self.o; }".to_string(),
            },
            _ => match ty.list {
                Some(l) => Self::fueled(format!("if len(self.{l}) < 3 && !(self.{n} is none) {{ self.{l}.push(copy(self.{n})); }}")),
                None => self.call(ty, &format!("self.{n}"), has_k),
            },
        }
    }

    /// A statement of `opc` after its others: a new node wraps a slot's
    /// old subtree (in its optional child).
    fn wrap(&mut self, ty: &TypeDef) -> String {
        match ty.name {
            "OpPair" => self.pick(&[
                "if !(self.l is none) { self.l = new OpPair { l: self.l, r: new OpLeaf { v: 3 }, w: 0 }; }".to_string(),
                "self.r = new OpPair { l: self.r, r: new OpLeaf { v: 4 }, w: 1 };".to_string(),
            ]),
            "OpBox" => "if !(self.o is none) { self.o = new OpBox { o: self.o, items: [] }; }"
                .to_string(),
            _ => "if !(self.t is none) { self.t = new OpLeaf { v: 6, t: self.t }; }".to_string(),
        }
    }
}
