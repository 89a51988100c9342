//! The fusion cache (`treefuse::cache`): a stored fused program reads back
//! as exactly the one fusion makes, on every example and test program;
//! a changed program or changed options miss; bad entries are ignored and
//! rewritten. (The command line's use of it is in `cli.rs`.)

use std::path::{Path, PathBuf};
use treefuse::cache::{decode, encode, CacheKey, CacheUse, FusionCache};
use treefuse::{compile_file, compile_source, FusedProgram, FusionOptions};
use treefuse_fusion::{EntryStmt, LoopStep, Step};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty directory for one test's cache.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("treefuse-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every `.tf` file and every directory holding `.tf` files below `dir`:
/// each is tried as a program (parts of a directory program, and
/// directories of unrelated programs, do not check and are skipped).
fn candidates(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut has_tf = false;
    for path in entries {
        if path.is_dir() {
            candidates(&path, out);
        } else if path.extension().is_some_and(|e| e == "tf") {
            has_tf = true;
            out.push(path);
        }
    }
    if has_tf {
        out.push(dir.to_path_buf());
    }
}

/// Which kinds of IR parts a set of fused programs exercises, so the test
/// can tell that the round trip met every kind the examples have.
#[derive(Default, Debug)]
struct Seen {
    set_global: bool,
    entry_while: bool,
    brk: bool,
    chunk_split: bool,
    group_guards: bool,
    loop_guards: bool,
    while_group: bool,
    resume: bool,
    split_call: bool,
    typed_child: bool,
    rebound: bool,
}

impl Seen {
    fn entry(&mut self, stmts: &[EntryStmt]) {
        for s in stmts {
            match s {
                EntryStmt::Chunk(_) => {}
                EntryStmt::SetGlobal { .. } => self.set_global = true,
                EntryStmt::While { body, .. } => {
                    self.entry_while = true;
                    self.entry(body);
                }
                EntryStmt::Break { .. } => self.brk = true,
            }
        }
    }

    fn add(&mut self, fused: &FusedProgram) {
        for e in &fused.entries {
            self.entry(&e.body);
            self.chunk_split |= e.chunks.iter().any(|c| c.split.is_some());
        }
        for f in &fused.functions {
            self.resume |= !f.resume.is_empty();
            self.split_call |= !f.split.is_empty();
            self.typed_child |= f.typed_child.is_some();
            for s in &f.steps {
                match s {
                    Step::Group(g) => self.group_guards |= g.guards.iter().any(Option::is_some),
                    Step::Loop(l) => {
                        self.rebound |= !l.rebound.is_empty();
                        self.loop_guards |= l.steps.iter().any(|s| {
                            matches!(s, LoopStep::Call { guards, .. } if guards.iter().any(Option::is_some))
                        });
                    }
                    Step::While(_) => self.while_group = true,
                    Step::Stmt { .. } => {}
                }
            }
        }
    }
}

/// Fuse, store, read back, and fuse again: the stored program is the one
/// fusion makes (and fusion makes the same one twice), on every example
/// program and every program among the tests' fixtures, under the default
/// options and tight cut-offs.
#[test]
fn stored_fused_programs_read_back_as_fused_on_every_example() {
    let mut paths = Vec::new();
    candidates(&repo().join("examples"), &mut paths);
    candidates(&repo().join("crates/treefuse/tests"), &mut paths);
    let tight = FusionOptions {
        max_group: 2,
        max_repeat: 1,
    };
    let mut seen = Seen::default();
    let mut programs = 0;
    let mut bytes = 0;
    for path in &paths {
        let Ok(program) = compile_file(path) else {
            continue;
        };
        programs += 1;
        for options in [FusionOptions::default(), tight.clone()] {
            let fused = program.fuse_all(&options);
            let key = CacheKey::new(&program.sources, &options).expect("a build identity");
            let stored = encode(&fused, &key).unwrap();
            bytes += stored.len();
            let read = decode(&stored, &key).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(read == fused, "{}: read back differs", path.display());
            assert_eq!(format!("{read:?}"), format!("{fused:?}"));
            read.check_fits(&program.model)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let again = program.fuse_all(&options);
            assert!(again == fused, "{}: fusing twice differs", path.display());
            seen.add(&fused);
        }
    }
    assert!(programs >= 60, "only {programs} programs checked");
    let all = [
        seen.set_global,
        seen.entry_while,
        seen.brk,
        seen.chunk_split,
        seen.group_guards,
        seen.loop_guards,
        seen.while_group,
        seen.resume,
        seen.split_call,
        seen.typed_child,
        seen.rebound,
    ];
    assert!(all.iter().all(|&b| b), "IR parts never met: {seen:?}");
    eprintln!("{programs} programs, {bytes} bytes stored");
}

/// The same on random programs of the fusion fuzzer (`treefuse-progen`),
/// under each set of options its soundness test uses
/// (`TREEFUSE_CACHE_CASES=N` for more seeds than the default 24).
#[test]
fn stored_fused_programs_read_back_as_fused_on_random_programs() {
    let cases: u64 = std::env::var("TREEFUSE_CACHE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let mut seen = Seen::default();
    for seed in 0..cases {
        let src = treefuse_progen::gen::generate(seed);
        let program = compile_source("random.tf", &src)
            .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render(false)));
        for options in treefuse_progen::variants() {
            let fused = program.fuse_all(&options);
            let key = CacheKey::new(&program.sources, &options).expect("a build identity");
            let read = decode(&encode(&fused, &key).unwrap(), &key)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(read == fused, "seed {seed}: read back differs");
            read.check_fits(&program.model)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(
                program.fuse_all(&options) == fused,
                "seed {seed}: fusing twice differs"
            );
            seen.add(&fused);
        }
    }
    eprintln!("{seen:?}");
}

const PROGRAM: &str = "global total: i64 = 0;\n\
    tree Leaf { n: i64;\n\
      traversal inc(by: i64) { self.n = self.n + by; }\n\
      traversal add() { total = total + self.n; } }\n\
    fuse go(root: Leaf) { root.inc(2); root.add(); root.inc(3); }\n";

#[test]
fn a_second_fusion_of_the_same_program_and_options_is_a_hit() {
    let dir = temp_dir("hit");
    let cache = FusionCache::new(&dir);
    let program = compile_source("p.tf", PROGRAM).unwrap();
    let options = FusionOptions::default();
    let first = program.fuse_cached(&options, Some(&cache));
    assert_eq!(first.cache, CacheUse::Miss, "{:?}", first.note);
    assert_eq!(first.note, None);
    let second = program.fuse_cached(&options, Some(&cache));
    assert_eq!(second.cache, CacheUse::Hit);
    assert!(second.fused == first.fused);
    assert!(second.fused == program.fuse_all(&options));
    // The same text read again (another `Program`) hits too.
    let again = compile_source("p.tf", PROGRAM).unwrap();
    assert_eq!(
        again.fuse_cached(&options, Some(&cache)).cache,
        CacheUse::Hit
    );
    assert_eq!(cache.usage().unwrap().0, 1);
    // No cache: fused, nothing written.
    let off = program.fuse_cached(&options, None);
    assert_eq!(off.cache, CacheUse::Off);
    assert!(off.fused == first.fused);
}

#[test]
fn a_changed_program_or_changed_options_miss() {
    let dir = temp_dir("miss");
    let cache = FusionCache::new(&dir);
    let options = FusionOptions::default();
    let program = compile_source("p.tf", PROGRAM).unwrap();
    assert_eq!(
        program.fuse_cached(&options, Some(&cache)).cache,
        CacheUse::Miss
    );
    // One more space: a different text, so different spans.
    let edited = compile_source("p.tf", &PROGRAM.replace("root.add();", "root.add( );")).unwrap();
    let fusion = edited.fuse_cached(&options, Some(&cache));
    assert_eq!(fusion.cache, CacheUse::Miss);
    assert!(fusion.fused == edited.fuse_all(&options));
    for other in [
        FusionOptions {
            max_group: 1,
            ..options.clone()
        },
        FusionOptions {
            max_repeat: 1,
            ..options.clone()
        },
    ] {
        let fusion = program.fuse_cached(&other, Some(&cache));
        assert_eq!(fusion.cache, CacheUse::Miss);
        assert!(fusion.fused == program.fuse_all(&other));
        assert_eq!(
            program.fuse_cached(&other, Some(&cache)).cache,
            CacheUse::Hit
        );
    }
    assert_eq!(cache.usage().unwrap().0, 4);
}

#[test]
fn bad_entries_are_ignored_and_rewritten() {
    let dir = temp_dir("bad");
    let cache = FusionCache::new(&dir);
    let options = FusionOptions::default();
    let program = compile_source("p.tf", PROGRAM).unwrap();
    let key = CacheKey::new(&program.sources, &options).unwrap();
    let path = cache.entry_path(&key);
    let fused = program.fuse_all(&options);
    let good = encode(&fused, &key).unwrap();
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    // An entry of another format version (the version follows the magic).
    let mut old = good.clone();
    old[22] ^= 1;
    // A well-formed entry of another program under this key.
    let other = compile_source(
        "o.tf",
        "tree A { traversal f() {} traversal g() {} }\nfuse h(root: A) { root.f(); root.g(); }\n",
    )
    .unwrap();
    let foreign = encode(&other.fuse_all(&options), &key).unwrap();
    for bad in [
        Vec::new(),
        b"garbage".to_vec(),
        good[..good.len() / 2].to_vec(),
        flipped,
        old,
        foreign,
    ] {
        std::fs::write(&path, &bad).unwrap();
        let fusion = program.fuse_cached(&options, Some(&cache));
        assert_eq!(fusion.cache, CacheUse::Miss);
        assert!(fusion.fused == fused);
        let note = fusion.note.unwrap_or_default();
        assert!(note.contains("ignored the cache entry"), "{note}");
        // Rewritten: the next one hits.
        assert_eq!(std::fs::read(&path).unwrap(), good);
        assert_eq!(
            program.fuse_cached(&options, Some(&cache)).cache,
            CacheUse::Hit
        );
    }
}

#[test]
fn a_fused_program_fits_only_its_own_program() {
    let options = FusionOptions::default();
    let a = compile_source("p.tf", PROGRAM).unwrap();
    let b = compile_file(repo().join("examples/figure2/figure2.tf")).unwrap();
    assert!(a.fuse_all(&options).check_fits(&a.model).is_ok());
    assert!(a.fuse_all(&options).check_fits(&b.model).is_err());
    assert!(b.fuse_all(&options).check_fits(&a.model).is_err());
}

#[test]
fn an_unwritable_cache_is_skipped_with_a_note() {
    let dir = temp_dir("unwritable");
    // A file where the directory should be: nothing can be created in it.
    let blocked = dir.join("file");
    std::fs::write(&blocked, "not a directory").unwrap();
    let cache = FusionCache::new(blocked.join("cache"));
    let program = compile_source("p.tf", PROGRAM).unwrap();
    let fusion = program.fuse_cached(&FusionOptions::default(), Some(&cache));
    assert_eq!(fusion.cache, CacheUse::Miss);
    assert!(fusion.fused == program.fuse_all(&FusionOptions::default()));
    assert!(fusion.note.unwrap_or_default().starts_with("not cached"));
}

#[test]
fn clear_removes_only_the_caches_own_files() {
    let dir = temp_dir("clear");
    let cache = FusionCache::new(&dir);
    let program = compile_source("p.tf", PROGRAM).unwrap();
    program.fuse_cached(&FusionOptions::default(), Some(&cache));
    program.fuse_cached(
        &FusionOptions {
            max_group: 1,
            ..FusionOptions::default()
        },
        Some(&cache),
    );
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.join("fused-not-a-key.bin"), "mine too").unwrap();
    let (entries, bytes) = cache.usage().unwrap();
    assert_eq!(entries, 2);
    assert_eq!(cache.clear().unwrap(), (2, bytes));
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["fused-not-a-key.bin", "notes.txt"]);
    // Clearing a cache that does not exist yet removes nothing.
    assert_eq!(FusionCache::new(dir.join("none")).clear().unwrap(), (0, 0));
}
