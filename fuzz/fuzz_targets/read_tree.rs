//! Any text given as a tree of the Figure 2 example is read and run, or
//! rejected with an error, never a panic, hang or stack overflow.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const FIGURE2: &str = include_str!("../../examples/figure2/figure2.tf");

fn program() -> &'static treefuse::Program {
    static PROGRAM: OnceLock<treefuse::Program> = OnceLock::new();
    PROGRAM
        .get_or_init(|| treefuse::compile_source("figure2.tf", FIGURE2).expect("figure2.tf checks"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(json) = std::str::from_utf8(data) else {
        return;
    };
    let _ = program().run_json("layout", json, &[]);
});
