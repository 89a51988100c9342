//! Writing a tree as JSON, streamed, with an explicit task stack.
//!
//! Output goes through one byte buffer that is handed to the sink every
//! 64 KiB, so writing a tree costs no memory in proportion to it. The
//! quoted names of every type and field are prepared once per write, and
//! numbers are formatted with `itoa` and `zmij` (the formatter serde_json
//! uses, so output is byte-identical to serde_json's for every value).

use crate::store::{NodeId, SlotRef, Tree};
use std::io::{self, Write};
use treefuse_sema::{DataType, FieldKind, Program, Value};

/// Output options.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// Indent with two spaces per level. Output grows with the square of
    /// the depth, so keep it for small trees.
    pub pretty: bool,
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
    let mut out = JsonOut::new(None);
    // Writing to memory cannot fail.
    let globals = globals.map(SelectedGlobals::all);
    let _ = write_document(&mut out, program, tree, globals, options);
    // Everything written came from `str`s, escaped, or ASCII.
    String::from_utf8(out.buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
}

/// [`write_tree`] into a stream (a file, standard output), without
/// building the document in memory. The stream is not flushed; wrap it
/// in nothing (writes are in 64 KiB pieces).
pub fn write_tree_to(
    program: &Program,
    tree: &Tree,
    globals: Option<SelectedGlobals>,
    options: WriteOptions,
    sink: &mut dyn Write,
) -> io::Result<()> {
    let mut out = JsonOut::new(Some(sink));
    write_document(&mut out, program, tree, globals, options)?;
    out.flush()
}

/// The globals a document carries: the final values of all of a
/// program's globals, and which of them to write.
#[derive(Clone, Copy, Debug)]
pub struct SelectedGlobals<'a> {
    values: &'a [Value],
    selected: Option<&'a [usize]>,
}

impl<'a> SelectedGlobals<'a> {
    /// Every global (`values` in declaration order).
    pub fn all(values: &'a [Value]) -> SelectedGlobals<'a> {
        SelectedGlobals {
            values,
            selected: None,
        }
    }

    /// Only the globals at the indices `selected` (ascending).
    pub fn only(values: &'a [Value], selected: &'a [usize]) -> SelectedGlobals<'a> {
        SelectedGlobals {
            values,
            selected: Some(selected),
        }
    }

    /// The indices to write, ascending.
    fn iter(self) -> impl Iterator<Item = usize> + 'a {
        (0..self.values.len()).filter(move |i| self.selected.is_none_or(|s| s.contains(i)))
    }
}

/// Writes only the globals, as one JSON object (`{"NAME": value, ...}`),
/// for runs whose result is in the globals.
pub fn write_globals(program: &Program, globals: SelectedGlobals, options: WriteOptions) -> String {
    let mut out = JsonOut::new(None);
    let _ = write_globals_object(&mut out, program, globals, options, 0);
    if options.pretty {
        out.buf.push(b'\n');
    }
    String::from_utf8(out.buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
}

/// Writes a data value of type `ty` as JSON. Non-finite floats become
/// `null`; records become objects with their field names.
pub fn write_value(out: &mut String, program: &Program, ty: &DataType, v: &Value) {
    let mut json = JsonOut::new(None);
    json.value(program, ty, v);
    out.push_str(&String::from_utf8_lossy(&json.buf));
}

const FLUSH_AT: usize = 64 * 1024;

/// The output buffer and where it goes.
struct JsonOut<'w> {
    buf: Vec<u8>,
    sink: Option<&'w mut dyn Write>,
}

impl<'w> JsonOut<'w> {
    fn new(sink: Option<&'w mut dyn Write>) -> JsonOut<'w> {
        JsonOut {
            buf: Vec::with_capacity(if sink.is_some() { FLUSH_AT * 2 } else { 256 }),
            sink,
        }
    }

    /// Hands the buffer to the sink once it is full enough.
    #[inline]
    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(sink) = self.sink.as_mut() {
            sink.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    fn newline(&mut self, pretty: bool, depth: usize) {
        if pretty {
            self.buf.push(b'\n');
            self.buf.resize(self.buf.len() + 2 * depth, b' ');
        }
    }

    fn str(&mut self, s: &str) {
        escape_into(&mut self.buf, s);
    }

    fn value(&mut self, program: &Program, ty: &DataType, v: &Value) {
        match v {
            Value::Int(i) => self.bytes(itoa::Buffer::new().format(*i).as_bytes()),
            Value::Float(f) => {
                if f.is_finite() {
                    self.bytes(zmij::Buffer::new().format_finite(*f).as_bytes());
                } else {
                    self.bytes(b"null");
                }
            }
            Value::Bool(b) => self.bytes(if *b { b"true" } else { b"false" }),
            Value::Str(s) => self.str(s),
            Value::Enum(i) => match ty {
                DataType::Enum(e) => {
                    let name = program.enums[e.index()]
                        .variants
                        .get(*i as usize)
                        .map_or("", |v| v.as_str());
                    self.str(name);
                }
                _ => self.bytes(itoa::Buffer::new().format(*i).as_bytes()),
            },
            Value::Map(m) => {
                let (key_ty, value_ty) = match ty {
                    DataType::Map(k, v) => (&**k, &**v),
                    other => (other, other),
                };
                self.buf.push(b'[');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(b',');
                    }
                    self.buf.push(b'[');
                    self.value(program, key_ty, &k.to_value());
                    self.buf.push(b',');
                    self.value(program, value_ty, v);
                    self.buf.push(b']');
                }
                self.buf.push(b']');
            }
            Value::Array(items) => {
                let elem = match ty {
                    DataType::Array(e) => &**e,
                    other => other,
                };
                self.buf.push(b'[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.buf.push(b',');
                    }
                    self.value(program, elem, x);
                }
                self.buf.push(b']');
            }
            Value::Record(values) => {
                self.buf.push(b'{');
                if let DataType::Record(r) = ty {
                    let rec = &program.records[r.index()];
                    for (i, (f, x)) in rec.fields.iter().zip(values.iter()).enumerate() {
                        if i > 0 {
                            self.buf.push(b',');
                        }
                        self.str(&f.name);
                        self.buf.push(b':');
                        self.value(program, &f.ty, x);
                    }
                }
                self.buf.push(b'}');
            }
        }
    }
}

/// Appends `s` as a JSON string, escaped exactly as serde_json does
/// (`"`, `\` and control characters; nothing else).
fn escape_into(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => {
                out.extend_from_slice(&bytes[start..i]);
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 0xf) as usize]);
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(escape);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

enum Task<'a> {
    Node(NodeId, usize),
    Field(NodeId, usize, usize),
    ListItem(NodeId, usize, bool),
    Text(&'static [u8], usize),
    Globals(SelectedGlobals<'a>, usize),
}

/// The quoted names a write needs over and over, prepared once.
struct Names {
    /// Per type: `"type":"Name"` (after `{` and any newline).
    type_heads: Vec<Vec<u8>>,
    /// Per field: `"name":` (or `"name": ` when pretty).
    field_heads: Vec<Vec<u8>>,
}

impl Names {
    fn new(program: &Program, options: WriteOptions) -> Names {
        let colon: &[u8] = if options.pretty { b": " } else { b":" };
        let head = |name: &str| {
            let mut h = Vec::new();
            escape_into(&mut h, name);
            h.extend_from_slice(colon);
            h
        };
        Names {
            type_heads: program
                .types
                .iter()
                .map(|t| {
                    let mut h = head("type");
                    escape_into(&mut h, &t.name);
                    h
                })
                .collect(),
            field_heads: program.fields.iter().map(|f| head(&f.name)).collect(),
        }
    }
}

fn write_document(
    out: &mut JsonOut,
    program: &Program,
    tree: &Tree,
    globals: Option<SelectedGlobals>,
    options: WriteOptions,
) -> io::Result<()> {
    let pretty = options.pretty;
    if tree.root.index() >= tree.allocated() {
        // An empty tree (no root node) is no document of the format.
        out.bytes(b"null");
        return Ok(());
    }
    let names = Names::new(program, options);
    let mut tasks: Vec<Task> = vec![Task::Node(tree.root, 0)];
    let mut first = true;
    while let Some(task) = tasks.pop() {
        match task {
            Task::Node(n, depth) => {
                let ty = tree.type_of(n);
                out.buf.push(b'{');
                out.newline(pretty, depth + 1);
                out.bytes(&names.type_heads[ty.index()]);
                tasks.push(Task::Text(b"}", depth));
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
                let field_id = program.types[tree.type_of(n).index()].fields[i];
                let field = &program.fields[field_id.index()];
                out.buf.push(b',');
                out.newline(pretty, depth);
                out.bytes(&names.field_heads[field_id.index()]);
                match tree.slot(n, i as u32) {
                    SlotRef::Data(v) => {
                        let ty = match &field.kind {
                            FieldKind::Data(t) => t,
                            _ => &DataType::Int,
                        };
                        out.value(program, ty, &v);
                        out.maybe_flush()?;
                    }
                    SlotRef::Child(c) => tasks.push(Task::Node(c, depth)),
                    SlotRef::Empty => out.bytes(b"null"),
                    SlotRef::List(items) => {
                        out.buf.push(b'[');
                        tasks.push(Task::Text(b"]", depth));
                        for (k, c) in items.iter().enumerate().rev() {
                            tasks.push(Task::ListItem(*c, depth + 1, k == 0));
                        }
                    }
                }
            }
            Task::ListItem(c, depth, is_first) => {
                if !is_first {
                    out.buf.push(b',');
                }
                out.newline(pretty, depth);
                tasks.push(Task::Node(c, depth));
            }
            Task::Text(t, depth) => {
                out.newline(pretty, depth);
                out.bytes(t);
                out.maybe_flush()?;
            }
            Task::Globals(g, depth) => {
                out.buf.push(b',');
                out.newline(pretty, depth);
                out.str("globals");
                out.bytes(if pretty { b": " } else { b":" });
                write_globals_object(out, program, g, options, depth)?;
            }
        }
    }
    if pretty {
        out.buf.push(b'\n');
    }
    Ok(())
}

fn write_globals_object(
    out: &mut JsonOut,
    program: &Program,
    globals: SelectedGlobals,
    options: WriteOptions,
    depth: usize,
) -> io::Result<()> {
    let pretty = options.pretty;
    out.buf.push(b'{');
    for (i, g) in globals.iter().enumerate() {
        let (Some(global), Some(v)) = (program.globals.get(g), globals.values.get(g)) else {
            continue;
        };
        if i > 0 {
            out.buf.push(b',');
        }
        out.newline(pretty, depth + 1);
        out.str(&global.name);
        out.bytes(if pretty { b": " } else { b":" });
        out.value(program, &global.ty, v);
        out.maybe_flush()?;
    }
    out.newline(pretty, depth);
    out.buf.push(b'}');
    Ok(())
}
