//! Bad input never makes the tool panic, hang or overflow its stack.
//!
//! Property tests feed the front end random bytes, random token soups and
//! mutations of valid programs, and feed the JSON tree reader (through
//! `Program::run_json` on the Figure 2 example) random and mutated
//! documents: each input must give a result or an error. Separate tests
//! feed deeply nested input, which must be rejected with a diagnostic (or,
//! for a 1,000,000-deep JSON chain, read and run) without a stack overflow.
//!
//! Every case runs on a fresh thread with the default (small) stack of a
//! spawned thread, under a watchdog, so a hang is reported with its input
//! instead of stalling the suite.

use proptest::prelude::*;
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;

/// How long one case may take before it counts as a hang. Generous: the
/// suite runs unoptimized on slow shared machines.
const WATCHDOG: Duration = Duration::from_secs(20);

fn manifest_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs `f` on a new thread with the default stack size of spawned threads
/// and fails (naming `what`) if it panics or does not finish in time.
fn guarded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    guarded_for(WATCHDOG, what, f)
}

fn guarded_for<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("robustness-case".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawn");
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("no answer within {limit:?} (a hang?) on input:\n{what}")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("panicked on input:\n{what}"),
    }
}

/// Parses and checks `source`; renders the diagnostics (rendering must not
/// panic either). Returns whether it compiled and the rendered text.
fn compile(source: String) -> (bool, String) {
    let (ok, _, rendered) = compile_counting(source);
    (ok, rendered)
}

/// [`compile`], also returning the number of diagnostics.
fn compile_counting(source: String) -> (bool, usize, String) {
    let what = truncate(&source);
    guarded(&what, move || {
        match treefuse::compile_source("input.tf", &source) {
            Ok(_) => (true, 0, String::new()),
            Err(d) => {
                assert!(!d.items.is_empty(), "Err without diagnostics");
                // Both renderings, and every span within the source.
                let _ = d.render(true);
                for item in &d.items {
                    assert!(item.span.start <= item.span.end, "inverted span {item:?}");
                    assert!(
                        item.span.end as usize <= source.len(),
                        "span past the end {item:?}"
                    );
                }
                (false, d.items.len(), d.render(false))
            }
        }
    })
}

fn truncate(s: &str) -> String {
    if s.len() <= 2000 {
        format!("{s:?}")
    } else {
        let mut end = 2000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{:?}... ({} bytes)", &s[..end], s.len())
    }
}

// ----- corpus ------------------------------------------------------------

/// The valid programs of the diagnostics tests and the Figure 2 example.
fn corpus() -> &'static [String] {
    static CORPUS: OnceLock<Vec<String>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut out = Vec::new();
        let dir = manifest_path("tests/diagnostics/valid");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "tf"))
            .collect();
        paths.sort();
        for p in paths {
            out.push(std::fs::read_to_string(p).unwrap());
        }
        out.push(figure2_source().to_string());
        out
    })
}

fn figure2_source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        std::fs::read_to_string(manifest_path("../../examples/figure2/figure2.tf")).unwrap()
    })
}

fn figure2_doc() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        std::fs::read_to_string(manifest_path("../../examples/figure2/doc.json")).unwrap()
    })
}

fn figure2() -> &'static treefuse::Program {
    static PROGRAM: OnceLock<treefuse::Program> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        treefuse::compile_source("figure2.tf", figure2_source()).expect("figure2 checks")
    })
}

/// Splits program or JSON text into rough tokens (identifiers, numbers,
/// string literals, operators, other single characters), dropping
/// whitespace and comments: joined with spaces they read as the same
/// program.
fn rough_tokens(text: &str) -> Vec<String> {
    const TWO: [&str; 8] = ["..", "->", "==", "!=", "<=", ">=", "&&", "||"];
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap();
        let len = if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        } else if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        } else if let Some(body) = rest.strip_prefix("/*") {
            i += body.find("*/").map_or(rest.len(), |e| e + 4);
            continue;
        } else if c == '"' {
            let mut escaped = false;
            let mut end = rest.len();
            for (j, d) in rest.char_indices().skip(1) {
                if d == '"' && !escaped {
                    end = j + 1;
                    break;
                }
                escaped = d == '\\' && !escaped;
            }
            end
        } else if c.is_ascii_digit() {
            let b = rest.as_bytes();
            let mut j = 1;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'_'
                    || b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit)
                    || matches!(b[j], b'+' | b'-') && matches!(b[j - 1], b'e' | b'E'))
            {
                j += 1;
            }
            j
        } else if c.is_alphanumeric() || c == '_' {
            rest.find(|d: char| !(d.is_alphanumeric() || d == '_'))
                .unwrap_or(rest.len())
        } else if TWO.iter().any(|t| rest.starts_with(t)) {
            2
        } else {
            c.len_utf8()
        };
        out.push(rest[..len].to_string());
        i += len;
    }
    out
}

/// One edit of a token list or a character string.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Insert(usize, usize),
    Duplicate(usize),
    Swap(usize, usize),
    Replace(usize, usize),
}

fn apply<T: Clone>(items: &mut Vec<T>, pool: &[T], m: &Mutation) {
    if items.is_empty() {
        return;
    }
    let n = items.len();
    match *m {
        Mutation::Delete(i) => {
            items.remove(i % n);
        }
        Mutation::Insert(i, p) => items.insert(i % (n + 1), pool[p % pool.len()].clone()),
        Mutation::Duplicate(i) => {
            let x = items[i % n].clone();
            items.insert(i % n, x);
        }
        Mutation::Swap(i, j) => items.swap(i % n, j % n),
        Mutation::Replace(i, p) => items[i % n] = pool[p % pool.len()].clone(),
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(i, p)| Mutation::Insert(i, p)),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::Swap(i, j)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, p)| Mutation::Replace(i, p)),
    ]
}

/// Tokens of the language and a few near misses.
const TOKENS: &[&str] = &[
    "global",
    "record",
    "tree",
    "abstract",
    "child",
    "traversal",
    "pure",
    "fn",
    "fuse",
    "let",
    "if",
    "else",
    "for",
    "in",
    "return",
    "new",
    "is",
    "as",
    "self",
    "true",
    "false",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ":",
    ".",
    "..",
    "->",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
    "&&",
    "||",
    "x",
    "n",
    "Leaf",
    "Node",
    "i64",
    "f64",
    "bool",
    "str",
    "len",
    "to_f64",
    "max",
    "0",
    "1",
    "-9223372036854775808",
    "9223372036854775808",
    "2.5",
    "1e400",
    "\"s\"",
    "\"\\u{110000}\"",
    "\"unterminated",
    "/*",
    "*/",
    "//",
    "#",
    "é",
    "\u{0}",
    "_",
];

/// Characters for character-level mutations: the language's punctuation,
/// letters, digits, quotes, comment starters and some non-ASCII text.
const CHARS: &[char] = &[
    '{', '}', '(', ')', '[', ']', ',', ';', ':', '.', '=', '<', '>', '!', '&', '|', '+', '-', '*',
    '/', '%', '"', '\\', ' ', '\n', 'a', 'x', '0', '9', 'e', '_', 'é', '🌳', '\u{0}', '#',
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(0..TOKENS.len(), 0..120)
        .prop_map(|ix| ix.iter().map(|&i| TOKENS[i]).collect::<Vec<_>>().join(" "))
}

/// `cases` per property, or `PROPTEST_CASES` when set (for longer runs).
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        // Shrinking re-runs failing cases many times; keep it bounded.
        max_shrink_iters: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ----- the front end ---------------------------------------------------

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn random_bytes_do_not_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        compile(String::from_utf8_lossy(&bytes).into_owned());
    }

    #[test]
    fn random_text_does_not_panic(chars in prop::collection::vec(prop::sample::select(CHARS), 0..300)) {
        compile(chars.into_iter().collect());
    }

    #[test]
    fn token_soup_does_not_panic(source in token_soup()) {
        compile(source);
    }
}

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn mutated_programs_do_not_panic(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec(mutation(), 1..6),
        by_char in any::<bool>(),
    ) {
        let source = which.get(corpus());
        let mutated = if by_char {
            let mut chars: Vec<char> = source.chars().collect();
            for m in &edits {
                apply(&mut chars, CHARS, m);
            }
            chars.into_iter().collect::<String>()
        } else {
            let mut tokens = rough_tokens(source);
            // The program's own tokens make mutants that mostly parse and
            // exercise the checker; the language's tokens add the rest.
            let mut pool = tokens.clone();
            pool.extend(TOKENS.iter().map(|t| t.to_string()));
            for m in &edits {
                apply(&mut tokens, &pool, m);
            }
            tokens.join(" ")
        };
        compile(mutated);
    }
}

#[test]
fn the_corpus_compiles_and_survives_token_round_trips() {
    // The mutation tests start from valid programs: make sure they are.
    for source in corpus() {
        let (ok, rendered) = compile(source.clone());
        assert!(ok, "{rendered}");
        // Re-joining the rough tokens with spaces keeps programs valid
        // (there is no whitespace-sensitive token), so token mutations
        // start from a valid program too.
        let (ok, rendered) = compile(rough_tokens(source).join(" "));
        assert!(ok, "{rendered}");
    }
}

#[test]
fn empty_and_blank_inputs() {
    for s in ["", " ", "\n\n", "// only a comment", "/* */", "\u{feff}"] {
        compile(s.to_string());
    }
}

// ----- deep nesting ------------------------------------------------------

const DEEP: usize = 100_000;

/// Deeply nested or very long inputs; each must be rejected with a
/// diagnostic (they are all either too deep or unterminated).
fn deep_inputs() -> Vec<(&'static str, String)> {
    let r = |s: &str, n: usize| s.repeat(n);
    let in_traversal = |body: String| {
        format!("tree Leaf {{ n: i64; b: bool; child c: Leaf; traversal f() {{ {body} }} }}")
    };
    vec![
        ("open parens", r("(", DEEP)),
        ("open braces", r("{", DEEP)),
        ("open brackets", r("[", DEEP)),
        (
            "balanced parens in a global",
            format!("global X: i64 = {}1{};", r("(", DEEP), r(")", DEEP)),
        ),
        (
            "unbalanced parens in a global",
            format!("global X: i64 = {};", r("(", DEEP)),
        ),
        (
            "nested array types",
            format!("global X: {}i64{} = [];", r("[", DEEP), r("]", DEEP)),
        ),
        (
            "nested array values",
            format!("global X: i64 = {}{};", r("[", DEEP), r("]", DEEP)),
        ),
        (
            "negations",
            format!("global X: bool = {}true;", r("!", DEEP)),
        ),
        (
            "minus signs",
            format!("global X: i64 = {}1;", r("- ", DEEP)),
        ),
        (
            "additions",
            format!("global X: i64 = 1{};", r(" + 1", DEEP)),
        ),
        (
            "ands",
            format!("global X: bool = true{};", r(" && true", DEEP)),
        ),
        ("indexing", format!("global X: i64 = X{};", r("[0]", DEEP))),
        (
            "is chains",
            format!("global X: bool = X{};", r(" is Leaf", DEEP)),
        ),
        (
            "if expressions",
            format!(
                "global X: i64 = {}1{};",
                r("if true { ", DEEP),
                r(" } else { 2 }", DEEP)
            ),
        ),
        (
            "else-if expressions",
            format!(
                "global X: i64 = if true {{ 1 }}{} else {{ 2 }};",
                r(" else if true { 1 }", DEEP)
            ),
        ),
        (
            "records",
            format!("global X: i64 = {}1{};", r("R { a: ", DEEP), r(" }", DEEP)),
        ),
        (
            "pure fn calls",
            format!("global X: i64 = {}1{};", r("f(", DEEP), r(")", DEEP)),
        ),
        (
            "field paths",
            in_traversal(format!("self.n = self{}.n;", r(".c", DEEP))),
        ),
        (
            "casts",
            in_traversal(format!(
                "self.n = {}self{}.n;",
                r("(", DEEP),
                r(" as Leaf)", DEEP)
            )),
        ),
        (
            "news",
            in_traversal(format!(
                "self.c = {}new Leaf {{}}{};",
                r("new Leaf { c: ", DEEP),
                r(" }", DEEP)
            )),
        ),
        (
            "nested blocks",
            in_traversal(format!("{}{}", r("if self.b { ", DEEP), r("}", DEEP))),
        ),
        (
            "else-if statements",
            in_traversal(format!("if self.b {{}}{}", r(" else if self.b {}", DEEP))),
        ),
        (
            "for loops",
            in_traversal(format!("{}{}", r("for i in 0..1 { ", DEEP), r("}", DEEP))),
        ),
        ("block comment", format!("/*{}", r("/*", DEEP))),
    ]
}

#[test]
fn deeply_nested_programs_give_diagnostics() {
    for (what, source) in deep_inputs() {
        let (ok, count, rendered) = compile_counting(source);
        assert!(!ok, "{what}: accepted");
        assert!(
            rendered.contains("error["),
            "{what}: no diagnostic rendered"
        );
        // One problem, a few diagnostics: not one per nesting level.
        assert!(count <= 3, "{what}: {count} diagnostics");
    }
}

#[test]
fn nesting_just_within_the_limit_checks_and_runs() {
    // Just below the parser's limit, every later stage (checker, constant
    // evaluation, interpreter) recurses as deep: it must not overflow the
    // small stack of a spawned thread either.
    let n = treefuse_syntax::parser::MAX_NESTING - 6;
    let r = |s: &str| s.repeat(n);
    let source = format!(
        "global P: i64 = {}1{};\n\
         global S: i64 = 1{};\n\
         global B: bool = {}true;\n\
         tree Leaf {{\n\
             n: i64;\n\
             traversal f() {{\n\
                 self.n = {}self.n{};\n\
                 self.n = self.n{};\n\
                 {} self.n = P + S; {}\n\
             }}\n\
         }}\n\
         fuse run(root: Leaf) {{ root.f(); }}\n",
        r("("),
        r(")"),
        r(" + 1"),
        r("!"),
        r("("),
        r(" + 1)"),
        r(" * 1"),
        r("if self.n >= 0 { "),
        r("}"),
    );
    let what = format!("{n} levels of nesting");
    let result = guarded(&what, move || {
        let program = treefuse::compile_source("deep.tf", &source).map_err(|d| d.render(false))?;
        program
            .run_json("run", r#"{"type": "Leaf", "n": 1}"#, &[])
            .map(|o| o.output_json)
            .map_err(|e| e.to_string())
    });
    let out = result.unwrap();
    let expected = format!("\"n\":{}", 2 + n);
    assert!(out.contains(&expected), "{out} lacks {expected}");
}

// ----- the JSON tree reader -----------------------------------------------

/// Reads `json` as a Figure 2 tree and runs `layout`; any outcome but a
/// panic or hang is fine. Returns the number of node visits on success.
fn run_figure2(json: String) -> Option<u64> {
    let what = truncate(&json);
    guarded(&what, move || {
        figure2()
            .run_json("layout", &json, &[])
            .ok()
            .map(|o| o.node_visits)
    })
}

fn json_value() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("type".to_string()),
        Just("text".to_string()),
        Just("next".to_string()),
        Just("content".to_string()),
        Just("border".to_string()),
        Just("size".to_string()),
        Just("color".to_string()),
        Just("width".to_string()),
        Just("globals".to_string()),
        "[a-z]{0,4}",
    ];
    let leaf = prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<f64>().prop_map(|f| format!("{f:?}")),
        Just("1e999".to_string()),
        Just("-0".to_string()),
        Just("18446744073709551616".to_string()),
        Just("\"TextBox\"".to_string()),
        Just("\"Group\"".to_string()),
        Just("\"End\"".to_string()),
        Just("\"Element\"".to_string()),
        "\"[a-zA-Z \\\\\"]{0,6}\"",
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|kv| {
                let members: Vec<String> =
                    kv.into_iter().map(|(k, v)| format!("{k:?}:{v}")).collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

const JSON_CHARS: &[char] = &[
    '{', '}', '[', ']', ':', ',', '"', '\\', '0', '1', '-', '.', 'e', 'E', '+', 'n', 't', 'u', ' ',
    'a', '\u{0}', 'é',
];

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn random_json_does_not_panic(json in json_value()) {
        run_figure2(json);
    }

    #[test]
    fn random_json_bytes_do_not_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        run_figure2(String::from_utf8_lossy(&bytes).into_owned());
    }

    #[test]
    fn mutated_json_does_not_panic(
        edits in prop::collection::vec(mutation(), 1..5),
        by_char in any::<bool>(),
    ) {
        let doc = figure2_doc();
        let mutated = if by_char {
            let mut chars: Vec<char> = doc.chars().collect();
            for m in &edits {
                apply(&mut chars, JSON_CHARS, m);
            }
            chars.into_iter().collect::<String>()
        } else {
            let mut tokens = rough_tokens(doc);
            let pool: Vec<String> = [
                "{", "}", "[", "]", ":", ",", "\"type\"", "\"End\"", "\"Group\"", "\"next\"",
                "null", "true", "0", "-1", "1.5", "9223372036854775808", "\"x\"",
            ]
            .iter()
            .map(|t| t.to_string())
            .collect();
            for m in &edits {
                apply(&mut tokens, &pool, m);
            }
            tokens.join(" ")
        };
        run_figure2(mutated);
    }
}

/// A program whose `fuse` item takes extra parameters of several types.
fn with_params() -> &'static treefuse::Program {
    static PROGRAM: OnceLock<treefuse::Program> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let path = manifest_path("tests/diagnostics/valid/fuse_items.tf");
        let source = std::fs::read_to_string(path).unwrap();
        treefuse::compile_source("fuse_items.tf", &source).expect("fuse_items.tf checks")
    })
}

proptest! {
    #![proptest_config(config(300))]

    /// `--arg NAME=VALUE` values (and names) from the command line.
    #[test]
    fn random_fuse_arguments_do_not_panic(
        values in prop::collection::vec(prop_oneof![json_value(), "[ -~]{0,12}"], 0..6),
        names in prop::collection::vec(
            prop::sample::select(&["limit", "name", "opt", "flags", "r", "zzz"][..]),
            0..6,
        ),
    ) {
        let what = format!("{names:?} = {values:?}");
        guarded(&what, move || {
            let args: Vec<(&str, &str)> =
                names.iter().copied().zip(values.iter().map(String::as_str)).collect();
            let _ = with_params().run_json("with_params", r#"{"type": "Root"}"#, &args);
        });
    }
}

#[test]
fn well_formed_fuse_arguments_run() {
    let args = [
        ("limit", "3"),
        ("name", "text"),
        ("opt", r#"{"on": true, "k": 1.5}"#),
        ("flags", "[true, false]"),
    ];
    let outcome = with_params()
        .run_json("with_params", r#"{"type": "Root", "v": 1}"#, &args)
        .unwrap();
    assert_eq!(outcome.node_visits, 5);
}

#[test]
fn figure2_document_runs() {
    // The unmutated document is the baseline of the mutation test.
    assert_eq!(run_figure2(figure2_doc().to_string()), Some(12));
}

#[test]
fn deeply_nested_json_gives_errors() {
    let n = 1_000_000;
    for (what, json) in [
        ("open arrays", "[".repeat(n)),
        ("open objects", "{\"next\":".repeat(n)),
        ("closed arrays", format!("{}{}", "[".repeat(n), "]".repeat(n))),
        (
            "deep data field",
            format!(
                "{{\"type\":\"End\",\"width\":{}0{}}}",
                "[".repeat(n),
                "]".repeat(n)
            ),
        ),
        (
            "deep record",
            format!(
                "{{\"type\":\"Group\",\"content\":{{\"type\":\"End\"}},\"next\":{{\"type\":\"End\"}},\"border\":{}1{}}}",
                "{\"size\":".repeat(n),
                "}".repeat(n)
            ),
        ),
    ] {
        let json_len = json.len();
        let result = run_figure2(json);
        assert!(result.is_none(), "{what} ({json_len} bytes): accepted");
    }
}

#[test]
fn million_deep_chain_is_read_and_run() {
    let n = 1_000_000;
    let mut json = String::with_capacity(n * 45 + 32);
    for _ in 0..n {
        json.push_str("{\"type\":\"TextBox\",\"text\":\"a\",\"next\":");
    }
    json.push_str("{\"type\":\"End\"}");
    for _ in 0..n {
        json.push('}');
    }
    let outcome = guarded_for(
        Duration::from_secs(120),
        "a 1,000,000-deep TextBox chain",
        move || {
            figure2()
                .run_json("layout", &json, &[])
                .map(|o| (o.node_visits, o.output_json.len()))
                .map_err(|e| e.to_string())
        },
    );
    let (visits, out_len) = outcome.expect("the deep chain runs");
    // compute_width and compute_height visit each of the n + 1 nodes once.
    assert_eq!(visits, 2 * (n as u64 + 1));
    assert!(out_len > n * 30);
}

/// The reader takes the keys of an object in any order: a tree whose
/// `"type"` keys come last (serde_json sorts keys) reads as the tree
/// written with `"type"` first, for random trees of programs with records,
/// maps, enums, lists and optional children.
#[test]
fn key_order_does_not_matter() {
    for path in [
        "../../examples/figure2/figure2.tf",
        "../../examples/minic",
        "../../examples/rules",
        "../../examples/render/render_lists.tf",
    ] {
        let program = treefuse::compile_file(manifest_path(path)).expect("example checks");
        let model = &program.model;
        for fuse in &model.fuses {
            for seed in 0..15 {
                let options = treefuse_runtime::GenOptions {
                    nodes: 60,
                    seed,
                    ..Default::default()
                };
                let tree = treefuse_runtime::random_tree(model, fuse.root_type, &options)
                    .expect("random tree");
                let written = treefuse_runtime::write_tree(model, &tree, None, Default::default());
                let value: serde_json::Value = serde_json::from_str(&written).unwrap();
                let sorted = serde_json::to_string_pretty(&value).unwrap();
                assert!(
                    sorted.find("\"type\"") > Some(1) || !sorted.contains(','),
                    "{path}"
                );
                let reread = treefuse_runtime::read_tree(model, fuse.root_type, &sorted)
                    .unwrap_or_else(|e| panic!("{path} seed {seed}: {e}\n{sorted}"));
                let again = treefuse_runtime::write_tree(model, &reread, None, Default::default());
                assert_eq!(again, written, "{path} seed {seed}");
            }
        }
    }
}
