//! Trace trees for `examples/treefold/treefold.tf`, made by a simulated
//! trace recorder, and the reference semantics that checks folding.
//!
//! A trace compiler records the path one loop iteration takes through the
//! loop body as a *trace*: straight-line SSA instructions with a *guard*
//! at every branch. A guard holds the snapshot of the variables (to
//! restore the interpreter's state on a side exit) and, once that side
//! exit has been taken often enough, an attached *secondary trace*
//! recorded from there to the loop end. This module simulates that:
//!
//! - [`LoopBody`]: a small structured loop body ([`Stmt`]: assignments,
//!   loads, stores, allocations, synchronizations, `if`) flattened to code
//!   with branch targets. A branch's index is its `pc`; the loop end is
//!   `pc == len`. Each `if` says which way the first recorded iteration
//!   went (the primary trace's path).
//! - Recording ([`record_primary`], [`record_side_exit`]) follows one path
//!   from a start point to the loop end. Every expression and every
//!   assignment defines a fresh value (assigning a variable to another
//!   records a `Mov`), and temporaries never outlive their statement, so
//!   a value held by a snapshot belongs to exactly one variable: the
//!   property `treefold.tf` relies on when it redirects references after a
//!   fold.
//! - The generators behind `treefuse gen-example treefold-min`,
//!   `treefold-nested` and `treefold-life` ([`min_body`], [`nested_body`],
//!   [`life_body`]).
//! - [`run_source`] and [`run_tree`]: one loop iteration run by the body
//!   itself and by a trace tree (leaving it at an unrecorded side exit to
//!   finish in the body, as a trace VM returns to its interpreter). A
//!   correct fold changes neither result.
//!
//! Trees are `serde_json::Value`s: trace trees are shallow (a secondary
//! trace hangs off a guard of the primary one, and folding never nests
//! them deeper), so the recursion here is bounded by the body's `if`
//! nesting, which the generators keep below 1,000.

use std::collections::BTreeMap;
use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// Arithmetic and comparison operators (`enum Op` of `treefold.tf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// 1 when `a < b`, else 0.
    Lt,
    /// 1 when `a != b`, else 0.
    Ne,
}

impl BinOp {
    fn name(self) -> &'static str {
        match self {
            BinOp::Add => "Add",
            BinOp::Sub => "Sub",
            BinOp::Mul => "Mul",
            BinOp::Lt => "Lt",
            BinOp::Ne => "Ne",
        }
    }

    fn from_name(name: &str) -> Option<BinOp> {
        Some(match name {
            "Add" => BinOp::Add,
            "Sub" => BinOp::Sub,
            "Mul" => BinOp::Mul,
            "Lt" => BinOp::Lt,
            "Ne" => BinOp::Ne,
            _ => return None,
        })
    }

    fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Lt => i64::from(a < b),
            BinOp::Ne => i64::from(a != b),
        }
    }
}

/// An expression of the loop body.
#[derive(Clone, Debug)]
pub enum Expr {
    Var(String),
    Const(i64),
    /// The memory word at a constant address.
    Load(i64),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
}

/// A statement of the loop body.
#[derive(Clone, Debug)]
pub enum Stmt {
    Assign(String, Expr),
    /// `memory[addr] = expr` (changes memory: blocks folding).
    Store(i64, Expr),
    /// `var = new object of size` (changes memory: blocks folding).
    Alloc(String, i64),
    /// A synchronization (changes memory: blocks folding).
    Sync,
    /// `if cond != 0 { then } else { els }`; `first` is the way the first
    /// recorded iteration went (`true`: then).
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
        first: bool,
    },
}

/// One instruction of the flattened body.
#[derive(Clone, Debug)]
enum Code {
    Assign(String, Expr),
    Store(i64, Expr),
    Alloc(String, i64),
    Sync,
    /// Falls through to the then side, jumps to `else_at` otherwise.
    Branch {
        cond: Expr,
        else_at: usize,
        first: bool,
    },
    Jump(usize),
}

/// A loop body flattened to code with branch targets.
#[derive(Clone, Debug)]
pub struct LoopBody {
    code: Vec<Code>,
    vars: Vec<String>,
}

impl LoopBody {
    pub fn new(stmts: &[Stmt]) -> LoopBody {
        let mut body = LoopBody {
            code: Vec::new(),
            vars: Vec::new(),
        };
        body.flatten(stmts);
        body.vars.sort();
        body.vars.dedup();
        body
    }

    fn note_vars(&mut self, e: &Expr) {
        match e {
            Expr::Var(v) => self.vars.push(v.clone()),
            Expr::Bin(_, a, b) => {
                self.note_vars(a);
                self.note_vars(b);
            }
            Expr::Const(_) | Expr::Load(_) => {}
        }
    }

    fn flatten(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            match s {
                Stmt::Assign(v, e) => {
                    self.note_vars(e);
                    self.vars.push(v.clone());
                    self.code.push(Code::Assign(v.clone(), e.clone()));
                }
                Stmt::Store(addr, e) => {
                    self.note_vars(e);
                    self.code.push(Code::Store(*addr, e.clone()));
                }
                Stmt::Alloc(v, size) => {
                    self.vars.push(v.clone());
                    self.code.push(Code::Alloc(v.clone(), *size));
                }
                Stmt::Sync => self.code.push(Code::Sync),
                Stmt::If {
                    cond,
                    then,
                    els,
                    first,
                } => {
                    self.note_vars(cond);
                    let branch = self.code.len();
                    self.code.push(Code::Branch {
                        cond: cond.clone(),
                        else_at: 0,
                        first: *first,
                    });
                    self.flatten(then);
                    let jump = self.code.len();
                    self.code.push(Code::Jump(0));
                    let else_at = self.code.len();
                    self.flatten(els);
                    let end = self.code.len();
                    if let Code::Branch { else_at: e, .. } = &mut self.code[branch] {
                        *e = else_at;
                    }
                    self.code[jump] = Code::Jump(end);
                }
            }
        }
    }

    /// The pc of the loop end (a merge point of every trace).
    pub fn end_pc(&self) -> i64 {
        self.code.len() as i64
    }

    /// The variables of the body, sorted.
    pub fn vars(&self) -> &[String] {
        &self.vars
    }

    /// The value numbers the variables hold when a trace starts: 1, 2, ...
    /// in the order of [`LoopBody::vars`].
    pub fn entry(&self) -> BTreeMap<String, i64> {
        self.vars
            .iter()
            .enumerate()
            .map(|(i, v)| (v.clone(), i as i64 + 1))
            .collect()
    }

    /// The code index where the branch at `pc` continues when it goes the
    /// way `then` says.
    fn target(&self, pc: usize, then: bool) -> Option<usize> {
        match self.code.get(pc)? {
            Code::Branch { else_at, .. } => Some(if then { pc + 1 } else { *else_at }),
            _ => None,
        }
    }
}

/// Why a trace tree could not be read, recorded into or run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeError(pub String);

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TreeError {}

fn bad(what: impl Into<String>) -> TreeError {
    TreeError(what.into())
}

fn snapshot_json(env: &BTreeMap<String, i64>) -> Value {
    Value::Array(env.iter().map(|(k, v)| json!([k, v])).collect())
}

/// Records one path through a loop body.
struct Recorder<'a> {
    body: &'a LoopBody,
    next_id: i64,
}

impl Recorder<'_> {
    fn fresh(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Emits the instructions computing `e`; returns its value number.
    fn expr(&mut self, e: &Expr, env: &BTreeMap<String, i64>, out: &mut Vec<Value>) -> i64 {
        match e {
            // Every variable has a value: the body's variables all have
            // entry values.
            Expr::Var(v) => env.get(v).copied().unwrap_or(0),
            Expr::Const(k) => {
                let id = self.fresh();
                out.push(json!({"type": "Const", "id": id, "value": k}));
                id
            }
            Expr::Load(addr) => {
                let id = self.fresh();
                out.push(json!({"type": "Load", "id": id, "addr": addr}));
                id
            }
            Expr::Bin(op, a, b) => {
                let a = self.expr(a, env, out);
                let b = self.expr(b, env, out);
                let id = self.fresh();
                out.push(json!({"type": "Arith", "id": id, "op": op.name(), "a": a, "b": b}));
                id
            }
        }
    }

    /// Records from code index `pc` with the variables in `env` to the loop
    /// end, every branch going the way its `first` says; returns the
    /// `Trace` node.
    fn record(&mut self, mut pc: usize, mut env: BTreeMap<String, i64>) -> Value {
        let mut out = Vec::new();
        while let Some(code) = self.body.code.get(pc) {
            match code {
                Code::Assign(v, e) => {
                    let mut id = self.expr(e, &env, &mut out);
                    if matches!(e, Expr::Var(_)) {
                        // A copy gets its own value (see the module docs).
                        let copy = self.fresh();
                        out.push(json!({"type": "Mov", "id": copy, "src": id}));
                        id = copy;
                    }
                    env.insert(v.clone(), id);
                    pc += 1;
                }
                Code::Store(addr, e) => {
                    let val = self.expr(e, &env, &mut out);
                    out.push(json!({"type": "Store", "addr": addr, "val": val}));
                    pc += 1;
                }
                Code::Alloc(v, size) => {
                    let id = self.fresh();
                    out.push(json!({"type": "Alloc", "id": id, "size": size}));
                    env.insert(v.clone(), id);
                    pc += 1;
                }
                Code::Sync => {
                    out.push(json!({"type": "Sync"}));
                    pc += 1;
                }
                Code::Branch {
                    cond,
                    else_at,
                    first,
                } => {
                    let c = self.expr(cond, &env, &mut out);
                    out.push(json!({
                        "type": "Guard", "pc": pc, "cond": c, "expect": first,
                        "snapshot": snapshot_json(&env), "side": {"type": "Unrecorded"}
                    }));
                    pc = if *first { pc + 1 } else { *else_at };
                }
                Code::Jump(to) => pc = *to,
            }
        }
        out.push(json!({"type": "LoopEnd", "pc": pc, "snapshot": snapshot_json(&env)}));
        json!({"type": "Trace", "ins": out})
    }
}

/// The primary trace of `body`: the path of the first recorded iteration,
/// from the loop start with the entry values ([`LoopBody::entry`]).
pub fn record_primary(body: &LoopBody) -> Value {
    let mut r = Recorder {
        body,
        next_id: body.vars.len() as i64 + 1,
    };
    r.record(0, body.entry())
}

/// The largest value number in a tree (0 if none).
pub fn max_value(tree: &Value) -> i64 {
    let mut top = 0;
    let mut work = vec![tree];
    while let Some(v) = work.pop() {
        match v {
            Value::Object(o) => {
                if let Some(id) = o.get("id").and_then(Value::as_i64) {
                    top = top.max(id);
                }
                work.extend(o.values());
            }
            Value::Array(a) => work.extend(a.iter()),
            _ => {}
        }
    }
    top
}

fn snapshot_of(guard: &Value) -> Result<BTreeMap<String, i64>, TreeError> {
    let pairs = guard
        .get("snapshot")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("a merge point without a snapshot"))?;
    pairs
        .iter()
        .map(|p| match p.as_array().map(Vec::as_slice) {
            Some([Value::String(k), v]) => v
                .as_i64()
                .map(|v| (k.clone(), v))
                .ok_or_else(|| bad("a snapshot value is not an integer")),
            _ => Err(bad("a snapshot entry is not a [name, value] pair")),
        })
        .collect()
}

fn field_i64(node: &Value, name: &str) -> Result<i64, TreeError> {
    node.get(name)
        .and_then(Value::as_i64)
        .ok_or_else(|| bad(format!("a {} without `{name}`", kind(node))))
}

fn kind(node: &Value) -> &str {
    node.get("type").and_then(Value::as_str).unwrap_or("node")
}

fn ins_of(trace: &Value) -> Result<&Vec<Value>, TreeError> {
    trace
        .get("ins")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("a trace without `ins`"))
}

/// Takes the side exit at the first guard of the primary trace (the root)
/// that has no secondary trace yet, as the seed's recorder does when that
/// exit becomes hot: records from the other side of its branch, with the
/// variables restored from its snapshot, to the loop end, and attaches the
/// new trace to the guard. Returns the guard's pc, or `None` when every
/// guard of the primary trace has a secondary trace (or there is none).
pub fn record_side_exit(body: &LoopBody, tree: &mut Value) -> Result<Option<i64>, TreeError> {
    let next_id = max_value(tree) + 1;
    let ins = tree
        .get_mut("ins")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| bad("the root is not a trace"))?;
    let Some(guard) = ins
        .iter_mut()
        .find(|i| kind(i) == "Guard" && i.get("side").map(kind) == Some("Unrecorded"))
    else {
        return Ok(None);
    };
    let pc = field_i64(guard, "pc")?;
    let expect = guard
        .get("expect")
        .and_then(Value::as_bool)
        .ok_or_else(|| bad("a guard without `expect`"))?;
    let env = snapshot_of(guard)?;
    let start = usize::try_from(pc)
        .ok()
        .and_then(|pc| body.target(pc, !expect))
        .ok_or_else(|| bad(format!("pc {pc} is no branch of the loop body")))?;
    let mut r = Recorder { body, next_id };
    let side = r.record(start, env);
    if let Some(slot) = guard.get_mut("side") {
        *slot = side;
    }
    Ok(Some(pc))
}

/// Traces and instructions (all traces) in a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TreeSize {
    pub traces: usize,
    pub instructions: usize,
    /// Guards of the primary trace (the root).
    pub primary_guards: usize,
}

/// Counts what a tree holds.
pub fn tree_size(tree: &Value) -> Result<TreeSize, TreeError> {
    let mut size = TreeSize {
        primary_guards: ins_of(tree)?.iter().filter(|i| kind(i) == "Guard").count(),
        ..TreeSize::default()
    };
    let mut work = vec![tree];
    while let Some(trace) = work.pop() {
        let ins = ins_of(trace)?;
        size.traces += 1;
        size.instructions += ins.len();
        for i in ins {
            if let Some(side) = i.get("side").filter(|s| kind(s) == "Trace") {
                work.push(side);
            }
        }
    }
    Ok(size)
}

/// A loop body with `k` independent `a_i = min(b_i, c_i)`; the first
/// recorded iteration goes either way at each, by the seed.
pub fn min_body(k: usize, seed: u64) -> LoopBody {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stmts: Vec<Stmt> = (1..=k)
        .map(|i| {
            let (a, b, c) = (format!("a{i}"), format!("b{i}"), format!("c{i}"));
            Stmt::If {
                cond: Expr::bin(BinOp::Lt, Expr::var(&b), Expr::var(&c)),
                then: vec![Stmt::Assign(a.clone(), Expr::var(&b))],
                els: vec![Stmt::Assign(a, Expr::var(&c))],
                first: rng.gen_bool(0.5),
            }
        })
        .collect();
    LoopBody::new(&stmts)
}

/// `if`s nested `depth` deep: at level `k` (memory word `k` as condition),
/// one side holds the next level and the other sets `x = k`; the innermost
/// level sets `x = 0`. The first recorded iteration goes down to the
/// innermost level; which side of each `if` nests is chosen by the seed.
pub fn nested_body(depth: usize, seed: u64) -> LoopBody {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sides: Vec<bool> = (0..depth).map(|_| rng.gen_bool(0.5)).collect();
    // Built inside out, so no recursion.
    let mut inner = vec![Stmt::Assign("x".into(), Expr::Const(0))];
    for level in (1..=depth).rev() {
        let leaf = vec![Stmt::Assign("x".into(), Expr::Const(level as i64))];
        let nest_then = sides[level - 1];
        let (then, els) = if nest_then {
            (inner, leaf)
        } else {
            (leaf, inner)
        };
        inner = vec![Stmt::If {
            cond: Expr::Load(level as i64),
            then,
            els,
            first: nest_then,
        }];
    }
    LoopBody::new(&inner)
}

/// The Game of Life neighbour count: `count = 0`, then `neighbours`
/// consecutive `if cell_k { count = count + 1 }` (memory word `k`); which
/// neighbours the first recorded iteration sees alive is chosen by the seed.
pub fn life_body(neighbours: usize, seed: u64) -> LoopBody {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut stmts = vec![Stmt::Assign("count".into(), Expr::Const(0))];
    for k in 1..=neighbours {
        stmts.push(Stmt::If {
            cond: Expr::Load(k as i64),
            then: vec![Stmt::Assign(
                "count".into(),
                Expr::bin(BinOp::Add, Expr::var("count"), Expr::Const(1)),
            )],
            els: vec![],
            first: rng.gen_bool(0.5),
        });
    }
    LoopBody::new(&stmts)
}

/// The recorded tree of `treefold-min`: the primary trace and a secondary
/// trace at every side exit.
pub fn min_tree(k: usize, seed: u64) -> Result<Value, TreeError> {
    let body = min_body(k, seed);
    let mut tree = record_primary(&body);
    while record_side_exit(&body, &mut tree)?.is_some() {}
    Ok(tree)
}

/// The recorded tree of `treefold-nested`: the primary trace down to the
/// innermost level and a secondary trace at every side exit.
pub fn nested_tree(depth: usize, seed: u64) -> Result<Value, TreeError> {
    let body = nested_body(depth, seed);
    let mut tree = record_primary(&body);
    while record_side_exit(&body, &mut tree)?.is_some() {}
    Ok(tree)
}

/// The recorded tree of `treefold-life` before any folding: the primary
/// trace and the secondary trace of its first side exit.
pub fn life_tree(neighbours: usize, seed: u64) -> Result<Value, TreeError> {
    let body = life_body(neighbours, seed);
    let mut tree = record_primary(&body);
    record_side_exit(&body, &mut tree)?;
    Ok(tree)
}

/// One round of [`record_and_fold`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The tree as recorded, before folding.
    pub recorded: TreeSize,
    /// The tree after folding.
    pub folded: TreeSize,
    /// The pc of the side exit recorded after folding (`None`: none is
    /// left, the primary trace has no guard without a secondary trace).
    pub next_exit: Option<i64>,
}

/// The seed's re-recording loop: folds `tree` (with `fold`, for example
/// by running `treefold.tf`), records the next side exit of the folded
/// primary trace ([`record_side_exit`]: the path that folding pruned,
/// recorded again), and repeats until no side exit is left to record or
/// `max_rounds` rounds ran. Returns the rounds and the last folded tree.
pub fn record_and_fold<E: From<TreeError>>(
    body: &LoopBody,
    mut tree: Value,
    max_rounds: usize,
    mut fold: impl FnMut(Value) -> Result<Value, E>,
) -> Result<(Vec<Round>, Value), E> {
    let mut rounds = Vec::new();
    for _ in 0..max_rounds {
        let recorded = tree_size(&tree)?;
        tree = fold(tree)?;
        let folded = tree_size(&tree)?;
        let next_exit = record_side_exit(body, &mut tree)?;
        rounds.push(Round {
            recorded,
            folded,
            next_exit,
        });
        if next_exit.is_none() {
            break;
        }
    }
    Ok((rounds, tree))
}

/// What one iteration of the loop leaves: the variables and memory.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Machine {
    pub vars: BTreeMap<String, i64>,
    /// Memory words (0 where absent).
    pub memory: BTreeMap<i64, i64>,
    /// Allocations made (an allocation's value is `1_000_000 + n`).
    pub allocations: i64,
}

fn eval(e: &Expr, m: &Machine) -> i64 {
    match e {
        Expr::Var(v) => m.vars.get(v).copied().unwrap_or(0),
        Expr::Const(k) => *k,
        Expr::Load(addr) => m.memory.get(addr).copied().unwrap_or(0),
        Expr::Bin(op, a, b) => op.apply(eval(a, m), eval(b, m)),
    }
}

fn allocate(m: &mut Machine) -> i64 {
    m.allocations += 1;
    1_000_000 + m.allocations
}

/// Runs the loop body once from code index `pc` (the interpreter).
fn run_code(body: &LoopBody, mut pc: usize, m: &mut Machine) {
    while let Some(code) = body.code.get(pc) {
        match code {
            Code::Assign(v, e) => {
                let x = eval(e, m);
                m.vars.insert(v.clone(), x);
                pc += 1;
            }
            Code::Store(addr, e) => {
                let x = eval(e, m);
                m.memory.insert(*addr, x);
                pc += 1;
            }
            Code::Alloc(v, _) => {
                let x = allocate(m);
                m.vars.insert(v.clone(), x);
                pc += 1;
            }
            Code::Sync => pc += 1,
            Code::Branch { cond, else_at, .. } => {
                pc = if eval(cond, m) != 0 { pc + 1 } else { *else_at };
            }
            Code::Jump(to) => pc = *to,
        }
    }
}

/// One iteration of the loop body, interpreted.
pub fn run_source(body: &LoopBody, start: &Machine) -> Machine {
    let mut m = start.clone();
    run_code(body, 0, &mut m);
    m
}

/// One iteration run by the trace tree `tree` (the variables start with
/// their entry values, [`LoopBody::entry`]): a failing guard continues in
/// its secondary trace, or, when none is attached, restores the variables
/// from its snapshot and finishes the iteration in the interpreter.
pub fn run_tree(body: &LoopBody, tree: &Value, start: &Machine) -> Result<Machine, TreeError> {
    let mut m = start.clone();
    let mut values: BTreeMap<i64, i64> = BTreeMap::new();
    for (var, id) in body.entry() {
        values.insert(id, m.vars.get(&var).copied().unwrap_or(0));
    }
    let read = |values: &BTreeMap<i64, i64>, node: &Value, field: &str| {
        let id = field_i64(node, field)?;
        values
            .get(&id)
            .copied()
            .ok_or_else(|| bad(format!("value {id} used before it is defined")))
    };
    let restore = |values: &BTreeMap<i64, i64>, node: &Value, m: &mut Machine| {
        for (var, id) in snapshot_of(node)? {
            let x = values
                .get(&id)
                .copied()
                .ok_or_else(|| bad(format!("snapshot value {id} is not defined")))?;
            m.vars.insert(var, x);
        }
        Ok::<(), TreeError>(())
    };
    let mut trace = tree;
    let mut at = 0;
    loop {
        let ins = ins_of(trace)?;
        let Some(i) = ins.get(at) else {
            return Err(bad("a trace ends without reaching the loop end"));
        };
        at += 1;
        let id = i.get("id").and_then(Value::as_i64).unwrap_or(0);
        let result = match kind(i) {
            "Const" => field_i64(i, "value")?,
            "Mov" => read(&values, i, "src")?,
            "Arith" => {
                let op = i
                    .get("op")
                    .and_then(Value::as_str)
                    .and_then(BinOp::from_name)
                    .ok_or_else(|| bad("an Arith without a known `op`"))?;
                op.apply(read(&values, i, "a")?, read(&values, i, "b")?)
            }
            "Load" => {
                let addr = field_i64(i, "addr")?;
                m.memory.get(&addr).copied().unwrap_or(0)
            }
            "Store" => {
                let addr = field_i64(i, "addr")?;
                let x = read(&values, i, "val")?;
                m.memory.insert(addr, x);
                continue;
            }
            "Alloc" => allocate(&mut m),
            "Sync" => continue,
            "CMov" => {
                if read(&values, i, "cond")? != 0 {
                    read(&values, i, "if_true")?
                } else {
                    read(&values, i, "if_false")?
                }
            }
            "Guard" => {
                let expect = i
                    .get("expect")
                    .and_then(Value::as_bool)
                    .ok_or_else(|| bad("a guard without `expect`"))?;
                if (read(&values, i, "cond")? != 0) == expect {
                    continue;
                }
                match i.get("side") {
                    Some(side) if kind(side) == "Trace" => {
                        trace = side;
                        at = 0;
                        continue;
                    }
                    _ => {
                        restore(&values, i, &mut m)?;
                        let pc = field_i64(i, "pc")?;
                        let resume = usize::try_from(pc)
                            .ok()
                            .and_then(|pc| body.target(pc, !expect))
                            .ok_or_else(|| bad(format!("pc {pc} is no branch")))?;
                        run_code(body, resume, &mut m);
                        return Ok(m);
                    }
                }
            }
            "LoopEnd" => {
                restore(&values, i, &mut m)?;
                return Ok(m);
            }
            other => return Err(bad(format!("unknown instruction {other}"))),
        };
        values.insert(id, result);
    }
}

/// Why generator `name` cannot build a tree of `size`, if it cannot.
pub(crate) fn size_error(name: &str, size: usize) -> Option<&'static str> {
    if size == 0 {
        return Some("the loop body needs at least 1 `if`");
    }
    if name == "treefold-min" && size > 100 {
        // K secondary traces, each running to the loop end, hold about
        // K^2/2 guards with 3K-entry snapshots: 10^6 entries at K = 100.
        return Some("the recorded tree grows with size^3 (snapshots of 3·size variables at size^2/2 guards); at most 100");
    }
    if size > 999 {
        // Nested ifs fold one level per iteration of treefold.tf's `while`.
        return Some(
            "treefold.tf folds one level per `while` iteration and stops after 1000; at most 999",
        );
    }
    None
}

/// Writes the tree of a `treefold-*` generator as one line of JSON.
pub(crate) fn generate(
    w: &mut dyn std::io::Write,
    name: &str,
    size: usize,
    seed: u64,
) -> Result<(), crate::GenerateError> {
    let tree = match name {
        "treefold-min" => min_tree(size, seed),
        "treefold-nested" => nested_tree(size, seed),
        _ => life_tree(size, seed),
    }
    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    serde_json::to_writer(w, &tree).map_err(std::io::Error::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_min_is_a_guard_with_a_copy_on_each_side() {
        let body = min_body(1, 0);
        let tree = min_tree(1, 0).unwrap();
        let ins = ins_of(&tree).unwrap();
        let kinds: Vec<&str> = ins.iter().map(kind).collect();
        assert_eq!(kinds, ["Arith", "Guard", "Mov", "LoopEnd"]);
        let side = &ins[1]["side"];
        let side_kinds: Vec<&str> = ins_of(side).unwrap().iter().map(kind).collect();
        assert_eq!(side_kinds, ["Mov", "LoopEnd"]);
        assert_eq!(body.vars(), ["a1", "b1", "c1"]);
        assert_eq!(
            tree_size(&tree).unwrap(),
            TreeSize {
                traces: 2,
                instructions: 6,
                primary_guards: 1
            }
        );
    }

    #[test]
    fn the_recorded_trees_run_like_the_body() {
        let cases = [
            (min_body(3, 1), min_tree(3, 1).unwrap()),
            (nested_body(3, 2), nested_tree(3, 2).unwrap()),
            (life_body(8, 3), life_tree(8, 3).unwrap()),
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for (body, tree) in &cases {
            for _ in 0..50 {
                let vars: Vec<(String, i64)> = body
                    .vars()
                    .iter()
                    .map(|v| (v.clone(), rng.gen_range(-3..4)))
                    .collect();
                let start = Machine {
                    vars: vars.into_iter().collect(),
                    memory: (0..10).map(|a| (a, rng.gen_range(0..2))).collect(),
                    allocations: 0,
                };
                assert_eq!(
                    run_tree(body, tree, &start).unwrap(),
                    run_source(body, &start)
                );
            }
        }
    }

    #[test]
    fn nested_ifs_record_a_side_exit_per_level() {
        let tree = nested_tree(4, 5).unwrap();
        let size = tree_size(&tree).unwrap();
        assert_eq!((size.traces, size.primary_guards), (5, 4));
        // The first recorded iteration reaches the innermost level: x = 0.
        let body = nested_body(4, 5);
        let ins = ins_of(&tree).unwrap();
        let end = ins.last().unwrap();
        assert_eq!(kind(end), "LoopEnd");
        assert_eq!(field_i64(end, "pc").unwrap(), body.end_pc());
    }

    #[test]
    fn a_side_exit_is_recorded_once() {
        let body = life_body(2, 0);
        let mut tree = record_primary(&body);
        assert_eq!(record_side_exit(&body, &mut tree).unwrap(), Some(1));
        let size = tree_size(&tree).unwrap();
        assert_eq!(size.traces, 2);
        assert_eq!(record_side_exit(&body, &mut tree).unwrap(), Some(4));
        assert_eq!(record_side_exit(&body, &mut tree).unwrap(), None);
    }
}
