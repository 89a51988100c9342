//! Input generators for the treefuse case studies.
//!
//! Each generator writes one JSON tree (LANGUAGE.md §4) for one of the example
//! programs under `examples/`:
//!
//! | name           | program                             | variants | size means |
//! |----------------|-------------------------------------|----------|------------|
//! | `render`       | `examples/render/render.tf`         | 1, 2, 3  | pages      |
//! | `render-lists` | `examples/render/render_lists.tf`   | 1, 2, 3  | pages      |
//! | `ast`          | `examples/ast/ast.tf`               | 1, 2, 3  | functions  |
//! | `ast-lists`    | `examples/ast/ast_lists.tf`         | 1, 2, 3  | functions  |
//! | `toylang`      | `examples/toylang/toylang.tf`       | 1        | top-level expressions |
//! | `scopes`       | `examples/scopes/scopes.tf`         | 1        | nodes (about) |
//! | `minic`        | `examples/minic/` (a directory)     | 1        | functions  |
//! | `treefold-min`, `treefold-nested`, `treefold-life` | `examples/treefold/treefold.tf` | 1 | `min`s, nesting depth, neighbours (see [`treefold`]) |
//!
//! The render and AST variants follow the reference builders of the Grafter
//! case studies (PLDI'19 §5.1 and §5.2: documents 1, 2, 3 and
//! programs 1, 2, 3); random choices use our own seeded ChaCha generator, so
//! a `(name, variant, size, seed)` always yields the same bytes. A `-lists`
//! variant consumes the random stream exactly like its linked-list twin, so
//! both describe the same tree, shaped for the list-children programs.
//!
//! Sizes: document 1 and program 1 grow linearly (20 nodes per page, 230 per
//! function) and program 2 and 3 about linearly (program 3: 200 statements
//! per function plus a last one of `size + 1`). Documents 2 and 3 follow the
//! reference builders, whose nested containers make the tree grow faster
//! than any polynomial: document 2 has about 10^3 nodes at size 15 and 10^6
//! at size 40, document 3 about 10^5 at size 100 and 10^6 at size 150
//! (depending on the seed); larger sizes are impractical.
//!
//! Trees are deep (a list of 10^6 pages is a JSON object nested 10^6 levels
//! deep): the generators write JSON text directly and never build a nested
//! in-memory value, so neither writing nor dropping can overflow the stack.

use std::fmt;
use std::io::{self, BufWriter, Write};

mod ast;
mod minic;
mod out;
mod render;
mod scopes;
mod toylang;
pub mod treefold;

/// The example names accepted by [`generate`].
pub const EXAMPLES: &[&str] = &[
    "render",
    "render-lists",
    "ast",
    "ast-lists",
    "toylang",
    "scopes",
    "minic",
    "treefold-min",
    "treefold-nested",
    "treefold-life",
];

/// The variants that [`generate`] accepts for an example name, or `None` for
/// an unknown name.
pub fn variants(name: &str) -> Option<&'static [u8]> {
    match name {
        "render" | "render-lists" | "ast" | "ast-lists" => Some(&[1, 2, 3]),
        "toylang" | "scopes" | "minic" | "treefold-min" | "treefold-nested" | "treefold-life" => {
            Some(&[1])
        }
        _ => None,
    }
}

/// Why [`generate`] wrote no (complete) tree.
#[derive(Debug)]
#[non_exhaustive]
pub enum GenerateError {
    /// The name is not one of [`EXAMPLES`].
    UnknownExample { name: String },
    /// The example has no such variant (see [`variants`]).
    UnknownVariant { name: String, variant: u8 },
    /// The size is outside what the variant can build.
    InvalidSize {
        name: String,
        variant: u8,
        size: usize,
        reason: &'static str,
    },
    /// Writing the output failed.
    Io(io::Error),
}

impl fmt::Display for GenerateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenerateError::UnknownExample { name } => write!(
                f,
                "unknown example `{name}` (expected one of: {})",
                EXAMPLES.join(", ")
            ),
            GenerateError::UnknownVariant { name, variant } => {
                let known: Vec<String> = variants(name)
                    .unwrap_or(&[])
                    .iter()
                    .map(|v| v.to_string())
                    .collect();
                write!(
                    f,
                    "example `{name}` has no variant {variant} (expected one of: {})",
                    known.join(", ")
                )
            }
            GenerateError::InvalidSize {
                name,
                variant,
                size,
                reason,
            } => write!(
                f,
                "invalid size {size} for example `{name}` variant {variant}: {reason}"
            ),
            GenerateError::Io(e) => write!(f, "cannot write the generated tree: {e}"),
        }
    }
}

impl std::error::Error for GenerateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GenerateError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for GenerateError {
    fn from(e: io::Error) -> Self {
        GenerateError::Io(e)
    }
}

/// Writes one JSON tree for example `name`, generator `variant`, of `size`
/// (pages, functions or expressions, see the module docs), using `seed` for
/// every random choice. The output is one line of JSON followed by `\n`.
pub fn generate(
    name: &str,
    variant: u8,
    size: usize,
    seed: u64,
    out: &mut dyn Write,
) -> Result<(), GenerateError> {
    let Some(known) = variants(name) else {
        return Err(GenerateError::UnknownExample {
            name: name.to_string(),
        });
    };
    if !known.contains(&variant) {
        return Err(GenerateError::UnknownVariant {
            name: name.to_string(),
            variant,
        });
    }
    let invalid = |reason: &'static str| GenerateError::InvalidSize {
        name: name.to_string(),
        variant,
        size,
        reason,
    };
    // Validate before writing anything.
    match (name, variant) {
        ("render" | "render-lists", 1) if size == 0 => {
            return Err(invalid("document 1 needs at least 1 page"))
        }
        ("render" | "render-lists", 2) if size == 0 => {
            return Err(invalid("document 2 needs size >= 1"))
        }
        ("render" | "render-lists", 3) if size < 5 => {
            return Err(invalid(
                "document 3 draws page sizes in 1..=size/5, so it needs size >= 5",
            ))
        }
        ("ast" | "ast-lists", 1 | 3) if size == 0 => {
            return Err(invalid("the program needs at least 1 function"))
        }
        ("scopes", _) if size < 2 => {
            return Err(invalid(
                "a program has at least 2 nodes (Program and its Block)",
            ))
        }
        ("toylang", _) if size == 0 => {
            return Err(invalid("the program needs at least 1 expression"))
        }
        ("minic", _) if size == 0 => return Err(invalid("the program needs at least 1 function")),
        ("treefold-min" | "treefold-nested" | "treefold-life", _) => {
            if let Some(reason) = treefold::size_error(name, size) {
                return Err(invalid(reason));
            }
        }
        _ => {}
    }
    let mut w = BufWriter::with_capacity(1 << 16, out);
    match name {
        "render" => render::generate(&mut w, render::Shape::Linked, variant, size, seed)?,
        "render-lists" => render::generate(&mut w, render::Shape::Lists, variant, size, seed)?,
        "ast" => ast::generate(&mut w, ast::Shape::Linked, variant, size, seed)?,
        "ast-lists" => ast::generate(&mut w, ast::Shape::Lists, variant, size, seed)?,
        "toylang" => toylang::generate(&mut w, size, seed)?,
        "scopes" => scopes::generate(&mut w, size, seed)?,
        "minic" => minic::generate(&mut w, size, seed)?,
        "treefold-min" | "treefold-nested" | "treefold-life" => {
            treefold::generate(&mut w, name, size, seed)?
        }
        _ => unreachable!("checked by variants()"),
    }
    w.write_all(b"\n")?;
    w.flush()?;
    Ok(())
}

/// Convenience wrapper: the generated tree as a `String`.
pub fn generate_string(
    name: &str,
    variant: u8,
    size: usize,
    seed: u64,
) -> Result<String, GenerateError> {
    let mut buf = Vec::new();
    generate(name, variant, size, seed, &mut buf)?;
    Ok(String::from_utf8(buf).expect("generators write UTF-8"))
}
