//! The book (`docs/src`) is tested: every code block does what it says.
//!
//! A block's info string says how it is checked:
//!
//! - `tf`: a complete program that checks cleanly;
//! - `tf,fail=CODE`: a program rejected with (at least) diagnostic `CODE`;
//! - `tf,file=PATH`, `rust,file=PATH`, `toml,file=PATH`: a verbatim part
//!   of the repository file PATH (for `tf`, the whole file must check),
//!   so the book shows exactly what the repository builds and tests;
//! - `json`: a JSON document;
//! - `console`: a shell session run from the repository root with the
//!   `treefuse` just built first on `PATH`: `$ COMMAND` lines, each
//!   followed by its expected output (standard output then standard
//!   error); `...` on its own line matches any lines, `[..]` inside a line
//!   any text, and a last line `[exit: N]` expects that status (else 0);
//! - `text`: grammar and other prose, not run.
//!
//! Any other info string is an error, so a block cannot escape testing by
//! accident. The error index (`errors.md`) must have one section per
//! diagnostic code the parser and checker can emit, and no other.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fenced code block of a chapter.
struct Block {
    chapter: String,
    line: usize,
    info: String,
    body: String,
}

fn chapters() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo().join("docs/src"), &mut out);
    out.sort();
    out
}

fn blocks() -> Vec<Block> {
    let mut out = Vec::new();
    for path in chapters() {
        let chapter = path
            .strip_prefix(repo())
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = fs::read_to_string(&path).unwrap();
        let mut open: Option<Block> = None;
        for (i, line) in text.lines().enumerate() {
            match (&mut open, line.strip_prefix("```")) {
                (None, Some(info)) => {
                    open = Some(Block {
                        chapter: chapter.clone(),
                        line: i + 1,
                        info: info.trim().to_string(),
                        body: String::new(),
                    })
                }
                (Some(_), Some("")) => out.extend(open.take()),
                (Some(b), _) => {
                    b.body.push_str(line);
                    b.body.push('\n');
                }
                (None, None) => {}
            }
        }
        assert!(open.is_none(), "{chapter}: unclosed code block");
    }
    out
}

fn check_program(b: &Block, source: &str, expected_failure: Option<&str>) -> Result<(), String> {
    let result = treefuse::compile_source("example.tf", source);
    match (result, expected_failure) {
        (Ok(_), None) => Ok(()),
        (Err(d), None) => Err(format!("does not check:\n{}", d.render(false))),
        // A warning (`unreachable-pattern`) does not reject the program.
        (Ok(p), Some(code)) if p.model.warnings.iter().any(|w| w.code == code) => Ok(()),
        (Ok(_), Some(code)) => Err(format!("checks cleanly, but should fail with `{code}`")),
        (Err(d), Some(code)) => {
            if d.items.iter().any(|i| i.code == code) {
                Ok(())
            } else {
                Err(format!(
                    "fails, but not with `{code}` ({}):\n{}",
                    b.info,
                    d.render(false)
                ))
            }
        }
    }
}

/// Whether `actual` matches the expected `pattern` line (`[..]` is any
/// text).
fn line_matches(pattern: &str, actual: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == actual;
    }
    let mut rest = actual;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            let Some(at) = rest.find(part) else {
                return false;
            };
            rest = &rest[at + part.len()..];
        }
    }
    true
}

/// Whether the actual lines match the expected ones (`...` is any lines).
fn lines_match(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(first, a) && lines_match(rest, more)),
    }
}

fn run_console(b: &Block) -> Result<(), String> {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_treefuse"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut sessions: Vec<(String, Vec<&str>)> = Vec::new();
    for line in b.body.lines() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            sessions.push((cmd.to_string(), Vec::new()));
        } else if let Some(last) = sessions.last_mut() {
            last.1.push(line);
        } else {
            return Err(format!("output before the first `$ ` line: {line}"));
        }
    }
    if sessions.is_empty() {
        return Err("a console block without a `$ ` command".into());
    }
    for (cmd, mut expected) in sessions {
        let mut status = 0;
        if let Some(last) = expected.last() {
            if let Some(n) = last
                .strip_prefix("[exit: ")
                .and_then(|r| r.strip_suffix(']'))
            {
                status = n.parse().map_err(|_| format!("bad exit line {last}"))?;
                expected.pop();
            }
        }
        let o = Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .current_dir(repo())
            .env("PATH", &path)
            // Never the user's own fusion cache.
            .env(
                "TREEFUSE_CACHE_DIR",
                std::env::temp_dir().join(format!("treefuse-test-cache-{}", std::process::id())),
            )
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        let mut actual = String::from_utf8_lossy(&o.stdout).into_owned();
        actual.push_str(&String::from_utf8_lossy(&o.stderr));
        let actual_lines: Vec<&str> = actual.lines().collect();
        if o.status.code() != Some(status) {
            return Err(format!(
                "`{cmd}` exited with {:?}, expected {status}:\n{actual}",
                o.status.code()
            ));
        }
        if !lines_match(&expected, &actual_lines) {
            return Err(format!(
                "`{cmd}` printed\n{actual}\nbut the book says\n{}",
                expected.join("\n")
            ));
        }
    }
    Ok(())
}

fn check_block(b: &Block) -> Result<(), String> {
    let mut parts = b.info.split(',');
    let lang = parts.next().unwrap_or("");
    let attrs: Vec<(&str, &str)> = parts
        .map(|a| a.split_once('=').unwrap_or((a, "")))
        .collect();
    let attr = |name: &str| attrs.iter().find(|(k, _)| *k == name).map(|(_, v)| *v);
    let mut program = b.body.clone();
    if let Some(file) = attr("file") {
        let on_disk = fs::read_to_string(repo().join(file))
            .map_err(|e| format!("cannot read {file}: {e}"))?;
        if !on_disk.contains(&b.body) {
            return Err(format!("is not a part of {file}; copy it from the file"));
        }
        // An excerpt of a program: the whole file must check.
        program = on_disk;
    }
    match lang {
        "tf" => check_program(b, &program, attr("fail")),
        "json" => serde_json::from_str::<serde_json::Value>(&b.body)
            .map(|_| ())
            .map_err(|e| format!("not JSON: {e}")),
        "console" => run_console(b),
        "rust" | "toml" if attr("file").is_some() => Ok(()),
        "text" => Ok(()),
        other => Err(format!(
            "unknown block kind `{other}` (see crates/treefuse/tests/book.rs)"
        )),
    }
}

#[test]
fn every_code_block_of_the_book_does_what_it_says() {
    let blocks = blocks();
    assert!(blocks.len() > 100, "only {} blocks found", blocks.len());
    let failures: Vec<String> = blocks
        .iter()
        .filter_map(|b| {
            check_block(b)
                .err()
                .map(|e| format!("{}:{} ```{}: {e}", b.chapter, b.line, b.info))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} blocks failed:\n\n{}",
        failures.len(),
        blocks.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_error_index_has_one_section_per_diagnostic_code() {
    let emitted = support::codes::emitted_codes();
    let entries = treefuse::error_index::entries();
    let documented: BTreeSet<String> = entries.iter().map(|e| e.code.to_string()).collect();
    let missing: Vec<&String> = emitted.difference(&documented).collect();
    let stale: Vec<&String> = documented.difference(&emitted).collect();
    assert!(
        missing.is_empty(),
        "codes without a section in docs/src/errors.md (add one: a `tf,fail=CODE` example and a `tf` fix): {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "sections of docs/src/errors.md for codes nothing emits any more: {stale:?}"
    );
    for e in entries {
        let fail = format!("```tf,fail={}\n", e.code);
        assert!(
            e.text.contains(&fail),
            "`{}`: the section needs a failing example (```tf,fail={})",
            e.code,
            e.code
        );
        assert!(
            e.text.contains("\n```tf\n"),
            "`{}`: the section needs a fixed program (```tf)",
            e.code
        );
    }
}

#[test]
fn no_file_points_outside_the_repository() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if path
                .extension()
                .is_some_and(|x| x == "md" || x == "rs" || x == "toml" || x == "tf")
            {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repo(), &mut files);
    // The project's specification folder, which users do not have; built
    // from parts so that this file does not name it either.
    let spec = ["sha", "red/"].concat();
    let forbidden = [
        format!("../{spec}"),
        format!("{spec}docs/"),
        format!("{spec}seeds/"),
    ];
    let offenders: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let text = fs::read_to_string(p).ok()?;
            forbidden.iter().find(|f| text.contains(*f)).map(|f| {
                format!(
                    "{} mentions `{f}`",
                    p.strip_prefix(repo()).unwrap_or(p).display()
                )
            })
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn explain_code_prints_a_section_and_lists_codes() {
    let bin = env!("CARGO_BIN_EXE_treefuse");
    let o = Command::new(bin)
        .args(["explain-code", "move-overlap"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("## `move-overlap`\n"), "{text}");
    assert!(
        text.contains("```tf\n") && !text.contains("fail="),
        "{text}"
    );
    let o = Command::new(bin).args(["explain-code"]).output().unwrap();
    let list = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        list.lines().count(),
        treefuse::error_index::entries().len(),
        "{list}"
    );
    let o = Command::new(bin)
        .args(["explain-code", "no-such-code"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// An mdBook heading id: lowercase, letters, digits, `-` and `_` kept,
/// spaces as `-`, everything else dropped.
fn heading_id(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// `a/../b.md` as `b.md`.
fn normalize(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

#[test]
fn links_between_chapters_resolve() {
    let dir = repo().join("docs/src");
    let ids = |file: &str| -> Option<Vec<String>> {
        let text = fs::read_to_string(dir.join(file)).ok()?;
        let mut in_code = false;
        let mut ids = Vec::new();
        for line in text.lines() {
            if line.starts_with("```") {
                in_code = !in_code;
            } else if !in_code && line.starts_with('#') {
                ids.push(heading_id(line.trim_start_matches('#')));
            }
        }
        Some(ids)
    };
    let summary = fs::read_to_string(dir.join("SUMMARY.md")).unwrap();
    let mut broken = Vec::new();
    let mut checked = 0;
    for chapter in chapters() {
        // Paths relative to docs/src, as SUMMARY.md writes them.
        let name = chapter
            .strip_prefix(&dir)
            .unwrap_or(&chapter)
            .display()
            .to_string();
        let chapter_dir = Path::new(&name)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        if name != "SUMMARY.md" && !summary.contains(&format!("({name})")) {
            broken.push(format!("{name} is not listed in SUMMARY.md"));
        }
        let text = fs::read_to_string(&chapter).unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.starts_with("http") || !target.contains(".md") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = normalize(&chapter_dir.join(file));
            let file = file.as_str();
            checked += 1;
            match ids(file) {
                None => broken.push(format!("{name}: no chapter {file}")),
                Some(ids) if !anchor.is_empty() && !ids.iter().any(|i| i == anchor) => {
                    broken.push(format!("{name}: no heading #{anchor} in {file}"))
                }
                Some(_) => {}
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
    assert!(checked > 10, "only {checked} links found");
}
