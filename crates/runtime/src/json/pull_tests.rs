//! The pull parser against serde_json: the same documents accepted, the
//! same values read, and the same documents rejected, on random documents
//! and on edited (mutated) ones, also when the input arrives a few bytes
//! at a time (every token then crosses a refill).

use super::pull::{JsonEvents, Token};
use proptest::prelude::*;
use std::io::Read;

/// A reader that hands out at most `step` bytes per call.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// The document as a serde_json value, built from our tokens without
/// recursion; `Err` with the message when the parser rejects it.
fn parse_ours(input: impl Read) -> Result<serde_json::Value, String> {
    use serde_json::Value as J;
    let mut ev = JsonEvents::new(input);
    if ev.is_blank().map_err(|e| e.to_string())? {
        return Err("blank".into());
    }
    // Open containers, with the member name a value goes under.
    let mut stack: Vec<(J, Option<String>)> = Vec::new();
    let mut pending_name: Option<String> = None;
    let done = loop {
        let value = match ev.next().map_err(|e| e.to_string())? {
            Token::BeginObject => {
                stack.push((J::Object(Default::default()), pending_name.take()));
                continue;
            }
            Token::BeginArray => {
                stack.push((J::Array(Vec::new()), pending_name.take()));
                continue;
            }
            Token::Name(n) => {
                pending_name = Some(n.to_string());
                continue;
            }
            Token::EndObject | Token::EndArray => {
                let (v, name) = stack.pop().ok_or("unbalanced")?;
                pending_name = name;
                v
            }
            Token::Str(s) => J::String(s.to_string()),
            Token::Number(n) => serde_json::from_str::<J>(n).map_err(|e| e.to_string())?,
            Token::Bool(b) => J::Bool(b),
            Token::Null => J::Null,
        };
        match stack.last_mut() {
            None => break value,
            Some((J::Array(items), _)) => items.push(value),
            Some((J::Object(members), _)) => {
                let name = pending_name.take().ok_or("value without a name")?;
                members.insert(name, value);
            }
            Some(_) => return Err("bad container".into()),
        }
    };
    ev.finish().map_err(|e| e.to_string())?;
    Ok(done)
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value as J;
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(J::from),
        (-1e12f64..1e12).prop_map(J::from),
        "[a-z\"\\\\/\n\t\u{1}é€😀 ]{0,12}".prop_map(J::String),
    ];
    leaf.prop_recursive(6, 60, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Array),
            prop::collection::btree_map("[a-z_é]{0,6}", inner, 0..6)
                .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}

/// 400 cases per property; `TREEFUSE_JSON_CASES=N` runs N (long runs).
fn config() -> ProptestConfig {
    let cases = std::env::var("TREEFUSE_JSON_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Valid documents (compact and pretty, read whole and in pieces)
    /// give serde_json's value.
    #[test]
    fn valid_documents_read_as_serde_json_reads_them(v in json_value(), step in 1usize..9) {
        for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            prop_assert_eq!(parse_ours(text.as_bytes()), Ok(v.clone()), "{}", text);
            let trickle = Trickle { bytes: text.as_bytes(), step };
            prop_assert_eq!(parse_ours(trickle), Ok(v.clone()), "{} in pieces of {}", text, step);
        }
    }

    /// Any edit of a valid document is accepted exactly when serde_json
    /// accepts it (and then read the same way).
    #[test]
    fn edited_documents_are_rejected_exactly_when_serde_json_rejects_them(
        v in json_value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, prop::sample::select(
            &b"{}[],:\"\\0123456789-+.eEtrufalsn \n\x01\xc3\xa9\xff"[..]
        )), 1..4),
        step in 1usize..9,
    ) {
        let mut bytes = serde_json::to_vec(&v).unwrap();
        for (at, kind, b) in edits {
            let i = at.index(bytes.len() + 1);
            match kind {
                0 => bytes.insert(i, b),
                1 if i < bytes.len() => { bytes.remove(i); }
                2 if i < bytes.len() => bytes[i] = b,
                _ => bytes.truncate(i),
            }
        }
        let theirs = serde_json::from_slice::<serde_json::Value>(&bytes);
        let ours = parse_ours(bytes.as_slice());
        let blank = bytes.iter().all(|b| b" \n\t\r".contains(b));
        match theirs {
            Ok(expected) => prop_assert_eq!(ours, Ok(expected), "{:?}", String::from_utf8_lossy(&bytes)),
            Err(_) if blank => prop_assert_eq!(ours, Err("blank".to_string())),
            Err(e) => prop_assert!(ours.is_err(), "accepted what serde_json rejects ({}): {:?}", e, String::from_utf8_lossy(&bytes)),
        }
        let trickled = parse_ours(Trickle { bytes: &bytes, step });
        prop_assert_eq!(trickled.is_ok(), parse_ours(bytes.as_slice()).is_ok());
    }
}

fn error_of(text: &str) -> String {
    parse_ours(text.as_bytes()).unwrap_err()
}

#[test]
fn syntax_errors_give_line_column_and_path() {
    assert_eq!(
        error_of("{\"a\": [1, 2,\n  ]}"),
        "at $.a[2]: malformed JSON at line 2, column 3: trailing `,` before a closing bracket"
    );
    assert_eq!(
        error_of("{\"a\": {\"b\": tru}}"),
        "at $.a.b: malformed JSON at line 1, column 13: invalid literal (expected `true`, `false` or `null`)"
    );
    assert_eq!(
        error_of("[1, 01]"),
        "at $[1]: malformed JSON at line 1, column 5: malformed number"
    );
    assert_eq!(
        error_of("{\"é€\": \"x\u{1}\"}"),
        "at $.é€: malformed JSON at line 1, column 10: control character in a string (escape it)"
    );
    assert_eq!(
        error_of("{\"a\" 1}"),
        "at $.a: malformed JSON at line 1, column 6: missing `:` after a member name"
    );
    assert_eq!(
        error_of("[\"\\ud800\"]"),
        "at $[0]: malformed JSON at line 1, column 9: unpaired UTF-16 surrogate escape"
    );
    assert_eq!(
        error_of("[1] // no"),
        "at $: malformed JSON at line 1, column 5: unexpected content after the document"
    );
    assert_eq!(
        error_of("{\"a\": [1"),
        "at $.a[0]: malformed JSON at line 1, column 9: the document ends too early"
    );
}

#[test]
fn escapes_decode() {
    let v = parse_ours(r#"["\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00x"]"#.as_bytes()).unwrap();
    assert_eq!(
        v,
        serde_json::json!(["\"\\/\u{8}\u{c}\n\r\t\u{e9}\u{1f600}x"])
    );
}

#[test]
fn long_tokens_grow_the_buffer() {
    let long = "é".repeat(100_000);
    let text = format!("[\"{long}\", 0.{}1]", "0".repeat(70_000));
    let v = parse_ours(Trickle {
        bytes: text.as_bytes(),
        step: 4096,
    })
    .unwrap();
    assert_eq!(v[0], serde_json::Value::String(long));
}
