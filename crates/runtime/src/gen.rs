//! Seeded random trees driven by the schema.
//!
//! The generator fills child slots breadth-first from a work queue until
//! the node budget (nodes made plus the smallest completion of every open
//! slot) is spent, then closes every open slot with the cheapest concrete
//! type (the one whose smallest complete subtree is smallest), so any
//! schema with finite trees yields a finite tree of about the requested
//! size. Depth and list lengths have their own knobs; when they keep a
//! uniform random choice short of the size, bushier choices are tried.
//! The same seed gives the same tree.

use crate::store::{NodeId, Slot, Tree};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::Arc;
use treefuse_sema::value::{MapKey, OrdMap};
use treefuse_sema::{DataType, FieldKind, Program, TypeId, Value};

/// Knobs of the random tree generator.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Target number of nodes (the result may exceed it by one type's
    /// smallest subtree, or fall short when `max_depth` and `max_list`
    /// allow no tree that large).
    pub nodes: usize,
    /// Beyond this depth only the cheapest completions are chosen.
    pub max_depth: usize,
    /// Longest list of children.
    pub max_list: usize,
    /// Random seed.
    pub seed: u64,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            nodes: 100,
            max_depth: 64,
            max_list: 4,
            seed: 0,
        }
    }
}

/// Why no tree could be generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenError(pub String);

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GenError {}

/// The size of the smallest complete subtree rooted at each type
/// (`None` where no finite subtree exists).
pub fn min_sizes(program: &Program) -> Vec<Option<u64>> {
    let n = program.types.len();
    let mut best: Vec<Option<u64>> = vec![None; n];
    loop {
        let mut changed = false;
        for t in 0..n {
            let ty = &program.types[t];
            let size = if ty.is_abstract {
                ty.concrete_subtypes
                    .iter()
                    .filter_map(|c| best[c.index()])
                    .min()
            } else {
                let mut total = Some(1u64);
                for f in &ty.fields {
                    // An optional child may stay empty (§8.7): it costs nothing.
                    if program.fields[f.index()].optional {
                        continue;
                    }
                    if let FieldKind::Child(c) = program.fields[f.index()].kind {
                        total = match (total, best[c.index()]) {
                            (Some(a), Some(b)) => Some(a.saturating_add(b)),
                            _ => None,
                        };
                    }
                }
                total
            };
            if size.is_some() && (best[t].is_none() || size < best[t]) {
                best[t] = size;
                changed = true;
            }
        }
        if !changed {
            return best;
        }
    }
}

/// Where a generated node goes: (parent, slot, list index or `usize::MAX`
/// for a single child).
type Destination = (NodeId, u32, usize);

/// Generates a random tree with root of type `root` (or a subtype) of
/// about `options.nodes` nodes; see [`random_tree_sized`].
pub fn random_tree(
    program: &Program,
    root: TypeId,
    options: &GenOptions,
) -> Result<Tree, GenError> {
    random_tree_sized(program, root, options).map(|g| g.tree)
}

/// A generated tree and its size.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The tree.
    pub tree: Tree,
    /// Its number of nodes.
    pub nodes: usize,
}

impl Generated {
    /// Whether the tree is within 10% of the requested size.
    pub fn reached(&self, options: &GenOptions) -> bool {
        self.nodes * 10 >= options.nodes * 9 && self.nodes * 10 <= options.nodes * 11
    }
}

/// How hard the generator pushes the tree to grow while nodes remain in
/// the budget. The gentlest level that reaches the requested size wins:
/// it gives the most varied trees.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Growth {
    /// Types and list lengths uniformly at random; only the last open
    /// slot is forced to open new ones, so the tree cannot die out early.
    Uniform,
    /// Types that open slots preferred, lists never empty.
    Bushy,
    /// The types that open the most slots, lists as long as allowed: the
    /// widest trees, for a tight `max_depth`.
    Widest,
}

/// Generates a random tree with root of type `root` (or a subtype).
///
/// The generator keeps a budget: the nodes made plus the smallest
/// completion of every open slot. While the budget is below
/// `options.nodes` it chooses freely (the last open slot always opens new
/// ones, so the root's list is not left empty when nodes were asked for);
/// once reached, every open slot is closed by its smallest completion, so
/// the result overshoots by at most one type's smallest subtree. When
/// `max_depth` or `max_list` keep the uniform choice more than 10% below
/// the target, bushier and then the widest trees are tried; if even those
/// fall short, the tree closest to the target is returned and
/// [`Generated::reached`] tells the caller.
pub fn random_tree_sized(
    program: &Program,
    root: TypeId,
    options: &GenOptions,
) -> Result<Generated, GenError> {
    let sizes = min_sizes(program);
    if sizes[root.index()].is_none() {
        return Err(GenError(format!(
            "no finite tree has a root of type `{}`: every choice needs an endless chain of children",
            program.type_name(root)
        )));
    }
    let mut best: Option<Generated> = None;
    for growth in [Growth::Uniform, Growth::Bushy, Growth::Widest] {
        let tree = grow(program, &sizes, root, options, growth);
        let generated = Generated {
            nodes: tree.len(program),
            tree,
        };
        if generated.reached(options) {
            return Ok(generated);
        }
        let miss = |g: &Generated| g.nodes.abs_diff(options.nodes);
        if best.as_ref().is_none_or(|b| miss(&generated) < miss(b)) {
            best = Some(generated);
        }
    }
    best.ok_or_else(|| GenError("no tree generated".into()))
}

fn grow(
    program: &Program,
    sizes: &[Option<u64>],
    root: TypeId,
    options: &GenOptions,
    growth: Growth,
) -> Tree {
    // The smallest complete subtree in a slot of declared type `t`.
    let min_size = |t: TypeId| sizes[t.index()].unwrap_or(1) as usize;
    // How many slots for more nodes a node of type `t` can open.
    let slots_opened = |t: TypeId| -> usize {
        program.types[t.index()]
            .fields
            .iter()
            .map(|f| match program.fields[f.index()].kind {
                FieldKind::Child(_) => 1,
                FieldKind::List(_) => options.max_list,
                FieldKind::Data(_) => 0,
            })
            .sum()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut tree = Tree::new();
    let mut queue: VecDeque<(Option<Destination>, TypeId, usize)> = VecDeque::new();
    queue.push_back((None, root, 0));
    let mut made = 0usize;
    // The smallest completions of the queued slots.
    let mut pending = min_size(root);
    while let Some((dest, expected, depth)) = queue.pop_front() {
        pending -= min_size(expected);
        let last_open_slot = queue.is_empty();
        let candidates: Vec<TypeId> = program.types[expected.index()]
            .concrete_subtypes
            .iter()
            .copied()
            .filter(|c| sizes[c.index()].is_some())
            .collect();
        let spent =
            made + pending + min_size(expected) >= options.nodes || depth >= options.max_depth;
        let ty = if spent {
            *candidates
                .iter()
                .min_by_key(|c| sizes[c.index()])
                .unwrap_or(&candidates[0])
        } else {
            let most = match growth {
                Growth::Widest => candidates
                    .iter()
                    .map(|&c| slots_opened(c))
                    .max()
                    .unwrap_or(0),
                _ => 1,
            };
            let growing: Vec<TypeId> = candidates
                .iter()
                .copied()
                .filter(|&c| slots_opened(c) >= most.max(1))
                .collect();
            let prefer_growing = growth > Growth::Uniform || last_open_slot;
            let pool = if prefer_growing && !growing.is_empty() {
                &growing
            } else {
                &candidates
            };
            pool[rng.gen_range(0..pool.len())]
        };
        let node = tree.alloc(program, ty);
        made += 1;
        match dest {
            None => tree.root = node,
            Some((parent, slot, usize::MAX)) => tree.set_slot(parent, slot, Slot::Child(node)),
            Some((parent, slot, i)) => {
                if let Some(items) = tree.list_mut(parent, slot) {
                    items[i] = node;
                }
            }
        }
        // The last open slot must open another unless the budget is spent.
        let mut must_open = !spent && last_open_slot;
        for (pos, f) in program.types[ty.index()].fields.iter().enumerate() {
            let field = &program.fields[f.index()];
            match &field.kind {
                FieldKind::Data(dt) => {
                    // A field the type gives its own default (§8.3, `ty =
                    // Ty::Int;`) keeps it: it states a fact of the type.
                    let own = program.types[ty.index()]
                        .default_overrides
                        .iter()
                        .find(|(o, _)| o == f);
                    let value = match own {
                        Some((_, v)) => v.clone(),
                        None => random_value(program, dt, &mut rng),
                    };
                    tree.set_slot(node, pos as u32, Slot::Data(value));
                }
                // An optional child (§8.7) stays empty once the budget is
                // spent, else one time in three (filled when it is the
                // slot that must keep the tree growing).
                FieldKind::Child(_)
                    if field.optional && (spent || (!must_open && rng.gen_range(0..3) == 0)) => {}
                FieldKind::Child(c) => {
                    queue.push_back((Some((node, pos as u32, usize::MAX)), *c, depth + 1));
                    pending += min_size(*c);
                    must_open = false;
                }
                FieldKind::List(c) => {
                    let len = if spent || options.max_list == 0 {
                        0
                    } else {
                        let shortest = usize::from(must_open || growth > Growth::Uniform);
                        let wanted = match growth {
                            Growth::Widest => options.max_list,
                            _ => rng.gen_range(shortest..=options.max_list),
                        };
                        // Within the budget, but at least `shortest`.
                        let room = options.nodes.saturating_sub(made + pending) / min_size(*c);
                        wanted.min(room).max(shortest)
                    };
                    if len > 0 {
                        must_open = false;
                    }
                    tree.set_slot(node, pos as u32, Slot::List(vec![node; len].into()));
                    for i in 0..len {
                        queue.push_back((Some((node, pos as u32, i)), *c, depth + 1));
                        pending += min_size(*c);
                    }
                }
            }
        }
    }
    tree.compact(program)
}

/// A random value of a data type: small integers (so that arithmetic
/// stays interesting), short strings and arrays.
pub fn random_value(program: &Program, ty: &DataType, rng: &mut impl Rng) -> Value {
    match ty {
        DataType::Int => Value::Int(rng.gen_range(-4..=20)),
        DataType::Float => Value::Float(f64::from(rng.gen_range(-40..=200)) / 4.0),
        DataType::Bool => Value::Bool(rng.gen_bool(0.5)),
        DataType::Str => {
            let len = rng.gen_range(0..6);
            let s: String = (0..len)
                .map(|_| rng.gen_range(b'a'..=b'z') as char)
                .collect();
            Value::Str(s.into())
        }
        DataType::Array(elem) => {
            let len = rng.gen_range(0..4);
            Value::Array(Arc::new(
                (0..len).map(|_| random_value(program, elem, rng)).collect(),
            ))
        }
        DataType::Enum(e) => {
            Value::Enum(rng.gen_range(0..program.enums[e.index()].variants.len().max(1)) as u32)
        }
        DataType::Map(k, v) => {
            let len = rng.gen_range(0..4);
            let mut m = OrdMap::new();
            for _ in 0..len {
                if let Some(key) = MapKey::of(&random_value(program, k, rng)) {
                    m.insert(key, random_value(program, v, rng));
                }
            }
            Value::Map(Arc::new(m))
        }
        DataType::Record(r) => Value::Record(Arc::new(
            program.records[r.index()]
                .fields
                .iter()
                .map(|f| random_value(program, &f.ty, rng))
                .collect(),
        )),
    }
}
