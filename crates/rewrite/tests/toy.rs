//! The blog's toy language: each rule alone, the blog's examples, and the
//! fused pipeline against the hand-fused `match` on random trees.

use proptest::prelude::*;
use treefuse_rewrite::toy::{
    manually_fused, not_fused, parse, random_expr, rules, rules_bottom_up, ConstantDivision,
    DeadCodeElimination, Expr, RedundantLet,
};
use treefuse_rewrite::{
    CheckError, CheckMode, IntoRuleSet, Mode, OptLevel, PassManager, Round, RuleSet,
};

fn p(s: &str) -> Expr {
    parse(s).unwrap_or_else(|e| panic!("parse {s:?}: {e}"))
}

fn manager<I: IntoRuleSet>(rules: I) -> PassManager<(), I::Rules>
where
    I::Rules: RuleSet<()>,
{
    PassManager::new(rules).unwrap()
}

/// Runs `mode` on a copy of `e`.
fn run<Rs: RuleSet<()>>(pm: &mut PassManager<(), Rs>, e: &Expr, mode: Mode) -> Expr {
    let mut t = e.clone();
    pm.run(&mut t, &mut (), mode).unwrap();
    t
}

fn fused_str(s: &str) -> String {
    run(&mut manager(rules()), &p(s), Mode::Fused).to_string()
}

#[test]
fn dead_code_elimination_alone() {
    let mut pm = manager((DeadCodeElimination::<false>,));
    let f = |pm: &mut _, s| run(pm, &p(s), Mode::Fused);
    assert_eq!(f(&mut pm, "if true then 1 else 2"), p("1"));
    assert_eq!(f(&mut pm, "if false then 1 else 2"), p("2"));
    // Nested, and the replacement is rewritten again (restart).
    assert_eq!(
        f(&mut pm, "if true then (if false then 1 else 3) else 2"),
        p("3")
    );
    assert_eq!(f(&mut pm, "if x then 1 else 2"), p("if x then 1 else 2"));
    assert_eq!(
        f(&mut pm, "4 / 2; let x = 1 in x"),
        p("4 / 2; let x = 1 in x")
    );
    assert_eq!(pm.stats().total_fired(), 4);
}

#[test]
fn constant_division_alone() {
    let mut td = manager((ConstantDivision::<false>,));
    assert_eq!(run(&mut td, &p("42 / 2"), Mode::Fused), p("21"));
    // Top-down: the outer division is tried before its left operand is
    // folded, so one fused pass leaves `20 / 2`.
    assert_eq!(run(&mut td, &p("(100 / 5) / 2"), Mode::Fused), p("20 / 2"));
    assert_eq!(run(&mut td, &p("1 / 0"), Mode::Fused), p("1 / 0"));
    let mut bu = manager((ConstantDivision::<true>,));
    assert_eq!(run(&mut bu, &p("(100 / 5) / 2"), Mode::Fused), p("10"));
}

#[test]
fn redundant_let_alone() {
    let mut pm = manager((RedundantLet::<false>,));
    assert_eq!(run(&mut pm, &p("let x = 2 in x"), Mode::Fused), p("2"));
    assert_eq!(
        run(&mut pm, &p("let x = 2 in y"), Mode::Fused),
        p("let x = 2 in y")
    );
    assert_eq!(
        run(&mut pm, &p("let x = (let y = 3 in y) in x"), Mode::Fused),
        p("3")
    );
    assert_eq!(pm.rule_names(), ["RedundantLet"]);
}

#[test]
fn blog_example_if() {
    assert_eq!(fused_str("10 / (if true then 2 else 5)"), "10 / 2");
    assert_eq!(
        manually_fused(p("10 / (if true then 2 else 5)")),
        p("10 / 2")
    );
    assert_eq!(not_fused(p("10 / (if true then 2 else 5)")), p("5"));
    let mut pm = manager(rules());
    let e = p("10 / (if true then 2 else 5)");
    assert_eq!(run(&mut pm, &e, Mode::OneByOne), p("5"));
    for round in [Round::Fused, Round::OneByOne] {
        let mode = Mode::Fixpoint {
            round,
            max_rounds: 10,
        };
        assert_eq!(run(&mut pm, &e, mode), p("5"));
    }
}

#[test]
fn blog_example_let() {
    assert_eq!(fused_str("10 / (let x = 2 in x)"), "10 / 2");
    assert_eq!(not_fused(p("10 / (let x = 2 in x)")), p("10 / 2"));
    let mut pm = manager(rules());
    let e = p("10 / (let x = 2 in x)");
    assert_eq!(run(&mut pm, &e, Mode::OneByOne), p("10 / 2"));
    for level in [OptLevel::O2, OptLevel::O3] {
        let mut t = e.clone();
        pm.run_level(&mut t, &mut (), level).unwrap();
        assert_eq!(t, p("5"));
    }
}

#[test]
fn checker_on_blog_examples() {
    let mut pm = manager(rules());
    let fix = CheckMode::Fixpoint { max_rounds: 16 };
    let mut e = p("10 / (if true then 2 else 5)");
    pm.check(&mut e, &mut (), fix).unwrap();
    assert_eq!(e, p("5"));
    let mut e = p("10 / (let x = 2 in x)");
    pm.check(&mut e, &mut (), CheckMode::SinglePass).unwrap();
    assert_eq!(e, p("10 / 2"));
    let mut e = p("10 / (if true then 2 else 5)");
    match pm.check(&mut e, &mut (), CheckMode::SinglePass) {
        Err(CheckError::Mismatch(m)) => {
            assert!(m.path.is_empty());
            assert_eq!(m.fused.variant, "Div");
            assert_eq!(m.one_by_one.variant, "Num");
            let msg = m.to_string();
            assert!(msg.contains("differ at root"), "{msg}");
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    // Deeper in the tree, the path points at the node.
    let mut e = p("(); (1; 10 / (if true then 2 else 5))");
    match pm.check(&mut e, &mut (), CheckMode::SinglePass) {
        Err(CheckError::Mismatch(m)) => {
            assert_eq!(m.path.iter().map(|s| s.child).collect::<Vec<_>>(), [1, 1]);
            assert!(
                m.to_string().contains("root/Expr::Seq[1]/Expr::Seq[1]"),
                "{m}"
            );
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn print_parse_round_trip() {
    for seed in 0..300 {
        let e = random_expr(seed, 6);
        assert_eq!(parse(&e.to_string()).unwrap(), e, "{e}");
    }
}

#[test]
fn every_rule_fires_on_random_programs() {
    let mut pm = manager(rules());
    for seed in 0..200 {
        run(&mut pm, &random_expr(seed, 6), Mode::Fused);
    }
    for (name, n) in pm.stats().fired {
        assert!(n > 50, "{name} fired only {n} times");
    }
}

#[test]
fn bottom_up_reaches_more_in_one_pass() {
    let mut pm = manager(rules_bottom_up());
    for (src, want) in [
        ("10 / (if true then 2 else 5)", "5"),
        ("10 / (let x = 2 in x)", "5"),
        ("if (let x = true in x) then 1 / 1 else 2", "1"),
    ] {
        assert_eq!(run(&mut pm, &p(src), Mode::Fused), p(want), "{src}");
    }
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
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// The composed rules are exactly the blog's hand-fused `match`.
    #[test]
    fn fused_equals_hand_fused(e in arb_expr()) {
        prop_assert_eq!(run(&mut manager(rules()), &e, Mode::Fused), manually_fused(e));
    }

    /// One-by-one through the library is exactly the blog's `Not_fused`.
    #[test]
    fn one_by_one_equals_not_fused(e in arb_expr()) {
        prop_assert_eq!(run(&mut manager(rules()), &e, Mode::OneByOne), not_fused(e));
    }

    /// The rules are terminating and confluent: fixpoints agree, top-down
    /// and bottom-up.
    #[test]
    fn fixpoints_agree(e in arb_expr()) {
        let fix = CheckMode::Fixpoint { max_rounds: 64 };
        let r = manager(rules()).check(&mut e.clone(), &mut (), fix);
        prop_assert!(r.is_ok(), "{:?}", r.err());
        let r = manager(rules_bottom_up()).check(&mut e.clone(), &mut (), fix);
        prop_assert!(r.is_ok(), "{:?}", r.err());
    }

    /// One bottom-up pass already gives the top-down fixpoint.
    #[test]
    fn bottom_up_pass_reaches_the_fixpoint(e in arb_expr()) {
        let once = run(&mut manager(rules_bottom_up()), &e, Mode::Fused);
        let fix = run(&mut manager(rules()), &e, Mode::Fixpoint { round: Round::Fused, max_rounds: 64 });
        prop_assert_eq!(once, fix);
    }

    #[test]
    fn fused_equals_hand_fused_generated(seed in any::<u64>()) {
        let e = random_expr(seed, 7);
        prop_assert_eq!(run(&mut manager(rules()), &e, Mode::Fused), manually_fused(e));
    }
}
