//! Hostile names: the same random programs, with every name a user could
//! choose replaced by one that collides with something in Rust.
//!
//! The code generator must produce Rust that compiles for every valid
//! program, whatever its names. The names that break generated code are
//! not random strings but the ones Rust and the generator already use:
//! keywords (strict, reserved and weak), prelude and primitive type names,
//! the generator's own items and locals (`Tree`, `Cx`, `t`, `cx`, `n`,
//! `C`...), the names it derives from user names (`ItemId`, `ItemKind`,
//! `run_main_fused`), and pairs of user names that differ only in case or
//! by an underscore (`Set` and `set`, `fooBar` and `foo_bar`, which a
//! snake-case conversion maps to one Rust name). [`rename_hostile`]
//! renames a program's identifiers consistently — one identifier, one new
//! name, everywhere — drawing from exactly those names, so that the
//! codegen differential and the lint batch run the generator's programs
//! under them (`generate_hostile`).
//!
//! Renaming works on tokens, not on the program's meaning: every
//! identifier token is renamed except the language's fixed words
//! (built-in types and functions, list methods, the contextual words
//! `walk`, `limit`, `impl`, `break`, `none`, `copy`, `in_list`), and no
//! identifier is renamed to one of them. A consistent, injective renaming
//! that avoids the fixed words keeps a program's meaning (scopes do not
//! depend on spelling), so the renamed program checks and computes what
//! the original computes, with other names in its JSON.

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use treefuse_syntax::lexer::{lex, Token, TokenKind};

/// Identifiers with a fixed meaning in the language: never renamed, and
/// never a new name (a user name `none` or `copy` would change what the
/// generator's own uses of them mean).
const FIXED: &[&str] = &[
    // Built-in types; the built-in functions are `BUILTIN_FUNCTIONS`.
    "i64", "f64", "bool", "str", // List methods and special forms.
    "push", "copy", "in_list", "none", // Contextual words of statements.
    "walk", "limit", "impl", "break", "_",
    // A tree field named `type` is an error (its JSON key is the node's type).
    "type",
];

/// Names that collide with Rust or with the generated code's own names.
///
/// Kept here, apart from the code generator's own reserved lists
/// (`treefuse-codegen`'s `names.rs`), on purpose: drawn from the
/// generator's lists, the test could never find a name the generator
/// forgot to reserve.
const COLLIDING: &[&str] = &[
    // Rust keywords that the traversal language does not reserve: strict,
    // reserved for the future, 2018+ and 2024 editions, and weak ones.
    "const",
    "continue",
    "crate",
    "extern",
    "loop",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "static",
    "struct",
    "super",
    "trait",
    "unsafe",
    "use",
    "where",
    "async",
    "await",
    "dyn",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "try",
    "gen",
    "union",
    "macro_rules",
    "raw",
    "safe",
    "Self", // Primitive types.
    "i8",
    "i16",
    "i32",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "char",
    // The prelude and common std names.
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "ToString",
    "Clone",
    "Copy",
    "Default",
    "Drop",
    "Eq",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Into",
    "Iterator",
    "IntoIterator",
    "Extend",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Send",
    "Sized",
    "Sync",
    "Unpin",
    "AsRef",
    "AsMut",
    "ToOwned",
    "Hash",
    "Debug",
    "Display",
    "Arc",
    "Rc",
    "Cell",
    "RefCell",
    "HashMap",
    "BTreeMap",
    "Ordering",
    "std",
    "core",
    "alloc",
    "drop",
    "panic",
    "format",
    "vec",
    "matches",
    "assert",
    "write",
    "main",
    "test",
    "derive",
    "allow",
    "deny",
    "inline",
    "repr",
    // Names of the generated code: items, runtime types, helpers.
    "Tree",
    "Globals",
    "Cx",
    "Id",
    "TypedNode",
    "NodeRef",
    "Output",
    "SOURCE",
    "STACK_MAX",
    "STACK_PER_LEVEL",
    "STACK_RESERVE",
    "HIER_OF",
    "json",
    "traversals",
    "At",
    "OpenList",
    "Fail",
    "RuntimeError",
    "Replaced",
    "Site",
    "BuildError",
    "ColdTable",
    "WideMask",
    "Value",
    "thicket_error",
    "cast_error",
    "read_json",
    "write_json",
    "run_by_name",
    "schema",
    "from_runtime",
    "to_runtime",
    "from_values",
    "to_values",
    "node_count",
    "node_bytes",
    "run_deep",
    "stack_for",
    "treefuse_runtime",
    "index",
    "index_mut",
    "default",
    "new",
    "clone",
    "eq",
    "fmt",
    "C",
    "C_",
    // The generated functions' parameters and locals.
    "t",
    "cx",
    "this",
    "mask",
    "m",
    "n",
    "v",
    "p",
    "items",
    "item",
    "child",
    "root",
    "r",
    "globals",
    "tree",
    "site",
    "replaced",
    "k",
    "x",
    "xs",
    "nodes",
    "before",
    "other",
    "start_kind",
    "while_limit",
    "while_iter",
    "f0",
    "i0",
    "arg0",
    "k0",
    "active_0",
    "open_0",
    "owner_0",
    "resume_0",
    "self_",
    "visits",
    "stack",
    "id",
    "kind",
    "slots",
    "out",
    "err",
    "e",
    "a",
    "c",
    "f",
    "i",
    "at",
    "cold",
    "name",
    "next",
    "node",
    "text",
    "values",
    "levels",
    "ty",
    "saved",
    "top",
    "found",
    "input",
    "order",
    "fields",
    "args",
    "left",
    "need",
    "bytes",
    "counts",
    "segment",
    "rt",
    "marker",
    "fused",
    "one",
    "ys",
    "copied",
    "add",
    "get",
    "is_empty",
    "push_item",
    "fused_call_0",
    "fused_0_item",
    "as_item",
    "copy_item",
    "map_item",
    // Node types of real ASTs (Python's, JavaScript's) that are Rust or
    // generator names.
    "Set",
    "List",
    "Dict",
    "Tuple",
    "Match",
    "Try",
    "Await",
    "Yield",
    "Type",
    "Node",
    "Expr",
    "Stmt",
    "Module",
    "Name",
    "Call",
    "Item",
    "Kind",
    "Slots",
];

/// What the generator derives from a user name, as further names to
/// collide with: node ids, kinds and slots of a type, cold tables, the
/// functions of a `fuse` item.
const DERIVED: &[(&str, &str)] = &[
    ("", "Id"),
    ("", "Kind"),
    ("", "Slots"),
    ("", "Cold"),
    ("", "_2"),
    ("", "_clean"),
    ("run_", ""),
    ("run_", "_fused"),
    ("fused_", ""),
    ("push_", ""),
    ("as_", ""),
    ("", "_fused"),
    ("", "_unfused"),
    ("", "_counted"),
];

/// A random program of the generator ([`crate::generate`]) under hostile
/// names ([`rename_hostile`], seeded by `seed` too).
pub fn generate_hostile(seed: u64) -> String {
    rename_hostile(&crate::generate(seed), seed)
}

/// `src` with every identifier renamed consistently to a colliding name
/// (see the module docs). Comments and everything else stay as they are.
/// Identifiers are renamed in order of first appearance, so the result
/// depends only on `src` and `seed`.
pub fn rename_hostile(src: &str, seed: u64) -> String {
    let mut diagnostics = Vec::new();
    let tokens = lex(src, &mut diagnostics);
    let fixed: HashSet<&str> = FIXED
        .iter()
        .chain(treefuse_sema::BUILTIN_FUNCTIONS.iter())
        .copied()
        .collect();
    let mut names = HostileNames::new(seed, &tokens, &fixed);
    let mut out = String::with_capacity(src.len() + src.len() / 4);
    let mut at = 0;
    for tok in &tokens {
        let TokenKind::Ident(name) = &tok.kind else {
            continue;
        };
        if fixed.contains(name.as_str()) {
            continue;
        }
        let (start, end) = (tok.span.start as usize, tok.span.end as usize);
        out.push_str(&src[at..start]);
        out.push_str(names.rename(name));
        at = end;
    }
    out.push_str(&src[at..]);
    out
}

/// The renaming being built: one new name per identifier, all distinct.
struct HostileNames<'f> {
    rng: ChaCha8Rng,
    fixed: &'f HashSet<&'static str>,
    /// Identifier → its new name.
    renamed: HashMap<String, String>,
    /// Every new name handed out, and every identifier of the original
    /// program (so a new name cannot capture an identifier not yet
    /// renamed: renaming is by token, and all are renamed, but keeping
    /// the sets apart keeps each step injective on its own).
    taken: HashSet<String>,
    /// Colliding names not yet handed out.
    pool: Vec<String>,
    /// Names that differ from a handed-out one only in case or by an
    /// underscore, or that the generator derives from one.
    near: Vec<String>,
}

impl<'f> HostileNames<'f> {
    fn new(seed: u64, tokens: &[Token], fixed: &'f HashSet<&'static str>) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0048_5553_5449_4c45);
        let mut pool: Vec<String> = COLLIDING.iter().map(|s| s.to_string()).collect();
        pool.shuffle(&mut rng);
        let taken = tokens
            .iter()
            .filter_map(|t| match &t.kind {
                TokenKind::Ident(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        HostileNames {
            rng,
            fixed,
            renamed: HashMap::new(),
            taken,
            pool,
            near: Vec::new(),
        }
    }

    fn rename(&mut self, name: &str) -> &str {
        if !self.renamed.contains_key(name) {
            let new = self.fresh();
            self.near.extend(near_names(&new));
            self.taken.insert(new.clone());
            self.renamed.insert(name.to_string(), new);
        }
        &self.renamed[name]
    }

    /// A colliding name not handed out yet: half the time a near miss of
    /// an earlier one, else the next from the pool; numbered variants of
    /// the pool when both are used up.
    fn fresh(&mut self) -> String {
        for _ in 0..64 {
            let candidate =
                if !self.near.is_empty() && (self.pool.is_empty() || self.rng.gen_bool(0.5)) {
                    let i = self.rng.gen_range(0..self.near.len());
                    self.near.swap_remove(i)
                } else if let Some(p) = self.pool.pop() {
                    p
                } else {
                    break;
                };
            if self.usable(&candidate) {
                return candidate;
            }
        }
        let mut k = 0usize;
        loop {
            let base = COLLIDING[k % COLLIDING.len()];
            let candidate = format!("{base}{}", k / COLLIDING.len() + 2);
            if self.usable(&candidate) {
                return candidate;
            }
            k += 1;
        }
    }

    fn usable(&self, name: &str) -> bool {
        !self.fixed.contains(name) && !self.taken.contains(name) && is_identifier(name)
    }
}

/// Whether the language reads `name` as one identifier (not a keyword).
fn is_identifier(name: &str) -> bool {
    let mut diagnostics = Vec::new();
    let tokens = lex(name, &mut diagnostics);
    diagnostics.is_empty()
        && matches!(tokens.as_slice(), [t, end] if matches!(&t.kind, TokenKind::Ident(n) if n == name) && end.kind == TokenKind::Eof)
}

/// Names that differ from `name` only in case or by an underscore, and
/// the names the generator derives from it.
fn near_names(name: &str) -> Vec<String> {
    let mut out = vec![
        name.to_lowercase(),
        name.to_uppercase(),
        format!("{name}_"),
        format!("_{name}"),
        flip_first_case(name),
        snake_twin(name),
    ];
    out.extend(
        DERIVED
            .iter()
            .map(|(pre, post)| format!("{pre}{name}{post}")),
    );
    out.retain(|n| n != name && !n.is_empty());
    out
}

/// `set` → `Set`, `Set` → `set`.
fn flip_first_case(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_uppercase() => c.to_lowercase().chain(chars).collect(),
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A name that a snake-case conversion may map to the same Rust name:
/// `foo_bar` → `fooBar`, `fooBar` → `foo_bar`, else `name` with its
/// first letter doubled in case (`Ok` → `OK`).
fn snake_twin(name: &str) -> String {
    if let Some((a, b)) = name.split_once('_') {
        if !a.is_empty() && !b.is_empty() {
            return format!("{a}{}", flip_first_case(b));
        }
    }
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_uppercase() {
            out.push('_');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    if out == name {
        name.to_uppercase()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renaming_is_consistent_and_keeps_fixed_words() {
        let src = "tree A { x: i64; traversal f() { self.x = len(\"ab\") + self.x; walk; } }\n// x stays\n";
        let out = rename_hostile(src, 3);
        assert!(out.contains("i64") && out.contains("len(\"ab\")") && out.contains("walk;"));
        assert!(out.ends_with("// x stays\n"), "{out}");
        let again = rename_hostile(src, 3);
        assert_eq!(out, again, "deterministic");
        let mut diagnostics = Vec::new();
        let idents: Vec<String> = lex(&out, &mut diagnostics)
            .into_iter()
            .filter_map(|t| match t.kind {
                TokenKind::Ident(n) => Some(n),
                _ => None,
            })
            .collect();
        // `self.x` twice and the field declaration: one new name.
        assert!(!idents.contains(&"x".to_string()) || COLLIDING.contains(&"x"));
    }

    #[test]
    fn near_names_differ_in_case_or_underscore() {
        let n = near_names("fooBar");
        assert!(n.contains(&"foo_bar".to_string()) && n.contains(&"FooBar".to_string()));
        assert!(near_names("Set").contains(&"set".to_string()));
        assert!(near_names("Item").contains(&"ItemKind".to_string()));
    }
}
