//! Interned labels for access paths: tree fields, record members, globals.

use treefuse_automata::{format_word, Label, LabelInterner, Symbol};
use treefuse_sema::{
    DataType, ExprKind, FieldId, GlobalId, PlaceRoot, Program, RecordId, StmtKind, Value,
};

/// The label alphabet of one program.
///
/// * Every tree field (child, list or data) gets its own label, keyed by
///   [`FieldId`] and named `Owner.field` (`TextBox.next`, `Element.width`).
///   Two unrelated types that both declare `next` get two labels: a node
///   has exactly one concrete type, so the two slots can never be the same
///   memory. An inherited field keeps the [`FieldId`] (and label) of its
///   declaration, so `Element.width` is one label for every subtype.
/// * Every record member gets a label named `Record.member`
///   (`BorderInfo.size`); it follows the label of the field or global
///   holding the record.
/// * Every global gets a pseudo-root label named `global:NAME`; global
///   access paths are words starting with it (`global:changed`).
///
/// * A scalar global that some traversal sets to a constant (`changed =
///   true;`) has its writes told apart by value: besides its own word
///   `global:NAME`, which every access has (so reads meet every write), a
///   write of constant `c` has the word `global:NAME.=c` and any other
///   write `global:NAME.=?` (the value labels are shared by all globals),
///   so that two statements that only ever set it to the same constant,
///   whose order cannot matter, are seen to do so
///   ([`Labels::write_values`]).
///
/// A list field's label stands for "any element of the list": `for x in
/// self.items { x.f = 1; }` writes `Block.items.Stmt.f`.
///
/// Names are unique; should two names collide (a record and a tree type
/// with the same name and member), the later one gets a `#N` suffix.
#[derive(Clone, Debug)]
pub struct Labels {
    interner: LabelInterner,
    fields: Vec<Label>,
    members: Vec<Vec<Label>>,
    globals: Vec<Label>,
    /// Per global told apart by value: the label of a write of anything
    /// but a known constant, and one label per constant written.
    values: Vec<Option<WriteValues>>,
}

/// The value labels of a global whose writes are told apart by value (see
/// [`Labels`]).
#[derive(Clone, Debug)]
pub struct WriteValues {
    /// `=?`: a write of a computed value.
    pub other: Label,
    /// `=c` for each constant some traversal assigns, with the constant.
    pub constants: Vec<(Value, Label)>,
}

impl Labels {
    /// Interns every field, record member and global of `program`.
    pub fn new(program: &Program) -> Labels {
        let mut interner = LabelInterner::new();
        let mut fresh = |name: String| -> Label {
            if interner.get(&name).is_none() {
                return interner.intern(&name);
            }
            let mut i = 2;
            loop {
                let n = format!("{name}#{i}");
                if interner.get(&n).is_none() {
                    return interner.intern(&n);
                }
                i += 1;
            }
        };
        let fields = program
            .fields
            .iter()
            .map(|f| fresh(format!("{}.{}", program.type_name(f.owner), f.name)))
            .collect();
        let members = program
            .records
            .iter()
            .map(|r| {
                r.fields
                    .iter()
                    .map(|m| fresh(format!("{}.{}", r.name, m.name)))
                    .collect()
            })
            .collect();
        let globals = program
            .globals
            .iter()
            .map(|g| fresh(format!("global:{}", g.name)))
            .collect();
        // Constants assigned whole to scalar globals in traversal bodies.
        let mut constants: Vec<Vec<Value>> = vec![Vec::new(); program.globals.len()];
        for body in program.bodies.iter().filter_map(|b| b.body.as_deref()) {
            treefuse_sema::visit::for_each_stmt(body, &mut |s| {
                let StmtKind::Assign { place, value } = &s.kind else {
                    return;
                };
                let (PlaceRoot::Global(g), ExprKind::Const(v)) = (&place.root, &value.kind) else {
                    return;
                };
                let scalar = matches!(
                    program.globals[g.index()].ty,
                    DataType::Bool | DataType::Int | DataType::Str | DataType::Enum(_)
                );
                let known = &mut constants[g.index()];
                if scalar && place.projections.is_empty() && !known.iter().any(|k| k.same_as(v)) {
                    known.push(v.clone());
                }
            });
        }
        // Value labels are shared by every global (a word starts with the
        // global's own label); no field, member or global name starts
        // with `=`.
        let mut value_label = |name: String| match interner.get(&name) {
            Some(l) => l,
            None => interner.intern(&name),
        };
        let values = constants
            .into_iter()
            .map(|known| {
                if known.is_empty() {
                    return None;
                }
                Some(WriteValues {
                    other: value_label("=?".to_string()),
                    constants: known
                        .into_iter()
                        .map(|v| {
                            let l = value_label(format!("={v}"));
                            (v, l)
                        })
                        .collect(),
                })
            })
            .collect();
        Labels {
            interner,
            fields,
            members,
            globals,
            values,
        }
    }

    /// How writes of global `g` are told apart by value, if they are: the
    /// label that follows `global:NAME` in a write's word.
    pub fn write_values(&self, g: GlobalId) -> Option<&WriteValues> {
        self.values.get(g.index())?.as_ref()
    }

    /// The label that follows `global:NAME` in the word of a whole write of
    /// `g` with `value` (`None`: a computed value), if `g`'s writes are
    /// told apart by value.
    pub fn write_value(&self, g: GlobalId, value: Option<&Value>) -> Option<Label> {
        let w = self.write_values(g)?;
        Some(
            value
                .and_then(|v| w.constants.iter().find(|(c, _)| c.same_as(v)))
                .map_or(w.other, |(_, l)| *l),
        )
    }

    /// The label of a tree field.
    pub fn field(&self, f: FieldId) -> Label {
        self.fields[f.index()]
    }

    /// The label of member `i` of record `r`.
    pub fn member(&self, r: RecordId, i: u32) -> Label {
        self.members[r.index()][i as usize]
    }

    /// The pseudo-root label of a global.
    pub fn global(&self, g: GlobalId) -> Label {
        self.globals[g.index()]
    }

    /// The global whose pseudo-root label is `l`, if any.
    pub fn global_of(&self, l: Label) -> Option<GlobalId> {
        self.globals
            .iter()
            .position(|&x| x == l)
            .map(|i| GlobalId(i as u32))
    }

    /// The field whose label is `l`, if any.
    pub fn field_of(&self, l: Label) -> Option<FieldId> {
        self.fields
            .iter()
            .position(|&x| x == l)
            .map(|i| FieldId(i as u32))
    }

    /// The interner holding every label's name (for
    /// [`format_word`](treefuse_automata::format_word) and DOT output).
    pub fn interner(&self) -> &LabelInterner {
        &self.interner
    }

    /// The name of a label (`Element.width`, `BorderInfo.size`,
    /// `global:changed`).
    pub fn name(&self, l: Label) -> &str {
        self.interner.name(l).unwrap_or("?")
    }

    /// A word as a dotted path, e.g. `TextBox.next.Element.width`; `*` is
    /// any label, `ε` the empty word (the node itself).
    pub fn format(&self, word: &[Symbol]) -> String {
        format_word(word, &self.interner)
    }

    /// A word as a short dotted path of bare field names, e.g.
    /// `next.width` for `TextBox.next.Element.width` (`global:NAME` and `*`
    /// as in [`format`](Labels::format)). Readable, but ambiguous where
    /// two types declare fields with the same name.
    pub fn format_short(&self, word: &[Symbol]) -> String {
        if word.is_empty() {
            return "ε".to_owned();
        }
        word.iter()
            .map(|&s| match s {
                Symbol::Any => "*",
                Symbol::Label(l) => {
                    let n = self.name(l);
                    if n.starts_with("global:") {
                        n
                    } else {
                        n.split_once('.').map_or(n, |(_, f)| f)
                    }
                }
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    /// A tree-field label by `Type` and `field` name (the field as seen on
    /// `Type`, inherited fields included). Handy in tests and tools.
    pub fn field_named(&self, program: &Program, ty: &str, field: &str) -> Option<Label> {
        let t = program.type_named(ty)?;
        program.field_named(t, field).map(|f| self.field(f))
    }
}
