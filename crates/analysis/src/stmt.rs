//! Access sets of single statements: the "own" accesses of a statement,
//! without what the traversals it calls do (those come from the call
//! summaries), plus the list of call sites it contains.

use std::collections::{BTreeSet, HashMap};

use treefuse_automata::{Label, Nfa};
use treefuse_sema::{
    ChildSlot, DataType, Expr, ExprKind, FieldKind, FrameLayout, ListEdit, ListItem, MethodId,
    NewField, NewTree, NodePath, NodeVarId, PathRoot, PathStep, Place, PlaceRoot, Program,
    Projection, PureArg, Stmt, StmtKind, Subtree, TypeId,
};

use crate::access::{AccessSet, FrameVar};
use crate::labels::Labels;

/// Where a path rooted at `self`, an alias or a loop variable starts,
/// relative to `self`: `word`, or `word.*` when `wild` (a bound node that a
/// move may have relocated somewhere below `word`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Root {
    pub word: Vec<Label>,
    pub wild: bool,
    /// Left out of the set being computed (see [`Split`]).
    pub skip: bool,
}

/// Splits the accesses of a `for` body by whether they go through the loop
/// variable: the `element` side keeps only those (relative to the element
/// node, tree paths only), the other side everything else.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    pub var: NodeVarId,
    pub element: bool,
}

/// The two sides of a `for` body (see [`Split`]) and the loop header's
/// reads.
#[derive(Clone, Debug)]
pub(crate) struct LoopOwn {
    pub var: NodeVarId,
    pub element: Vec<Own>,
    pub other: Vec<Own>,
    pub header_reads: Nfa,
}

/// Identifies a receiver location: root word, whether the root is wild,
/// child fields after the root.
pub(crate) type ReceiverKey = (Vec<Label>, bool, Vec<Label>);

/// A traversing call found in a statement (possibly nested).
#[derive(Clone, Debug)]
pub(crate) struct CallSite {
    /// The receiver's location relative to `self` (ε for `self.f()`).
    pub receiver: Nfa,
    /// The same location as a cache key.
    pub key: ReceiverKey,
    /// The receiver's root is left out of the set being computed (see
    /// [`Split`]).
    pub skip: bool,
    /// Static type of the receiver.
    pub ty: TypeId,
    /// `self.f()`: dispatched on the caller's own concrete type.
    pub self_call: bool,
    /// The receiver stands in a single child slot (the path's last step
    /// other than a cast is a single child): a thicket of the callee's own
    /// can only fail there (`in_list()` is false), never write.
    pub in_slot: bool,
    /// The traversal called.
    pub method: MethodId,
    /// `x.f()` on a node variable itself (a loop variable or an alias).
    pub on_var: bool,
}

/// The own accesses of one statement.
#[derive(Clone, Debug)]
pub(crate) struct Own {
    /// Reduced own access set (call summaries not included).
    pub set: AccessSet,
    /// Slots whose subtree may be relocated by a move (words of the slot).
    pub relocs: Nfa,
    /// Call sites in it, nested ones included.
    pub calls: Vec<CallSite>,
    /// Nested blocks.
    pub blocks: Vec<Vec<Own>>,
    /// For `for x in list`: the body split by the loop variable.
    pub split: Option<Box<LoopOwn>>,
}

/// Accumulates pieces while walking one statement.
#[derive(Default)]
struct Acc {
    reads: Vec<Nfa>,
    writes: Vec<Nfa>,
    greads: Vec<Nfa>,
    gwrites: Vec<Nfa>,
    relocs: Vec<Nfa>,
    fr: BTreeSet<FrameVar>,
    fw: BTreeSet<FrameVar>,
    may_fail: bool,
    returns: bool,
    has_calls: bool,
    calls: Vec<CallSite>,
}

/// Whether a value of this type has parts below it (a record's members, an
/// array's elements): reading or writing it whole covers every path below.
fn aggregate(ty: &DataType) -> bool {
    matches!(
        ty,
        DataType::Record(_) | DataType::Array(_) | DataType::Map(..)
    )
}

/// The automaton of `root . rest`, followed by `.*` if `suffix`.
pub(crate) fn tree_nfa(root: &Root, rest: &[Label], suffix: bool) -> Nfa {
    if root.skip {
        return Nfa::empty();
    }
    let n = if root.wild {
        Nfa::word(&root.word)
            .with_any_suffix()
            .concat(&Nfa::word(rest))
    } else {
        let mut w = root.word.clone();
        w.extend_from_slice(rest);
        Nfa::word(&w)
    };
    if suffix {
        n.with_any_suffix()
    } else {
        n
    }
}

/// The base of a chain of member reads.
enum ChainBase {
    Tree(Root, Vec<Label>),
    Global(Label),
    Local(treefuse_sema::LocalId),
}

/// Walks the statements of one traversal body for one concrete receiver
/// type.
pub(crate) struct BodyCtx<'a> {
    pub program: &'a Program,
    pub labels: &'a Labels,
    pub frame: &'a FrameLayout,
    /// The list each `for` loop variable iterates over.
    pub loop_lists: HashMap<NodeVarId, ChildSlot>,
    /// Slots possibly relocated during this activation; `None` while
    /// computing the relocations themselves.
    pub relocations: Option<&'a Nfa>,
    /// Whether each pure function may fail.
    pub pure_fails: &'a [bool],
    /// Set while splitting a `for` body.
    pub split: Option<Split>,
    /// The receiver stands in a single child slot: a thicket
    /// (`self = [..]`) raises a runtime error before it writes anything,
    /// so it only reads its items and ends the traversal.
    pub in_slot: bool,
}

impl<'a> BodyCtx<'a> {
    pub fn new(
        program: &'a Program,
        labels: &'a Labels,
        frame: &'a FrameLayout,
        stmts: &[Stmt],
        relocations: Option<&'a Nfa>,
        pure_fails: &'a [bool],
    ) -> Self {
        let mut loop_lists = HashMap::new();
        fn scan(stmts: &[Stmt], out: &mut HashMap<NodeVarId, ChildSlot>) {
            for s in stmts {
                match &s.kind {
                    StmtKind::ForChildren { var, list, body } => {
                        out.insert(*var, list.clone());
                        scan(body, out);
                    }
                    StmtKind::If {
                        then_branch,
                        else_branch,
                        ..
                    } => {
                        scan(then_branch, out);
                        scan(else_branch, out);
                    }
                    StmtKind::ForArray { body, .. }
                    | StmtKind::ForRange { body, .. }
                    | StmtKind::While { body, .. } => scan(body, out),
                    _ => {}
                }
            }
        }
        scan(stmts, &mut loop_lists);
        BodyCtx {
            program,
            labels,
            frame,
            loop_lists,
            relocations,
            pure_fails,
            split: None,
            in_slot: false,
        }
    }

    fn with_split(&self, split: Split) -> Self {
        BodyCtx {
            loop_lists: self.loop_lists.clone(),
            split: Some(split),
            ..*self
        }
    }

    /// Whether a path root is, or is bound below, the node variable `v`.
    fn through(&self, root: PathRoot, v: NodeVarId, depth: usize) -> bool {
        if depth > self.frame.node_vars.len() + 1 {
            return true;
        }
        match root {
            PathRoot::SelfNode => false,
            PathRoot::Var(u) if u == v => true,
            PathRoot::Var(u) => match self
                .frame
                .node_vars
                .get(u.index())
                .and_then(|x| x.origin.as_ref())
            {
                Some(o) => self.through(o.root, v, depth + 1),
                None => match self.loop_lists.get(&u) {
                    Some(slot) => self.through(slot.parent.root, v, depth + 1),
                    None => true,
                },
            },
        }
    }

    /// Applies the split, if any, to a root.
    fn split_root(&self, root: PathRoot, r: Root) -> Root {
        let Some(s) = self.split else {
            return r;
        };
        if s.element != self.through(root, s.var, 0) {
            return Root { skip: true, ..r };
        }
        if !s.element {
            return r;
        }
        // Relative to the element: drop the loop variable's own path.
        match self.base_word(PathRoot::Var(s.var), 0) {
            Some(v) if r.word.len() > v.len() || (!r.wild && r.word.len() == v.len()) => Root {
                word: r.word[v.len()..].to_vec(),
                wild: r.wild,
                skip: false,
            },
            _ => Root {
                word: Vec::new(),
                wild: true,
                skip: false,
            },
        }
    }

    /// The path a node variable was bound to, relative to `self`, ignoring
    /// relocations. `None` if unknown (then anything is assumed).
    fn base_word(&self, root: PathRoot, depth: usize) -> Option<Vec<Label>> {
        if depth > self.frame.node_vars.len() + 1 {
            return None;
        }
        match root {
            PathRoot::SelfNode => Some(Vec::new()),
            PathRoot::Var(v) => {
                let var = self.frame.node_vars.get(v.index())?;
                match &var.origin {
                    Some(o) => {
                        let mut w = self.base_word(o.root, depth + 1)?;
                        w.extend(o.fields().map(|f| self.labels.field(f)));
                        Some(w)
                    }
                    None => {
                        let slot = self.loop_lists.get(&v)?;
                        let mut w = self.base_word(slot.parent.root, depth + 1)?;
                        w.extend(slot.parent.fields().map(|f| self.labels.field(f)));
                        w.push(self.labels.field(slot.field));
                        Some(w)
                    }
                }
            }
        }
    }

    /// Where a path root is, relative to `self`.
    fn root(&self, root: PathRoot, acc: &mut Acc) -> Root {
        let r = self.unsplit_root(root, acc);
        self.split_root(root, r)
    }

    fn unsplit_root(&self, root: PathRoot, acc: &mut Acc) -> Root {
        let PathRoot::Var(v) = root else {
            return Root {
                word: Vec::new(),
                wild: false,
                skip: false,
            };
        };
        acc.fr.insert(FrameVar::Node(v));
        let Some(word) = self.base_word(root, 0) else {
            return Root {
                word: Vec::new(),
                wild: true,
                skip: false,
            };
        };
        if let Some(r) = self.relocations {
            for k in 1..=word.len() {
                if r.accepts(&word[..k]) {
                    return Root {
                        word: word[..k].to_vec(),
                        wild: true,
                        skip: false,
                    };
                }
            }
        }
        Root {
            word,
            wild: false,
            skip: false,
        }
    }

    /// Root and child-field labels of a node path; notes casts as failures.
    fn path(&self, p: &NodePath, acc: &mut Acc) -> (Root, Vec<Label>) {
        // Following an empty optional child may fail (§8.7).
        acc.may_fail |= p.has_cast() || self.program.path_has_optional(p);
        p.index_exprs().for_each(|i| self.expr(i, acc));
        let root = self.root(p.root, acc);
        (root, p.fields().map(|f| self.labels.field(f)).collect())
    }

    /// Reads every prefix of the path to a node (navigation, and the node's
    /// type tag).
    fn navigate(&self, p: &NodePath, acc: &mut Acc) -> (Root, Vec<Label>) {
        let (root, rest) = self.path(p, acc);
        acc.reads
            .push(tree_nfa(&root, &rest, false).prefix_closure());
        (root, rest)
    }

    /// The word of a child slot, its root and path read.
    fn slot(&self, s: &ChildSlot, acc: &mut Acc) -> (Root, Vec<Label>) {
        let (root, mut rest) = self.navigate(&s.parent, acc);
        rest.push(self.labels.field(s.field));
        acc.reads
            .push(tree_nfa(&root, &rest, false).prefix_closure());
        (root, rest)
    }

    /// `slot = ...`: the whole subtree of the slot is written.
    fn write_slot(&self, s: &ChildSlot, relocating: bool, acc: &mut Acc) {
        let (root, rest) = self.slot(s, acc);
        acc.writes.push(tree_nfa(&root, &rest, true));
        if relocating {
            let r = if s.parent.root == PathRoot::SelfNode {
                tree_nfa(&root, &rest, false)
            } else {
                // A slot below a bound node: the node may itself have moved,
                // but it stays below the first child of `self` on its path.
                match self
                    .base_word(s.parent.root, 0)
                    .and_then(|w| w.first().copied())
                {
                    Some(l) => Nfa::label(l).with_any_suffix(),
                    None => Nfa::universal(),
                }
            };
            acc.relocs.push(r);
        }
    }

    /// A moved subtree: read (navigation and contents) and written (it
    /// leaves its place).
    fn move_source(&self, root: Root, rest: Vec<Label>, acc: &mut Acc) {
        acc.reads
            .push(tree_nfa(&root, &rest, true).prefix_closure());
        acc.writes.push(tree_nfa(&root, &rest, true));
    }

    fn chain(&self, e: &Expr, acc: &mut Acc) -> Option<(ChainBase, Vec<Label>)> {
        match &e.kind {
            ExprKind::Field(p, f) => {
                let (root, mut rest) = self.path(p, acc);
                rest.push(self.labels.field(*f));
                Some((ChainBase::Tree(root, rest), Vec::new()))
            }
            ExprKind::Global(g) => Some((ChainBase::Global(self.labels.global(*g)), Vec::new())),
            ExprKind::Local(l) => Some((ChainBase::Local(*l), Vec::new())),
            ExprKind::Member(inner, i) => {
                let DataType::Record(r) = inner.ty else {
                    return None;
                };
                let (base, mut members) = self.chain(inner, acc)?;
                members.push(self.labels.member(r, *i));
                Some((base, members))
            }
            _ => None,
        }
    }

    /// Reads of an expression's value.
    fn expr(&self, e: &Expr, acc: &mut Acc) {
        match &e.kind {
            ExprKind::Const(_) => {}
            ExprKind::Local(l) => {
                acc.fr.insert(FrameVar::Local(*l));
            }
            ExprKind::Global(_) | ExprKind::Field(..) | ExprKind::Member(..) => {
                match self.chain(e, acc) {
                    Some((base, members)) => {
                        let suffix = aggregate(&e.ty);
                        match base {
                            ChainBase::Tree(root, mut rest) => {
                                rest.extend(members);
                                acc.reads
                                    .push(tree_nfa(&root, &rest, suffix).prefix_closure());
                            }
                            ChainBase::Global(g) => {
                                let mut w = vec![g];
                                w.extend(members);
                                let n = Nfa::word(&w);
                                let n = if suffix { n.with_any_suffix() } else { n };
                                acc.greads.push(n.prefix_closure());
                            }
                            ChainBase::Local(l) => {
                                acc.fr.insert(FrameVar::Local(l));
                            }
                        }
                    }
                    None => {
                        if let ExprKind::Member(inner, _) = &e.kind {
                            self.expr(inner, acc);
                        }
                    }
                }
            }
            ExprKind::Index(a, i) => {
                acc.may_fail = true;
                self.expr(a, acc);
                self.expr(i, acc);
            }
            ExprKind::Unary(_, x) => self.expr(x, acc),
            ExprKind::Binary(op, a, b) => {
                acc.may_fail |= op.can_fail();
                self.expr(a, acc);
                self.expr(b, acc);
            }
            ExprKind::Builtin(b, args) => {
                acc.may_fail |= b.can_fail();
                args.iter().for_each(|a| self.expr(a, acc))
            }
            ExprKind::Array(args) | ExprKind::Record(_, args) => {
                args.iter().for_each(|a| self.expr(a, acc))
            }
            ExprKind::Call(f, args) => {
                acc.may_fail |= self.pure_fails.get(f.index()).copied().unwrap_or(true);
                args.iter().for_each(|a| self.expr(a, acc));
            }
            // A pure function given tree nodes (LANGUAGE §8.8) may read
            // anything below them: a read of each argument's whole subtree
            // (`path.*`, as `copy(path)`), in written order.
            ExprKind::NodeCall(f, args) => {
                acc.may_fail |= self.pure_fails.get(f.index()).copied().unwrap_or(true);
                for a in args {
                    match a {
                        PureArg::Data(x) => self.expr(x, acc),
                        PureArg::Node(p) => self.copy_source(p, acc),
                    }
                }
            }
            ExprKind::Is(p, _) | ExprKind::IsNone(p) => {
                self.navigate(p, acc);
            }
            ExprKind::ListLen(slot) => {
                self.slot(slot, acc);
            }
            // Where the receiver stands does not change while it runs.
            ExprKind::InList => {}
            ExprKind::If(c, a, b) => {
                self.expr(c, acc);
                self.expr(a, acc);
                self.expr(b, acc);
            }
            ExprKind::Match(x, arms) => {
                self.expr(x, acc);
                arms.iter().for_each(|arm| self.expr(&arm.body, acc));
            }
        }
    }

    /// A data write of `value` (`None`: not known, or not the whole
    /// value).
    fn place(&self, place: &Place, value: Option<&Expr>, acc: &mut Acc) {
        let mut ty = match &place.root {
            PlaceRoot::Local(l) => self
                .frame
                .locals
                .get(l.index())
                .map(|x| x.1.clone())
                .unwrap_or(DataType::Int),
            PlaceRoot::Global(g) => self.program.globals[g.index()].ty.clone(),
            PlaceRoot::Field(_, f) => match &self.program.fields[f.index()].kind {
                FieldKind::Data(d) => d.clone(),
                _ => DataType::Int,
            },
        };
        let mut members = Vec::new();
        let mut whole = false;
        for proj in &place.projections {
            match proj {
                Projection::Member(i) => {
                    if let DataType::Record(r) = ty {
                        if !whole {
                            members.push(self.labels.member(r, *i));
                        }
                        ty = self.program.records[r.index()].fields[*i as usize]
                            .ty
                            .clone();
                    }
                }
                Projection::Index(e) => {
                    self.expr(e, acc);
                    acc.may_fail = true;
                    whole = true;
                    if let DataType::Array(t) = ty {
                        ty = *t;
                    }
                }
                // `m[k] = v;` inserts or updates: a write of the map (the
                // field, local or global it lives in), which cannot fail.
                Projection::Key(e) => {
                    self.expr(e, acc);
                    whole = true;
                    if let DataType::Map(_, v) = ty {
                        ty = *v;
                    }
                }
            }
        }
        let suffix = whole || aggregate(&ty);
        match &place.root {
            PlaceRoot::Local(l) => {
                acc.fw.insert(FrameVar::Local(*l));
                if !place.projections.is_empty() {
                    // A partial update keeps the rest of the old value.
                    acc.fr.insert(FrameVar::Local(*l));
                }
            }
            PlaceRoot::Global(g) => {
                let mut w = vec![self.labels.global(*g)];
                w.extend(members);
                // A scalar global told apart by value (`Labels`): the
                // write is the global's word, as every write, and the word
                // naming the value written (the constant, or `=?`).
                let constant = value.and_then(|e| match &e.kind {
                    ExprKind::Const(v) => Some(v),
                    _ => None,
                });
                let valued = match self.labels.write_value(*g, constant) {
                    Some(v) if place.projections.is_empty() => {
                        Some(Nfa::word(&[self.labels.global(*g), v]))
                    }
                    _ => None,
                };
                let n = Nfa::word(&w);
                let n = match valued {
                    Some(v) => Nfa::union_all(&[n, v]),
                    None => n,
                };
                acc.gwrites
                    .push(if suffix { n.with_any_suffix() } else { n });
            }
            PlaceRoot::Field(p, f) => {
                let (root, mut rest) = self.navigate(p, acc);
                rest.push(self.labels.field(*f));
                rest.extend(members);
                acc.writes.push(tree_nfa(&root, &rest, suffix));
            }
        }
    }

    fn new_tree(&self, t: &NewTree, acc: &mut Acc) -> bool {
        let mut moves = false;
        for f in &t.fields {
            moves |= self.new_field(f, acc);
        }
        moves
    }

    fn new_field(&self, f: &NewField, acc: &mut Acc) -> bool {
        match f {
            NewField::Data(e) => {
                self.expr(e, acc);
                false
            }
            NewField::New(t) => self.new_tree(t, acc),
            NewField::List(items) => items.iter().fold(false, |m, i| self.new_field(i, acc) | m),
            NewField::Move(p) => {
                let (root, rest) = self.navigate(p, acc);
                self.move_source(root, rest, acc);
                true
            }
            NewField::MoveList(s) => {
                let (root, rest) = self.slot(s, acc);
                self.move_source(root, rest, acc);
                true
            }
            NewField::Copy(p) => {
                self.copy_source(p, acc);
                false
            }
            NewField::Empty => false,
        }
    }

    /// `copy(PATH)`: the whole subtree is read.
    fn copy_source(&self, p: &NodePath, acc: &mut Acc) {
        let (root, rest) = self.navigate(p, acc);
        acc.reads
            .push(tree_nfa(&root, &rest, true).prefix_closure());
    }

    /// The reads (and, for moves, writes) of a subtree given where one node
    /// goes; whether it moves something.
    fn subtree(&self, t: &Subtree, acc: &mut Acc) -> bool {
        match t {
            Subtree::New(tree) => self.new_tree(tree, acc),
            // The receiver kept in a thicket stays where it stands.
            Subtree::Move(p) if p.root == PathRoot::SelfNode && p.fields().next().is_none() => {
                false
            }
            Subtree::Move(p) => {
                let (root, rest) = self.navigate(p, acc);
                self.move_source(root, rest, acc);
                true
            }
            Subtree::Copy(p) => {
                self.copy_source(p, acc);
                false
            }
        }
    }

    fn list_items(&self, items: &[ListItem], acc: &mut Acc) -> bool {
        let mut moves = false;
        for item in items {
            moves |= match item {
                ListItem::One(t) => self.subtree(t, acc),
                ListItem::Spread(s) => {
                    let (root, rest) = self.slot(s, acc);
                    self.move_source(root, rest, acc);
                    true
                }
            };
        }
        moves
    }

    /// `self = ...`: the receiver's place is written, which relative to the
    /// receiver is everything (the caller sees its slot or list written);
    /// it ends the traversal like `return`. A move relocates subtrees.
    fn replace_self(&self, moves: bool, acc: &mut Acc) {
        let root = self.root(PathRoot::SelfNode, acc);
        let everything = tree_nfa(&root, &[], true);
        if moves {
            acc.relocs.push(everything.clone());
        }
        acc.writes.push(everything);
        acc.returns = true;
    }

    /// The own accesses of a block.
    pub fn block(&self, stmts: &[Stmt]) -> Vec<Own> {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    /// The own accesses of one statement.
    pub fn stmt(&self, s: &Stmt) -> Own {
        let mut acc = Acc::default();
        let mut blocks = Vec::new();
        let mut split = None;
        match &s.kind {
            StmtKind::Call {
                receiver,
                method,
                args,
            } => {
                args.iter().for_each(|a| self.expr(a, &mut acc));
                let (root, rest) = self.navigate(receiver, &mut acc);
                acc.has_calls = true;
                acc.calls.push(CallSite {
                    receiver: tree_nfa(&root, &rest, false),
                    key: (root.word.clone(), root.wild, rest.clone()),
                    skip: root.skip,
                    ty: receiver.ty,
                    self_call: receiver.root == PathRoot::SelfNode && receiver.steps.is_empty(),
                    on_var: matches!(receiver.root, PathRoot::Var(_)) && receiver.steps.is_empty(),
                    in_slot: matches!(
                        receiver.steps.iter().rev().find(|st| !matches!(st, PathStep::Cast(_))),
                        Some(PathStep::Child(f))
                            if matches!(self.program.fields[f.index()].kind, FieldKind::Child(_))
                    ),
                    method: *method,
                });
            }
            StmtKind::Let { local, value } => {
                self.expr(value, &mut acc);
                acc.fw.insert(FrameVar::Local(*local));
            }
            StmtKind::Alias { var, path } => {
                self.navigate(path, &mut acc);
                acc.fw.insert(FrameVar::Node(*var));
            }
            StmtKind::Assign { place, value } => {
                self.expr(value, &mut acc);
                self.place(place, Some(value), &mut acc);
            }
            StmtKind::Replace { slot, tree } => {
                let moves = self.new_tree(tree, &mut acc);
                self.write_slot(slot, moves, &mut acc);
            }
            StmtKind::Move { slot, source } => {
                let (root, rest) = self.navigate(source, &mut acc);
                self.move_source(root, rest, &mut acc);
                self.write_slot(slot, true, &mut acc);
            }
            StmtKind::CopyTo { slot, source } => {
                self.copy_source(source, &mut acc);
                self.write_slot(slot, false, &mut acc);
            }
            // Emptying an optional child writes its slot like a
            // replacement (§8.7).
            StmtKind::Clear { slot } => self.write_slot(slot, false, &mut acc),
            StmtKind::ReplaceSelf { with } => {
                let moves = self.subtree(with, &mut acc);
                self.replace_self(moves, &mut acc);
            }
            StmtKind::SpliceSelf { items } => {
                let moves = self.list_items(items, &mut acc);
                if self.in_slot {
                    acc.returns = true;
                } else {
                    self.replace_self(moves, &mut acc);
                }
            }
            StmtKind::EditList { list, edit } => {
                let moves = match edit {
                    ListEdit::Set(i, t) => {
                        acc.may_fail = true;
                        self.expr(i, &mut acc);
                        self.subtree(t, &mut acc)
                    }
                    ListEdit::Push(t) => self.subtree(t, &mut acc),
                    ListEdit::Insert(i, t) => {
                        acc.may_fail = true;
                        self.expr(i, &mut acc);
                        self.subtree(t, &mut acc)
                    }
                    ListEdit::Remove(i) => {
                        acc.may_fail = true;
                        self.expr(i, &mut acc);
                        false
                    }
                    ListEdit::Assign(items) => self.list_items(items, &mut acc),
                };
                self.write_slot(list, moves, &mut acc);
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.expr(cond, &mut acc);
                blocks.push(self.block(then_branch));
                blocks.push(self.block(else_branch));
            }
            StmtKind::ForChildren { var, list, body } => {
                let mut header = Acc::default();
                self.slot(list, &mut header);
                self.slot(list, &mut acc);
                acc.fw.insert(FrameVar::Node(*var));
                blocks.push(self.block(body));
                // Splits are computed in the final pass only (with the
                // relocations known).
                if self.split.is_none() && self.relocations.is_some() {
                    let side = |element| self.with_split(Split { var: *var, element }).block(body);
                    split = Some(Box::new(LoopOwn {
                        var: *var,
                        element: side(true),
                        other: side(false),
                        header_reads: Nfa::union_all(&header.reads).reduced(),
                    }));
                }
            }
            StmtKind::ForArray { var, array, body } => {
                self.expr(array, &mut acc);
                acc.fw.insert(FrameVar::Local(*var));
                blocks.push(self.block(body));
            }
            StmtKind::ForRange {
                var,
                start,
                end,
                body,
            } => {
                self.expr(start, &mut acc);
                self.expr(end, &mut acc);
                acc.fw.insert(FrameVar::Local(*var));
                blocks.push(self.block(body));
            }
            StmtKind::Return(value) => {
                acc.returns = true;
                if let Some(v) = value {
                    self.expr(v, &mut acc);
                }
            }
            // A `while` (§8.6) is one statement for the fuser: its set is
            // the limit's and the condition's reads and the union of its
            // body's statements over all iterations (the analysis is
            // flow-insensitive, so a local written in one iteration and
            // read in the next is both read and written by the loop, and a
            // `break` or a false condition, which only skip the rest of
            // the loop, can only remove accesses from that union).
            StmtKind::While { cond, limit, body } => {
                self.expr(limit, &mut acc);
                self.expr(cond, &mut acc);
                blocks.push(self.block(body));
            }
            // `break` ends the loop it is in: it touches nothing.
            StmtKind::Break => {}
        }
        for b in &blocks {
            for o in b {
                acc.reads.push(o.set.reads.clone());
                acc.writes.push(o.set.writes.clone());
                acc.greads.push(o.set.global_reads.clone());
                acc.gwrites.push(o.set.global_writes.clone());
                acc.relocs.push(o.relocs.clone());
                acc.fr.extend(o.set.frame_reads.iter().copied());
                acc.fw.extend(o.set.frame_writes.iter().copied());
                acc.may_fail |= o.set.may_fail;
                acc.returns |= o.set.returns;
                acc.has_calls |= o.set.has_calls;
                acc.calls.extend(o.calls.iter().cloned());
            }
        }
        if matches!(self.split, Some(Split { element: true, .. })) {
            // The element side keeps tree paths only.
            acc.greads.clear();
            acc.gwrites.clear();
            acc.fr.clear();
            acc.fw.clear();
            acc.may_fail = false;
            acc.returns = false;
        }
        Own {
            set: AccessSet {
                reads: Nfa::union_all(&acc.reads).reduced(),
                writes: Nfa::union_all(&acc.writes).reduced(),
                global_reads: Nfa::union_all(&acc.greads).reduced(),
                global_writes: Nfa::union_all(&acc.gwrites).reduced(),
                frame_reads: acc.fr,
                frame_writes: acc.fw,
                may_fail: acc.may_fail,
                returns: acc.returns,
                has_calls: acc.has_calls,
            },
            relocs: Nfa::union_all(&acc.relocs).reduced(),
            calls: acc.calls,
            blocks,
            split,
        }
    }
}

/// Whether each pure function may raise a runtime error: it divides, takes
/// a remainder or indexes, calls one that may fail, or is supplied by the
/// host (host functions can return errors).
pub(crate) fn pure_fails(program: &Program) -> Vec<bool> {
    use treefuse_sema::visit::{walk_expr, walk_stmt_exprs};
    use treefuse_sema::PureBody;
    let n = program.pure_fns.len();
    let mut direct = vec![false; n];
    let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, f) in program.pure_fns.iter().enumerate() {
        let mut visit = |e: &Expr| match &e.kind {
            ExprKind::Binary(op, ..) if op.can_fail() => direct[i] = true,
            ExprKind::Builtin(b, _) if b.can_fail() => direct[i] = true,
            ExprKind::Index(..) => direct[i] = true,
            ExprKind::Call(g, _) => callees[i].push(g.index()),
            // Reading tree nodes (LANGUAGE §8.8): a cast or a list index
            // on the way can fail.
            ExprKind::NodeCall(g, args) => {
                callees[i].push(g.index());
                if args
                    .iter()
                    .any(|a| matches!(a, PureArg::Node(p) if p.has_cast()))
                {
                    direct[i] = true;
                }
            }
            ExprKind::Field(p, _) | ExprKind::Is(p, _) if p.has_cast() => direct[i] = true,
            ExprKind::ListLen(slot) if slot.parent.has_cast() => direct[i] = true,
            _ => {}
        };
        match &f.body {
            PureBody::Host => direct[i] = true,
            PureBody::Expr(e) => walk_expr(e, &mut visit),
            PureBody::Block(stmts) => {
                walk_stmt_exprs(stmts, &mut visit);
                // Array element assignments in the block can fail too.
                fn index_writes(stmts: &[Stmt]) -> bool {
                    stmts.iter().any(|s| match &s.kind {
                        StmtKind::Assign { place, .. } => place
                            .projections
                            .iter()
                            .any(|p| matches!(p, Projection::Index(_))),
                        StmtKind::If {
                            then_branch,
                            else_branch,
                            ..
                        } => index_writes(then_branch) || index_writes(else_branch),
                        StmtKind::ForArray { body, .. }
                        | StmtKind::ForRange { body, .. }
                        | StmtKind::ForChildren { body, .. }
                        | StmtKind::While { body, .. } => index_writes(body),
                        _ => false,
                    })
                }
                direct[i] |= index_writes(stmts);
                // Paths of aliases and `for` loops over lists of children.
                treefuse_sema::visit::for_each_stmt(stmts, &mut |s| match &s.kind {
                    StmtKind::Alias { path, .. } if path.has_cast() => direct[i] = true,
                    StmtKind::ForChildren { list, .. } if list.parent.has_cast() => {
                        direct[i] = true
                    }
                    _ => {}
                });
            }
        }
    }
    // Propagate along calls to a fixpoint.
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if !direct[i] && callees[i].iter().any(|&g| direct[g]) {
                direct[i] = true;
                changed = true;
            }
        }
    }
    direct
}

/// Whether `stmts` contain `self = ...` (a replacement or a thicket).
/// Whether `stmts` contain a thicket of the receiver (`self = [..]`).
pub(crate) fn splices_receiver(stmts: &[Stmt]) -> bool {
    treefuse_sema::visit::any_stmt(stmts, &|s| matches!(s.kind, StmtKind::SpliceSelf { .. }))
}

pub(crate) fn replaces_receiver(stmts: &[Stmt]) -> bool {
    treefuse_sema::visit::any_stmt(stmts, &|s| {
        matches!(
            s.kind,
            StmtKind::ReplaceSelf { .. } | StmtKind::SpliceSelf { .. }
        )
    })
}

impl BodyCtx<'_> {
    /// The reads of a list of argument expressions (for `fuse` items).
    pub fn args_access(&self, args: &[Expr]) -> AccessSet {
        let mut acc = Acc::default();
        args.iter().for_each(|a| self.expr(a, &mut acc));
        AccessSet {
            reads: Nfa::union_all(&acc.reads).reduced(),
            writes: Nfa::empty(),
            global_reads: Nfa::union_all(&acc.greads).reduced(),
            global_writes: Nfa::empty(),
            frame_reads: acc.fr,
            frame_writes: acc.fw,
            may_fail: acc.may_fail,
            returns: false,
            has_calls: false,
        }
    }
}
