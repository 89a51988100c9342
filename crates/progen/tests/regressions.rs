//! Every mismatch the fuzzer ever found, as a program (`NAME.tf`) and an
//! input tree (`NAME.json`) in `tests/regressions/`. Each `fuse` item
//! whose root type accepts the tree is run unfused and fused.

use std::path::Path;

fn check_dir(dir: &Path) -> usize {
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for tf in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "tf"))
    {
        let src = std::fs::read_to_string(tf).unwrap();
        let json = std::fs::read_to_string(tf.with_extension("json")).unwrap();
        let program = treefuse::compile_source("p.tf", &src).unwrap();
        for f in &program.model.fuses {
            if program.read_tree(&f.name, &json).is_err() {
                continue;
            }
            if let Err(m) = treefuse_progen::check_tree(&src, &f.name, &json) {
                panic!("{}: {m}", tf.display());
            }
            n += 1;
        }
    }
    n
}

#[test]
fn fixed_regressions_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let n = check_dir(&dir);
    eprintln!("{n} regression pairs");
}
