//! The blog's toy language: each rule alone, the blog's examples, and the
//! fused pipeline against the hand-fused `match` on random trees.

use proptest::prelude::*;
use treefuse_rewrite::toy::{
    manually_fused, not_fused, parse, random_expr, rules, ConstantDivision, DeadCodeElimination,
    Expr, RedundantLet,
};
use treefuse_rewrite::{CheckError, CheckMode, Mode, OptLevel, Order, PassManager, Round};

fn p(s: &str) -> Expr {
    parse(s).unwrap_or_else(|e| panic!("parse {s:?}: {e}"))
}

fn fused_str(s: &str) -> String {
    PassManager::new(rules()).fused(p(s)).to_string()
}

#[test]
fn dead_code_elimination_alone() {
    let mut pm = PassManager::new((DeadCodeElimination,));
    assert_eq!(pm.fused(p("if true then 1 else 2")), p("1"));
    assert_eq!(pm.fused(p("if false then 1 else 2")), p("2"));
    // Nested, and the replacement is rewritten again (restart via `first`).
    assert_eq!(
        pm.fused(p("if true then (if false then 1 else 3) else 2")),
        p("3")
    );
    // Only literal conditions.
    assert_eq!(pm.fused(p("if x then 1 else 2")), p("if x then 1 else 2"));
    // Other rules' patterns are left alone.
    assert_eq!(
        pm.fused(p("4 / 2; let x = 1 in x")),
        p("4 / 2; let x = 1 in x")
    );
    assert_eq!(pm.stats().total_fired(), 4);
}

#[test]
fn constant_division_alone() {
    let mut pm = PassManager::new((ConstantDivision,));
    assert_eq!(pm.fused(p("42 / 2")), p("21"));
    // Top-down: the outer division is tried before its left operand is
    // folded, so one fused pass leaves `20 / 2`.
    assert_eq!(pm.fused(p("(100 / 5) / 2")), p("20 / 2"));
    assert_eq!(pm.fused(p("1 / 0")), p("1 / 0"));
    assert_eq!(
        pm.fused(p("if true then 1 else 2")),
        p("if true then 1 else 2")
    );
    let mut bu = PassManager::new((ConstantDivision,)).with_order(Order::BottomUp);
    assert_eq!(bu.fused(p("(100 / 5) / 2")), p("10"));
}

#[test]
fn redundant_let_alone() {
    let mut pm = PassManager::new((RedundantLet,));
    assert_eq!(pm.fused(p("let x = 2 in x")), p("2"));
    assert_eq!(pm.fused(p("let x = 2 in y")), p("let x = 2 in y"));
    assert_eq!(pm.fused(p("let x = (let y = 3 in y) in x")), p("3"));
    assert_eq!(pm.fused(p("10 / 2")), p("10 / 2"));
    assert_eq!(pm.rule_names(), ["RedundantLet"]);
}

#[test]
fn blog_example_if() {
    // Fused: the division is tried before its divisor is simplified.
    assert_eq!(fused_str("10 / (if true then 2 else 5)"), "10 / 2");
    assert_eq!(
        manually_fused(p("10 / (if true then 2 else 5)")),
        p("10 / 2")
    );
    // Not fused: DCE's pass runs over everything before folding.
    assert_eq!(not_fused(p("10 / (if true then 2 else 5)")), p("5"));
    let mut pm = PassManager::new(rules());
    assert_eq!(pm.one_by_one(p("10 / (if true then 2 else 5)")), p("5"));
    // Fixpoint either way.
    for round in [Round::Fused, Round::OneByOne] {
        assert_eq!(
            pm.fixpoint(p("10 / (if true then 2 else 5)"), round, 10)
                .unwrap(),
            p("5")
        );
    }
}

#[test]
fn blog_example_let() {
    // Both miss it: the let is removed after folding had its chance.
    assert_eq!(fused_str("10 / (let x = 2 in x)"), "10 / 2");
    assert_eq!(not_fused(p("10 / (let x = 2 in x)")), p("10 / 2"));
    let mut pm = PassManager::new(rules());
    assert_eq!(pm.one_by_one(p("10 / (let x = 2 in x)")), p("10 / 2"));
    // Only the fixpoint finds 5.
    assert_eq!(
        pm.run_level(p("10 / (let x = 2 in x)"), OptLevel::O2)
            .unwrap(),
        p("5")
    );
    assert_eq!(
        pm.run_level(p("10 / (let x = 2 in x)"), OptLevel::O3)
            .unwrap(),
        p("5")
    );
}

#[test]
fn checker_on_blog_examples() {
    let mut pm = PassManager::new(rules());
    let fix = CheckMode::Fixpoint { max_rounds: 16 };
    assert_eq!(
        pm.check(p("10 / (if true then 2 else 5)"), fix).unwrap(),
        p("5")
    );
    assert_eq!(pm.check(p("10 / (let x = 2 in x)"), fix).unwrap(), p("5"));
    // A single fused pass and a single one-by-one round agree on example 2 ...
    assert_eq!(
        pm.check(p("10 / (let x = 2 in x)"), CheckMode::SinglePass)
            .unwrap(),
        p("10 / 2")
    );
    // ... but not on example 1, and the difference is at the root.
    match pm.check(p("10 / (if true then 2 else 5)"), CheckMode::SinglePass) {
        Err(CheckError::Mismatch(m)) => {
            assert_eq!(m.path, Vec::<usize>::new());
            assert_eq!(m.fused, p("10 / 2"));
            assert_eq!(m.one_by_one, p("5"));
            let msg = m.to_string();
            assert!(msg.contains("differ at root"), "{msg}");
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    // Deeper in the tree, the path points at the node.
    match pm.check(
        p("(); (1; 10 / (if true then 2 else 5))"),
        CheckMode::SinglePass,
    ) {
        Err(CheckError::Mismatch(m)) => assert_eq!(m.path, vec![1, 1]),
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn print_parse_round_trip() {
    for seed in 0..300 {
        let e = random_expr(seed, 6);
        assert_eq!(parse(&e.to_string()).unwrap(), e, "{e}");
    }
    assert_eq!(
        p("10 / (if true then 2 else 5)").to_string(),
        "10 / (if true then 2 else 5)"
    );
}

#[test]
fn every_rule_fires_on_random_programs() {
    let mut pm = PassManager::new(rules());
    for seed in 0..200 {
        pm.fused(random_expr(seed, 6));
    }
    for (name, n) in pm.stats().fired {
        assert!(n > 50, "{name} fired only {n} times");
    }
}

#[test]
fn mode_dispatch() {
    let mut pm = PassManager::new(rules());
    let e = p("10 / (if true then 2 else 5)");
    assert_eq!(pm.run(e.clone(), Mode::Fused).unwrap(), p("10 / 2"));
    assert_eq!(pm.run(e.clone(), Mode::OneByOne).unwrap(), p("5"));
    assert_eq!(pm.run_level(e.clone(), OptLevel::O0).unwrap(), p("10 / 2"));
    assert_eq!(pm.run_level(e, OptLevel::O1).unwrap(), p("5"));
}

fn arb_expr() -> impl Strategy<Value = Expr> {
    let name = prop::sample::select(vec!["x", "y", "z"]);
    let leaf = prop_oneof![
        Just(Expr::Unit),
        any::<bool>().prop_map(Expr::Bool),
        (-3i64..20).prop_map(Expr::Num),
        name.clone().prop_map(Expr::id),
    ];
    leaf.prop_recursive(7, 96, 3, move |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::divide(a, b)),
            ((-3i64..50), (-2i64..5)).prop_map(|(n, m)| Expr::divide(Expr::Num(n), Expr::Num(m))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::seq(a, b)),
            (name.clone(), inner.clone(), inner.clone()).prop_map(|(x, v, b)| Expr::let_(x, v, b)),
            (name.clone(), inner.clone()).prop_map(|(x, v)| Expr::let_(x, v, Expr::id(x))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, t, e)| Expr::if_(c, t, e)),
            (any::<bool>(), inner.clone(), inner.clone()).prop_map(|(c, t, e)| Expr::if_(
                Expr::Bool(c),
                t,
                e
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The composed rules are exactly the blog's hand-fused `match`.
    #[test]
    fn fused_equals_hand_fused(e in arb_expr()) {
        let mut pm = PassManager::new(rules());
        prop_assert_eq!(pm.fused(e.clone()), manually_fused(e));
    }

    /// One-by-one through the library is exactly the blog's `Not_fused`.
    #[test]
    fn one_by_one_equals_not_fused(e in arb_expr()) {
        let mut pm = PassManager::new(rules());
        prop_assert_eq!(pm.one_by_one(e.clone()), not_fused(e));
    }

    /// The three rules are terminating and confluent, so fixpoints agree
    /// (the guarantee the checker's default mode relies on), in both orders.
    #[test]
    fn fixpoints_agree(e in arb_expr()) {
        for order in [Order::TopDown, Order::BottomUp] {
            let mut pm = PassManager::new(rules()).with_order(order);
            let r = pm.check(e.clone(), CheckMode::Fixpoint { max_rounds: 64 });
            prop_assert!(r.is_ok(), "{:?}", r.err());
        }
    }

    /// For these local, terminating, confluent rules one bottom-up pass
    /// already gives the normal form that top-down fixpoints reach.
    #[test]
    fn bottom_up_pass_reaches_the_fixpoint(e in arb_expr()) {
        let once = PassManager::new(rules()).with_order(Order::BottomUp).fused(e.clone());
        let fix = PassManager::new(rules()).fixpoint(e, Round::Fused, 64);
        prop_assert_eq!(Ok(once), fix);
    }

    /// Same property on the seeded generator's programs.
    #[test]
    fn fused_equals_hand_fused_generated(seed in any::<u64>()) {
        let e = random_expr(seed, 7);
        let mut pm = PassManager::new(rules());
        prop_assert_eq!(pm.fused(e.clone()), manually_fused(e));
    }
}
