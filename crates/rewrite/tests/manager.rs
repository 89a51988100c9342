//! Pass manager behaviour: fixpoint bounds, non-confluent rules in the
//! checker, orders, deep trees.

use treefuse_rewrite::toy::{manually_fused, parse, rules, Expr};
use treefuse_rewrite::{
    dismantle, rules, CheckError, CheckMode, Context, Mode, OptLevel, Order, PassManager, Round,
    Rule,
};

fn p(s: &str) -> Expr {
    parse(s).unwrap()
}

/// `n => n + 1` for literals below 100: terminating but slow.
struct Inc;
impl Rule<Expr> for Inc {
    fn rewrite(&self, e: Expr, cx: &mut impl Context<Expr>) -> Expr {
        match e {
            Expr::Num(n) if n < 100 => {
                cx.fired();
                Expr::Num(n + 1)
            }
            other => cx.next(other),
        }
    }
}

/// Reports firing without changing anything: never reaches a fixpoint.
struct Liar;
impl Rule<Expr> for Liar {
    fn rewrite(&self, e: Expr, cx: &mut impl Context<Expr>) -> Expr {
        if matches!(e, Expr::Unit) {
            cx.fired();
        }
        cx.next(e)
    }
    fn name(&self) -> &'static str {
        "liar"
    }
}

#[test]
fn fixpoint_bound_gives_clear_error() {
    let mut pm = PassManager::new((Liar,));
    let err = pm.fixpoint(p("(); ()"), Round::Fused, 5).unwrap_err();
    assert_eq!(err.rounds, 5);
    assert_eq!(err.fired_last_round, vec![("liar", 2)]);
    assert_eq!(err.tree, p("(); ()"));
    let msg = err.to_string();
    assert!(
        msg.contains("did not reach a fixpoint within 5 rounds"),
        "{msg}"
    );
    assert!(msg.contains("liar (2x)"), "{msg}");

    // A terminating rule needs enough rounds, and the quiet round counts.
    let mut pm = PassManager::new((Inc,));
    assert!(pm.fixpoint(p("98"), Round::Fused, 2).is_err());
    assert_eq!(pm.fixpoint(p("98"), Round::Fused, 3).unwrap(), p("100"));
    let mode = Mode::Fixpoint {
        round: Round::OneByOne,
        max_rounds: 3,
    };
    assert_eq!(pm.run(p("98"), mode).unwrap(), p("100"));
}

#[test]
fn level_modes_are_configurable() {
    let pm = PassManager::new(rules()).with_mode_for(OptLevel::O0, Mode::OneByOne);
    assert_eq!(pm.mode_for(OptLevel::O0), Mode::OneByOne);
    assert_eq!(pm.mode_for(OptLevel::O1), Mode::OneByOne);
    assert!(matches!(
        pm.mode_for(OptLevel::O2),
        Mode::Fixpoint {
            round: Round::Fused,
            ..
        }
    ));
}

/// `n / 2 => n / 3` for a literal n: together with constant division this is
/// not confluent (`10 / 2` has normal forms 5 and 3).
struct Three;
impl Rule<Expr> for Three {
    fn rewrite(&self, e: Expr, cx: &mut impl Context<Expr>) -> Expr {
        match e {
            Expr::Div(a, b) if matches!((&*a, &*b), (Expr::Num(_), Expr::Num(2))) => {
                cx.replace(Expr::Div(a, Box::new(Expr::Num(3))))
            }
            other => cx.next(other),
        }
    }
}

#[test]
fn checker_finds_non_confluence() {
    use treefuse_rewrite::toy::ConstantDivision;
    // A plain `10 / 2`: both ways try `Three` at the root first, so both
    // give 3 and the checker passes (non-confluence is only *possible*).
    let mut pm = PassManager::new((Three, ConstantDivision));
    assert_eq!(
        pm.check(p("10 / 2"), CheckMode::Fixpoint { max_rounds: 8 })
            .unwrap(),
        p("3")
    );
    // `(20 / 2) / 2` with folding first. Fused rounds: the inner division
    // folds (`10 / 2`), and in the next round folding, tried first at the
    // root, wins: 5. One-by-one rounds: the folding pass leaves `10 / 2`,
    // then `Three`'s own pass rewrites it to `10 / 3` before folding sees it
    // again: 3. Two normal forms of one input: the rules are not confluent.
    let mut pm = PassManager::new((ConstantDivision, Three));
    match pm.check(p("1; (20 / 2) / 2"), CheckMode::Fixpoint { max_rounds: 16 }) {
        Ok(r) => panic!("expected non-confluence to show, got {r}"),
        Err(CheckError::Mismatch(m)) => {
            assert_eq!(m.path, vec![1]);
            assert_eq!(m.fused, p("5"));
            assert_eq!(m.one_by_one, p("3"));
        }
        Err(e) => panic!("unexpected {e}"),
    }
}

#[test]
fn bottom_up_reaches_more_in_one_pass() {
    let mut pm = PassManager::new(rules()).with_order(Order::BottomUp);
    assert_eq!(pm.order(), Order::BottomUp);
    assert_eq!(pm.fused(p("10 / (if true then 2 else 5)")), p("5"));
    assert_eq!(pm.fused(p("10 / (let x = 2 in x)")), p("5"));
    assert_eq!(
        pm.fused(p("if (let x = true in x) then 1 / 1 else 2")),
        p("1")
    );
}

#[test]
fn rules_macro_and_stats() {
    let mut pm = PassManager::new(rules![
        treefuse_rewrite::toy::DeadCodeElimination,
        treefuse_rewrite::toy::ConstantDivision,
        treefuse_rewrite::toy::RedundantLet,
    ]);
    let out = pm.fused(p("if true then 4 / 2 else (let x = 1 in x)"));
    assert_eq!(out, p("2"));
    let st = pm.stats();
    assert_eq!(
        st.fired,
        vec![
            ("DeadCodeElimination", 1),
            ("ConstantDivision", 1),
            ("RedundantLet", 0)
        ]
    );
    assert_eq!(st.traversals, 1);
    pm.reset_stats();
    assert_eq!(pm.total_fired(), 0);
}

fn deep_seq(depth: usize) -> Expr {
    // `if true then (if true then ( ... 7 / 7 ...) else ()) else ()`
    let mut e = Expr::divide(Expr::Num(7), Expr::Num(7));
    for i in 0..depth {
        e = if i % 2 == 0 {
            Expr::seq(Expr::Unit, e)
        } else {
            Expr::if_(Expr::Bool(true), e, Expr::Unit)
        };
    }
    e
}

#[test]
fn deep_tree_with_stack_growth() {
    // A million levels: far beyond what the default test-thread stack
    // (2 MiB) can recurse through without growth.
    let depth = 1_000_000;
    let e = deep_seq(depth);
    let mut pm = PassManager::new(rules()).with_stack_growth(true);
    let out = pm.fused(e);
    assert_eq!(pm.stats().fired[0].1, (depth / 2) as u64);
    assert_eq!(pm.stats().fired[1].1, 1);
    // Walk down the spine iteratively to check the bottom.
    let mut t = &out;
    let mut seen = 0;
    while let Expr::Seq(a, b) = t {
        assert_eq!(**a, Expr::Unit);
        t = b;
        seen += 1;
    }
    assert_eq!(seen, depth / 2);
    assert_eq!(*t, Expr::Num(1));
    dismantle(out, || Expr::Unit);
}

#[test]
fn moderate_depth_without_growth_matches_manual() {
    let e = deep_seq(2_000);
    let mut pm = PassManager::new(rules());
    assert_eq!(pm.fused(e.clone()), manually_fused(e));
}
