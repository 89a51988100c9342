//! Child results forwarded to the caller: a fused call on a child returns
//! the final value of one data slot of the child, which its caller reads
//! right after the call (`self.next.max_width` after
//! `self.next.resolve_flex_widths()`), so the caller uses the returned
//! value instead of indexing the child's arena again (a bounds check, two
//! loads and a register the call must preserve), as hand-written code
//! returns a list's aggregate.
//!
//! Which slot: fused functions are generated once as before; each call of
//! a fused dispatcher on a hoisted child (`let next_id = t[this].next`)
//! votes for the slots its caller then reads (`t[next_id].SLOT`) before
//! anything could change them; a target list returns its most read slot
//! if it is a copyable data slot and every function of the list can return
//! that slot (a function in several lists returns one slot only). The
//! functions are then generated again: the callee ends with
//! `Ok(t[this].SLOT)` (the value the caller would read: the dispatcher
//! returns right after it), the caller binds the call's value (or, when
//! the call is skipped, the slot's current value) and [`Reads`] replaces
//! the reads that follow, up to the first token that may change the slot
//! or the child (a write or a deeper access of the slot, any other use of
//! the child's local, another read of the child slot of the receiver,
//! rewriting, a `&mut` borrow of the tree). Loops and branches are left
//! whole when they contain such a token.
//!
//! Programs that rewrite in place, take sites or resume participants are
//! left as they were.

use proc_macro2::{Delimiter, Group, Ident, Spacing, TokenStream, TokenTree};
use std::collections::BTreeMap;

use crate::gen::{Forwarded, Forwarding};

/// A scan of the code after a fused call on a child (`local` holds the
/// child's id, `field` names the receiver's child slot): counts the reads
/// of the child's slots (all of them, or `slot` only) and, with `ret`,
/// replaces the reads of `slot` by `ret`.
pub(crate) struct Reads<'a> {
    pub local: &'a str,
    pub field: &'a str,
    pub slot: Option<&'a str>,
    pub ret: Option<&'a Ident>,
    pub counts: BTreeMap<String, usize>,
}

fn is_ident(t: Option<&TokenTree>, name: &str) -> bool {
    matches!(t, Some(TokenTree::Ident(i)) if i == name)
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Whether the tokens after a place (`t[x].slot`) make it more than a
/// read: an assignment (`=`, `+=`, ..) or a shift assignment. A method
/// call on the value (`.wrapping_add(..)`) reads it: forwarded slots are
/// scalars (`is_copy`), which have no fields and no methods that change
/// them in generated code.
fn not_a_read(next: Option<&TokenTree>, after: Option<&TokenTree>) -> bool {
    match next {
        Some(TokenTree::Punct(p)) => match p.as_char() {
            '=' => p.spacing() == Spacing::Alone,
            '+' | '-' | '*' | '/' | '%' | '^' | '&' | '|' => {
                p.spacing() == Spacing::Joint && is_punct(after, '=')
            }
            '<' | '>' => p.spacing() == Spacing::Joint && !is_punct(after, '='),
            _ => false,
        },
        _ => false,
    }
}

impl Reads<'_> {
    /// Appends `tokens` to `out` with the reads replaced; false where a
    /// token that may change the slot or the child comes (the caller
    /// then keeps its statement as it was and stops).
    fn level(&mut self, tokens: &[TokenTree], out: &mut Vec<TokenTree>) -> bool {
        let mut i = 0;
        while i < tokens.len() {
            let tt = &tokens[i];
            if is_ident(Some(tt), "t") {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
                    if g.delimiter() == Delimiter::Bracket {
                        let index = g.stream().to_string();
                        let member = match (tokens.get(i + 2), tokens.get(i + 3)) {
                            (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(m)))
                                if p.as_char() == '.' =>
                            {
                                Some(m.to_string())
                            }
                            _ => None,
                        };
                        if index == self.local {
                            let Some(member) = member else {
                                return false;
                            };
                            if self.slot.is_none_or(|s| s == member) {
                                if not_a_read(tokens.get(i + 4), tokens.get(i + 5)) {
                                    return false;
                                }
                                *self.counts.entry(member).or_default() += 1;
                                match self.ret {
                                    Some(ret) => out.push(TokenTree::Ident(ret.clone())),
                                    None => out.extend(tokens[i..i + 4].iter().cloned()),
                                }
                            } else {
                                out.extend(tokens[i..i + 4].iter().cloned());
                            }
                            i += 4;
                            continue;
                        }
                        if index == "this" && member.as_deref() == Some(self.field) {
                            return false;
                        }
                    }
                }
            }
            match tt {
                TokenTree::Ident(id) => {
                    let id = id.to_string();
                    if id == self.local
                        || ["Replaced", "Site", "OpenList"].contains(&id.as_str())
                        || (id == "mut" && is_ident(tokens.get(i + 1), "t"))
                    {
                        return false;
                    }
                    out.push(tt.clone());
                }
                TokenTree::Group(g) => {
                    let saved = self.counts.clone();
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    let mut replaced = Vec::new();
                    if !self.level(&inner, &mut replaced) {
                        // A loop or branch that may change the slot is
                        // left whole.
                        self.counts = saved;
                        return false;
                    }
                    let mut ng = Group::new(g.delimiter(), replaced.into_iter().collect());
                    ng.set_span(g.span());
                    out.push(TokenTree::Group(ng));
                }
                _ => out.push(tt.clone()),
            }
            i += 1;
        }
        true
    }

    /// Scans `tokens` (the code after the call) statement by statement
    /// (up to a `;` or a `{..}`); returns them with the reads replaced in
    /// the statements before the first that may change the slot.
    pub fn scan(&mut self, tokens: &[TokenTree]) -> Vec<TokenTree> {
        let mut out = Vec::new();
        let mut done = 0;
        for end in 1..=tokens.len() {
            let last = &tokens[end - 1];
            let ends_statement = is_punct(Some(last), ';')
                || matches!(last, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
            if end < tokens.len() && !ends_statement {
                continue;
            }
            let counts = self.counts.clone();
            let mut piece = Vec::new();
            if !self.level(&tokens[done..end], &mut piece) {
                self.counts = counts;
                break;
            }
            out.extend(piece);
            done = end;
        }
        out.extend(tokens[done..].iter().cloned());
        out
    }
}

/// A call on a hoisted child found in generated code: (index of the call's
/// group, child slot, dispatcher name).
type ChildCall = (usize, String, String);

/// In a fused function's body: the calls on hoisted children, and the
/// hoisted child locals (slot to local) that the function never assigns.
pub(crate) fn child_calls(body: &[TokenTree]) -> (Vec<ChildCall>, BTreeMap<String, String>) {
    let mut locals = BTreeMap::new();
    let mut calls = Vec::new();
    for (i, tt) in body.iter().enumerate() {
        // `let LOCAL = t[this].FIELD;`
        if is_ident(Some(tt), "let") {
            if let (
                Some(TokenTree::Ident(local)),
                true,
                true,
                Some(TokenTree::Group(g)),
                true,
                Some(TokenTree::Ident(field)),
            ) = (
                body.get(i + 1),
                is_punct(body.get(i + 2), '='),
                is_ident(body.get(i + 3), "t"),
                body.get(i + 4),
                is_punct(body.get(i + 5), '.'),
                body.get(i + 6),
            ) {
                if g.stream().to_string() == "this" && local != "child" {
                    locals.insert(field.to_string(), local.to_string());
                }
            }
        }
        if let TokenTree::Group(g) = tt {
            if g.delimiter() == Delimiter::Brace {
                if let Some((field, disp)) = call_in(g.stream()) {
                    calls.push((i, field, disp));
                }
            }
        }
    }
    (calls, locals)
}

/// The child slot and dispatcher of the call in a call group:
/// `let child = t[this].FIELD; DISP(..)`.
fn call_in(ts: TokenStream) -> Option<(String, String)> {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    for (i, tt) in tokens.iter().enumerate() {
        if is_ident(Some(tt), "let") && is_ident(tokens.get(i + 1), "child") {
            if let (Some(TokenTree::Ident(field)), Some(TokenTree::Ident(disp))) =
                (tokens.get(i + 6), tokens.get(i + 8))
            {
                return Some((field.to_string(), disp.to_string()));
            }
        }
        if let TokenTree::Group(g) = tt {
            if let Some(found) = call_in(g.stream()) {
                return Some(found);
            }
        }
    }
    None
}

impl crate::gen::Gen<'_> {
    /// Decides which slot each target list's fused calls return (see the
    /// module docs), from the fused functions generated without.
    pub(crate) fn plan_forwarding(&self) {
        use treefuse_sema::FieldKind;
        *self.forwarding.borrow_mut() = Forwarding::default();
        let fused = &self.fused.functions;
        let rewrites = (0..fused.len()).any(|fi| {
            self.rw.fused_replaces[fi] || self.rw.fused_site[fi] || !fused[fi].resume.is_empty()
        });
        if rewrites {
            return;
        }
        let mut by_name: BTreeMap<String, &Vec<_>> = BTreeMap::new();
        for (targets, name) in &self.fused_disp {
            by_name.insert(name.to_string(), targets);
        }
        for ((targets, _), name) in &self.fused_disp_known {
            by_name.insert(name.to_string(), targets);
        }
        let mut votes: BTreeMap<Vec<_>, BTreeMap<String, usize>> = BTreeMap::new();
        let mut assigns: Vec<Vec<String>> = vec![Vec::new(); fused.len()];
        for (fi, f) in fused.iter().enumerate() {
            let item: Vec<TokenTree> = self.fused_fn(fi, f).into_iter().collect();
            let Some(TokenTree::Group(body)) = item.last() else {
                continue;
            };
            assigns[fi] = assigned_slots(body.stream());
            let body: Vec<TokenTree> = body.stream().into_iter().collect();
            let (calls, locals) = child_calls(&body);
            for (at, field, disp) in calls {
                let (Some(local), Some(targets)) = (locals.get(&field), by_name.get(&disp)) else {
                    continue;
                };
                let mut reads = Reads {
                    local,
                    field: &field,
                    slot: None,
                    ret: None,
                    counts: BTreeMap::new(),
                };
                reads.scan(&body[at + 1..]);
                let v = votes.entry((*targets).clone()).or_default();
                for (slot, n) in reads.counts {
                    *v.entry(slot).or_default() += n;
                }
            }
        }
        // Per target list: its most read copyable data slot that all its
        // functions assign (returning a slot the callee does not compute
        // costs it a load that the caller's read would have cost).
        let mut chosen: BTreeMap<Vec<_>, Forwarded> = BTreeMap::new();
        for (targets, v) in votes {
            let Some((first_ty, _)) = targets.first() else {
                continue;
            };
            let h = self.hier(*first_ty);
            let best = v
                .iter()
                .filter(|(slot, _)| {
                    targets
                        .iter()
                        .all(|(_, f)| assigns[f.index()].contains(slot))
                })
                .filter_map(|(slot, n)| {
                    let s = h.slots.iter().find(|s| s.name == slot)?;
                    let f = s.fields.first()?;
                    match &self.p.fields[f.index()].kind {
                        FieldKind::Data(d) if crate::gen::is_copy(d) => {
                            Some((*n, slot, s.name.clone(), self.data_type(d)))
                        }
                        _ => None,
                    }
                })
                .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(a.1)));
            if let Some((_, _, slot, ty)) = best {
                chosen.insert(targets, Forwarded { slot, ty });
            }
        }
        // A function returns a slot when every list it is in returns that
        // slot, and a list when all its functions do: drop lists until
        // both hold.
        let lists: Vec<&Vec<_>> = self
            .fused_disp
            .keys()
            .chain(self.fused_disp_known.keys().map(|(targets, _)| targets))
            .collect();
        let mut by_fn: BTreeMap<usize, Forwarded>;
        loop {
            let mut fns: BTreeMap<usize, Option<Forwarded>> = BTreeMap::new();
            for targets in &lists {
                let fw = chosen.get(*targets);
                for (_, f) in targets.iter() {
                    let e = fns.entry(f.index()).or_insert_with(|| fw.cloned());
                    if !matches!((&*e, fw), (Some(a), Some(b)) if a.slot == b.slot) {
                        *e = None;
                    }
                }
            }
            by_fn = fns
                .into_iter()
                .filter_map(|(f, fw)| Some((f, fw?)))
                .collect();
            let before = chosen.len();
            chosen.retain(|targets, fw| {
                targets
                    .iter()
                    .all(|(_, f)| by_fn.get(&f.index()).is_some_and(|g| g.slot == fw.slot))
            });
            if chosen.len() == before {
                break;
            }
        }
        let by_targets = chosen;
        *self.forwarding.borrow_mut() = Forwarding { by_targets, by_fn };
    }
}

impl crate::gen::Gen<'_> {
    /// A fused function's code with the reads after each bound call
    /// (`let RET = {..};`, `forwarded`: RET, child slot, returned slot)
    /// replaced by RET; RET becomes `_` where nothing reads it. Children
    /// the function assigns are left alone.
    pub(crate) fn forward_reads(
        &self,
        code: TokenStream,
        forwarded: &[(Ident, treefuse_sema::FieldId, String)],
        children: &[crate::gen::HoistedChild],
    ) -> TokenStream {
        if forwarded.is_empty() {
            return code;
        }
        let mut tokens: Vec<TokenTree> = code.into_iter().collect();
        for (ret, field, slot) in forwarded {
            let Some(at) = (0..tokens.len()).find(|&i| {
                is_ident(tokens.get(i), "let") && is_ident(tokens.get(i + 1), &ret.to_string())
            }) else {
                continue;
            };
            // `let RET = {..};`
            let after = at + 5;
            // A child the function assigns or names other than by
            // indexing (an alias, `let n = self.next;`, may write its
            // slots under another name) is left alone.
            let local = children
                .iter()
                .find(|h| h.field == *field && !h.written)
                .map(|h| h.local.to_string())
                .filter(|local| only_indexed(&tokens, local));
            let mut read = false;
            if let (Some(local), true) = (local, after <= tokens.len()) {
                let name = self.field[field.index()].to_string();
                let mut reads = Reads {
                    local: &local,
                    field: &name,
                    slot: Some(slot),
                    ret: Some(ret),
                    counts: BTreeMap::new(),
                };
                let rest = reads.scan(&tokens[after..]);
                read = reads.counts.values().any(|&n| n > 0);
                tokens.truncate(after);
                tokens.extend(rest);
            }
            if !read {
                tokens[at + 1] = TokenTree::Ident(Ident::new("_", ret.span()));
            }
        }
        tokens.into_iter().collect()
    }
}

/// The receiver's slots that `ts` assigns (`t[this].SLOT = ..`).
fn assigned_slots(ts: TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::new();
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => out.extend(assigned_slots(g.stream())),
            TokenTree::Ident(t) if t == "t" => {
                if let (Some(TokenTree::Group(g)), true, Some(TokenTree::Ident(slot))) = (
                    tokens.get(i + 1),
                    is_punct(tokens.get(i + 2), '.'),
                    tokens.get(i + 3),
                ) {
                    if g.delimiter() == Delimiter::Bracket
                        && g.stream().to_string() == "this"
                        && not_a_read(tokens.get(i + 4), tokens.get(i + 5))
                    {
                        out.push(slot.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `local` occurs in `tokens` only as an index (`t[local]`).
fn only_indexed(tokens: &[TokenTree], local: &str) -> bool {
    tokens.iter().enumerate().all(|(i, tt)| match tt {
        TokenTree::Ident(id) => id != local,
        TokenTree::Group(g) => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let indexed = g.delimiter() == Delimiter::Bracket
                && inner.len() == 1
                && is_ident(inner.first(), local)
                && i > 0
                && is_ident(tokens.get(i - 1), "t");
            indexed || only_indexed(&inner, local)
        }
        _ => true,
    })
}
