//! Worked example of the intended use: Grafter's Algorithm 1 (access
//! automata for traversing calls) on a small render-tree program, then the
//! conflict test and its explanation.

use std::collections::HashMap;

use treefuse_automata::{format_word, intersection_witness, LabelInterner, Nfa, StateId};

/// A traversal function body, reduced to what the access analysis needs.
struct Function {
    /// Tree paths (relative to `self`) written by simple statements.
    writes: Vec<Vec<&'static str>>,
    /// Tree paths read by simple statements.
    reads: Vec<Vec<&'static str>>,
    /// Traversing calls: (child field, traversal name), dispatched on the
    /// child's dynamic type.
    calls: Vec<(&'static str, &'static str)>,
}

struct Program {
    /// (type, traversal) -> body; a missing entry means "does nothing".
    functions: HashMap<(&'static str, &'static str), Function>,
    /// Possible dynamic types of each child field.
    child_types: HashMap<&'static str, Vec<&'static str>>,
}

#[derive(Clone, Copy)]
enum Kind {
    Reads,
    Writes,
}

/// State of one run of Algorithm 1.
struct Builder<'a> {
    program: &'a Program,
    names: &'a mut LabelInterner,
    kind: Kind,
    nfa: Nfa,
    fn_state: HashMap<(&'static str, &'static str), StateId>,
}

impl Builder<'_> {
    /// `appendCallAccesses`: adds an edge labelled `child` from `from` to the
    /// state of every function the call can dispatch to, creating (and
    /// filling) that state the first time.
    fn append_call(&mut self, from: StateId, child: &'static str, traversal: &'static str) {
        let label = self.names.intern(child);
        for &ty in &self.program.child_types[child] {
            let key = (ty, traversal);
            let state = match self.fn_state.get(&key) {
                Some(&s) => s,
                None => {
                    let s = self.nfa.add_state();
                    self.fn_state.insert(key, s);
                    if let Some(f) = self.program.functions.get(&key) {
                        let paths = match self.kind {
                            Kind::Reads => &f.reads,
                            Kind::Writes => &f.writes,
                        };
                        for path in paths {
                            let word: Vec<_> = path.iter().map(|x| self.names.intern(x)).collect();
                            let mut stmt = Nfa::word(&word);
                            if let Kind::Reads = self.kind {
                                stmt = stmt.prefix_closure();
                            }
                            let st = self.nfa.embed(&stmt);
                            self.nfa.add_epsilon(s, st);
                        }
                        for &(c, t) in &f.calls {
                            self.append_call(s, c, t);
                        }
                    }
                    s
                }
            };
            self.nfa.add_label(from, label, state);
        }
    }
}

/// Algorithm 1: the access automaton of `child->traversal()` relative to the
/// caller's `self`. One state per reachable (type, traversal) function,
/// call edges labelled with the child field, statement automata attached by
/// ε; recursion closes loops, dispatch is a union of edges.
fn call_automaton(
    program: &Program,
    names: &mut LabelInterner,
    child: &'static str,
    traversal: &'static str,
    kind: Kind,
) -> Nfa {
    let mut b = Builder {
        program,
        names,
        kind,
        nfa: Nfa::new(),
        fn_state: HashMap::new(),
    };
    b.append_call(0, child, traversal);
    b.nfa
}

fn render_program() -> Program {
    let mut functions = HashMap::new();
    // TextBox.computeWidth: width = text_len; next->computeWidth()
    functions.insert(
        ("TextBox", "computeWidth"),
        Function {
            writes: vec![vec!["width"]],
            reads: vec![vec!["text_len"]],
            calls: vec![("next", "computeWidth")],
        },
    );
    // Group.computeWidth: content->computeWidth(); width = content.width;
    // next->computeWidth()
    functions.insert(
        ("Group", "computeWidth"),
        Function {
            writes: vec![vec!["width"]],
            reads: vec![vec!["content", "width"]],
            calls: vec![("content", "computeWidth"), ("next", "computeWidth")],
        },
    );
    // TextBox.computeHeight: height = lines * font; next->computeHeight()
    functions.insert(
        ("TextBox", "computeHeight"),
        Function {
            writes: vec![vec!["height"]],
            reads: vec![vec!["lines"], vec!["font"]],
            calls: vec![("next", "computeHeight")],
        },
    );
    // Group.computeHeight: content->computeHeight(); height = content.height;
    // next->computeHeight()
    functions.insert(
        ("Group", "computeHeight"),
        Function {
            writes: vec![vec!["height"]],
            reads: vec![vec!["content", "height"]],
            calls: vec![("content", "computeHeight"), ("next", "computeHeight")],
        },
    );
    // TextBox.computeLines (a bad neighbour): reads the next sibling's width.
    functions.insert(
        ("TextBox", "computeLines"),
        Function {
            writes: vec![vec!["lines"]],
            reads: vec![vec!["next", "width"]],
            calls: vec![("next", "computeLines")],
        },
    );
    let elem = vec!["TextBox", "Group", "End"];
    let child_types = HashMap::from([("next", elem.clone()), ("content", elem)]);
    Program {
        functions,
        child_types,
    }
}

#[test]
fn independent_traversals_fuse() {
    let p = render_program();
    let mut names = LabelInterner::new();
    let w = call_automaton(&p, &mut names, "content", "computeWidth", Kind::Writes);
    let r = call_automaton(&p, &mut names, "content", "computeHeight", Kind::Reads);
    let w2 = call_automaton(&p, &mut names, "content", "computeHeight", Kind::Writes);
    let r2 = call_automaton(&p, &mut names, "content", "computeWidth", Kind::Reads);
    // Recursion became loops: arbitrarily deep paths are covered.
    let deep: Vec<_> = ["content", "next", "next", "content", "next", "width"]
        .iter()
        .map(|x| names.intern(x))
        .collect();
    assert!(w.accepts(&deep));
    for (a, b) in [(&w, &r), (&w2, &r2), (&w, &w2)] {
        assert_eq!(intersection_witness(a, b), None);
        assert_eq!(intersection_witness(&a.reduced(), &b.reduced()), None);
    }
}

#[test]
fn conflict_is_explained_by_a_shortest_path() {
    let p = render_program();
    let mut names = LabelInterner::new();
    let w = call_automaton(&p, &mut names, "content", "computeWidth", Kind::Writes);
    let r = call_automaton(&p, &mut names, "content", "computeLines", Kind::Reads);
    let witness = intersection_witness(&w, &r).expect("computeLines reads widths");
    assert_eq!(format_word(&witness, &names), "content.next.width");
    // The materialised product agrees and can be shown as DOT.
    let product = Nfa::intersect(&w, &r);
    assert_eq!(product.shortest_witness(), Some(witness));
    assert!(product.to_dot(&names).contains("label=\"width\""));
}
