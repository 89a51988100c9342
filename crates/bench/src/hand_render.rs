//! The render tree's five passes fused by hand: the baseline that generated
//! fusion is measured against (issue: "generated fused code within 10% of
//! the hand-fused version").
//!
//! It works on the same generated `render::Tree` (same node layout, same
//! arenas) so that the comparison isolates the traversal code, and it
//! computes exactly what `examples/render/render.tf` computes (the
//! `hand_fused_render_matches_unfused` test checks every field and global).
//!
//! The schedule is the one an expert writes once they see the dependences:
//! the page list is walked with a loop, and each page is visited twice while
//! its subtree is still in cache:
//!
//! 1. *fonts down, flexible widths up*: `set_font` is top-down, and
//!    `resolve_flex_widths` is bottom-up, so one pre/post-order walk does
//!    both;
//! 2. *relative widths down, heights up, positions down*: a node's relative
//!    width needs its parent's final width (walk 1 for the page, this walk
//!    for containers), its height needs its own width and its children's
//!    heights, and a list element's position needs the width or height of
//!    the element before it, which this walk finishes before moving on.
//!
//! A page in relative-width mode logs `rel_error` and skips relative widths
//! below it (`p_width` is `None`), as the pass's `return` does.
//! Within a page the walks recurse (pages are shallow); only the page list,
//! whose length is the input size, is iterated.

use crate::render::{
    ElementId, ElementKind, ElementListNodeId, ElementListNodeKind, FontInfo, Globals,
    HorizontalContainerId, HorizontalContainerListNodeId, HorizontalContainerListNodeKind,
    ListItem, PageId, PageListNodeKind, Tree,
};

/// Integer division or remainder by zero, the one runtime error the passes
/// can raise (in a text box's or list's height).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DivisionByZero;

impl std::fmt::Display for DivisionByZero {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("integer division or remainder by zero (an element of width 0)")
    }
}

type Result<T> = std::result::Result<T, DivisionByZero>;

/// Runs the five render passes, fused by hand, on `t`.
pub fn run(t: &mut Tree, g: &mut Globals) -> Result<()> {
    let Some(doc) = t.root.document() else {
        return Ok(());
    };
    let doc_font = t[doc].font_style.clone();
    let mut list = t[doc].page_list;
    loop {
        let node = &t[list];
        let (page, kind, next) = (node.content, node.kind, node.next_page);
        layout_page(t, g, page, &doc_font)?;
        match kind {
            PageListNodeKind::PageListInner => list = next,
            PageListNodeKind::PageListEnd => return Ok(()),
        }
    }
}

/// Fills the unset parts of `own` from `parent`; returns the result.
#[inline]
fn inherit_font(own: &mut FontInfo, parent: &FontInfo, unset: i64) -> FontInfo {
    if own.size == unset {
        own.size = parent.size;
    }
    if own.color == unset {
        own.color = parent.color;
    }
    if own.font_type == unset {
        own.font_type = parent.font_type;
    }
    own.clone()
}

fn layout_page(t: &mut Tree, g: &mut Globals, page: PageId, parent_font: &FontInfo) -> Result<()> {
    let font = inherit_font(&mut t[page].font_style, parent_font, g.unset);
    let list = t[page].horiz_list;
    let max_width = hlist_fonts_and_flex(t, g, list, &font);
    if t[page].wmode == g.flex {
        t[page].width = max_width;
    }
    let p_width = if t[page].wmode == g.rel {
        g.rel_error = true;
        None
    } else {
        Some(t[page].width)
    };
    t[page].pos_x = 0;
    t[page].pos_y = 0;
    t[page].height = hlist_layout(t, g, list, p_width, 0, 0)?;
    Ok(())
}

/// Walk 1 over a horizontal-container list; returns its `max_width`.
fn hlist_fonts_and_flex(
    t: &mut Tree,
    g: &mut Globals,
    list: HorizontalContainerListNodeId,
    font: &FontInfo,
) -> i64 {
    let hc = t[list].content;
    hc_fonts_and_flex(t, g, hc, font);
    let content_width = t[hc].width;
    let max_width = match t[list].kind {
        HorizontalContainerListNodeKind::HorizontalContainerListInner => {
            let rest = hlist_fonts_and_flex(t, g, t[list].next, font);
            content_width.max(rest)
        }
        HorizontalContainerListNodeKind::HorizontalContainerListEnd => content_width,
    };
    t[list].max_width = max_width;
    max_width
}

fn hc_fonts_and_flex(t: &mut Tree, g: &mut Globals, hc: HorizontalContainerId, parent: &FontInfo) {
    let font = inherit_font(&mut t[hc].font_style, parent, g.unset);
    let width = elist_fonts_and_flex(t, g, t[hc].elements_list, &font);
    if t[hc].wmode == g.flex {
        t[hc].width = width;
    }
}

/// Walk 1 over an element list; returns its `accumulated_width`.
fn elist_fonts_and_flex(
    t: &mut Tree,
    g: &mut Globals,
    list: ElementListNodeId,
    font: &FontInfo,
) -> i64 {
    let e = t[list].content;
    element_fonts_and_flex(t, g, e, font);
    let width = match t[list].kind {
        ElementListNodeKind::ElementListInner => {
            let rest = elist_fonts_and_flex(t, g, t[list].next, font);
            t[e].width.wrapping_add(rest)
        }
        ElementListNodeKind::ElementListEnd => t[e].width,
    };
    t[list].accumulated_width = width;
    width
}

fn element_fonts_and_flex(t: &mut Tree, g: &mut Globals, e: ElementId, parent: &FontInfo) {
    let font = inherit_font(&mut t[e].font_style, parent, g.unset);
    let flex = t[e].wmode == g.flex;
    if t[e].kind == ElementKind::VerticalContainer {
        let width = hlist_fonts_and_flex(t, g, t[e].horiz_list, &font);
        if flex {
            t[e].width = width;
        }
    } else if flex {
        g.flex_error = true;
    }
}

/// A box's relative width: `to_i64(rel_width * to_f64(p_width))` when it is
/// in relative mode and its parent's width is known (`None` below a page
/// that skipped the pass). Returns the width its children see.
#[inline]
fn resolve_relative(
    width: &mut i64,
    wmode: i64,
    rel_width: f64,
    p_width: Option<i64>,
    g: &Globals,
) -> Option<i64> {
    let pw = p_width?;
    if wmode == g.rel {
        *width = (rel_width * pw as f64) as i64;
    }
    Some(*width)
}

/// Walk 2 over a horizontal-container list at `(x, y)`; returns its
/// `aggregated_height`.
fn hlist_layout(
    t: &mut Tree,
    g: &mut Globals,
    list: HorizontalContainerListNodeId,
    p_width: Option<i64>,
    x: i64,
    y: i64,
) -> Result<i64> {
    let hc = t[list].content;
    hc_layout(t, g, hc, p_width, x, y)?;
    let height = t[hc].height;
    let aggregated = match t[list].kind {
        HorizontalContainerListNodeKind::HorizontalContainerListInner => {
            let rest = hlist_layout(t, g, t[list].next, p_width, x, y.wrapping_add(height))?;
            height.wrapping_add(rest)
        }
        HorizontalContainerListNodeKind::HorizontalContainerListEnd => height,
    };
    t[list].aggregated_height = aggregated;
    Ok(aggregated)
}

fn hc_layout(
    t: &mut Tree,
    g: &mut Globals,
    hc: HorizontalContainerId,
    p_width: Option<i64>,
    x: i64,
    y: i64,
) -> Result<()> {
    let node = &mut t[hc];
    let child_width = resolve_relative(&mut node.width, node.wmode, node.rel_width, p_width, g);
    node.pos_x = x;
    node.pos_y = y;
    let list = node.elements_list;
    t[hc].height = elist_layout(t, g, list, child_width, x, y)?;
    Ok(())
}

/// Walk 2 over an element list at `(x, y)`; returns its `max_height`.
fn elist_layout(
    t: &mut Tree,
    g: &mut Globals,
    list: ElementListNodeId,
    p_width: Option<i64>,
    x: i64,
    y: i64,
) -> Result<i64> {
    let e = t[list].content;
    element_layout(t, g, e, p_width, x, y)?;
    let height = t[e].height;
    let max_height = match t[list].kind {
        ElementListNodeKind::ElementListInner => {
            let next_x = x.wrapping_add(t[e].width);
            let rest = elist_layout(t, g, t[list].next, p_width, next_x, y)?;
            if height >= rest {
                height
            } else {
                rest
            }
        }
        ElementListNodeKind::ElementListEnd => height,
    };
    t[list].max_height = max_height;
    Ok(max_height)
}

fn element_layout(
    t: &mut Tree,
    g: &mut Globals,
    e: ElementId,
    p_width: Option<i64>,
    x: i64,
    y: i64,
) -> Result<()> {
    let node = &mut t[e];
    let child_width = resolve_relative(&mut node.width, node.wmode, node.rel_width, p_width, g);
    node.pos_x = x;
    node.pos_y = y;
    let metrics = g.font_metrics;
    let height = match node.kind {
        ElementKind::TextBox => {
            let size = node.font_style.size;
            if size == g.unset {
                g.font_error = true;
            }
            let space = node.text_length().wrapping_mul(size).wrapping_mul(metrics);
            let lines = ceil_div(space, node.width)?;
            lines.wrapping_mul(size.wrapping_mul(2).wrapping_mul(metrics))
        }
        ElementKind::List => {
            let size = node.font_style.size;
            if size == g.unset {
                g.font_error = true;
            }
            list_height(&node.items, size, node.item_margin(), node.width, metrics)?
        }
        ElementKind::Image => {
            (node.width as f64 * (node.image_original_height / node.image_original_width)) as i64
        }
        ElementKind::VerticalContainer => {
            let list = node.horiz_list;
            hlist_layout(t, g, list, child_width, x, y)?
        }
    };
    t[e].height = height;
    Ok(())
}

/// `a / b`, plus one if there is a remainder (wrapping, as the language).
#[inline]
fn ceil_div(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(DivisionByZero);
    }
    let q = a.wrapping_div(b);
    Ok(if a.wrapping_rem(b) != 0 {
        q.wrapping_add(1)
    } else {
        q
    })
}

fn list_height(
    items: &[ListItem],
    size: i64,
    margin: i64,
    width: i64,
    metrics: i64,
) -> Result<i64> {
    let mut height: i64 = 0;
    for item in items {
        let space = item
            .length
            .wrapping_mul(size)
            .wrapping_mul(metrics)
            .wrapping_add(margin);
        height = height.wrapping_add(ceil_div(space, width)?);
    }
    Ok(height)
}

#[cfg(test)]
mod tests {
    //! The hand-fused passes must compute exactly what the program does:
    //! checked against the generated unfused code on the case-study
    //! documents and on random trees (where width-0 text boxes make both
    //! fail).
    use super::*;
    use crate::render;

    fn agree(tree: &Tree, what: &str) -> bool {
        let (mut ut, mut ug) = (tree.clone(), Globals::default());
        let unfused = render::run_render_unfused(&mut ut, &mut ug);
        let (mut ht, mut hg) = (tree.clone(), Globals::default());
        let hand = run(&mut ht, &mut hg);
        assert_eq!(
            unfused.is_ok(),
            hand.is_ok(),
            "{what}: error behaviour differs"
        );
        if unfused.is_ok() {
            assert!(ut == ht, "{what}: trees differ");
            assert_eq!(ug, hg, "{what}: globals differ");
        }
        unfused.is_ok()
    }

    #[test]
    fn hand_fused_render_matches_unfused_on_the_case_study_documents() {
        let schema = render::schema();
        for (variant, size) in [(1, 1), (1, 7), (1, 120), (2, 4), (3, 5), (3, 7)] {
            let json = treefuse_casegen::generate_string("render", variant, size, 11)
                .expect("the generator accepts these sizes");
            let tree = render::read_json(&schema, "Document", &json).expect("generated JSON reads");
            assert!(
                agree(&tree, &format!("document {variant} / {size}")),
                "no runtime error expected"
            );
        }
    }

    #[test]
    fn hand_fused_render_matches_unfused_on_random_trees() {
        let schema = render::schema();
        let root = schema
            .type_named("Document")
            .expect("render.tf has a Document type");
        let (mut ok, mut failed) = (0, 0);
        for seed in 0..400 {
            let options = treefuse_runtime::GenOptions {
                nodes: 20 + (seed as usize % 7) * 25,
                seed,
                ..Default::default()
            };
            let rt =
                treefuse_runtime::random_tree(&schema, root, &options).expect("finite trees exist");
            let tree = Tree::from_runtime(&rt);
            if agree(&tree, &format!("random tree seed {seed}")) {
                ok += 1;
            } else {
                failed += 1;
            }
        }
        assert!(
            ok > 20 && failed > 20,
            "both outcomes exercised: {ok} ok, {failed} failed"
        );
    }
}
