//! Rewrites one left-deep chain of `depth` nested `if`/`;` nodes with the toy
//! rules on the main thread, to find the depth limit of the plain recursive
//! traversal with stack growth turned off (a stack overflow aborts the
//! process); with growth (the default) any depth works.
//!
//! ```text
//! cargo run --release -p treefuse-rewrite --example depth_probe -- DEPTH [nogrow]
//! ```

use treefuse_rewrite::toy::{rules, Expr};
use treefuse_rewrite::{dismantle, PassManager};

fn main() {
    let depth: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(100_000);
    let grow = std::env::args().nth(2).as_deref() != Some("nogrow");
    let mut e = Expr::divide(Expr::Num(7), Expr::Num(7));
    for i in 0..depth {
        e = if i % 2 == 0 {
            Expr::seq(Expr::Unit, e)
        } else {
            Expr::if_(Expr::id("c"), e, Expr::Unit)
        };
    }
    let mut pm = PassManager::<(), _>::new(rules())
        .expect("no ordering constraints")
        .with_stack_growth(grow);
    pm.fused(&mut e, &mut ())
        .expect("the toy rules cannot fail");
    println!(
        "depth {depth} ok (stack growth: {grow}); fired {:?}",
        pm.stats().fired
    );
    dismantle(e);
}
