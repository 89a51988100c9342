//! Reading a tree: JSON tokens straight into the store, in one pass.
//!
//! [`TreeBuilder`] keeps an explicit stack of the nodes and lists being
//! read (no recursion on depth) and allocates each node as soon as its
//! `"type"` is known, so node ids come out in document pre-order. Nothing
//! of the document is kept: memory is the tree, the stack, and one input
//! buffer. An object whose `"type"` comes after other keys is read ahead
//! up to `"type"` and replayed (see [`super::pull`]); that costs a copy of
//! those members, and only for such objects.
//!
//! Repeated short strings (names, operators, file paths) are interned while
//! reading: equal strings share one allocation, which is invisible to
//! programs (strings are immutable values).

use super::pull::{JsonEvents, OwnedToken, Token};
use super::TreeInputError;
use crate::store::{DefaultSlots, NodeId, Slot, Tree};
use rustc_hash::FxHashMap as HashMap;
use std::io::Read;
use std::sync::Arc;
use treefuse_sema::value::{ArcStr, MapKey, OrdMap};
use treefuse_sema::{DataType, FieldKind, Program, TypeId, Value};

/// Strings up to this many bytes are interned while reading.
const INTERN_MAX_LEN: usize = 64;
/// At most this many distinct strings are interned (bounds the table).
const INTERN_MAX_ENTRIES: usize = 1 << 20;

/// Reads a tree whose root must be of type `root` (or a subtype), from
/// JSON text (see [`read_tree_from`]).
pub fn read_tree(program: &Program, root: TypeId, text: &str) -> Result<Tree, TreeInputError> {
    read_tree_from(program, root, text.as_bytes())
}

/// Reads a tree whose root must be of type `root` (or a subtype) from a
/// stream, in one pass (buffer it yourself only if `input` is slow to
/// read in 64 KiB pieces; files and byte slices need no buffering).
///
/// A top-level `"globals"` key (as written by [`super::write_tree`]) is
/// accepted and ignored when the root type has no field of that name, so
/// that a tool's output can be fed back in.
pub fn read_tree_from(
    program: &Program,
    root: TypeId,
    input: impl Read,
) -> Result<Tree, TreeInputError> {
    let mut events = JsonEvents::new(input);
    if events.is_blank()? {
        return Err(TreeInputError {
            path: "$".into(),
            message: "the input is empty: expected a JSON object for the root node".into(),
        });
    }
    let mut builder = TreeBuilder::new(program);
    builder.read(&mut events, root)?;
    events.finish()?;
    Ok(builder.tree)
}

/// Parses a data value of type `ty` from JSON text (used for `--arg`).
pub fn parse_value(program: &Program, ty: &DataType, text: &str) -> Result<Value, TreeInputError> {
    let mut events = JsonEvents::new(text.as_bytes());
    if events.is_blank()? {
        return Err(TreeInputError {
            path: "$".into(),
            message: format!("expected {}, found nothing", program.data_type_name(ty)),
        });
    }
    let value = DataReader::new(program).read(&mut events, ty)?;
    events.finish()?;
    Ok(value)
}

/// Where a node being started goes.
#[derive(Clone, Copy)]
enum Dest {
    Root,
    Child(NodeId, u32),
    /// The next item of the list on top of the stack.
    ListItem,
}

/// A node or list being read.
enum Frame {
    Node {
        node: NodeId,
        ty: TypeId,
        /// Where this node's "field seen" flags start in `TreeBuilder::seen`.
        seen_at: usize,
        /// The field expected next (JSON written by treefuse lists fields
        /// in declaration order, so this guess is usually right).
        guess: usize,
    },
    List {
        node: NodeId,
        slot: u32,
        elem: TypeId,
        items: Vec<NodeId>,
    },
}

struct TreeBuilder<'p> {
    program: &'p Program,
    tree: Tree,
    frames: Vec<Frame>,
    /// Flags of the fields seen so far, for every node on the stack.
    seen: Vec<bool>,
    types_by_name: HashMap<&'p str, TypeId>,
    defaults: DefaultSlots,
    data: DataReader<'p>,
}

impl<'p> TreeBuilder<'p> {
    fn new(program: &'p Program) -> TreeBuilder<'p> {
        TreeBuilder {
            program,
            tree: Tree::new(),
            frames: Vec::new(),
            seen: Vec::new(),
            types_by_name: program
                .types
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name.as_str(), TypeId(i as u32)))
                .collect(),
            defaults: DefaultSlots::new(program),
            data: DataReader::new(program),
        }
    }

    fn read<R: Read>(
        &mut self,
        ev: &mut JsonEvents<R>,
        root: TypeId,
    ) -> Result<(), TreeInputError> {
        match ev.next()? {
            Token::BeginObject => self.begin_node(ev, root, Dest::Root)?,
            other => {
                let found = other.describe();
                return Err(ev.error(self.expected_node(root, found)));
            }
        }
        while let Some(frame) = self.frames.last_mut() {
            match frame {
                Frame::Node { .. } => self.node_member(ev)?,
                Frame::List { elem, .. } => {
                    let elem = *elem;
                    match ev.next()? {
                        Token::BeginObject => self.begin_node(ev, elem, Dest::ListItem)?,
                        Token::EndArray => {
                            if let Some(Frame::List {
                                node, slot, items, ..
                            }) = self.frames.pop()
                            {
                                self.tree.set_slot(node, slot, Slot::List(items.into()));
                            }
                        }
                        other => {
                            let found = other.describe();
                            return Err(ev.error(self.expected_node(elem, found)));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn expected_node(&self, ty: TypeId, found: &str) -> String {
        format!(
            "expected a `{}` node (a JSON object), found {found}",
            self.program.type_name(ty)
        )
    }

    /// Starts a node whose `{` was just read: finds its type, allocates
    /// it, links it to its parent and pushes its frame.
    fn begin_node<R: Read>(
        &mut self,
        ev: &mut JsonEvents<R>,
        expected: TypeId,
        dest: Dest,
    ) -> Result<(), TreeInputError> {
        let ty = self.node_type(ev, expected)?;
        let node = self.tree.alloc_default(&self.defaults, ty);
        match dest {
            Dest::Root => self.tree.root = node,
            Dest::Child(parent, slot) => self.tree.set_slot(parent, slot, Slot::Child(node)),
            Dest::ListItem => {
                if let Some(Frame::List { items, .. }) = self.frames.last_mut() {
                    items.push(node);
                }
            }
        }
        let seen_at = self.seen.len();
        let count = self.program.types[ty.index()].fields.len();
        self.seen.resize(seen_at + count, false);
        self.frames.push(Frame::Node {
            node,
            ty,
            seen_at,
            guess: 0,
        });
        Ok(())
    }

    /// The node's type from its `"type"` member. When other members come
    /// first, they are read ahead and pushed back to follow `"type"`.
    fn node_type<R: Read>(
        &mut self,
        ev: &mut JsonEvents<R>,
        expected: TypeId,
    ) -> Result<TypeId, TreeInputError> {
        let missing = "missing \"type\" key naming the node's concrete type";
        let name: Box<str> = match ev.next()? {
            Token::Name("type") => match ev.next()? {
                Token::Str(s) => s.into(),
                _ => {
                    return Err(self.type_error(ev, "\"type\" must be a string naming a tree type"))
                }
            },
            Token::Name(first) => {
                let mut ahead = vec![OwnedToken::Name(first.into())];
                let mut depth = 0usize;
                loop {
                    let t = ev.next_raw()?;
                    match t {
                        OwnedToken::Name(ref k) if depth == 0 && &**k == "type" => {
                            match ev.next_raw()? {
                                OwnedToken::Str(s) => {
                                    ev.push_back(ahead);
                                    break s;
                                }
                                _ => {
                                    return Err(self.type_error(
                                        ev,
                                        "\"type\" must be a string naming a tree type",
                                    ))
                                }
                            }
                        }
                        OwnedToken::EndObject if depth == 0 => {
                            return Err(TreeInputError {
                                path: ev.container_path(),
                                message: missing.into(),
                            })
                        }
                        OwnedToken::BeginObject | OwnedToken::BeginArray => depth += 1,
                        OwnedToken::EndObject | OwnedToken::EndArray => depth -= 1,
                        _ => {}
                    }
                    ahead.push(t);
                }
            }
            // `{}`: the object is closed, the path is its own.
            _ => return Err(ev.error(missing)),
        };
        let Some(&ty) = self.types_by_name.get(&*name) else {
            return Err(self.type_error(ev, &format!("unknown tree type `{name}`")));
        };
        if self.program.types[ty.index()].is_abstract {
            return Err(self.type_error(
                ev,
                &format!("`{name}` is abstract; a node must have a concrete type"),
            ));
        }
        if !self.program.is_subtype(ty, expected) {
            return Err(self.type_error(
                ev,
                &format!(
                    "a `{name}` cannot stand where a `{}` is expected",
                    self.program.type_name(expected)
                ),
            ));
        }
        Ok(ty)
    }

    fn type_error<R: Read>(&self, ev: &JsonEvents<R>, message: &str) -> TreeInputError {
        TreeInputError {
            path: format!("{}.type", ev.container_path()),
            message: message.into(),
        }
    }

    /// Reads the next member of the node on top of the stack, or its end.
    fn node_member<R: Read>(&mut self, ev: &mut JsonEvents<R>) -> Result<(), TreeInputError> {
        let Some(&Frame::Node {
            node,
            ty,
            seen_at,
            guess,
        }) = self.frames.last()
        else {
            return Ok(());
        };
        let program = self.program;
        let fields = &program.types[ty.index()].fields;
        let pos = match ev.next()? {
            Token::EndObject => return self.end_node(ev, ty, seen_at),
            Token::Name(k) => {
                let named = |i: &usize| program.fields[fields[*i].index()].name == k;
                match Some(guess)
                    .filter(|g| *g < fields.len() && named(g))
                    .or_else(|| (0..fields.len()).find(named))
                {
                    Some(pos) => pos,
                    // A repeated "type" (the first one decided), or the
                    // globals of an output fed back in.
                    None if k == "type" || (k == "globals" && self.frames.len() == 1) => {
                        return ev.skip_value();
                    }
                    None => {
                        let message =
                            format!("unknown field `{k}` for type `{}`", program.type_name(ty));
                        return Err(ev.error(message));
                    }
                }
            }
            // The lexer allows nothing else inside an object.
            other => {
                let message = format!("unexpected {}", other.describe());
                return Err(ev.error(message));
            }
        };
        if self.seen[seen_at + pos] {
            let key = &program.fields[fields[pos].index()].name;
            return Err(ev.error(format!("duplicate key `{key}`")));
        }
        self.seen[seen_at + pos] = true;
        if let Some(Frame::Node { guess, .. }) = self.frames.last_mut() {
            *guess = pos + 1;
        }
        let field = &program.fields[fields[pos].index()];
        let slot = pos as u32;
        match &field.kind {
            FieldKind::Data(dt) => {
                let value = self.data.read(ev, dt)?;
                self.tree.set_slot(node, slot, Slot::Data(value));
            }
            FieldKind::Child(ct) => match ev.next()? {
                // `null` in an optional child: no node (§8.7).
                Token::Null if field.optional => self.tree.set_slot(node, slot, Slot::Empty),
                Token::BeginObject => self.begin_node(ev, *ct, Dest::Child(node, slot))?,
                other => {
                    let found = other.describe();
                    return Err(ev.error(self.expected_node(*ct, found)));
                }
            },
            FieldKind::List(ct) => match ev.next()? {
                Token::BeginArray => self.frames.push(Frame::List {
                    node,
                    slot,
                    elem: *ct,
                    items: Vec::new(),
                }),
                other => {
                    let message = format!(
                        "expected a list of `{}` nodes (a JSON array), found {}",
                        program.type_name(*ct),
                        other.describe()
                    );
                    return Err(ev.error(message));
                }
            },
        }
        Ok(())
    }

    /// The `}` of a node: every child must have been given.
    fn end_node<R: Read>(
        &mut self,
        ev: &JsonEvents<R>,
        ty: TypeId,
        seen_at: usize,
    ) -> Result<(), TreeInputError> {
        let program = self.program;
        for (pos, f) in program.types[ty.index()].fields.iter().enumerate() {
            let field = &program.fields[f.index()];
            // A missing optional child reads as none (§8.7): `alloc` left
            // its slot empty.
            if !self.seen[seen_at + pos]
                && !matches!(field.kind, FieldKind::Data(_))
                && !field.optional
            {
                return Err(ev.error(format!(
                    "missing child `{}` of `{}`{}",
                    field.name,
                    program.type_name(ty),
                    if matches!(field.kind, FieldKind::List(_)) {
                        " (write [] for an empty list)"
                    } else {
                        ""
                    }
                )));
            }
        }
        self.seen.truncate(seen_at);
        self.frames.pop();
        Ok(())
    }
}

/// Reads data values (LANGUAGE §4): recursion follows the data type, whose
/// nesting the program fixes, never the input's.
struct DataReader<'p> {
    program: &'p Program,
    strings: HashMap<Box<str>, ArcStr>,
}

impl<'p> DataReader<'p> {
    fn new(program: &'p Program) -> DataReader<'p> {
        DataReader {
            program,
            strings: HashMap::default(),
        }
    }

    fn string(&mut self, s: &str) -> ArcStr {
        if s.len() > INTERN_MAX_LEN {
            return ArcStr::from(s);
        }
        if let Some(shared) = self.strings.get(s) {
            return shared.clone();
        }
        let shared = ArcStr::from(s);
        if self.strings.len() < INTERN_MAX_ENTRIES {
            self.strings.insert(s.into(), shared.clone());
        }
        shared
    }

    fn read<R: Read>(
        &mut self,
        ev: &mut JsonEvents<R>,
        ty: &DataType,
    ) -> Result<Value, TreeInputError> {
        let program = self.program;
        let mismatch = |ev: &JsonEvents<R>, found: &str| {
            ev.error(format!(
                "expected {}, found {found}",
                program.data_type_name(ty)
            ))
        };
        // Scalars are converted while the token is borrowed; containers
        // are read below, after the borrow ends.
        match (ty, ev.next()?) {
            (DataType::Int, Token::Number(text)) => {
                let value = int(text);
                return value.map_err(|m| ev.error(m));
            }
            (DataType::Float, Token::Number(text)) => {
                let value = float(text);
                return value.map_err(|m| ev.error(m));
            }
            (DataType::Bool, Token::Bool(b)) => return Ok(Value::Bool(b)),
            (DataType::Str, Token::Str(s)) => {
                let s = self.string(s);
                return Ok(Value::Str(s));
            }
            (DataType::Enum(e), Token::Str(name)) => {
                let def = &program.enums[e.index()];
                let variant = def.variants.iter().position(|v| **v == *name);
                let message = format!("unknown variant `{name}` of enum `{}`", def.name);
                return match variant {
                    Some(i) => Ok(Value::Enum(i as u32)),
                    None => Err(ev.error(message)),
                };
            }
            (DataType::Array(_) | DataType::Map(..), Token::BeginArray)
            | (DataType::Record(_), Token::BeginObject) => {}
            (_, other) => {
                let found = other.describe();
                return Err(mismatch(ev, found));
            }
        }
        match ty {
            DataType::Array(elem) => {
                let mut out = Vec::new();
                while !ev.at_end()? {
                    out.push(self.read(ev, elem)?);
                }
                ev.next()?;
                Ok(Value::Array(Arc::new(out)))
            }
            DataType::Map(key_ty, value_ty) => {
                let mut out = OrdMap::new();
                while !ev.at_end()? {
                    match ev.next()? {
                        Token::BeginArray => {}
                        other => {
                            let message = format!(
                                "expected a `[key, value]` pair of the map, found {}",
                                other.describe()
                            );
                            return Err(ev.error(message));
                        }
                    }
                    let not_a_pair = |ev: &JsonEvents<R>| TreeInputError {
                        path: ev.container_path(),
                        message: "expected a `[key, value]` pair of the map, found an array".into(),
                    };
                    if ev.at_end()? {
                        return Err(not_a_pair(ev));
                    }
                    let key = self.read(ev, key_ty)?;
                    let key = MapKey::of(&key);
                    if key.as_ref().is_some_and(|k| out.contains_key(k)) {
                        return Err(ev.error("repeated key in the map"));
                    }
                    if ev.at_end()? {
                        return Err(not_a_pair(ev));
                    }
                    let value = self.read(ev, value_ty)?;
                    if !ev.at_end()? {
                        return Err(not_a_pair(ev));
                    }
                    ev.next()?;
                    if let Some(key) = key {
                        out.insert(key, value);
                    }
                }
                ev.next()?;
                Ok(Value::Map(Arc::new(out)))
            }
            DataType::Record(r) => {
                let rec = &program.records[r.index()];
                let mut values: Vec<Option<Value>> = vec![None; rec.fields.len()];
                loop {
                    let (i, problem) = match ev.next()? {
                        Token::EndObject => break,
                        Token::Name(k) => match rec.fields.iter().position(|f| *f.name == *k) {
                            Some(i) if values[i].is_some() => {
                                (i, Some(format!("duplicate key `{k}`")))
                            }
                            Some(i) => (i, None),
                            None => (
                                0,
                                Some(format!("unknown field `{k}` for record `{}`", rec.name)),
                            ),
                        },
                        other => (0, Some(format!("unexpected {}", other.describe()))),
                    };
                    if let Some(message) = problem {
                        return Err(ev.error(message));
                    }
                    values[i] = Some(self.read(ev, &rec.fields[i].ty)?);
                }
                Ok(Value::Record(Arc::new(
                    values
                        .into_iter()
                        .zip(&rec.fields)
                        .map(|(v, f)| v.unwrap_or_else(|| program.zero_value(&f.ty)))
                        .collect(),
                )))
            }
            _ => Err(mismatch(ev, "a value of another type")),
        }
    }
}

/// An `i64` from a JSON number, or what is wrong with it.
fn int(text: &str) -> Result<Value, String> {
    if text.contains(['.', 'e', 'E']) {
        return Err(format!("expected an integer (i64), found {text}"));
    }
    text.parse::<i64>()
        .map(Value::Int)
        .map_err(|_| format!("integer {text} is outside the i64 range"))
}

/// An `f64` from a JSON number, or what is wrong with it.
fn float(text: &str) -> Result<Value, String> {
    let v: f64 = text.parse().map_err(|_| format!("invalid number {text}"))?;
    if !v.is_finite() {
        return Err(format!("number {text} is not a finite f64"));
    }
    Ok(Value::Float(v))
}
