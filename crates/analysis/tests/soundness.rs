//! Soundness: a tracing walker runs traversals unfused on random trees and
//! records every tree location, global and frame variable each statement
//! really touches (as the path from the node the statement's traversal runs
//! on, at the moment of the access). Every recorded access must be in the
//! access set of the top-level statement being executed in *every* active
//! frame (so call statements are checked through their callees), and in
//! the summary of every active call. A runtime error must be announced by
//! `may_fail` on every active statement and summary.

use std::collections::HashMap;
use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use treefuse_analysis::{AccessSet, Analysis, FrameVar, LoopAccess, StmtAccess};
use treefuse_automata::Label;
use treefuse_runtime::gen::random_value;
use treefuse_runtime::{random_tree, GenOptions, NodeId, Slot, SlotRef, Tree};
use treefuse_sema::ops::{self, BinaryOp};
use treefuse_sema::{
    Expr, ExprKind, FieldKind, LocalId, MethodId, NewField, NewTree, NodePath, PathRoot, PathStep,
    PlaceRoot, Program, Projection, PureArg, PureBody, PureFnId, Stmt, StmtKind, TypeId, Value,
};

enum Stop {
    Error,
    Fuel,
}
type R<T> = Result<T, Stop>;

#[derive(PartialEq)]
enum Flow {
    Normal,
    Return,
    Break,
}

struct Act {
    self_node: NodeId,
    ty: TypeId,
    method: MethodId,
    /// (block index in the enclosing statement, statement index, element
    /// of the `for` loop being iterated by that statement), from the
    /// top-level statement inwards.
    nest: Vec<(usize, usize, Option<NodeId>)>,
    data: Vec<Value>,
    nodes: Vec<NodeId>,
}

struct Tracer<'a> {
    p: &'a Program,
    a: &'a Analysis<'a>,
    tree: Tree,
    parent: HashMap<NodeId, (NodeId, Label)>,
    globals: Vec<Value>,
    stack: Vec<Act>,
    pure_stack: Vec<Vec<Value>>,
    fuel: usize,
    checks: usize,
}

impl<'a> Tracer<'a> {
    fn new(p: &'a Program, a: &'a Analysis<'a>, tree: Tree) -> Self {
        let mut parent = HashMap::new();
        for n in tree.preorder(p) {
            for (i, f) in p.types[tree.type_of(n).index()].fields.iter().enumerate() {
                let l = a.labels().field(*f);
                match tree.slot(n, i as u32) {
                    SlotRef::Child(c) => {
                        parent.insert(c, (n, l));
                    }
                    SlotRef::List(items) => {
                        for c in items.iter() {
                            parent.insert(*c, (n, l));
                        }
                    }
                    SlotRef::Data(_) | SlotRef::Empty => {}
                }
            }
        }
        Tracer {
            p,
            a,
            tree,
            parent,
            globals: p.globals.iter().map(|g| g.init.clone()).collect(),
            stack: Vec::new(),
            pure_stack: Vec::new(),
            fuel: 20_000,
            checks: 0,
        }
    }

    fn path_from(&self, s: NodeId, x: NodeId) -> Option<Vec<Label>> {
        let mut v = Vec::new();
        let mut cur = x;
        while cur != s {
            let &(p, l) = self.parent.get(&cur)?;
            v.push(l);
            cur = p;
        }
        v.reverse();
        Some(v)
    }

    /// The access sets of the statement being executed, at every nesting
    /// level, then the summary of the activation.
    fn sets(&self, act: &Act) -> Vec<(&'a AccessSet, String)> {
        let stmts: &'a [StmtAccess] = self.a.body_accesses(act.ty, act.method).unwrap();
        let summary = self.a.summary(act.ty, act.method).unwrap();
        let mut name = format!(
            "{}.{} statement",
            self.p.type_name(act.ty),
            self.p.methods[act.method.index()].name
        );
        let mut out = Vec::new();
        let mut level = stmts;
        for (k, &(_, i, _)) in act.nest.iter().enumerate() {
            let sa = &level[i];
            name.push_str(&format!(" {i}"));
            out.push((&sa.set, name.clone()));
            if let Some(&(b, _, _)) = act.nest.get(k + 1) {
                level = &sa.blocks[b];
                name.push_str(&format!(" block {b} >"));
            }
        }
        out.push((summary, format!("the summary of {name}")));
        out
    }

    /// The `for` statements being iterated, with their current element.
    fn loops(&self, act: &Act) -> Vec<(&'a LoopAccess, NodeId, String)> {
        let stmts: &'a [StmtAccess] = self.a.body_accesses(act.ty, act.method).unwrap();
        let mut out = Vec::new();
        let mut level = stmts;
        for (k, &(_, i, elem)) in act.nest.iter().enumerate() {
            let sa = &level[i];
            if let (Some(e), Some(l)) = (elem, &sa.per_element) {
                let name = format!(
                    "loop at level {k} of {}.{}",
                    self.p.type_name(act.ty),
                    self.p.methods[act.method.index()].name
                );
                out.push((&**l, e, name));
            }
            if let Some(&(b, _, _)) = act.nest.get(k + 1) {
                level = &sa.blocks[b];
            }
        }
        out
    }

    fn rec_tree(&mut self, node: NodeId, rest: &[Label], write: bool) {
        if !self.pure_stack.is_empty() {
            return;
        }
        for act in &self.stack {
            let Some(mut path) = self.path_from(act.self_node, node) else {
                continue;
            };
            path.extend_from_slice(rest);
            for (l, elem, name) in self.loops(act) {
                let pick = |s: &'a AccessSet| if write { &s.writes } else { &s.reads };
                let in_element = self.path_from(elem, node).is_some_and(|mut p| {
                    p.extend_from_slice(rest);
                    pick(&l.element).accepts(&p)
                });
                self.checks += 1;
                assert!(
                    in_element || pick(&l.other).accepts(&path),
                    "{} of {} in neither side of the {name}: element {}; other {}",
                    if write { "write" } else { "read" },
                    self.a
                        .labels()
                        .format(&path.iter().map(|&l| l.into()).collect::<Vec<_>>()),
                    self.a.describe(&l.element),
                    self.a.describe(&l.other)
                );
            }
            for (set, name) in self.sets(act) {
                let nfa = if write { &set.writes } else { &set.reads };
                self.checks += 1;
                assert!(
                    nfa.accepts(&path),
                    "{} of {} not in {}: {}",
                    if write { "write" } else { "read" },
                    self.a
                        .labels()
                        .format(&path.iter().map(|&l| l.into()).collect::<Vec<_>>()),
                    name,
                    self.a.describe(set)
                );
            }
        }
    }

    fn rec_global(&mut self, word: &[Label], write: bool) {
        if !self.pure_stack.is_empty() {
            return;
        }
        for act in &self.stack {
            for (l, _, name) in self.loops(act) {
                let nfa = if write {
                    &l.other.global_writes
                } else {
                    &l.other.global_reads
                };
                assert!(
                    nfa.accepts(word),
                    "global {word:?} not in the other side of the {name}"
                );
            }
            for (set, name) in self.sets(act) {
                let nfa = if write {
                    &set.global_writes
                } else {
                    &set.global_reads
                };
                self.checks += 1;
                assert!(
                    nfa.accepts(word),
                    "global {} {:?} missing in {name}",
                    if write { "write" } else { "read" },
                    word
                );
            }
        }
    }

    fn rec_frame(&mut self, v: FrameVar, write: bool) {
        if !self.pure_stack.is_empty() {
            return;
        }
        let act = self.stack.last().unwrap();
        for (l, _, name) in self.loops(act) {
            let set = if write {
                &l.other.frame_writes
            } else {
                &l.other.frame_reads
            };
            assert!(
                set.contains(&v),
                "frame {v:?} not in the other side of the {name}"
            );
        }
        let mut sets = self.sets(act);
        sets.pop(); // summaries have no frame
        for (stmt, name) in sets {
            let set = if write {
                &stmt.frame_writes
            } else {
                &stmt.frame_reads
            };
            self.checks += 1;
            assert!(
                set.contains(&v),
                "frame {v:?} (write: {write}) missing in {name}"
            );
        }
    }

    fn fail(&mut self) -> Stop {
        for act in &self.stack {
            for (set, name) in self.sets(act) {
                assert!(set.may_fail, "{name} failed but may_fail is false");
            }
            for (l, _, name) in self.loops(act) {
                assert!(l.other.may_fail, "the {name} failed but may_fail is false");
            }
        }
        Stop::Error
    }

    fn label(&self, f: treefuse_sema::FieldId) -> Label {
        self.a.labels().field(f)
    }

    fn slot_of(&self, f: treefuse_sema::FieldId) -> u32 {
        self.p.fields[f.index()].slot
    }

    fn node_path(&mut self, path: &NodePath) -> R<NodeId> {
        match self.node_path_opt(path, false)? {
            Some(n) => Ok(n),
            None => Err(self.fail()),
        }
    }

    /// The node a path reaches; `None` if its last step is an empty
    /// optional child and `last_may_be_empty` (a call, `is`, `is none`),
    /// else an empty optional child on the way fails (LANGUAGE §8.7).
    fn node_path_opt(&mut self, path: &NodePath, last_may_be_empty: bool) -> R<Option<NodeId>> {
        let mut n = match path.root {
            PathRoot::SelfNode => self.stack.last().unwrap().self_node,
            PathRoot::Var(v) => {
                self.rec_frame(FrameVar::Node(v), false);
                self.stack.last().unwrap().nodes[v.index()]
            }
        };
        for (k, step) in path.steps.iter().enumerate() {
            // Rewriting in place (LANGUAGE.md §7) is not traced: stop the
            // run as if out of fuel (its soundness is covered by the
            // differential fusion tests).
            match step {
                PathStep::Elem(..) => return Err(Stop::Fuel),
                &PathStep::Child(f) => {
                    self.rec_tree(n, &[self.label(f)], false);
                    match self.tree.child_opt(n, self.slot_of(f)) {
                        Some(c) => n = c,
                        None if last_may_be_empty && k + 1 == path.steps.len() => return Ok(None),
                        None => return Err(self.fail()),
                    }
                }
                &PathStep::Cast(t) => {
                    self.rec_tree(n, &[], false);
                    if !self.p.is_subtype(self.tree.type_of(n), t) {
                        return Err(self.fail());
                    }
                }
            }
        }
        Ok(Some(n))
    }

    fn local_get(&mut self, l: LocalId) -> Value {
        if let Some(f) = self.pure_stack.last() {
            return f[l.index()].clone();
        }
        self.rec_frame(FrameVar::Local(l), false);
        self.stack.last().unwrap().data[l.index()].clone()
    }

    fn local_mut(&mut self, l: LocalId) -> &mut Value {
        match self.pure_stack.last_mut() {
            Some(f) => &mut f[l.index()],
            None => &mut self.stack.last_mut().unwrap().data[l.index()],
        }
    }

    /// The member labels of a chain `base.m1.m2`, and its base.
    fn chain<'e>(&self, e: &'e Expr) -> (&'e Expr, Vec<Label>) {
        if let ExprKind::Member(inner, i) = &e.kind {
            if let treefuse_sema::DataType::Record(r) = inner.ty {
                let (base, mut ms) = self.chain(inner);
                ms.push(self.a.labels().member(r, *i));
                return (base, ms);
            }
        }
        (e, Vec::new())
    }

    fn data(&self, n: NodeId, f: treefuse_sema::FieldId) -> Value {
        match self.tree.slot(n, self.slot_of(f)) {
            SlotRef::Data(v) => v.into_owned(),
            _ => Value::Int(0),
        }
    }

    fn eval(&mut self, e: &Expr) -> R<Value> {
        Ok(match &e.kind {
            ExprKind::Const(v) => v.clone(),
            ExprKind::Local(l) => self.local_get(*l),
            ExprKind::Global(g) => {
                self.rec_global(&[self.a.labels().global(*g)], false);
                self.globals[g.index()].clone()
            }
            ExprKind::Field(path, f) => {
                let n = self.node_path(path)?;
                self.rec_tree(n, &[self.label(*f)], false);
                self.data(n, *f)
            }
            ExprKind::ListLen(_) | ExprKind::InList => return Err(Stop::Fuel),
            ExprKind::Member(..) => {
                let (base, members) = self.chain(e);
                // Member indices from the base outwards.
                let mut idx = Vec::new();
                let mut cur = e;
                while !std::ptr::eq(cur, base) {
                    match &cur.kind {
                        ExprKind::Member(inner, i) => {
                            idx.push(*i as usize);
                            cur = inner;
                        }
                        _ => break,
                    }
                }
                idx.reverse();
                // Evaluate the base, recording the precise member path.
                let mut v = match &base.kind {
                    ExprKind::Field(path, f) => {
                        let n = self.node_path(path)?;
                        let mut w = vec![self.label(*f)];
                        w.extend(&members);
                        self.rec_tree(n, &w, false);
                        self.data(n, *f)
                    }
                    ExprKind::Global(g) => {
                        let mut w = vec![self.a.labels().global(*g)];
                        w.extend(&members);
                        self.rec_global(&w, false);
                        self.globals[g.index()].clone()
                    }
                    _ => self.eval(base)?,
                };
                for i in idx {
                    v = match v {
                        Value::Record(fs) => fs[i].clone(),
                        other => other,
                    };
                }
                v
            }
            ExprKind::Index(a, i) => {
                let av = self.eval(a)?;
                let iv = self.eval(i)?.as_int();
                match ops::index(&av, iv) {
                    Ok(v) => v,
                    Err(_) => return Err(self.fail()),
                }
            }
            ExprKind::Unary(op, x) => ops::unary(*op, &self.eval(x)?),
            ExprKind::Binary(BinaryOp::And, a, b) => {
                Value::Bool(self.eval(a)?.as_bool() && self.eval(b)?.as_bool())
            }
            ExprKind::Binary(BinaryOp::Or, a, b) => {
                Value::Bool(self.eval(a)?.as_bool() || self.eval(b)?.as_bool())
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                match ops::binary(*op, &x, &y) {
                    Ok(v) => v,
                    Err(_) => return Err(self.fail()),
                }
            }
            ExprKind::Builtin(b, args) => {
                let vs = self.eval_all(args)?;
                match ops::builtin(*b, &vs) {
                    Ok(v) => v,
                    Err(_) => return Err(self.fail()),
                }
            }
            ExprKind::Call(f, args) => {
                let vs = self.eval_all(args)?;
                self.call_pure(*f, vs)?
            }
            // A pure function over nodes (LANGUAGE §8.8) may read anything
            // below its node arguments: record a read of every field of
            // every node there (what the analysis must cover), and, as for
            // host functions, let any value stand for its result.
            ExprKind::NodeCall(f, args) => {
                for a in args {
                    match a {
                        PureArg::Data(x) => {
                            self.eval(x)?;
                        }
                        PureArg::Node(path) => {
                            let n = self.node_path(path)?;
                            self.read_subtree(n);
                        }
                    }
                }
                self.p.zero_value(&self.p.pure_fns[f.index()].ret)
            }
            ExprKind::Array(args) => Value::Array(Arc::new(self.eval_all(args)?)),
            ExprKind::Record(_, args) => Value::Record(Arc::new(self.eval_all(args)?)),
            ExprKind::Is(path, t) => match self.node_path_opt(path, true)? {
                Some(n) => {
                    self.rec_tree(n, &[], false);
                    Value::Bool(self.p.is_subtype(self.tree.type_of(n), *t))
                }
                None => Value::Bool(false),
            },
            ExprKind::IsNone(path) => {
                let n = self.node_path_opt(path, true)?;
                if let Some(n) = n {
                    self.rec_tree(n, &[], false);
                }
                Value::Bool(n.is_none())
            }
            ExprKind::If(c, a, b) => {
                if self.eval(c)?.as_bool() {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            ExprKind::Match(x, arms) => {
                let v = self.eval(x)?;
                match ops::match_arm(&v, arms) {
                    Some(arm) => self.eval(&arm.body)?,
                    None => return Err(self.fail()),
                }
            }
        })
    }

    /// Records a read of the node `n` and of every field of every node
    /// below it.
    fn read_subtree(&mut self, n: NodeId) {
        let mut work = vec![n];
        while let Some(n) = work.pop() {
            self.rec_tree(n, &[], false);
            let ty = self.tree.type_of(n);
            for f in self.p.types[ty.index()].fields.clone() {
                self.rec_tree(n, &[self.label(f)], false);
                match self.tree.slot(n, self.slot_of(f)) {
                    SlotRef::Child(c) => work.push(c),
                    SlotRef::List(items) => work.extend(items.iter().copied()),
                    _ => {}
                }
            }
        }
    }

    fn eval_all(&mut self, args: &[Expr]) -> R<Vec<Value>> {
        args.iter().map(|a| self.eval(a)).collect()
    }

    fn call_pure(&mut self, f: PureFnId, args: Vec<Value>) -> R<Value> {
        let pf = &self.p.pure_fns[f.index()];
        let mut frame = args;
        for (_, t) in pf.frame.locals.iter().skip(frame.len()) {
            frame.push(self.p.zero_value(t));
        }
        match &pf.body {
            // Host functions: any value will do for access tracing.
            PureBody::Host => Ok(self.p.zero_value(&pf.ret)),
            PureBody::Expr(e) => {
                self.pure_stack.push(frame);
                let r = self.eval(e);
                self.pure_stack.pop();
                r
            }
            PureBody::Block(stmts) => {
                self.pure_stack.push(frame);
                let r = self.exec_pure(stmts);
                self.pure_stack.pop();
                Ok(r?.unwrap_or(Value::Int(0)))
            }
        }
    }

    fn exec_pure(&mut self, stmts: &[Stmt]) -> R<Option<Value>> {
        for s in stmts {
            match &s.kind {
                StmtKind::Let { local, value } => {
                    let v = self.eval(value)?;
                    *self.local_mut(*local) = v;
                }
                StmtKind::Assign { place, value } => {
                    let v = self.eval(value)?;
                    self.assign(place, v)?;
                }
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    let b = if self.eval(cond)?.as_bool() {
                        then_branch
                    } else {
                        else_branch
                    };
                    if let Some(v) = self.exec_pure(b)? {
                        return Ok(Some(v));
                    }
                }
                StmtKind::ForArray { var, array, body } => {
                    if let Value::Array(items) = self.eval(array)? {
                        for it in items.iter() {
                            *self.local_mut(*var) = it.clone();
                            if let Some(v) = self.exec_pure(body)? {
                                return Ok(Some(v));
                            }
                        }
                    }
                }
                StmtKind::ForRange {
                    var,
                    start,
                    end,
                    body,
                } => {
                    let (a, b) = (self.eval(start)?.as_int(), self.eval(end)?.as_int());
                    for i in a..b {
                        *self.local_mut(*var) = Value::Int(i);
                        if let Some(v) = self.exec_pure(body)? {
                            return Ok(Some(v));
                        }
                    }
                }
                StmtKind::Return(Some(e)) => return Ok(Some(self.eval(e)?)),
                _ => {}
            }
        }
        Ok(None)
    }

    /// A data write, recorded.
    fn assign(&mut self, place: &treefuse_sema::Place, v: Value) -> R<()> {
        let mut indices = Vec::new();
        let mut members = Vec::new();
        let mut ty = match &place.root {
            PlaceRoot::Local(_) => None,
            PlaceRoot::Global(g) => Some(self.p.globals[g.index()].ty.clone()),
            PlaceRoot::Field(_, f) => match &self.p.fields[f.index()].kind {
                FieldKind::Data(d) => Some(d.clone()),
                _ => None,
            },
        };
        let mut whole = false;
        let mut key = None;
        for pr in &place.projections {
            match pr {
                Projection::Key(e) => {
                    key = Some(self.eval(e)?);
                    whole = true;
                    ty = match ty {
                        Some(treefuse_sema::DataType::Map(_, t)) => Some(*t),
                        _ => None,
                    };
                }
                Projection::Index(e) => {
                    indices.push(self.eval(e)?.as_int());
                    whole = true;
                    ty = match ty {
                        Some(treefuse_sema::DataType::Array(t)) => Some(*t),
                        _ => None,
                    };
                }
                Projection::Member(i) => {
                    if let Some(treefuse_sema::DataType::Record(r)) = ty {
                        if !whole {
                            members.push(self.a.labels().member(r, *i));
                        }
                        ty = Some(self.p.records[r.index()].fields[*i as usize].ty.clone());
                    }
                }
            }
        }
        let target: &mut Value = match &place.root {
            PlaceRoot::Local(l) => {
                self.rec_frame(FrameVar::Local(*l), true);
                self.local_mut(*l)
            }
            PlaceRoot::Global(g) => {
                let mut w = vec![self.a.labels().global(*g)];
                w.extend(&members);
                self.rec_global(&w, true);
                &mut self.globals[g.index()]
            }
            PlaceRoot::Field(path, f) => {
                let n = self.node_path(path)?;
                let mut w = vec![self.label(*f)];
                w.extend(&members);
                self.rec_tree(n, &w, true);
                let slot = self.slot_of(*f);
                if place.projections.is_empty() {
                    self.tree.set_slot(n, slot, Slot::Data(v));
                    return Ok(());
                }
                match self.tree.data_mut(n, slot) {
                    Some(v) => v,
                    None => return Ok(()),
                }
            }
        };
        match project(target, &place.projections, indices, key) {
            Some(cur) => {
                *cur = v;
                Ok(())
            }
            None => Err(self.fail()),
        }
    }

    fn set_parent(&mut self, child: NodeId, parent: NodeId, l: Label) {
        self.parent.insert(child, (parent, l));
    }

    /// Builds a new subtree; moved nodes are recorded as read and written.
    fn build(&mut self, t: &NewTree) -> R<NodeId> {
        enum B {
            Data(Value),
            Node(NodeId),
            List(Vec<NodeId>),
            Empty,
        }
        let mut built = Vec::new();
        for f in &t.fields {
            built.push(match f {
                NewField::Data(e) => B::Data(self.eval(e)?),
                NewField::New(t) => B::Node(self.build(t)?),
                NewField::Move(p) => B::Node(self.moved(p)?),
                NewField::List(items) => {
                    let mut out = Vec::new();
                    for it in items {
                        out.push(match it {
                            NewField::New(t) => self.build(t)?,
                            NewField::Move(p) => self.moved(p)?,
                            _ => unreachable!("list items are nodes"),
                        });
                    }
                    B::List(out)
                }
                NewField::Copy(_) => return Err(Stop::Fuel),
                NewField::Empty => B::Empty,
                NewField::MoveList(s) => {
                    let parent = self.node_path(&s.parent)?;
                    let l = self.label(s.field);
                    self.rec_tree(parent, &[l], false);
                    self.rec_tree(parent, &[l], true);
                    match self.tree.slot(parent, self.slot_of(s.field)) {
                        SlotRef::List(items) => B::List(items.to_vec()),
                        _ => B::List(Vec::new()),
                    }
                }
            });
        }
        let n = self.tree.alloc(self.p, t.ty);
        let fields = self.p.types[t.ty.index()].fields.clone();
        for (i, b) in built.into_iter().enumerate() {
            let l = self.label(fields[i]);
            let slot = match b {
                B::Data(v) => Slot::Data(v),
                B::Node(c) => {
                    self.set_parent(c, n, l);
                    Slot::Child(c)
                }
                B::List(items) => {
                    for &c in &items {
                        self.set_parent(c, n, l);
                    }
                    Slot::List(items.into())
                }
                B::Empty => Slot::Empty,
            };
            self.tree.set_slot(n, i as u32, slot);
        }
        Ok(n)
    }

    fn moved(&mut self, p: &NodePath) -> R<NodeId> {
        let n = self.node_path(p)?;
        self.rec_tree(n, &[], false);
        self.rec_tree(n, &[], true);
        Ok(n)
    }

    fn replace_slot(&mut self, parent: NodeId, f: treefuse_sema::FieldId, new: NodeId) {
        let l = self.label(f);
        self.rec_tree(parent, &[l], true);
        let slot = self.slot_of(f);
        if let SlotRef::Child(old) = self.tree.slot(parent, slot) {
            if self.parent.get(&old) == Some(&(parent, l)) {
                self.parent.remove(&old);
            }
        }
        self.tree.set_slot(parent, slot, Slot::Child(new));
        self.set_parent(new, parent, l);
    }

    /// Runs a block: the body of the activation (`block` is `None`) or
    /// block `b` of the statement being executed.
    fn exec_block(&mut self, stmts: &[Stmt], block: Option<usize>) -> R<Flow> {
        for (i, s) in stmts.iter().enumerate() {
            let nest = &mut self.stack.last_mut().unwrap().nest;
            match block {
                None => {
                    nest.clear();
                    nest.push((0, i, None));
                }
                Some(b) if i == 0 => nest.push((b, 0, None)),
                Some(b) => *nest.last_mut().unwrap() = (b, i, None),
            }
            match self.exec(s)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        if block.is_some() && !stmts.is_empty() {
            self.stack.last_mut().unwrap().nest.pop();
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &Stmt) -> R<Flow> {
        if self.fuel == 0 {
            return Err(Stop::Fuel);
        }
        self.fuel -= 1;
        match &s.kind {
            StmtKind::Call {
                receiver,
                method,
                args,
            } => {
                // A call on an empty optional child does nothing.
                let Some(n) = self.node_path_opt(receiver, true)? else {
                    return Ok(Flow::Normal);
                };
                let vs = self.eval_all(args)?;
                self.rec_tree(n, &[], false);
                self.invoke(n, *method, vs)?;
            }
            StmtKind::Let { local, value } => {
                let v = self.eval(value)?;
                self.rec_frame(FrameVar::Local(*local), true);
                *self.local_mut(*local) = v;
            }
            StmtKind::Alias { var, path } => {
                let n = self.node_path(path)?;
                self.rec_frame(FrameVar::Node(*var), true);
                self.stack.last_mut().unwrap().nodes[var.index()] = n;
            }
            StmtKind::Assign { place, value } => {
                let v = self.eval(value)?;
                self.assign(place, v)?;
            }
            StmtKind::Replace { slot, tree } => {
                let parent = self.node_path(&slot.parent)?;
                let n = self.build(tree)?;
                self.replace_slot(parent, slot.field, n);
            }
            StmtKind::Move { slot, source } => {
                let parent = self.node_path(&slot.parent)?;
                let n = self.moved(source)?;
                self.replace_slot(parent, slot.field, n);
            }
            StmtKind::Clear { slot } => {
                let parent = self.node_path(&slot.parent)?;
                let l = self.label(slot.field);
                self.rec_tree(parent, &[l], true);
                let index = self.slot_of(slot.field);
                if let SlotRef::Child(old) = self.tree.slot(parent, index) {
                    if self.parent.get(&old) == Some(&(parent, l)) {
                        self.parent.remove(&old);
                    }
                }
                self.tree.set_slot(parent, index, Slot::Empty);
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let (b, k) = if self.eval(cond)?.as_bool() {
                    (then_branch, 0)
                } else {
                    (else_branch, 1)
                };
                return self.exec_block(b, Some(k));
            }
            StmtKind::ForChildren { var, list, body } => {
                let parent = self.node_path(&list.parent)?;
                self.rec_tree(parent, &[self.label(list.field)], false);
                let items: Vec<NodeId> = match self.tree.slot(parent, self.slot_of(list.field)) {
                    SlotRef::List(items) => items.to_vec(),
                    _ => Vec::new(),
                };
                for it in items {
                    self.rec_frame(FrameVar::Node(*var), true);
                    let act = self.stack.last_mut().unwrap();
                    act.nodes[var.index()] = it;
                    act.nest.last_mut().unwrap().2 = Some(it);
                    if self.exec_block(body, Some(0))? == Flow::Return {
                        return Ok(Flow::Return);
                    }
                }
                self.stack.last_mut().unwrap().nest.last_mut().unwrap().2 = None;
            }
            StmtKind::Return(_) => return Ok(Flow::Return),
            // §8.6: the limit once, the condition before each iteration;
            // accesses of the body count as block 0 of this statement.
            StmtKind::While { cond, limit, body } => {
                let n = self.eval(limit)?.as_int();
                let depth = self.stack.last().unwrap().nest.len();
                let mut i = 0;
                while i < n {
                    self.stack.last_mut().unwrap().nest.truncate(depth);
                    if !self.eval(cond)?.as_bool() {
                        break;
                    }
                    i += 1;
                    match self.exec_block(body, Some(0))? {
                        Flow::Normal => {}
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                    }
                }
                self.stack.last_mut().unwrap().nest.truncate(depth);
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::ReplaceSelf { .. }
            | StmtKind::SpliceSelf { .. }
            | StmtKind::EditList { .. }
            | StmtKind::CopyTo { .. } => return Err(Stop::Fuel),
            StmtKind::ForArray { .. } | StmtKind::ForRange { .. } => {
                unreachable!("not in traversals")
            }
        }
        Ok(Flow::Normal)
    }

    fn invoke(&mut self, n: NodeId, method: MethodId, args: Vec<Value>) -> R<()> {
        let ty = self.tree.type_of(n);
        let Some(b) = self.p.dispatch(ty, method) else {
            return Ok(());
        };
        if self.stack.len() > 150 {
            return Err(Stop::Fuel);
        }
        let body = &self.p.bodies[b.index()];
        let mut data = args;
        for (_, t) in body.frame.locals.iter().skip(data.len()) {
            data.push(self.p.zero_value(t));
        }
        self.stack.push(Act {
            self_node: n,
            ty,
            method,
            nest: Vec::new(),
            data,
            nodes: vec![n; body.frame.node_vars.len()],
        });
        let stmts = body.body.as_deref().unwrap_or(&[]);
        let r = self.exec_block(stmts, None);
        self.stack.pop();
        r.map(|_| ())
    }
}

/// Follows record members and array elements; `None` when an index is out
/// of range.
fn project<'v>(
    mut cur: &'v mut Value,
    projections: &[Projection],
    indices: Vec<i64>,
    key: Option<Value>,
) -> Option<&'v mut Value> {
    let mut idx = indices.into_iter();
    for pr in projections {
        cur = match pr {
            Projection::Member(i) => ops::member_mut(cur, *i as usize),
            Projection::Key(_) => ops::entry_mut(cur, key.as_ref()?, Value::Int(0)),
            Projection::Index(_) => ops::index_mut(cur, idx.next().unwrap_or(0)).ok()?,
        };
    }
    Some(cur)
}

/// Runs every traversal on every concrete type on a few random trees.
/// Returns (runs, checks, runtime errors).
fn trace_program(src: &str, seeds: u64, nodes: usize) -> (usize, usize, usize) {
    let p = treefuse_sema::compile(src).unwrap_or_else(|d| panic!("{d:#?}"));
    let a = Analysis::new(&p);
    let (mut runs, mut checks, mut errors) = (0, 0, 0);
    let fns: Vec<_> = a.functions().collect();
    for (ty, m, _) in fns {
        for seed in 0..seeds {
            let opts = GenOptions {
                nodes,
                max_depth: 12,
                max_list: 3,
                seed: seed * 7919 + ty.0 as u64 * 31 + m.0 as u64,
            };
            let Ok(tree) = random_tree(&p, ty, &opts) else {
                continue;
            };
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let args: Vec<Value> = p.methods[m.index()]
                .params
                .iter()
                .map(|t| random_value(&p, t, &mut rng))
                .collect();
            let root = tree.root;
            let mut t = Tracer::new(&p, &a, tree);
            runs += 1;
            if let Err(Stop::Error) = t.invoke(root, m, args) {
                errors += 1;
            }
            checks += t.checks;
        }
    }
    (runs, checks, errors)
}

fn example(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../examples/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn figure2_accesses_are_covered() {
    let (runs, checks, errs) = trace_program(&example("figure2/figure2.tf"), 8, 40);
    eprintln!("figure2: {runs} runs {checks} checks {errs} errors");
    assert!(runs > 0 && checks > 1000, "{runs} {checks}");
}

#[test]
fn render_accesses_are_covered() {
    for f in ["render/render.tf", "render/render_lists.tf"] {
        let (runs, checks, errs) = trace_program(&example(f), 4, 60);
        eprintln!("{f}: {runs} runs {checks} checks {errs} errors");
        assert!(runs > 0 && checks > 1000, "{f}: {runs} {checks}");
    }
}

#[test]
fn ast_accesses_are_covered() {
    for f in ["ast/ast.tf", "ast/ast_lists.tf", "toylang/toylang.tf"] {
        let (runs, checks, errs) = trace_program(&example(f), 4, 60);
        eprintln!("{f}: {runs} runs {checks} checks {errs} errors");
        assert!(runs > 0 && checks > 1000, "{f}: {runs} {checks}");
    }
}

/// Hand-written schemas (tests/programs): moves, `new` with moved children,
/// aliases relocated by moves (also below loop variables and in callees),
/// guarded calls, `return` inside loops, self calls from an abstract type's
/// body, records and arrays in fields and globals, pure functions with
/// blocks, casts that fail.
#[test]
fn hand_written_schemas_are_covered() {
    let mut errors = 0;
    for f in ["boxes", "lists", "moves", "edits", "guards", "optional"] {
        let src = std::fs::read_to_string(format!(
            "{}/tests/programs/{f}.tf",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let (runs, checks, errs) = trace_program(&src, 24, 30);
        eprintln!("{f}: {runs} runs {checks} checks {errs} errors");
        assert!(runs > 0 && checks > 1000, "{f}: {runs} {checks} {errs}");
        errors += errs;
    }
    assert!(errors > 0, "some runs should fail, to check may_fail");
}

// ---------------------------------------------------------------------------
// Random programs over a fixed schema.

/// Writes random traversal bodies (as source text) for a fixed schema with
/// single children, a list child, records, arrays, globals, aliases, casts,
/// moves, `new`, guarded calls, self calls and `return`.
struct Gen {
    rng: ChaCha8Rng,
    locals: Vec<String>,
    aliases: Vec<String>,
    fresh: usize,
}

/// Child fields of each concrete type: (name, can be cast to B / U).
const TYPES: [(&str, &[&str]); 4] = [
    ("L", &[]),
    ("U", &["c"]),
    ("B", &["l", "r"]),
    ("S", &["last"]),
];

impl Gen {
    fn pick<'x, T>(&mut self, xs: &'x [T]) -> &'x T {
        use rand::Rng;
        &xs[self.rng.gen_range(0..xs.len())]
    }

    fn chance(&mut self, n: u32) -> bool {
        use rand::Rng;
        self.rng.gen_range(0..n) == 0
    }

    fn node(&mut self, children: &[&str]) -> Option<String> {
        if children.is_empty() || self.chance(3) {
            if !self.aliases.is_empty() && self.chance(2) {
                return Some(self.pick(&self.aliases.clone()).clone());
            }
            return (!children.is_empty()).then(|| format!("self.{}", self.pick(children)));
        }
        let c = *self.pick(children);
        Some(match self.rng_u(12) {
            0 => format!("(self.{c} as B).l"),
            1 => format!("(self.{c} as U).c"),
            _ => format!("self.{c}"),
        })
    }

    fn rng_u(&mut self, n: u32) -> u32 {
        use rand::Rng;
        self.rng.gen_range(0..n)
    }

    fn expr(&mut self, children: &[&str], depth: u32) -> String {
        let leaf = depth == 0 || self.chance(3);
        if leaf {
            return match self.rng_u(9) {
                0 => "k".into(),
                1 => "g".into(),
                2 => "h.a".into(),
                3 => "self.v".into(),
                4 => "self.p.b".into(),
                5 => "len(self.xs)".into(),
                6 => match self.node(children) {
                    Some(n) => format!("{n}.v"),
                    None => "1".into(),
                },
                7 if !self.locals.is_empty() => self.pick(&self.locals.clone()).clone(),
                _ => format!("{}", self.rng_u(5)),
            };
        }
        let a = self.expr(children, depth - 1);
        let b = self.expr(children, depth - 1);
        match self.rng_u(6) {
            0 if self.chance(2) => format!("({a} / {b})"),
            1 if self.chance(8) => format!("self.xs[{a}]"),
            1 => format!("self.xs[abs({a}) % 2]"),
            2 => format!(
                "(if {} {{ {a} }} else {{ {b} }})",
                self.cond(children, depth - 1)
            ),
            3 => format!("({a} - {b})"),
            4 => format!("half({a})"),
            _ => format!("({a} + {b})"),
        }
    }

    fn cond(&mut self, children: &[&str], depth: u32) -> String {
        match self.rng_u(3) {
            0 => match self.node(children) {
                Some(n) => format!("{n} is {}", self.pick(&["B", "U", "L", "S"])),
                None => "true".into(),
            },
            _ => format!(
                "{} > {}",
                self.expr(children, depth.min(1)),
                self.expr(children, depth.min(1))
            ),
        }
    }

    fn block(&mut self, ty: &str, children: &[&str], list: bool, depth: u32) -> String {
        let n = 1 + self.rng_u(6);
        let (locals, aliases) = (self.locals.len(), self.aliases.len());
        let mut out = String::new();
        for _ in 0..n {
            out.push_str(&self.stmt(ty, children, list, depth));
            out.push('\n');
        }
        self.locals.truncate(locals);
        self.aliases.truncate(aliases);
        out
    }

    fn stmt(&mut self, ty: &str, children: &[&str], list: bool, depth: u32) -> String {
        let e = self.expr(children, 2);
        let m = format!("t{}", self.rng_u(3));
        match self.rng_u(17) {
            0 => format!("self.v = {e};"),
            1 => format!("self.p = Pair {{ a: {e}, b: self.p.a }};"),
            2 => format!("g = {e};"),
            3 => format!("h.b = {e};"),
            4 => format!("self.xs[{}] = {e};", self.rng_u(3)),
            5 => {
                self.fresh += 1;
                let name = format!("x{}", self.fresh);
                self.locals.push(name.clone());
                format!("let {name} = {e};")
            }
            6 if !children.is_empty() => {
                self.fresh += 1;
                let name = format!("n{}", self.fresh);
                let path = self.node(children).filter(|p| p.starts_with('(') || p.starts_with("self"));
                match path {
                    Some(p) => {
                        let s = format!("let {name} = {p};");
                        self.aliases.push(name);
                        s
                    }
                    None => format!("self.v = {e};"),
                }
            }
            7 => match self.node(children) {
                Some(n) => format!("{n}.v = {e};"),
                None => format!("g = {e};"),
            },
            8 | 9 if !children.is_empty() => {
                let c = *self.pick(children);
                format!("self.{c}.{m}({e});")
            }
            10 if self.chance(3) => format!("self.{m}({e});"),
            11 if depth > 0 => {
                let c = self.cond(children, 1);
                let t = self.block(ty, children, list, depth - 1);
                let f = self.block(ty, children, list, depth - 1);
                format!("if {c} {{\n{t}}} else {{\n{f}}}")
            }
            12 if list && depth > 0 => {
                let body = format!(
                    "x.{m}({e});\nx.v = x.v + 1;\nif x is B && (x as B).l is U {{ let y = ((x as B).l as U).c; (x as B).l = ((x as B).l as U).c; y.v = 2; }}"
                );
                let body = if self.chance(2) {
                    format!("if x.v > 3 {{ return; }}\n{body}")
                } else {
                    body
                };
                format!("for x in self.items {{\n{body}\n}}")
            }
            13 if !children.is_empty() => {
                let c = *self.pick(children);
                match self.rng_u(5) {
                    0 => format!("if self.{c} is U {{ self.{c} = (self.{c} as U).c; }}"),
                    // An alias below the slot, relocated by a move (in this
                    // body or in a callee), then used.
                    3 => format!("if self.{c} is U {{ let m = (self.{c} as U).c; self.{c} = (self.{c} as U).c; m.v = m.v + {e}; }}"),
                    4 => format!("if self.{c} is U {{ let m = (self.{c} as U).c; self.{c}.{m}(1); m.p.a = m.v; }}"),
                    1 => format!("if self.{c} is B {{ self.{c} = new B {{ l: (self.{c} as B).r, r: new L {{ v: {e} }}, v: 1 }}; }}"),
                    _ => format!("self.{c} = new L {{ v: {e} }};"),
                }
            }
            14 if self.chance(4) => "return;".into(),
            15 if ty == "S" => "if self.last is S { self.last = new S { items: (self.last as S).items, last: new L {} }; }".into(),
            // A `while` loop (§8.6) that may `break`.
            16 if depth > 0 => {
                let c = self.cond(children, 1);
                let limit = self.rng_u(4);
                let body = self.block(ty, children, list, depth - 1);
                let b = self.cond(children, 1);
                format!("while {c} limit {limit} {{\n{body}if {b} {{ break; }}\n}}")
            }
            _ => format!("self.v = self.v + {e};"),
        }
    }

    fn program(seed: u64) -> String {
        let mut g = Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            locals: Vec::new(),
            aliases: Vec::new(),
            fresh: 0,
        };
        let mut src = String::from(
            "global g: i64 = 0;\nglobal h: Pair = Pair { a: 1, b: 2 };\nrecord Pair { a: i64, b: i64 }\npure fn half(x: i64) -> i64 = x / 2;\nabstract tree N {\n    v: i64;\n    p: Pair;\n    xs: [i64] = [1, 2];\n    traversal t0(k: i64) {}\n    traversal t1(k: i64) {}\n    traversal t2(k: i64) {}\n}\n",
        );
        for (ty, children) in TYPES {
            let fields = match ty {
                "U" => "    child c: N;\n",
                "B" => "    child l: N;\n    child r: N;\n",
                "S" => "    child items: [N];\n    child last: N;\n",
                _ => "",
            };
            src.push_str(&format!("tree {ty} : N {{\n{fields}"));
            for m in 0..3 {
                if g.chance(4) {
                    continue; // inherit the empty body
                }
                g.locals.clear();
                g.aliases.clear();
                let body = g.block(ty, children, ty == "S", 2);
                src.push_str(&format!("    traversal t{m}(k: i64) {{\n{body}    }}\n"));
            }
            src.push_str("}\n");
        }
        src
    }
}

#[test]
fn random_programs_are_covered() {
    let (mut runs, mut checks, mut errors, mut programs) = (0, 0, 0, 0);
    for seed in 0..50 {
        let src = Gen::program(seed);
        if let Err(d) = treefuse_sema::compile(&src) {
            panic!("generated program {seed} does not compile:\n{src}\n{d:#?}");
        }
        let (r, c, e) = trace_program(&src, 3, 25);
        programs += 1;
        runs += r;
        checks += c;
        errors += e;
    }
    eprintln!("random: {programs} programs, {runs} runs, {checks} checks, {errors} errors");
    assert!(checks > 10_000 && errors > 0);
}

#[test]
#[ignore = "prints a generated program"]
fn print_random_program() {
    println!("{}", Gen::program(3));
}
