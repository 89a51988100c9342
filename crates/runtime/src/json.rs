//! Trees as JSON (LANGUAGE.md §4), read and written without recursion.
//!
//! Documents nested a million levels deep are valid input, so neither
//! direction may recurse on the tree's depth. Reading happens in two
//! iterative passes: the `struson` streaming reader fills a flat JSON
//! document (one vector of values with child indices), then a work stack
//! turns it into a [`Tree`], checking it against the schema. The flat
//! document decouples the order of keys (`"type"` may come last) from the
//! order nodes are built in, and gives every error its JSON path
//! (`$.content.next[2].width`). Writing uses an explicit task stack.

use crate::store::{NodeId, Slot, Tree};
use std::fmt;
use std::sync::Arc;
use struson::reader::json_path::JsonPathPiece;
use struson::reader::{
    JsonReader, JsonStreamReader, ReaderError, ReaderSettings, SyntaxErrorKind, ValueType,
};
use treefuse_sema::value::{MapKey, OrdMap};
use treefuse_sema::{DataType, FieldKind, Program, TypeId, Value};

/// A problem with an input tree, located by its JSON path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeInputError {
    /// Where, as a JSON path such as `$.next.content`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TreeInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.message)
    }
}

impl std::error::Error for TreeInputError {}

// ----- flat JSON document ---------------------------------------------

enum JsonValue {
    Null,
    Bool(bool),
    Number(Box<str>),
    Str(Box<str>),
    Array(Vec<u32>),
    Object(Vec<(Box<str>, u32)>),
}

impl JsonValue {
    fn describe(&self) -> &'static str {
        match self {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Number(_) => "a number",
            JsonValue::Str(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
        }
    }
}

/// One message for a JSON syntax error: what is wrong, at which 1-based
/// line and column, and where in the document (its JSON path).
fn syntax_error(e: ReaderError) -> TreeInputError {
    let (kind, position) = match e {
        ReaderError::SyntaxError(s) => (Some(s.kind), s.location),
        ReaderError::UnexpectedValueType { location, .. }
        | ReaderError::UnexpectedStructure { location, .. }
        | ReaderError::MaxNestingDepthExceeded { location, .. }
        | ReaderError::UnsupportedNumberValue { location, .. } => (None, location),
        other => {
            return TreeInputError {
                path: "$".into(),
                message: format!("malformed JSON: {other}"),
            }
        }
    };
    let what = match kind {
        Some(kind) => describe_syntax_error(kind),
        None => "unexpected content".to_string(),
    };
    let line_col = position
        .line_pos
        .map(|p| format!(" at line {}, column {}", p.line + 1, p.column + 1))
        .unwrap_or_default();
    let mut path = String::from("$");
    for piece in position.path.iter().flatten() {
        match piece {
            JsonPathPiece::ArrayItem(i) => path.push_str(&format!("[{i}]")),
            // `<?>`: an object was opened but no member name read yet.
            JsonPathPiece::ObjectMember(name) if name == "<?>" => {}
            JsonPathPiece::ObjectMember(name) => {
                path.push('.');
                path.push_str(name);
            }
        }
    }
    TreeInputError {
        path,
        message: format!("malformed JSON{line_col}: {what}"),
    }
}

/// A JSON syntax error in words.
fn describe_syntax_error(kind: SyntaxErrorKind) -> String {
    use SyntaxErrorKind as K;
    match kind {
        K::CommentsNotEnabled | K::IncompleteComment | K::BlockCommentNotClosed => {
            "comments are not allowed in JSON".into()
        }
        K::InvalidLiteral => "invalid literal (expected `true`, `false` or `null`)".into(),
        K::TrailingDataAfterLiteral | K::TrailingDataAfterNumber => {
            "unexpected characters after a value".into()
        }
        K::UnexpectedClosingBracket => "unexpected closing bracket".into(),
        K::UnexpectedComma => "unexpected `,`".into(),
        K::MissingComma => "missing `,` between values".into(),
        K::TrailingCommaNotEnabled => "trailing `,` before a closing bracket".into(),
        K::UnexpectedColon => "unexpected `:`".into(),
        K::MissingColon => "missing `:` after a member name".into(),
        K::MalformedNumber => "malformed number".into(),
        K::ExpectingMemberNameOrObjectEnd => "expected a member name in quotes or `}`".into(),
        K::MalformedJson => "expected a value".into(),
        K::NotEscapedControlCharacter => "control character in a string (escape it)".into(),
        K::UnknownEscapeSequence | K::MalformedEscapeSequence => {
            "invalid escape sequence in a string".into()
        }
        K::UnpairedSurrogatePairEscapeSequence => "unpaired UTF-16 surrogate escape".into(),
        K::IncompleteDocument => "the document ends too early".into(),
        K::TrailingData => "unexpected content after the document".into(),
        other => other.to_string(),
    }
}

fn parse_flat(text: &str) -> Result<Vec<JsonValue>, TreeInputError> {
    if text.trim().is_empty() {
        return Err(TreeInputError {
            path: "$".into(),
            message: "the input is empty: expected a JSON object for the root node".into(),
        });
    }
    let settings = ReaderSettings {
        max_nesting_depth: None,
        ..Default::default()
    };
    let mut reader = JsonStreamReader::new_custom(text.as_bytes(), settings);
    let mut values: Vec<JsonValue> = Vec::new();
    // Open containers: (index, is_object).
    let mut open: Vec<(u32, bool)> = Vec::new();
    let read_value = |reader: &mut JsonStreamReader<&[u8]>,
                      values: &mut Vec<JsonValue>,
                      open: &mut Vec<(u32, bool)>|
     -> Result<u32, TreeInputError> {
        let id = values.len() as u32;
        let v = match reader.peek().map_err(syntax_error)? {
            ValueType::Null => {
                reader.next_null().map_err(syntax_error)?;
                JsonValue::Null
            }
            ValueType::Boolean => JsonValue::Bool(reader.next_bool().map_err(syntax_error)?),
            ValueType::Number => {
                JsonValue::Number(reader.next_number_as_str().map_err(syntax_error)?.into())
            }
            ValueType::String => JsonValue::Str(reader.next_str().map_err(syntax_error)?.into()),
            ValueType::Array => {
                reader.begin_array().map_err(syntax_error)?;
                open.push((id, false));
                JsonValue::Array(Vec::new())
            }
            ValueType::Object => {
                reader.begin_object().map_err(syntax_error)?;
                open.push((id, true));
                JsonValue::Object(Vec::new())
            }
        };
        values.push(v);
        Ok(id)
    };
    read_value(&mut reader, &mut values, &mut open)?;
    while let Some(&(container, is_object)) = open.last() {
        if reader.has_next().map_err(syntax_error)? {
            if is_object {
                let key: Box<str> = reader.next_name().map_err(syntax_error)?.into();
                let child = read_value(&mut reader, &mut values, &mut open)?;
                if let JsonValue::Object(members) = &mut values[container as usize] {
                    members.push((key, child));
                }
            } else {
                let child = read_value(&mut reader, &mut values, &mut open)?;
                if let JsonValue::Array(items) = &mut values[container as usize] {
                    items.push(child);
                }
            }
        } else {
            if is_object {
                reader.end_object().map_err(syntax_error)?;
            } else {
                reader.end_array().map_err(syntax_error)?;
            }
            open.pop();
        }
    }
    reader.consume_trailing_whitespace().map_err(syntax_error)?;
    Ok(values)
}

// ----- JSON paths -----------------------------------------------------

/// One step of a JSON path.
enum Segment {
    Key(Box<str>),
    Index(usize),
}

/// JSON paths of the nodes being read, as parent-linked entries in a
/// vector (index 0 is `$`). An arena rather than `Rc` links: dropping a
/// million-long `Rc` chain would recurse a million times.
struct Paths {
    entries: Vec<(u32, Segment)>,
}

/// A path: an entry of [`Paths`] plus an optional trailing key (for
/// errors in data fields, which get no entry of their own).
#[derive(Clone, Copy)]
struct PathRef<'k> {
    entry: u32,
    key: Option<&'k str>,
}

impl Paths {
    fn new() -> Paths {
        Paths {
            entries: vec![(0, Segment::Index(0))],
        }
    }

    fn push(&mut self, parent: u32, seg: Segment) -> u32 {
        self.entries.push((parent, seg));
        (self.entries.len() - 1) as u32
    }

    fn render(&self, at: PathRef) -> String {
        let mut parts = Vec::new();
        if let Some(k) = at.key {
            parts.push(format!(".{k}"));
        }
        let mut cur = at.entry;
        while cur != 0 {
            let (parent, seg) = &self.entries[cur as usize];
            parts.push(match seg {
                Segment::Key(k) => format!(".{k}"),
                Segment::Index(i) => format!("[{i}]"),
            });
            cur = *parent;
        }
        parts.reverse();
        format!("${}", parts.concat())
    }
}

fn at(entry: u32) -> PathRef<'static> {
    PathRef { entry, key: None }
}

fn at_key(entry: u32, key: &str) -> PathRef<'_> {
    PathRef {
        entry,
        key: Some(key),
    }
}

fn err(paths: &Paths, path: PathRef, message: impl Into<String>) -> TreeInputError {
    TreeInputError {
        path: paths.render(path),
        message: message.into(),
    }
}

// ----- reading --------------------------------------------------------

enum Dest {
    Root,
    Child(NodeId, u32),
    ListItem(NodeId, u32, usize),
}

/// Reads a tree whose root must be of type `root` (or a subtype).
///
/// A top-level `"globals"` key (as written by [`write_tree`]) is accepted
/// and ignored when the root type has no field of that name, so that a
/// tool's output can be fed back in.
pub fn read_tree(program: &Program, root: TypeId, text: &str) -> Result<Tree, TreeInputError> {
    let doc = parse_flat(text)?;
    let mut tree = Tree::new();
    let mut paths = Paths::new();
    let mut work = vec![(0u32, root, Dest::Root, 0u32)];
    while let Some((jv, expected, dest, path)) = work.pop() {
        let is_root = matches!(dest, Dest::Root);
        let JsonValue::Object(members) = &doc[jv as usize] else {
            return Err(err(
                &paths,
                at(path),
                format!(
                    "expected a `{}` node (a JSON object), found {}",
                    program.type_name(expected),
                    doc[jv as usize].describe()
                ),
            ));
        };
        let ty = node_type(program, expected, members, &doc, &paths, path)?;
        let node = tree.alloc(program, ty);
        match dest {
            Dest::Root => tree.root = node,
            Dest::Child(parent, slot) => *tree.slot_mut(parent, slot) = Slot::Child(node),
            Dest::ListItem(parent, slot, i) => {
                if let Some(items) = tree.slot_mut(parent, slot).list_mut() {
                    items[i] = node;
                }
            }
        }
        let fields = &program.types[ty.index()].fields;
        let mut seen = vec![false; fields.len()];
        let mut children = Vec::new();
        for (k, v) in members {
            if &**k == "type" {
                continue;
            }
            let Some(pos) = fields
                .iter()
                .position(|f| *program.fields[f.index()].name == **k)
            else {
                if is_root && &**k == "globals" {
                    continue;
                }
                return Err(err(
                    &paths,
                    at_key(path, k),
                    format!("unknown field `{k}` for type `{}`", program.type_name(ty)),
                ));
            };
            if seen[pos] {
                return Err(err(&paths, at_key(path, k), format!("duplicate key `{k}`")));
            }
            seen[pos] = true;
            let field = &program.fields[fields[pos].index()];
            match &field.kind {
                FieldKind::Data(dt) => {
                    let value = read_data(program, dt, *v, &doc, &mut paths, at_key(path, k))?;
                    *tree.slot_mut(node, pos as u32) = Slot::Data(value);
                }
                // `null` in an optional child: no node (§8.7).
                FieldKind::Child(_)
                    if field.optional && matches!(doc[*v as usize], JsonValue::Null) =>
                {
                    *tree.slot_mut(node, pos as u32) = Slot::Empty;
                }
                FieldKind::Child(ct) => {
                    let fpath = paths.push(path, Segment::Key(k.clone()));
                    children.push((*v, *ct, Dest::Child(node, pos as u32), fpath));
                }
                FieldKind::List(ct) => {
                    let JsonValue::Array(items) = &doc[*v as usize] else {
                        return Err(err(
                            &paths,
                            at_key(path, k),
                            format!(
                                "expected a list of `{}` nodes (a JSON array), found {}",
                                program.type_name(*ct),
                                doc[*v as usize].describe()
                            ),
                        ));
                    };
                    *tree.slot_mut(node, pos as u32) = Slot::List(vec![node; items.len()].into());
                    let fpath = paths.push(path, Segment::Key(k.clone()));
                    for (i, item) in items.iter().enumerate() {
                        let ipath = paths.push(fpath, Segment::Index(i));
                        children.push((*item, *ct, Dest::ListItem(node, pos as u32, i), ipath));
                    }
                }
            }
        }
        for (pos, f) in fields.iter().enumerate() {
            let field = &program.fields[f.index()];
            // A missing optional child reads as none (§8.7): `alloc` left
            // its slot empty.
            if !seen[pos] && !matches!(field.kind, FieldKind::Data(_)) && !field.optional {
                return Err(err(
                    &paths,
                    at(path),
                    format!(
                        "missing child `{}` of `{}`{}",
                        field.name,
                        program.type_name(ty),
                        if matches!(field.kind, FieldKind::List(_)) {
                            " (write [] for an empty list)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        // Reverse so that the first child is built first (pre-order ids).
        work.extend(children.into_iter().rev());
    }
    Ok(tree)
}

fn node_type(
    program: &Program,
    expected: TypeId,
    members: &[(Box<str>, u32)],
    doc: &[JsonValue],
    paths: &Paths,
    path: u32,
) -> Result<TypeId, TreeInputError> {
    let Some((_, tv)) = members.iter().find(|(k, _)| &**k == "type") else {
        return Err(err(
            paths,
            at(path),
            "missing \"type\" key naming the node's concrete type",
        ));
    };
    let type_path = at_key(path, "type");
    let JsonValue::Str(name) = &doc[*tv as usize] else {
        return Err(err(
            paths,
            type_path,
            "\"type\" must be a string naming a tree type",
        ));
    };
    let Some(ty) = program.type_named(name) else {
        return Err(err(paths, type_path, format!("unknown tree type `{name}`")));
    };
    if program.types[ty.index()].is_abstract {
        return Err(err(
            paths,
            type_path,
            format!("`{name}` is abstract; a node must have a concrete type"),
        ));
    }
    if !program.is_subtype(ty, expected) {
        return Err(err(
            paths,
            type_path,
            format!(
                "a `{name}` cannot stand where a `{}` is expected",
                program.type_name(expected)
            ),
        ));
    }
    Ok(ty)
}

/// Gives `path` an entry of its own (data values get one only when an
/// error or a nested value needs it).
fn materialize(paths: &mut Paths, path: PathRef) -> u32 {
    match path.key {
        Some(k) => paths.push(path.entry, Segment::Key(k.into())),
        None => path.entry,
    }
}

fn read_data(
    program: &Program,
    ty: &DataType,
    jv: u32,
    doc: &[JsonValue],
    paths: &mut Paths,
    path: PathRef,
) -> Result<Value, TreeInputError> {
    let found = &doc[jv as usize];
    Ok(match (ty, found) {
        (DataType::Int, JsonValue::Number(text)) => {
            if text.contains(['.', 'e', 'E']) {
                return Err(err(
                    paths,
                    path,
                    format!("expected an integer (i64), found {text}"),
                ));
            }
            Value::Int(text.parse::<i64>().map_err(|_| {
                err(
                    paths,
                    path,
                    format!("integer {text} is outside the i64 range"),
                )
            })?)
        }
        (DataType::Float, JsonValue::Number(text)) => {
            let v: f64 = text
                .parse()
                .map_err(|_| err(paths, path, format!("invalid number {text}")))?;
            if !v.is_finite() {
                return Err(err(
                    paths,
                    path,
                    format!("number {text} is not a finite f64"),
                ));
            }
            Value::Float(v)
        }
        (DataType::Bool, JsonValue::Bool(b)) => Value::Bool(*b),
        (DataType::Str, JsonValue::Str(s)) => Value::Str(Arc::from(&**s)),
        (DataType::Array(elem), JsonValue::Array(items)) => {
            let base = materialize(paths, path);
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let ipath = paths.push(base, Segment::Index(i));
                out.push(read_data(program, elem, *item, doc, paths, at(ipath))?);
            }
            Value::Array(Arc::new(out))
        }
        (DataType::Record(r), JsonValue::Object(members)) => {
            let rec = &program.records[r.index()];
            let base = materialize(paths, path);
            let mut values: Vec<Option<Value>> = vec![None; rec.fields.len()];
            for (k, v) in members {
                let Some(i) = rec.fields.iter().position(|f| *f.name == **k) else {
                    return Err(err(
                        paths,
                        at_key(base, k),
                        format!("unknown field `{k}` for record `{}`", rec.name),
                    ));
                };
                if values[i].is_some() {
                    return Err(err(paths, at_key(base, k), format!("duplicate key `{k}`")));
                }
                values[i] = Some(read_data(
                    program,
                    &rec.fields[i].ty,
                    *v,
                    doc,
                    paths,
                    at_key(base, k),
                )?);
            }
            Value::Record(Arc::new(
                values
                    .into_iter()
                    .zip(&rec.fields)
                    .map(|(v, f)| v.unwrap_or_else(|| program.zero_value(&f.ty)))
                    .collect(),
            ))
        }
        (DataType::Enum(e), JsonValue::Str(name)) => {
            let def = &program.enums[e.index()];
            match def.variants.iter().position(|v| **v == **name) {
                Some(i) => Value::Enum(i as u32),
                None => {
                    return Err(err(
                        paths,
                        path,
                        format!("unknown variant `{name}` of enum `{}`", def.name),
                    ))
                }
            }
        }
        (DataType::Map(key_ty, value_ty), JsonValue::Array(items)) => {
            let base = materialize(paths, path);
            let mut out = OrdMap::new();
            for (i, item) in items.iter().enumerate() {
                let ipath = paths.push(base, Segment::Index(i));
                let pair = match &doc[*item as usize] {
                    JsonValue::Array(pair) if pair.len() == 2 => pair,
                    other => {
                        return Err(err(
                            paths,
                            at(ipath),
                            format!(
                                "expected a `[key, value]` pair of the map, found {}",
                                other.describe()
                            ),
                        ))
                    }
                };
                let kpath = paths.push(ipath, Segment::Index(0));
                let key = read_data(program, key_ty, pair[0], doc, paths, at(kpath))?;
                let vpath = paths.push(ipath, Segment::Index(1));
                let value = read_data(program, value_ty, pair[1], doc, paths, at(vpath))?;
                let Some(key) = MapKey::of(&key) else {
                    continue;
                };
                if out.insert(key, value).is_some() {
                    return Err(err(paths, at(kpath), "repeated key in the map".to_string()));
                }
            }
            Value::Map(out)
        }
        _ => {
            return Err(err(
                paths,
                path,
                format!(
                    "expected {}, found {}",
                    program.data_type_name(ty),
                    found.describe()
                ),
            ))
        }
    })
}

/// Parses a data value of type `ty` from JSON text (used for `--arg`).
pub fn parse_value(program: &Program, ty: &DataType, text: &str) -> Result<Value, TreeInputError> {
    let doc = parse_flat(text)?;
    read_data(program, ty, 0, &doc, &mut Paths::new(), at(0))
}

// ----- writing --------------------------------------------------------

/// Output options.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// Indent with two spaces per level. Output grows with the square of
    /// the depth, so keep it for small trees.
    pub pretty: bool,
}

enum Task<'a> {
    Node(NodeId, usize),
    Field(NodeId, usize, usize),
    ListItem(NodeId, usize, bool),
    Text(&'static str, usize),
    Globals(&'a [Value], usize),
}

/// Writes the tree reachable from its root as JSON, fields in declaration
/// order after `"type"`. `globals`, when given, are written under a
/// top-level `"globals"` key of the root object. An empty tree (no root
/// node, as `Tree::new()`) is written as `null`.
pub fn write_tree(
    program: &Program,
    tree: &Tree,
    globals: Option<&[Value]>,
    options: WriteOptions,
) -> String {
    let mut out = String::new();
    let newline = |out: &mut String, depth: usize| {
        if options.pretty {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        }
    };
    let colon = if options.pretty { ": " } else { ":" };
    if tree.root.index() >= tree.allocated() {
        // An empty tree (no root node) is no document of the format.
        out.push_str("null");
        return out;
    }
    let mut tasks: Vec<Task> = vec![Task::Node(tree.root, 0)];
    let mut first = true;
    while let Some(task) = tasks.pop() {
        match task {
            Task::Node(n, depth) => {
                let ty = tree.type_of(n);
                out.push('{');
                newline(&mut out, depth + 1);
                out.push_str("\"type\"");
                out.push_str(colon);
                write_str(&mut out, program.type_name(ty));
                tasks.push(Task::Text("}", depth));
                if first {
                    first = false;
                    if let Some(g) = globals {
                        tasks.push(Task::Globals(g, depth + 1));
                    }
                }
                let count = program.types[ty.index()].fields.len();
                for i in (0..count).rev() {
                    tasks.push(Task::Field(n, i, depth + 1));
                }
            }
            Task::Field(n, i, depth) => {
                let ty = tree.type_of(n);
                let field = &program.fields[program.types[ty.index()].fields[i].index()];
                out.push(',');
                newline(&mut out, depth);
                write_str(&mut out, &field.name);
                out.push_str(colon);
                match tree.slot(n, i as u32) {
                    Slot::Data(v) => {
                        let ty = match &field.kind {
                            FieldKind::Data(t) => t,
                            _ => &DataType::Int,
                        };
                        write_value(&mut out, program, ty, v)
                    }
                    Slot::Child(c) => tasks.push(Task::Node(*c, depth)),
                    Slot::Empty => out.push_str("null"),
                    Slot::List(items) => {
                        out.push('[');
                        tasks.push(Task::Text("]", depth));
                        for (k, c) in items.iter().enumerate().rev() {
                            tasks.push(Task::ListItem(*c, depth + 1, k == 0));
                        }
                    }
                }
            }
            Task::ListItem(c, depth, is_first) => {
                if !is_first {
                    out.push(',');
                }
                newline(&mut out, depth);
                tasks.push(Task::Node(c, depth));
            }
            Task::Text(t, depth) => {
                newline(&mut out, depth);
                out.push_str(t);
            }
            Task::Globals(g, depth) => {
                out.push(',');
                newline(&mut out, depth);
                out.push_str("\"globals\"");
                out.push_str(colon);
                out.push('{');
                for (i, (global, v)) in program.globals.iter().zip(g).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(&mut out, depth + 1);
                    write_str(&mut out, &global.name);
                    out.push_str(colon);
                    write_value(&mut out, program, &global.ty, v);
                }
                newline(&mut out, depth);
                out.push('}');
            }
        }
    }
    if options.pretty {
        out.push('\n');
    }
    out
}

fn write_str(out: &mut String, s: &str) {
    // serde_json's string escaping is exact JSON; it cannot fail on a str.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
}

/// Writes a data value of type `ty` as JSON. Non-finite floats become
/// `null`; records become objects with their field names.
pub fn write_value(out: &mut String, program: &Program, ty: &DataType, v: &Value) {
    match v {
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => {
            if f.is_finite() {
                out.push_str(&ryu_like(*f));
            } else {
                out.push_str("null");
            }
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Str(s) => write_str(out, s),
        Value::Enum(i) => match ty {
            DataType::Enum(e) => write_str(
                out,
                program.enums[e.index()]
                    .variants
                    .get(*i as usize)
                    .map_or("", |v| v.as_str()),
            ),
            _ => out.push_str(&i.to_string()),
        },
        Value::Map(m) => {
            let (key_ty, value_ty) = match ty {
                DataType::Map(k, v) => (&**k, &**v),
                other => (other, other),
            };
            out.push('[');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                write_value(out, program, key_ty, &k.to_value());
                out.push(',');
                write_value(out, program, value_ty, v);
                out.push(']');
            }
            out.push(']');
        }
        Value::Array(items) => {
            let elem = match ty {
                DataType::Array(e) => &**e,
                other => other,
            };
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, program, elem, x);
            }
            out.push(']');
        }
        Value::Record(values) => {
            out.push('{');
            if let DataType::Record(r) = ty {
                let rec = &program.records[r.index()];
                for (i, (f, x)) in rec.fields.iter().zip(values.iter()).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, &f.name);
                    out.push(':');
                    write_value(out, program, &f.ty, x);
                }
            }
            out.push('}');
        }
    }
}

fn ryu_like(f: f64) -> String {
    serde_json::to_string(&f).unwrap_or_else(|_| "null".into())
}
