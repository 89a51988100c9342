//! Pass-manager features over node families: list edits in both orders,
//! context, ancestors, fallible and panicking rules, the restart budget,
//! ordering constraints, fixpoint bounds, and 10^6-deep trees in every mode.

use treefuse_rewrite::middle::{self, Expr, Function, Middle, MiddleStats, Program, Stmt};
use treefuse_rewrite::{
    deep_clone, deep_eq, dismantle, node_count, CheckMode, Cx, Edit, Env, Hook, IntoRuleSet, Mode,
    OptLevel, OrderError, PassManager, Round, Rule, RuleSet, RunError,
};

fn manager<X: Env, I: IntoRuleSet>(rules: I) -> PassManager<X, I::Rules>
where
    I::Rules: RuleSet<X>,
{
    PassManager::new(rules).unwrap_or_else(|e| panic!("{e}"))
}

fn program(body: Vec<Stmt>) -> Program {
    Program {
        functions: vec![Function {
            name: 0,
            params: vec![],
            body,
        }],
    }
}

fn eval(e: Expr) -> Stmt {
    Stmt::Eval(e)
}

fn var(v: u32) -> Expr {
    Expr::Var(v)
}

// ------------------------------------------------------------- lists --

/// Pre-order list edits: `x;` statements (`Eval(Var)`) are removed, blocks
/// are spliced before their contents are visited.
struct PreEdits;
impl<X: Env> Rule<X> for PreEdits {
    type Handles = (Stmt,);
}
impl<X: Env> Hook<Stmt, X> for PreEdits {
    fn prepare(&self, s: &mut Stmt, _: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
        Ok(match s {
            Stmt::Eval(Expr::Var(_)) => Edit::Remove,
            Stmt::Block(b) => Edit::Splice(std::mem::take(b)),
            _ => Edit::Keep,
        })
    }
}

/// Counts the statements visited after it in pre-order, and the
/// expressions (to see that spliced statements are visited).
#[derive(Default)]
struct Seen;
impl Rule<Counting> for Seen {
    type Handles = (Stmt, Expr);
}
impl Hook<Stmt, Counting> for Seen {
    fn prepare(&self, _: &mut Stmt, cx: &mut Cx<'_, Counting>) -> Result<Edit<Stmt>, ()> {
        cx.ctx().stmts += 1;
        Ok(Edit::Keep)
    }
}
impl Hook<Expr, Counting> for Seen {
    fn transform(&self, _: &mut Expr, cx: &mut Cx<'_, Counting>) -> Result<Edit<Expr>, ()> {
        cx.ctx().exprs += 1;
        Ok(Edit::Keep)
    }
}

struct Counting;
#[derive(Clone, Debug, Default, PartialEq)]
struct Counts {
    stmts: u32,
    exprs: u32,
}
impl Env for Counting {
    type Ctx = Counts;
    type Error = ();
}

#[test]
fn pre_order_remove_and_splice() {
    let mut p = program(vec![
        eval(var(1)),
        Stmt::Block(vec![
            eval(Expr::Int(1)),
            Stmt::Block(vec![eval(var(2)), eval(Expr::Int(2))]),
        ]),
        Stmt::Return(None),
    ]);
    let mut pm = manager::<Counting, _>((PreEdits, Seen));
    let mut counts = Counts::default();
    pm.fused(&mut p, &mut counts).unwrap();
    assert_eq!(
        p,
        program(vec![
            eval(Expr::Int(1)),
            eval(Expr::Int(2)),
            Stmt::Return(None)
        ])
    );
    // `Seen` saw only what survived PreEdits: the three final statements,
    // and the two expressions inside them.
    assert_eq!(counts, Counts { stmts: 3, exprs: 2 });
    assert_eq!(pm.stats().fired, [("PreEdits", 4), ("Seen", 0)]);
}

#[test]
fn post_order_splice_and_remove_with_the_middle_end() {
    // if (true) { a = 1; { b = 2; return; c = 3; } } d = 4; while (false) {}
    let p = program(vec![
        Stmt::If(
            Expr::not(Expr::Bool(false)),
            vec![
                Stmt::Assign(1, Expr::Int(1)),
                Stmt::Block(vec![
                    Stmt::Assign(2, Expr::Int(2)),
                    Stmt::Return(None),
                    Stmt::Assign(3, Expr::Int(3)),
                ]),
            ],
            vec![],
        ),
        Stmt::Assign(4, Expr::Int(4)),
        Stmt::While(Expr::Bool(false), vec![]),
    ]);
    let mut pm = manager::<Middle, _>(middle::rules());
    let mut t = p.clone();
    let mut ctx = MiddleStats::default();
    pm.fused(&mut t, &mut ctx).unwrap();
    assert_eq!(
        t,
        program(vec![
            Stmt::Assign(1, Expr::Int(1)),
            Stmt::Assign(2, Expr::Int(2)),
            Stmt::Return(None)
        ])
    );
    assert_eq!(
        ctx,
        MiddleStats {
            folded: 1,
            unreachable: 2
        }
    ); // `while (false)` is removed by dead-branch elimination
    assert_eq!(pm.stats().traversals, 1);
    // One by one reaches the same here.
    let mut u = p.clone();
    let mut ctx2 = MiddleStats::default();
    pm.one_by_one(&mut u, &mut ctx2).unwrap();
    assert_eq!(u, t);
}

/// Remove/splice on a node that is not a list element is an error naming
/// the rule; a one-element splice is a replacement.
struct SpliceExpr(usize);
impl<X: Env> Rule<X> for SpliceExpr {
    type Handles = (Expr,);
}
impl<X: Env> Hook<Expr, X> for SpliceExpr {
    fn transform(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
        Ok(match e {
            Expr::Var(v) => Edit::Splice((0..self.0).map(|_| Expr::Int(i64::from(*v))).collect()),
            _ => Edit::Keep,
        })
    }
}

#[test]
fn list_edits_outside_lists() {
    let mut p = program(vec![eval(Expr::add(var(3), var(4)))]);
    manager::<(), _>((SpliceExpr(1),))
        .fused(&mut p, &mut ())
        .unwrap();
    assert_eq!(
        p,
        program(vec![eval(Expr::add(Expr::Int(3), Expr::Int(4)))])
    );
    let mut p = program(vec![eval(Expr::add(var(3), var(4)))]);
    let err = manager::<(), _>((SpliceExpr(2),))
        .fused(&mut p, &mut ())
        .unwrap_err();
    assert!(
        matches!(
            err,
            RunError::NotInList {
                rule: "SpliceExpr",
                edit: "Splice",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("not an element of a Vec"), "{err}");
    // In a list (call arguments) splicing is fine.
    let mut p = program(vec![eval(Expr::Call(0, vec![var(1), Expr::Int(0)]))]);
    manager::<(), _>((SpliceExpr(2),))
        .fused(&mut p, &mut ())
        .unwrap();
    assert_eq!(
        p,
        program(vec![eval(Expr::Call(
            0,
            vec![Expr::Int(1), Expr::Int(1), Expr::Int(0)]
        ))])
    );
}

// ------------------------------------------------ context, ancestors --

/// Records the ancestors of every variable; skips the children of `while`.
struct Ancestry;
impl Rule<Paths> for Ancestry {
    type Handles = (Stmt, Expr);
    const NEEDS_ANCESTORS: bool = true;
}
impl Hook<Stmt, Paths> for Ancestry {
    fn prepare(&self, s: &mut Stmt, cx: &mut Cx<'_, Paths>) -> Result<Edit<Stmt>, ()> {
        if matches!(s, Stmt::While(..)) {
            cx.skip_children();
        }
        Ok(Edit::Keep)
    }
}
impl Hook<Expr, Paths> for Ancestry {
    fn prepare(&self, e: &mut Expr, cx: &mut Cx<'_, Paths>) -> Result<Edit<Expr>, ()> {
        if let Expr::Var(_) = e {
            let path: Vec<String> = cx.ancestors().iter().map(|k| k.to_string()).collect();
            cx.ctx().push(path.join("/"));
        }
        Ok(Edit::Keep)
    }
}
struct Paths;
impl Env for Paths {
    type Ctx = Vec<String>;
    type Error = ();
}

#[test]
fn ancestors_context_and_skipping_children() {
    let mut p = program(vec![
        Stmt::If(Expr::neg(var(1)), vec![eval(var(2))], vec![]),
        Stmt::While(var(3), vec![eval(var(4))]),
    ]);
    let mut seen = Vec::new();
    manager::<Paths, _>((Ancestry,))
        .fused(&mut p, &mut seen)
        .unwrap();
    assert_eq!(
        seen,
        [
            "Program/Function/Stmt::If/Expr::Neg",
            "Program/Function/Stmt::If/Stmt::Eval",
        ]
    );
}

// ------------------------------------------- errors, panics, budget --

/// Fails on `Var(13)`, after having folded earlier nodes.
struct Unlucky;
impl Rule<Middle> for Unlucky {
    type Handles = (Expr,);
}
impl Hook<Expr, Middle> for Unlucky {
    fn transform(
        &self,
        e: &mut Expr,
        _: &mut Cx<'_, Middle>,
    ) -> Result<Edit<Expr>, middle::MiddleError> {
        match e {
            Expr::Var(13) => Err(middle::MiddleError::ShiftOutOfRange(13)),
            _ => Ok(Edit::Keep),
        }
    }
}

#[test]
fn failing_rule_stops_with_the_tree_whole() {
    let p = program(vec![
        eval(Expr::add(Expr::Int(1), Expr::Int(2))),
        eval(var(13)),
        eval(Expr::add(Expr::Int(3), Expr::Int(4))),
    ]);
    let mut t = p.clone();
    let mut pm = manager::<Middle, _>((middle::ConstantFolding, Unlucky));
    let err = pm.fused(&mut t, &mut MiddleStats::default()).unwrap_err();
    match &err {
        RunError::Rule { rule, kind, error } => {
            assert_eq!(*rule, "Unlucky");
            assert_eq!(kind.to_string(), "Expr::Var");
            assert_eq!(*error, middle::MiddleError::ShiftOutOfRange(13));
        }
        other => panic!("{other}"),
    }
    // Whole and partly rewritten: the first statement was folded, the
    // third not reached.
    assert_eq!(
        t,
        program(vec![
            eval(Expr::Int(3)),
            eval(var(13)),
            eval(Expr::add(Expr::Int(3), Expr::Int(4)))
        ])
    );
    // The middle end's own error: a constant shift out of range.
    let mut t = program(vec![eval(Expr::shl(
        var(1),
        Expr::add(Expr::Int(60), Expr::Int(10)),
    ))]);
    let mut pm = manager::<Middle, _>(middle::rules());
    let err = pm.fused(&mut t, &mut MiddleStats::default());
    assert!(
        err.is_ok(),
        "a variable shifted by a constant is not folded"
    );
    let mut t = program(vec![eval(Expr::shl(
        Expr::Int(1),
        Expr::add(Expr::Int(60), Expr::Int(10)),
    ))]);
    let err = pm.fused(&mut t, &mut MiddleStats::default()).unwrap_err();
    assert!(
        matches!(
            err,
            RunError::Rule {
                rule: "ConstantFolding",
                error: middle::MiddleError::ShiftOutOfRange(70),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        t,
        program(vec![eval(Expr::shl(Expr::Int(1), Expr::Int(70)))])
    );
}

struct Panicky;
impl<X: Env> Rule<X> for Panicky {
    type Handles = (Stmt,);
}
impl<X: Env> Hook<Stmt, X> for Panicky {
    fn transform(&self, s: &mut Stmt, _: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
        match s {
            Stmt::Assign(7, _) => panic!("rule bug on a = 7"),
            Stmt::Assign(v, _) => {
                *v += 100;
                Ok(Edit::Changed)
            }
            _ => Ok(Edit::Keep),
        }
    }
}

#[test]
fn panicking_rule_leaves_a_whole_tree() {
    let mut p = program(vec![
        Stmt::Assign(1, Expr::Int(1)),
        Stmt::Block(vec![Stmt::Assign(7, Expr::Int(7))]),
        Stmt::Assign(2, Expr::Int(2)),
    ]);
    let mut pm = manager::<(), _>((Panicky,));
    let err = pm.fused(&mut p, &mut ()).unwrap_err();
    assert_eq!(
        err,
        RunError::Panicked {
            message: "rule bug on a = 7".into()
        }
    );
    assert_eq!(
        p,
        program(vec![
            Stmt::Assign(101, Expr::Int(1)),
            Stmt::Block(vec![Stmt::Assign(7, Expr::Int(7))]),
            Stmt::Assign(2, Expr::Int(2)),
        ])
    );
    assert_eq!(pm.stats().fired, [("Panicky", 1)]);
}

/// `-x => --x`, restarting: never converges.
struct Grow;
impl<X: Env> Rule<X> for Grow {
    type Handles = (Expr,);
}
impl<X: Env> Hook<Expr, X> for Grow {
    fn transform(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
        Ok(match e {
            Expr::Neg(_) => Edit::Restart(Expr::neg(std::mem::take(e))),
            _ => Edit::Keep,
        })
    }
}

/// `--x => -x`, revisiting.
struct Shrink;
impl<X: Env> Rule<X> for Shrink {
    type Handles = (Expr,);
}
impl<X: Env> Hook<Expr, X> for Shrink {
    fn transform(&self, e: &mut Expr, _: &mut Cx<'_, X>) -> Result<Edit<Expr>, X::Error> {
        Ok(match e {
            Expr::Neg(a) if matches!(**a, Expr::Neg(_)) => Edit::Revisit(std::mem::take(&mut **a)),
            _ => Edit::Keep,
        })
    }
}

#[test]
fn restart_budget_is_an_error_not_a_stack_overflow() {
    let mut p = program(vec![eval(Expr::neg(var(1)))]);
    let mut pm = manager::<(), _>((Grow,)).with_restart_budget(1000);
    let err = pm.fused(&mut p, &mut ()).unwrap_err();
    assert_eq!(
        err,
        RunError::RestartBudget {
            rule: "Grow",
            kind: treefuse_rewrite::Kind {
                ty: "Expr",
                variant: "Neg"
            },
            limit: 1000
        }
    );
    assert!(err.to_string().contains("more than 1000 times"), "{err}");
    assert!(node_count(&p) > 1000, "the tree holds what the rule built");
    // Two rules that undo each other, through Revisit.
    let mut p = program(vec![eval(Expr::neg(var(1)))]);
    let err = manager::<(), _>((Grow, Shrink))
        .fused(&mut p, &mut ())
        .unwrap_err();
    assert!(
        matches!(err, RunError::RestartBudget { limit: 64, .. }),
        "{err}"
    );
    // Revisit alone converges: ----x => -x (each --x => -x is visited again).
    let mut p = program(vec![eval(Expr::neg(Expr::neg(Expr::neg(Expr::neg(var(
        1,
    ))))))]);
    manager::<(), _>((Shrink,)).fused(&mut p, &mut ()).unwrap();
    assert_eq!(p, program(vec![eval(Expr::neg(var(1)))]));
}

// --------------------------------------------------------- ordering --

macro_rules! ordered_rule {
    ($name:ident, after = [$($a:literal),*], groups = [$($g:literal),*]) => {
        struct $name;
        impl<X: Env> Rule<X> for $name {
            type Handles = (Expr,);
            fn runs_after(&self) -> &'static [&'static str] { &[$($a),*] }
            fn runs_after_groups_of(&self) -> &'static [&'static str] { &[$($g),*] }
        }
        impl<X: Env> Hook<Expr, X> for $name {}
    };
}
ordered_rule!(A, after = [], groups = []);
ordered_rule!(B, after = ["A"], groups = []);
ordered_rule!(C, after = [], groups = ["A"]);
ordered_rule!(D, after = ["Nobody"], groups = []);

#[test]
fn ordering_constraints_are_checked_when_building() {
    let ok = manager::<(), _>((A, B, C));
    assert_eq!(ok.groups(), [(0, 2), (2, 3)]);
    let mut p = program(vec![eval(var(1))]);
    let mut ok = ok;
    ok.fused(&mut p, &mut ()).unwrap();
    assert_eq!(ok.stats().traversals, 2, "C may not be fused with A");
    assert_eq!(manager::<(), _>((A, B)).groups(), [(0, 2)]);

    let e = PassManager::<(), _>::new((B, A)).err().unwrap();
    assert_eq!(
        e,
        OrderError::WrongOrder {
            rule: "B",
            must_come_first: "A",
            groups: false
        }
    );
    assert!(
        e.to_string()
            .contains("rule B must run after A (runs_after)"),
        "{e}"
    );
    let e = PassManager::<(), _>::new((C, A)).err().unwrap();
    assert!(e.to_string().contains("runs_after_groups_of"), "{e}");
    let e = PassManager::<(), _>::new((A, D)).err().unwrap();
    assert_eq!(
        e,
        OrderError::UnknownRule {
            rule: "D",
            missing: "Nobody"
        }
    );
    let e = PassManager::<(), _>::new((A, A)).err().unwrap();
    assert_eq!(e, OrderError::DuplicateName { name: "A" });
    // The middle end declares that unreachable-code removal runs after
    // dead-branch elimination.
    let e = PassManager::<Middle, _>::new((middle::UnreachableCode, middle::DeadBranchElimination))
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("UnreachableCode must run after DeadBranchElimination"),
        "{e}"
    );
}

// --------------------------------------------------------- fixpoint --

/// Reports a change without making one: never reaches a fixpoint.
struct Liar;
impl<X: Env> Rule<X> for Liar {
    type Handles = (Stmt,);
    fn name(&self) -> &'static str {
        "liar"
    }
}
impl<X: Env> Hook<Stmt, X> for Liar {
    fn transform(&self, _: &mut Stmt, _: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
        Ok(Edit::Changed)
    }
}

#[test]
fn fixpoint_bound_and_levels() {
    let mut p = program(vec![Stmt::Return(None), Stmt::Return(None)]);
    let mut pm = manager::<(), _>((Liar,));
    let err = pm.fixpoint(&mut p, &mut (), Round::Fused, 5).unwrap_err();
    assert_eq!(
        err,
        RunError::NoFixpoint {
            rounds: 5,
            fired_last_round: vec![("liar", 2)]
        }
    );
    assert!(err.to_string().contains("liar (2x)"), "{err}");
    assert_eq!(pm.stats().rounds, 5);

    let pm = pm.with_mode_for(OptLevel::O0, Mode::OneByOne);
    assert_eq!(pm.mode_for(OptLevel::O0), Mode::OneByOne);
    assert!(matches!(
        pm.mode_for(OptLevel::O2),
        Mode::Fixpoint {
            round: Round::Fused,
            ..
        }
    ));
}

// ------------------------------------------------------- deep trees --

/// A program whose one statement holds a 10^6-deep expression chain
/// `----...(2 * 3 + 0)...` and a 10^5-deep nest of blocks.
fn deep_program(depth: usize) -> Program {
    let mut e = Expr::add(Expr::mul(Expr::Int(2), Expr::Int(3)), Expr::Int(0));
    for i in 0..depth {
        e = if i % 3 == 2 {
            Expr::add(e, var(1))
        } else {
            Expr::neg(e)
        };
    }
    let mut s = vec![eval(e), Stmt::Return(None), eval(var(9))];
    for _ in 0..depth / 10 {
        s = vec![Stmt::Block(s)];
    }
    program(s)
}

#[test]
fn million_deep_chains_in_every_mode() {
    let depth = 1_000_000;
    let input = deep_program(depth);
    let mut results = Vec::new();
    for mode in [
        Mode::Fused,
        Mode::OneByOne,
        Mode::Fixpoint {
            round: Round::Fused,
            max_rounds: 8,
        },
        Mode::Fixpoint {
            round: Round::OneByOne,
            max_rounds: 8,
        },
    ] {
        let mut p = deep_clone(&input);
        let mut ctx = MiddleStats::default();
        let mut pm = manager::<Middle, _>(middle::rules());
        pm.run(&mut p, &mut ctx, mode)
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        // Blocks flattened, the statement after the return removed.
        assert_eq!(p.functions[0].body.len(), 2, "{mode:?}");
        assert!(ctx.folded >= 1 && ctx.unreachable == 1, "{mode:?}: {ctx:?}");
        assert!(pm.stats().visits as usize >= depth, "{mode:?}");
        results.push(p);
    }
    // Fused and one-by-one agree here (no rule creates work for an earlier
    // one on this input), fixpoints too.
    for r in &results[1..] {
        assert!(deep_eq(&results[0], r));
    }
    // The checker copies and compares 10^6-deep trees iteratively.
    let mut p = deep_clone(&input);
    manager::<Middle, _>(middle::rules())
        .check(
            &mut p,
            &mut MiddleStats::default(),
            CheckMode::Fixpoint { max_rounds: 8 },
        )
        .unwrap();
    assert!(deep_eq(&p, &results[0]));
    // Hand-fused would overflow here (it does not grow its stack).
    for r in results {
        dismantle(r);
    }
    dismantle(p);
    dismantle(input);
}

/// A rule that throws a 10^6-deep subtree away: the replaced node is
/// dropped iteratively.
struct Discard;
impl<X: Env> Rule<X> for Discard {
    type Handles = (Stmt,);
}
impl<X: Env> Hook<Stmt, X> for Discard {
    fn prepare(&self, s: &mut Stmt, _: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
        Ok(match s {
            Stmt::Eval(e) if !matches!(e, Expr::Int(_)) => Edit::Replace(Stmt::Eval(Expr::Int(0))),
            _ => Edit::Keep,
        })
    }
}

#[test]
fn discarding_a_million_deep_subtree() {
    let mut p = deep_program(1_000_000);
    manager::<(), _>((Discard,)).fused(&mut p, &mut ()).unwrap();
    assert!(node_count(&p) < 200_000);
    dismantle(p);
}

/// Post-order: a block in a list is spliced; the rules after the splicing
/// one run on each spliced statement (they ran on it inside the block
/// too), the rules before it do not run again.
struct CountBefore;
impl Rule<Counting> for CountBefore {
    type Handles = (Stmt,);
}
impl Hook<Stmt, Counting> for CountBefore {
    fn transform(&self, _: &mut Stmt, cx: &mut Cx<'_, Counting>) -> Result<Edit<Stmt>, ()> {
        cx.ctx().exprs += 1;
        Ok(Edit::Keep)
    }
}
struct PostFlatten;
impl<X: Env> Rule<X> for PostFlatten {
    type Handles = (Stmt,);
}
impl<X: Env> Hook<Stmt, X> for PostFlatten {
    fn transform(&self, s: &mut Stmt, _: &mut Cx<'_, X>) -> Result<Edit<Stmt>, X::Error> {
        Ok(match s {
            Stmt::Block(b) => Edit::Splice(std::mem::take(b)),
            _ => Edit::Keep,
        })
    }
}
struct CountAfter;
impl Rule<Counting> for CountAfter {
    type Handles = (Stmt,);
}
impl Hook<Stmt, Counting> for CountAfter {
    fn transform(&self, _: &mut Stmt, cx: &mut Cx<'_, Counting>) -> Result<Edit<Stmt>, ()> {
        cx.ctx().stmts += 1;
        Ok(Edit::Keep)
    }
}

#[test]
fn post_order_splice_continues_with_the_remaining_rules() {
    let a = || Stmt::Assign(1, Expr::Int(1));
    let mut p = program(vec![Stmt::Block(vec![a(), Stmt::Block(vec![a()])]), a()]);
    let mut counts = Counts::default();
    manager::<Counting, _>((CountBefore, PostFlatten, CountAfter))
        .fused(&mut p, &mut counts)
        .unwrap();
    assert_eq!(p, program(vec![a(), a(), a()]));
    // CountBefore: every statement once where it stood (5 statements);
    // CountAfter: the 3 plain statements where they stood, plus once more
    // for each statement spliced (the inner `a` twice: into the outer
    // block, then into the body).
    assert_eq!(
        counts,
        Counts {
            stmts: 3 + 1 + 2,
            exprs: 5
        }
    );
}

#[test]
fn deep_tree_guard_drops_iteratively() {
    let mut t = treefuse_rewrite::DeepTree::new(deep_program(1_000_000));
    manager::<(), _>((Discard,))
        .fused(t.get_mut(), &mut ())
        .unwrap();
    assert!(node_count(t.get()) < 200_000);
    drop(t);
}
