// Tree folding for trace trees, after the Hotpath trace compiler: guards
// whose two strands (the primary trace after the guard, and the secondary
// trace attached to it) meet at a common merge point, with no
// memory-changing instruction in between, are replaced by conditional
// moves, and the secondary trace is pruned. Three passes, run to a
// fixpoint by `fuse fold`:
//
//   identify  mark the splice sites (and say why every other guard stays)
//   fold      both strands into the primary trace, conditional moves for
//             the variables whose snapshots differ at the merge point
//   rebuild   drop the folded guards with their secondary traces, redirect
//             later references to the primary strand's values to the moves
//
// Values are numbered SSA-style (`id`, unique in the whole tree). The
// recorder gives every assignment of a variable a fresh value, so after a
// merge point a reference to a primary-strand value that a snapshot holds
// is a read of that variable; `identify` refuses a site where one value
// stands for two variables (`Fold::SharedValue`).

// What `identify` found at a guard.
enum Fold {
    Unchecked,      // not looked at yet
    Foldable,       // a splice site: `fold` replaces it by conditional moves
    NoSecondary,    // no secondary trace is attached
    NoCommonMerge,  // the strands end at different merge points
    Store,          // a store between split and merge point
    Alloc,          // an allocation between split and merge point
    Sync,           // a synchronization between split and merge point
    SharedValue,    // a differing value is held by two variables
    StateMismatch   // the two merge snapshots hold different variables
}

enum Op { Add, Sub, Mul, Lt, Ne }

// Changed by a fold in this iteration (the fixpoint condition).
global changed: bool = false;
// Traces in the tree (counted by the last `rebuild`).
global traces: i64 = 0;
// Conditional moves emitted.
global cmovs: i64 = 0;
// Guards folded.
global folded: i64 = 0;
// Guards with a secondary trace that a store, allocation or
// synchronization kept from folding (counted by the last `identify`).
global blocked: i64 = 0;
// The highest value number in the tree: fresh numbers are above it.
global top: i64 = 0;
// Redirections in force while `rebuild` walks a trace: primary-strand
// value -> the conditional move that replaced it.
global renames: {i64: i64} = {};

// Whether a fold at a guard can merge the snapshots `here` (primary merge
// point) and `there` (secondary merge point).
pure fn compare_states(here: {str: i64}, there: {str: i64}) -> Fold {
    if len(here) != len(there) {
        return Fold::StateMismatch;
    }
    let holders: {i64: i64} = {};
    for v in keys(here) {
        if !contains(there, v) {
            return Fold::StateMismatch;
        }
        holders[here[v]] = get(holders, here[v], 0) + 1;
    }
    for v in keys(here) {
        if here[v] != there[v] && holders[here[v]] > 1 {
            return Fold::SharedValue;
        }
    }
    return Fold::Foldable;
}

// The memory effect of an instruction, as a reason to block a fold.
pure fn effect_of(is_store: bool, is_alloc: bool, is_sync: bool) -> Fold {
    if is_store { return Fold::Store; }
    if is_alloc { return Fold::Alloc; }
    if is_sync { return Fold::Sync; }
    return Fold::Foldable;
}

pure fn blocks(f: Fold) -> bool = f == Fold::Store || f == Fold::Alloc || f == Fold::Sync;

// What a guard exits to: a recorded trace or not yet anything.
abstract tree Side {
    traversal identify() {}
    traversal fold() {}
    traversal rebuild() {}
}

tree Unrecorded : Side {}

tree Trace : Side {
    child ins: [Ins];
    // Set by `identify`: splice sites in this trace, and the head of the
    // trace up to its first merge point (what a guard folding this trace
    // in copies).
    sites: i64;
    head_len: i64 = -1;
    head_pc: i64;
    head_effect: Fold;

    traversal identify() {
        for x in self.ins { x.identify(); }
        self.sites = 0;
        self.head_len = -1;
        let open: i64 = -1;
        let effect: Fold = Fold::Foldable;
        for j in 0..len(self.ins) {
            let x = self.ins[j];
            if x is MergePoint {
                if self.head_len < 0 {
                    self.head_len = j;
                    self.head_pc = (x as MergePoint).pc;
                    self.head_effect = effect;
                }
                if open >= 0 {
                    let g = self.ins[open];
                    if (g as Guard).side is Trace {
                        let s = ((g as Guard).side as Trace);
                        let verdict: Fold = Fold::Foldable;
                        if s.head_len < 0 || s.head_pc != (x as MergePoint).pc {
                            verdict = Fold::NoCommonMerge;
                        } else if effect != Fold::Foldable {
                            verdict = effect;
                        } else if s.head_effect != Fold::Foldable {
                            verdict = s.head_effect;
                        } else {
                            verdict = compare_states((x as MergePoint).snapshot, (s.ins[s.head_len] as MergePoint).snapshot);
                        }
                        (g as Guard).verdict = verdict;
                        if verdict == Fold::Foldable { self.sites = self.sites + 1; }
                        if blocks(verdict) { blocked = blocked + 1; }
                    }
                }
                open = -1;
                if x is Guard { open = j; }
                effect = Fold::Foldable;
            } else if effect == Fold::Foldable {
                effect = effect_of(x is Store, x is Alloc, x is Sync);
            }
        }
    }

    // Rewrites this trace when it has splice sites: the new sequence is
    // appended (copies, the secondary heads and the conditional moves in
    // front of each merge point) and the old one marked dead; then the
    // traces still attached are folded.
    traversal fold() {
        let n: i64 = len(self.ins);
        if self.sites > 0 {
            let open: i64 = -1;
            for j in 0..n {
                let x = self.ins[j];
                if open >= 0 && x is MergePoint {
                    let g = self.ins[open];
                    let s = ((g as Guard).side as Trace);
                    for k in 0..s.head_len { self.ins.push(copy(s.ins[k])); }
                    let here: {str: i64} = (x as MergePoint).snapshot;
                    let there: {str: i64} = (s.ins[s.head_len] as MergePoint).snapshot;
                    for v in keys(here) {
                        if here[v] != there[v] {
                            top = top + 1;
                            if (g as Guard).expect {
                                self.ins.push(new CMov { id: top, cond: (g as Guard).cond, if_true: here[v], if_false: there[v], replaces: here[v] });
                            } else {
                                self.ins.push(new CMov { id: top, cond: (g as Guard).cond, if_true: there[v], if_false: here[v], replaces: here[v] });
                            }
                            cmovs = cmovs + 1;
                        }
                    }
                    open = -1;
                }
                if x is Guard && (x as Guard).verdict == Fold::Foldable {
                    open = j;
                    folded = folded + 1;
                } else {
                    self.ins.push(copy(self.ins[j]));
                }
                x.dead = true;
            }
            changed = true;
        }
        for x in self.ins { x.fold(); }
    }

    // Removes what `fold` replaced and redirects references; counts traces.
    traversal rebuild() {
        traces = traces + 1;
        for x in self.ins { x.rebuild(); }
    }
}

abstract tree Ins {
    id: i64;          // the value this instruction defines (0: none)
    dead: bool;       // replaced by `fold`, removed by `rebuild`
    traversal identify() { top = max(top, self.id); }
    traversal fold() {}
    traversal rebuild() {
        if self.dead { self = []; }
        self.redirect();
    }
    traversal redirect() {}
}

pure fn at(renames: {i64: i64}, v: i64) -> i64 = get(renames, v, v);

tree Const : Ins { value: i64; }
tree Mov : Ins {
    src: i64;
    traversal redirect() { self.src = at(renames, self.src); }
}
tree Arith : Ins {
    op: Op;
    a: i64;
    b: i64;
    traversal redirect() { self.a = at(renames, self.a); self.b = at(renames, self.b); }
}
tree Load : Ins { addr: i64; }
tree Store : Ins {
    addr: i64;
    val: i64;
    traversal redirect() { self.val = at(renames, self.val); }
}
tree Alloc : Ins { size: i64; }
tree Sync : Ins {}
tree CMov : Ins {
    cond: i64;
    if_true: i64;
    if_false: i64;
    replaces: i64;    // the primary-strand value this move stands for from here on
    redirected: bool; // later references to `replaces` point here now
    traversal redirect() {
        self.cond = at(renames, self.cond);
        self.if_true = at(renames, self.if_true);
        self.if_false = at(renames, self.if_false);
        if !self.redirected {
            renames[self.replaces] = self.id;
            self.redirected = true;
        }
    }
}

abstract tree MergePoint : Ins {
    pc: i64;                  // where in the loop body
    snapshot: {str: i64};     // variable -> value, to restore on exit
    traversal redirect() {
        for v in keys(self.snapshot) { self.snapshot[v] = at(renames, self.snapshot[v]); }
    }
}

tree LoopEnd : MergePoint {}

tree Guard : MergePoint {
    cond: i64;
    expect: bool;
    verdict: Fold;
    child side: Side;
    traversal identify() {
        top = max(top, self.id);
        // The trace's scan replaces this when a merge point follows.
        if self.side is Trace { self.verdict = Fold::NoCommonMerge; } else { self.verdict = Fold::NoSecondary; }
        self.side.identify();
    }
    traversal fold() {
        if !self.dead { self.side.fold(); }
    }
    traversal rebuild() {
        if self.dead { self = []; }
        self.cond = at(renames, self.cond);
        for v in keys(self.snapshot) { self.snapshot[v] = at(renames, self.snapshot[v]); }
        let outside: {i64: i64} = renames;
        self.side.rebuild();
        renames = outside;
    }
}

fuse fold(root: Trace) {
    changed = true;
    while changed limit 1000 {
        changed = false;
        traces = 0;
        blocked = 0;
        renames = {};
        root.identify();
        root.fold();
        root.rebuild();
    }
    renames = {};
}
