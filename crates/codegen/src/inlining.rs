//! Which fused functions and fused dispatchers are `#[inline(always)]`.
//!
//! Fused code is a web of mutually recursive functions: a dispatcher per
//! fused call matches the node's kind and calls the fused function of its
//! concrete type, which calls dispatchers on the node's children. Where
//! every one of them is only `#[inline]`, LLVM breaks the recursion
//! cycles where its cost model happens to stop, not where a person
//! would: in the render case study it kept a function per element visit
//! and called it, with every argument, from each element-list node (a
//! dispatcher over four element types with two call sites is too big for
//! its threshold), while a hand-written version inlines the element visit
//! into its list walk and keeps one function per list.
//!
//! So the generator chooses. It takes the call graph of the fused items
//! (an item calls every other item it names), walks it depth first from
//! the items nothing calls, and keeps a real function where a call goes
//! back to an item still on the walk's path: the entry of each recursion
//! cycle, in practice the dispatcher of a list's or a recursive child's
//! next node. Every other item is `#[inline(always)]`: it is written out
//! into each caller, so each recursion step is one call between two kept
//! functions, as in hand-written code. An item called from several places
//! stays `#[inline]` (LLVM decides) when what it would copy into each of
//! them, itself and the always-inlined items below it, exceeds
//! [`COPY_BUDGET`] tokens, so the code cannot grow much: an item called
//! once is never copied.
//!
//! The choice changes attributes only; the code, and so its behaviour, is
//! the same either way.
//!
//! Measured alternatives for large merged code (minic's chunk 1, nine
//! passes per visit; `crates/bench/results/icache`): leaving every item
//! to LLVM (`#[inline]`) or keeping the items left here out of line
//! (`#[inline(never)]`) moves the simulated instruction-cache misses by
//! 2% either way, and sampling the real run shows those misses cost
//! little, so the policy stays the one above.

use proc_macro2::{Ident, TokenStream, TokenTree};
use std::collections::HashMap;

/// The most tokens an item called from more than one place may have,
/// with the always-inlined items below it, and still be written into
/// each caller (the render case study's largest is about 1,500: the
/// element dispatcher with the four element visits).
const COPY_BUDGET: usize = 4000;

/// For each named item (fused functions and dispatchers), whether it is
/// `#[inline(always)]` (see the module docs).
/// Items marked in `left` are never always-inlined (calls to them stay
/// calls unless the compiler inlines them).
pub(crate) fn always_inline(items: &[(Ident, TokenStream)], left: &[bool]) -> Vec<bool> {
    let index: HashMap<String, usize> = items
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.to_string(), i))
        .collect();
    let n = items.len();
    let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut size = vec![0usize; n];
    for (i, (_, code)) in items.iter().enumerate() {
        let mut own = 0;
        size[i] = scan(code, &index, i, &mut own, &mut callees[i]);
        // The first mention of its own name is the item's definition.
        if own > 1 {
            callees[i].push(i);
        }
    }
    let mut callers = vec![0usize; n];
    for cs in &callees {
        for &c in cs {
            callers[c] += 1;
        }
    }
    let kept = cycle_entries(&callees, &callers);
    let mut decided: Vec<Option<(bool, usize)>> = vec![None; n];
    (0..n)
        .map(|i| decide(i, &callees, &callers, &kept, left, &size, &mut decided).0)
        .collect()
}

/// Records in `callees` (once each, in order) the other items that
/// `code`, item `this`, names, and counts in `own` how often it names
/// itself; returns `code`'s number of tokens.
fn scan(
    code: &TokenStream,
    index: &HashMap<String, usize>,
    this: usize,
    own: &mut usize,
    callees: &mut Vec<usize>,
) -> usize {
    let mut tokens = 0;
    for tt in code.clone() {
        tokens += 1;
        match tt {
            TokenTree::Ident(id) => match index.get(&id.to_string()) {
                Some(&c) if c == this => *own += 1,
                Some(&c) if !callees.contains(&c) => callees.push(c),
                _ => {}
            },
            TokenTree::Group(g) => tokens += scan(&g.stream(), index, this, own, callees),
            _ => {}
        }
    }
    tokens
}

/// The items a depth-first walk of the call graph (from the items
/// nothing calls, then from any not reached yet, in order) finds a call
/// back to while they are on its path: one per recursion cycle at least.
/// An item naming itself (a dispatcher's stack check runs it again) is
/// one too.
fn cycle_entries(callees: &[Vec<usize>], callers: &[usize]) -> Vec<bool> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    let n = callees.len();
    let mut state = vec![State::New; n];
    let mut kept = vec![false; n];
    let starts = (0..n)
        .filter(|&i| callers[i] == 0)
        .chain((0..n).filter(|&i| callers[i] > 0));
    for start in starts {
        if state[start] != State::New {
            continue;
        }
        // (item, index of its next callee to look at)
        let mut path = vec![(start, 0usize)];
        state[start] = State::OnPath;
        while let Some(top) = path.last_mut() {
            let (item, next) = *top;
            match callees[item].get(next) {
                Some(&c) => {
                    top.1 += 1;
                    match state[c] {
                        State::New => {
                            state[c] = State::OnPath;
                            path.push((c, 0));
                        }
                        State::OnPath => kept[c] = true,
                        State::Done => {}
                    }
                }
                None => {
                    state[item] = State::Done;
                    path.pop();
                }
            }
        }
    }
    kept
}

/// Whether item `i` is always inlined, and the tokens that writing it
/// out copies: itself and the always-inlined items below it (calls to
/// the others stay calls). Memoized in `decided`. The recursion follows
/// edges into items that are not kept, which form no cycle (every cycle
/// enters a kept item), so it is as deep as the longest such chain.
fn decide(
    i: usize,
    callees: &[Vec<usize>],
    callers: &[usize],
    kept: &[bool],
    left: &[bool],
    size: &[usize],
    decided: &mut Vec<Option<(bool, usize)>>,
) -> (bool, usize) {
    if let Some(d) = decided[i] {
        return d;
    }
    let mut copy = size[i];
    for &c in &callees[i] {
        if !kept[c] {
            let (always, c_copy) = decide(c, callees, callers, kept, left, size, decided);
            if always {
                copy = copy.saturating_add(c_copy);
            }
        }
    }
    let d = (
        !kept[i] && !left[i] && (callers[i] <= 1 || copy <= COPY_BUDGET),
        copy,
    );
    decided[i] = Some(d);
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{format_ident, quote};

    fn items(calls: &[(&str, &[&str])]) -> Vec<(Ident, TokenStream)> {
        calls
            .iter()
            .map(|(name, cs)| {
                let name = format_ident!("{}", name);
                let cs = cs.iter().map(|c| format_ident!("{}", c));
                (name.clone(), quote!(fn #name() { #(#cs();)* }))
            })
            .collect()
    }

    #[test]
    fn a_list_walk_keeps_the_list_dispatcher_and_inlines_the_rest() {
        // list -> inner -> { elem, list }, list -> end -> elem,
        // elem -> a | b, b -> list (a nested list)
        let it = items(&[
            ("list", &["inner", "end"]),
            ("inner", &["elem", "list"]),
            ("end", &["elem"]),
            ("elem", &["a", "b"]),
            ("a", &[]),
            ("b", &["list"]),
        ]);
        assert_eq!(
            always_inline(&it, &vec![false; it.len()]),
            vec![false, true, true, true, true, true]
        );
    }

    #[test]
    fn a_self_naming_item_is_kept() {
        let it = items(&[("root", &["d"]), ("d", &["d", "f"]), ("f", &[])]);
        assert_eq!(
            always_inline(&it, &vec![false; it.len()]),
            vec![true, false, true]
        );
    }

    #[test]
    fn a_large_item_with_several_callers_is_left_to_the_compiler() {
        let big: Vec<&str> = vec!["x"; COPY_BUDGET];
        let mut it = items(&[("a", &["big"]), ("b", &["big"]), ("root", &["a", "b"])]);
        let body = big.iter().map(|s| format_ident!("{}", s));
        it.push((format_ident!("big"), quote!(fn big() { #(#body;)* })));
        assert_eq!(
            always_inline(&it, &vec![false; it.len()]),
            vec![true, true, true, false]
        );
    }
}
