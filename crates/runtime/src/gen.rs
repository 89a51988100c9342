//! Seeded random trees driven by the schema.
//!
//! The generator fills child slots breadth-first from a work queue until
//! the node budget is spent, then closes every open slot with the
//! cheapest concrete type (the one whose smallest complete subtree is
//! smallest), so any schema with finite trees yields a finite tree of
//! about the requested size. Depth and list lengths have their own knobs.
//! The same seed gives the same tree.

use crate::store::{NodeId, Slot, Tree};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::Arc;
use treefuse_sema::{DataType, FieldKind, Program, TypeId, Value};

/// Knobs of the random tree generator.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Target number of nodes (the result may exceed it by the nodes needed
    /// to close open slots).
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

/// Generates a random tree with root of type `root` (or a subtype).
pub fn random_tree(
    program: &Program,
    root: TypeId,
    options: &GenOptions,
) -> Result<Tree, GenError> {
    let sizes = min_sizes(program);
    if sizes[root.index()].is_none() {
        return Err(GenError(format!(
            "no finite tree has a root of type `{}`: every choice needs an endless chain of children",
            program.type_name(root)
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut tree = Tree::new();
    let mut queue: VecDeque<(Option<Destination>, TypeId, usize)> = VecDeque::new();
    queue.push_back((None, root, 0));
    let mut made = 0usize;
    while let Some((dest, expected, depth)) = queue.pop_front() {
        let candidates: Vec<TypeId> = program.types[expected.index()]
            .concrete_subtypes
            .iter()
            .copied()
            .filter(|c| sizes[c.index()].is_some())
            .collect();
        let spent = made >= options.nodes || depth >= options.max_depth;
        let ty = if spent {
            *candidates
                .iter()
                .min_by_key(|c| sizes[c.index()])
                .unwrap_or(&candidates[0])
        } else {
            candidates[rng.gen_range(0..candidates.len())]
        };
        let node = tree.alloc(program, ty);
        made += 1;
        match dest {
            None => tree.root = node,
            Some((parent, slot, usize::MAX)) => *tree.slot_mut(parent, slot) = Slot::Child(node),
            Some((parent, slot, i)) => {
                if let Slot::List(items) = tree.slot_mut(parent, slot) {
                    if let Some(items) = Arc::get_mut(items) {
                        items[i] = node;
                    }
                }
            }
        }
        for (pos, f) in program.types[ty.index()].fields.iter().enumerate() {
            let field = &program.fields[f.index()];
            match &field.kind {
                FieldKind::Data(dt) => {
                    *tree.slot_mut(node, pos as u32) =
                        Slot::Data(random_value(program, dt, &mut rng));
                }
                FieldKind::Child(c) => {
                    queue.push_back((Some((node, pos as u32, usize::MAX)), *c, depth + 1))
                }
                FieldKind::List(c) => {
                    let len = if spent || options.max_list == 0 {
                        0
                    } else {
                        rng.gen_range(0..=options.max_list)
                    };
                    *tree.slot_mut(node, pos as u32) = Slot::List(vec![node; len].into());
                    for i in 0..len {
                        queue.push_back((Some((node, pos as u32, i)), *c, depth + 1));
                    }
                }
            }
        }
    }
    Ok(tree.compact(program))
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
        DataType::Record(r) => Value::Record(Arc::new(
            program.records[r.index()]
                .fields
                .iter()
                .map(|f| random_value(program, &f.ty, rng))
                .collect(),
        )),
    }
}
