//! Render-tree documents 1, 2 and 3 (DocBuilder.h of the reference).
//!
//! JSON shape: see `examples/render/render.tf` (linked lists) and
//! `examples/render/render_lists.tf` (list children; same field names, with
//! arrays in place of the `*ListInner`/`*ListEnd` chains).

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::out::{self, Chain, Out};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Linked,
    Lists,
}

// Measure modes (the C++ enum MEASURE_MODE { ABS, REL, FLEX }).
const ABS: i64 = 0;
const REL: i64 = 1;
const FLEX: i64 = 2;

const PAGES: Chain = Chain {
    inner: "PageListInner",
    end: "PageListEnd",
    content: "content",
    next: "next_page",
};
const HCS: Chain = Chain {
    inner: "HorizontalContainerListInner",
    end: "HorizontalContainerListEnd",
    content: "content",
    next: "next",
};
const ELEMS: Chain = Chain {
    inner: "ElementListInner",
    end: "ElementListEnd",
    content: "content",
    next: "next",
};

/// The font of every generated page: Type 1, Size 1, Color unset (-1).
const PAGE_FONT: &str = r#""font_style":{"font_type":1,"size":1,"color":-1}"#;
/// The document's font: everything unset.
const UNSET_FONT: &str = r#""font_style":{"font_type":-1,"size":-1,"color":-1}"#;

struct Gen<'a> {
    w: &'a mut dyn Write,
    rng: ChaCha8Rng,
    shape: Shape,
}

impl Out for Gen<'_> {
    fn out(&mut self) -> &mut dyn Write {
        self.w
    }
}

impl Gen<'_> {
    /// C++ `rand() % n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    /// C++ `n ? rand() % n : n`.
    fn below_or_zero(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.below(n)
        }
    }

    fn seq(
        &mut self,
        chain: &Chain,
        count: usize,
        item: impl FnMut(&mut Self, usize) -> io::Result<()>,
    ) -> io::Result<()> {
        match self.shape {
            Shape::Linked => out::linked(self, chain, count, item),
            Shape::Lists => out::array(self, count, None, item),
        }
    }

    fn raw(&mut self, s: &str) -> io::Result<()> {
        self.w.write_all(s.as_bytes())
    }

    fn document(
        &mut self,
        pages: usize,
        mut page: impl FnMut(&mut Self) -> io::Result<()>,
    ) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"Document\",{UNSET_FONT},\"page_list\":"
        )?;
        self.seq(&PAGES, pages, |g, _| page(g))?;
        self.raw("}")
    }

    // ---- leaf elements (createList / createTextBox / createImage) ----

    fn list_element(&mut self) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"List\",\"wmode\":{ABS},\"width\":50,\"item_margin\":3,\"items\":[\
             {{\"content\":\"this is item one\",\"length\":100}},\
             {{\"content\":\"this is item two\",\"length\":150}},\
             {{\"content\":\"this is item three\",\"length\":120}}]}}"
        )
    }

    fn text_box(&mut self, width: Option<i64>, text: &str) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"TextBox\",\"wmode\":{REL},\"rel_width\":1.0"
        )?;
        if let Some(wd) = width {
            write!(self.w, ",\"width\":{wd}")?;
        }
        if !text.is_empty() {
            write!(self.w, ",\"text\":{}", out::string(text))?;
        }
        self.raw(",\"text_length\":1000}")
    }

    fn image(&mut self) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"Image\",\"wmode\":{REL},\"rel_width\":1.0,\
             \"image_original_width\":200.0,\"image_original_height\":100.0}}"
        )
    }

    // ---- document 1 ----

    /// buildPageDoc1(): 19 nodes.
    fn page_doc1(&mut self) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"Page\",\"wmode\":{FLEX},\"width\":-1,{PAGE_FONT},\"horiz_list\":"
        )?;
        self.seq(&HCS, 2, |g, i| {
            if i == 0 {
                // H1: FLEX, elements [List, VerticalContainer].
                write!(g.w, "{{\"type\":\"HorizontalContainer\",\"wmode\":{FLEX},\"elements_list\":")?;
                g.seq(&ELEMS, 2, |g, j| {
                    if j == 0 {
                        g.list_element()
                    } else {
                        write!(
                            g.w,
                            "{{\"type\":\"VerticalContainer\",\"wmode\":{ABS},\"width\":150,\"horiz_list\":"
                        )?;
                        g.seq(&HCS, 2, |g, k| {
                            if k == 0 {
                                write!(
                                    g.w,
                                    "{{\"type\":\"HorizontalContainer\",\"wmode\":{REL},\"rel_width\":1.0,\"elements_list\":"
                                )?;
                                g.seq(&ELEMS, 1, |g, _| g.text_box(Some(-1), "bla bla bla"))?;
                            } else {
                                write!(
                                    g.w,
                                    "{{\"type\":\"HorizontalContainer\",\"wmode\":{REL},\"rel_width\":0.75,\"elements_list\":"
                                )?;
                                g.seq(&ELEMS, 1, |g, _| g.image())?;
                            }
                            g.raw("}")
                        })?;
                        g.raw("}")
                    }
                })?;
                g.raw("}")
            } else {
                // H2: REL 1, Width -1, one TextBox.
                write!(
                    g.w,
                    "{{\"type\":\"HorizontalContainer\",\"wmode\":{REL},\"width\":-1,\"rel_width\":1.0,\"elements_list\":"
                )?;
                g.seq(&ELEMS, 1, |g, _| g.text_box(None, ""))?;
                g.raw("}")
            }
        })?;
        self.raw("}")
    }

    // ---- documents 2 and 3 ----

    /// createElement(n, depth).
    fn element(&mut self, n: usize, depth: usize) -> io::Result<()> {
        loop {
            match self.below(4) {
                0 => {
                    if depth == 0 {
                        continue;
                    }
                    return self.vertical_container(n, depth);
                }
                1 => return self.text_box(None, ""),
                2 => return self.image(),
                _ => return self.list_element(),
            }
        }
    }

    /// createVerticalContainer(n, depth): ABS 150 with n + 1 containers.
    /// Recursion depth is bounded by `depth`, which strictly decreases.
    fn vertical_container(&mut self, n: usize, depth: usize) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"VerticalContainer\",\"wmode\":{ABS},\"width\":150,\"horiz_list\":"
        )?;
        self.seq(&HCS, n + 1, |g, _| {
            let cn = g.below_or_zero(n);
            let cd = g.below_or_zero(depth);
            g.horiz_container(cn, cd)
        })?;
        self.raw("}")
    }

    /// createHorizContainer(n, depth): REL 1, Width -1, n + 1 elements.
    fn horiz_container(&mut self, n: usize, depth: usize) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"HorizontalContainer\",\"wmode\":{REL},\"width\":-1,\"rel_width\":1.0,\"elements_list\":"
        )?;
        self.seq(&ELEMS, n + 1, |g, _| {
            let en = g.below_or_zero(n);
            let ed = g.below_or_zero(depth);
            g.element(en, ed)
        })?;
        self.raw("}")
    }

    /// buildPageDoc2(n, depth), n >= 1 and depth >= 1: n + 1 containers.
    fn page_doc2(&mut self, n: usize, depth: usize) -> io::Result<()> {
        write!(
            self.w,
            "{{\"type\":\"Page\",\"wmode\":{FLEX},\"width\":-1,{PAGE_FONT},\"horiz_list\":"
        )?;
        self.seq(&HCS, n + 1, |g, _| {
            let cn = g.below(n);
            let cd = g.below(depth);
            g.horiz_container(cn, cd)
        })?;
        self.raw("}")
    }
}

pub(crate) fn generate(
    w: &mut dyn Write,
    shape: Shape,
    variant: u8,
    size: usize,
    seed: u64,
) -> io::Result<()> {
    let rng = ChaCha8Rng::seed_from_u64(seed);
    match variant {
        1 => {
            // BuildDoc1(N): N identical pages. (The C++ builder always makes
            // at least 2 pages; here N = 1 gives a single PageListEnd.)
            let mut page = Vec::new();
            Gen {
                w: &mut page,
                rng: rng.clone(),
                shape,
            }
            .page_doc1()?;
            let page = String::from_utf8(page).expect("utf-8");
            let mut g = Gen { w, rng, shape };
            g.document(size, |g| g.raw(&page))
        }
        2 => {
            // BuildDoc2(N): one page of N + 1 random containers.
            let mut g = Gen { w, rng, shape };
            g.document(1, |g| g.page_doc2(size, size))
        }
        3 => {
            // BuildDoc3(N, N / 5): N + 1 pages of random sizes in 1..=N/5.
            let size_max = size / 5;
            let mut g = Gen { w, rng, shape };
            g.document(size + 1, |g| {
                let n = g.below(size_max) + 1;
                let d = g.below(size_max) + 1;
                g.page_doc2(n, d)
            })
        }
        _ => unreachable!("variant checked by the caller"),
    }
}
