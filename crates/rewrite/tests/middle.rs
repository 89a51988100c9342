//! The flagship middle end: library fused = hand-fused, library one-by-one
//! = six separate hand-written passes, fused and one-by-one fixpoints agree,
//! on random programs; each rule's behaviour; context, errors, ordering.

use proptest::prelude::*;
use treefuse_rewrite::middle::{
    generate, hand_fused, rules, separate, ConstantFolding, DeadBranchElimination, Expr, Function,
    Middle, MiddleError, MiddleStats, Program, Stmt, UnreachableCode,
};
use treefuse_rewrite::{
    deep_eq, node_count, CheckMode, Kind, Mode, OrderError, PassManager, Round, RunError,
};

fn manager() -> PassManager<
    Middle,
    <treefuse_rewrite::middle::MiddleRules as treefuse_rewrite::IntoRuleSet>::Rules,
> {
    PassManager::new(rules()).unwrap()
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

/// Runs the library in `mode` and the hand-written `baseline` on 40
/// generated programs; trees and contexts must agree.
fn agree_on_generated(
    mode: Mode,
    baseline: fn(&mut Program, &mut MiddleStats) -> Result<(), MiddleError>,
) -> treefuse_rewrite::Stats {
    let mut pm = manager();
    for seed in 0..40 {
        let p = generate(seed, 3_000);
        let mut lib = p.clone();
        let mut hand = p.clone();
        let (mut c1, mut c2) = (MiddleStats::default(), MiddleStats::default());
        pm.run(&mut lib, &mut c1, mode).unwrap();
        baseline(&mut hand, &mut c2).unwrap();
        assert!(deep_eq(&lib, &hand), "seed {seed}");
        assert_eq!(lib, hand, "seed {seed}");
        assert_eq!(c1, c2, "seed {seed}");
    }
    pm.stats()
}

#[test]
fn fused_equals_hand_fused_on_generated_programs() {
    let st = agree_on_generated(Mode::Fused, hand_fused);
    assert_eq!(st.traversals, 40);
    for (name, n) in &st.fired {
        assert!(*n > 100, "{name} fired only {n} times");
    }
}

#[test]
fn one_by_one_equals_separate_passes() {
    assert_eq!(
        agree_on_generated(Mode::OneByOne, separate).traversals,
        40 * 6
    );
}

#[test]
fn each_rule_on_its_pattern() {
    use Expr::*;
    let mut pm = manager();
    let cases: Vec<(Expr, Expr)> = vec![
        (Expr::add(Int(2), Int(3)), Int(5)),
        (Expr::neg(Int(4)), Int(-4)),
        (Expr::not(Bool(true)), Bool(false)),
        (Expr::shl(Int(1), Int(4)), Int(16)),
        (Expr::add(Var(1), Int(0)), Var(1)),
        (Expr::sub(Var(1), Int(0)), Var(1)),
        (Expr::mul(Int(1), Var(1)), Var(1)),
        (Expr::mul(Var(1), Int(0)), Int(0)),
        (
            Expr::mul(Expr::neg(Var(1)), Int(0)),
            Expr::mul(Expr::neg(Var(1)), Int(0)),
        ),
        (Expr::neg(Expr::neg(Var(2))), Var(2)),
        (Expr::not(Expr::not(Var(2))), Var(2)),
        (Expr::mul(Var(1), Int(8)), Expr::shl(Var(1), Int(3))),
        (Expr::mul(Int(4), Var(1)), Expr::shl(Var(1), Int(2))),
        (Expr::mul(Var(1), Int(6)), Expr::mul(Var(1), Int(6))),
        // Rules continue on a replacement: --(x * 1) => x * 1 => x,
        // and (x + 0) * 2 => x * 2 => x << 1.
        (
            Expr::mul(Expr::add(Var(1), Int(0)), Int(2)),
            Expr::shl(Var(1), Int(1)),
        ),
    ];
    for (input, want) in cases {
        let mut p = program(vec![Stmt::Eval(input.clone())]);
        pm.fused(&mut p, &mut MiddleStats::default()).unwrap();
        assert_eq!(p, program(vec![Stmt::Eval(want)]), "{input:?}");
    }
    // Statement rules.
    let mut p = program(vec![
        Stmt::If(
            Expr::Int(0),
            vec![Stmt::Eval(Var(1))],
            vec![Stmt::Eval(Var(2)), Stmt::Return(None)],
        ),
        Stmt::Eval(Var(3)),
    ]);
    let mut ctx = MiddleStats::default();
    pm.fused(&mut p, &mut ctx).unwrap();
    assert_eq!(p, program(vec![Stmt::Eval(Var(2)), Stmt::Return(None)]));
    assert_eq!(ctx.unreachable, 1);
}

#[test]
fn ordering_is_declared() {
    let e = PassManager::<Middle, _>::new((UnreachableCode, DeadBranchElimination)).err();
    assert_eq!(
        e,
        Some(OrderError::WrongOrder {
            rule: "UnreachableCode",
            must_come_first: "DeadBranchElimination",
            groups: false
        })
    );
    let _ = ConstantFolding;
}

#[test]
fn check_passes_and_single_round_differs_somewhere() {
    // `--x * 0`: fused, algebraic simplification sees `x * 0` after double
    // negation ran on the child; one by one, it ran before.
    let mut pm = manager();
    let input = program(vec![Stmt::Eval(Expr::mul(
        Expr::neg(Expr::neg(Expr::Var(1))),
        Expr::Int(0),
    ))]);
    let mut p = input.clone();
    match pm.check(&mut p, &mut MiddleStats::default(), CheckMode::SinglePass) {
        Err(treefuse_rewrite::CheckError::Mismatch(m)) => {
            assert_eq!(
                m.fused,
                Kind {
                    ty: "Expr",
                    variant: "Int"
                }
            );
            assert_eq!(
                m.one_by_one,
                Kind {
                    ty: "Expr",
                    variant: "Mul"
                }
            );
            assert_eq!(m.path.len(), 3); // Program, Function, Stmt::Eval
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    let mut p = input;
    pm.check(
        &mut p,
        &mut MiddleStats::default(),
        CheckMode::Fixpoint { max_rounds: 8 },
    )
    .unwrap();
    assert_eq!(p, program(vec![Stmt::Eval(Expr::Int(0))]));
    let _: Option<RunError<MiddleError>> = None;
    let _ = (Mode::Fused, Round::Fused, node_count(&p));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Fused = hand-fused and one-by-one = six separate passes (tree and
    /// context), and the fixpoints of fused and one-by-one rounds agree:
    /// the rules are confluent, which is what `check` relies on.
    #[test]
    fn fused_one_by_one_and_hand_written_agree(seed in any::<u64>(), size in 10usize..2_000) {
        let input = generate(seed, size);
        let mut pm = manager();
        let (mut a, mut b, mut c, mut d) = (input.clone(), input.clone(), input.clone(), input.clone());
        let mut cx = [MiddleStats::default(), MiddleStats::default(), MiddleStats::default(), MiddleStats::default()];
        pm.fused(&mut a, &mut cx[0]).unwrap();
        hand_fused(&mut b, &mut cx[1]).unwrap();
        pm.one_by_one(&mut c, &mut cx[2]).unwrap();
        separate(&mut d, &mut cx[3]).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&cx[0], &cx[1]);
        prop_assert_eq!(&c, &d);
        prop_assert_eq!(&cx[2], &cx[3]);
        let mut e = input;
        let r = pm.check(&mut e, &mut MiddleStats::default(), CheckMode::Fixpoint { max_rounds: 16 });
        prop_assert!(r.is_ok(), "{:?}", r.err());
    }
}
