// Render tree: the first case study of the Grafter paper (PLDI'19, §5.1),
// ported faithfully from its C++ baseline (see README.md here).
//
// 17 tree types, five passes with the reference call orders, the linked
// lists of the reference (`*ListInner` / `*ListEnd` with `Next`), error logs
// as writes to a global, and the font "unset" sentinel. `render` runs the
// five passes in the reference order. Unfused, document 1 with N pages takes
// 100 * N + 5 node visits (20 per page per pass, plus the Document).
//
// Modelling notes:
// - The C++ `Node` base class has no fields and no traversals; it is left out
//   (the 17 counted types are all here).
// - The mix-in `Data` (on Page, HorizontalContainer and Element) is repeated
//   in those three types: no multiple inheritance here.
// - `MEASURE_MODE { ABS, REL, FLEX }` is an i64 field with the globals below.
// - FontInfo members are `unsigned` in C++ and "unset" is 0xFFFFFFFF, i.e.
//   `(unsigned)-1`. Here they are i64 and UNSET is -1, used consistently in
//   field defaults, in JSON inputs and in every comparison.
// - `LogError1`, `LogError2` and `LogErrorFontNotSet` are declared in the
//   reference as writing a global; here each sets its own flag to `true`.
//   One flag per log keeps the program's meaning ("was this error logged?")
//   without making the passes' order observable through "which error was
//   logged last", which would be a real dependence between every pair of
//   passes and forbid any fusion of them.
// - The pure helpers are declared as reading global number 0 (a font-metrics
//   table); here that table is the global `FONT_METRICS`, a factor of 1,
//   passed to the pure functions as an argument.
// - `(int)(RelWidth * PWidth)` on a C++ float: `to_i64(rel_width * to_f64(w))`.

global ABS: i64 = 0;
global REL: i64 = 1;
global FLEX: i64 = 2;

// (unsigned)-1, the "unset" value of every FontInfo member.
global UNSET: i64 = -1;

// Global 0 of the reference: read by the pure text-metrics functions.
global FONT_METRICS: i64 = 1;

// The error logs of the reference, one flag each.
global flex_error: bool = false; // LogError1: a leaf element cannot be FLEX
global rel_error: bool = false;  // LogError2: a page cannot be REL
global font_error: bool = false; // LogErrorFontNotSet

record FontInfo { font_type: i64, size: i64, color: i64 }

// One item of a List element (`String { char *Content; int Length; }`).
record ListItem { content: str, length: i64 }

// computeTextHorizSpace(Length, FontSize)
pure fn text_horiz_space(length: i64, font_size: i64, metrics: i64) -> i64 =
    length * font_size * metrics;

// getCharHeight(FontSize)
pure fn char_height(font_size: i64, metrics: i64) -> i64 = font_size * 2 * metrics;

// computeListHeight(Items, FontSize, ItemMargin, Width)
pure fn list_height(items: [ListItem], font_size: i64, item_margin: i64, width: i64, metrics: i64) -> i64 {
    let height: i64 = 0;
    for item in items {
        let space: i64 = text_horiz_space(item.length, font_size, metrics) + item_margin;
        height = height + space / width;
        if space % width != 0 {
            height = height + 1;
        }
    }
    return height;
}

// ------------------------------------------------------------ Document

tree Document {
    font_style: FontInfo = FontInfo { font_type: -1, size: -1, color: -1 };
    child page_list: PageListNode;

    traversal resolve_flex_widths() {
        self.page_list.resolve_flex_widths();
    }
    traversal resolve_relative_widths() {
        self.page_list.resolve_relative_widths();
    }
    traversal set_font() {
        self.page_list.set_font(self.font_style);
    }
    traversal compute_heights() {
        self.page_list.compute_heights();
    }
    traversal set_positions() {
        self.page_list.set_positions();
    }
}

// ------------------------------------------------------------ pages

abstract tree PageListNode {
    child content: Page;
    traversal resolve_flex_widths();
    traversal resolve_relative_widths();
    traversal set_font(parent_font: FontInfo);
    traversal compute_heights();
    traversal set_positions();
}

tree PageListInner : PageListNode {
    child next_page: PageListNode;

    traversal resolve_flex_widths() {
        self.content.resolve_flex_widths();
        self.next_page.resolve_flex_widths();
    }
    traversal resolve_relative_widths() {
        self.next_page.resolve_relative_widths();
        self.content.resolve_relative_widths();
    }
    traversal set_font(parent_font: FontInfo) {
        self.content.set_font(parent_font);
        self.next_page.set_font(parent_font);
    }
    traversal compute_heights() {
        self.content.compute_heights();
        self.next_page.compute_heights();
    }
    traversal set_positions() {
        self.content.set_positions();
        self.next_page.set_positions();
    }
}

tree PageListEnd : PageListNode {
    traversal resolve_flex_widths() {
        self.content.resolve_flex_widths();
    }
    traversal resolve_relative_widths() {
        self.content.resolve_relative_widths();
    }
    traversal set_font(parent_font: FontInfo) {
        self.content.set_font(parent_font);
    }
    traversal compute_heights() {
        self.content.compute_heights();
    }
    traversal set_positions() {
        self.content.set_positions();
    }
}

tree Page {
    // Data
    pos_x: i64 = 0;
    pos_y: i64 = 0;
    height: i64 = 0;
    width: i64 = 0;
    rel_width: f64;
    wmode: i64 = 0;
    font_style: FontInfo = FontInfo { font_type: -1, size: -1, color: -1 };
    background_color: i64 = 0;

    child horiz_list: HorizontalContainerListNode;

    traversal resolve_flex_widths() {
        self.horiz_list.resolve_flex_widths();
        if self.wmode == FLEX {
            self.width = self.horiz_list.max_width;
        }
    }
    traversal resolve_relative_widths() {
        if self.wmode == REL {
            rel_error = true; // LogError2()
            return;
        }
        self.horiz_list.resolve_relative_widths(self.width);
    }
    traversal set_font(parent_font: FontInfo) {
        if self.font_style.size == UNSET {
            self.font_style.size = parent_font.size;
        }
        if self.font_style.color == UNSET {
            self.font_style.color = parent_font.color;
        }
        if self.font_style.font_type == UNSET {
            self.font_style.font_type = parent_font.font_type;
        }
        self.horiz_list.set_font(self.font_style);
    }
    traversal compute_heights() {
        self.horiz_list.compute_heights();
        self.height = self.horiz_list.aggregated_height;
    }
    traversal set_positions() {
        self.pos_x = 0;
        self.pos_y = 0;
        self.horiz_list.set_positions(self.pos_x, self.pos_y);
    }
}

// ------------------------------------------------------------ horizontal containers

abstract tree HorizontalContainerListNode {
    max_width: i64 = 0;
    aggregated_height: i64 = 0;
    child content: HorizontalContainer;
    traversal resolve_flex_widths();
    traversal resolve_relative_widths(p_width: i64);
    traversal set_font(parent_font: FontInfo);
    traversal compute_heights();
    traversal set_positions(x: i64, y: i64);
}

tree HorizontalContainerListInner : HorizontalContainerListNode {
    child next: HorizontalContainerListNode;

    traversal resolve_flex_widths() {
        self.content.resolve_flex_widths();
        self.next.resolve_flex_widths();
        if self.content.width > self.next.max_width {
            self.max_width = self.content.width;
        } else {
            self.max_width = self.next.max_width;
        }
    }
    traversal resolve_relative_widths(p_width: i64) {
        self.next.resolve_relative_widths(p_width);
        self.content.resolve_relative_widths(p_width);
    }
    traversal set_font(parent_font: FontInfo) {
        self.content.set_font(parent_font);
        self.next.set_font(parent_font);
    }
    traversal compute_heights() {
        self.content.compute_heights();
        self.next.compute_heights();
        self.aggregated_height = 0;
        self.aggregated_height = self.aggregated_height + self.content.height;
        self.aggregated_height = self.aggregated_height + self.next.aggregated_height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.content.set_positions(x, y);
        self.next.set_positions(x, y + self.content.height);
    }
}

tree HorizontalContainerListEnd : HorizontalContainerListNode {
    traversal resolve_flex_widths() {
        self.content.resolve_flex_widths();
        self.max_width = self.content.width;
    }
    traversal resolve_relative_widths(p_width: i64) {
        self.content.resolve_relative_widths(p_width);
    }
    traversal set_font(parent_font: FontInfo) {
        self.content.set_font(parent_font);
    }
    traversal compute_heights() {
        self.content.compute_heights();
        self.aggregated_height = self.content.height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.content.set_positions(x, y);
    }
}

tree HorizontalContainer {
    // Data
    pos_x: i64 = 0;
    pos_y: i64 = 0;
    height: i64 = 0;
    width: i64 = 0;
    rel_width: f64;
    wmode: i64 = 0;
    font_style: FontInfo = FontInfo { font_type: -1, size: -1, color: -1 };
    background_color: i64 = 0;

    child elements_list: ElementListNode;

    traversal resolve_flex_widths() {
        self.elements_list.resolve_flex_widths();
        if self.wmode == FLEX {
            self.width = self.elements_list.accumulated_width;
        }
    }
    traversal resolve_relative_widths(p_width: i64) {
        if self.wmode == REL {
            self.width = to_i64(self.rel_width * to_f64(p_width));
        }
        self.elements_list.resolve_relative_widths(self.width);
    }
    traversal set_font(parent_font: FontInfo) {
        if self.font_style.size == UNSET {
            self.font_style.size = parent_font.size;
        }
        if self.font_style.color == UNSET {
            self.font_style.color = parent_font.color;
        }
        if self.font_style.font_type == UNSET {
            self.font_style.font_type = parent_font.font_type;
        }
        self.elements_list.set_font(self.font_style);
    }
    traversal compute_heights() {
        self.elements_list.compute_heights();
        self.height = self.elements_list.max_height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.pos_x = x;
        self.pos_y = y;
        self.elements_list.set_positions(x, y);
    }
}

// ------------------------------------------------------------ element lists

abstract tree ElementListNode {
    accumulated_width: i64 = 0;
    max_height: i64 = 0;
    child content: Element;
    traversal resolve_flex_widths();
    traversal resolve_relative_widths(p_width: i64);
    traversal set_font(parent_font: FontInfo);
    traversal compute_heights();
    traversal set_positions(x: i64, y: i64);
}

tree ElementListInner : ElementListNode {
    child next: ElementListNode;

    traversal resolve_flex_widths() {
        self.next.resolve_flex_widths();
        self.content.resolve_flex_widths();
        self.accumulated_width = self.content.width + self.next.accumulated_width;
    }
    traversal resolve_relative_widths(p_width: i64) {
        self.content.resolve_relative_widths(p_width);
        self.next.resolve_relative_widths(p_width);
    }
    traversal set_font(parent_font: FontInfo) {
        self.content.set_font(parent_font);
        self.next.set_font(parent_font);
    }
    traversal compute_heights() {
        self.content.compute_heights();
        self.next.compute_heights();
        if self.content.height >= self.next.max_height {
            self.max_height = self.content.height;
        } else {
            self.max_height = self.next.max_height;
        }
    }
    traversal set_positions(x: i64, y: i64) {
        self.content.set_positions(x, y);
        self.next.set_positions(x + self.content.width, y);
    }
}

tree ElementListEnd : ElementListNode {
    traversal resolve_flex_widths() {
        self.content.resolve_flex_widths();
        self.accumulated_width = self.content.width;
    }
    traversal resolve_relative_widths(p_width: i64) {
        self.content.resolve_relative_widths(p_width);
    }
    traversal set_font(parent_font: FontInfo) {
        self.content.set_font(parent_font);
    }
    traversal compute_heights() {
        self.content.compute_heights();
        self.max_height = self.content.height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.content.set_positions(x, y);
    }
}

// ------------------------------------------------------------ elements

abstract tree Element {
    // Data
    pos_x: i64 = 0;
    pos_y: i64 = 0;
    height: i64 = 0;
    width: i64 = 0;
    rel_width: f64;
    wmode: i64 = 0;
    font_style: FontInfo = FontInfo { font_type: -1, size: -1, color: -1 };
    background_color: i64 = 0;

    traversal resolve_flex_widths() {
        if self.wmode == FLEX {
            flex_error = true; // LogError1()
        }
    }
    traversal resolve_relative_widths(p_width: i64) {
        if self.wmode == REL {
            self.width = to_i64(self.rel_width * to_f64(p_width));
        }
    }
    traversal set_font(parent_font: FontInfo) {
        if self.font_style.size == UNSET {
            self.font_style.size = parent_font.size;
        }
        if self.font_style.color == UNSET {
            self.font_style.color = parent_font.color;
        }
        if self.font_style.font_type == UNSET {
            self.font_style.font_type = parent_font.font_type;
        }
    }
    // Every concrete element defines it.
    traversal compute_heights();
    traversal set_positions(x: i64, y: i64) {
        self.pos_x = x;
        self.pos_y = y;
    }
}

tree TextBox : Element {
    // ContentText { Content, Length }
    text: str = "";
    text_length: i64 = 0;

    traversal compute_heights() {
        if self.font_style.size == UNSET {
            font_error = true; // LogErrorFontNotSet()
        }
        let chars_total_space: i64 = text_horiz_space(self.text_length, self.font_style.size, FONT_METRICS);
        self.height = chars_total_space / self.width;
        if chars_total_space % self.width != 0 {
            self.height = self.height + 1;
        }
        self.height = self.height * char_height(self.font_style.size, FONT_METRICS);
    }
}

tree List : Element {
    items: [ListItem];
    item_margin: i64 = 0;

    traversal compute_heights() {
        if self.font_style.size == UNSET {
            font_error = true; // LogErrorFontNotSet()
        }
        self.height = list_height(self.items, self.font_style.size, self.item_margin, self.width, FONT_METRICS);
    }
}

tree Image : Element {
    path_to_image: str = "";
    image_original_width: f64;
    image_original_height: f64;
    image_url: str = "";

    traversal compute_heights() {
        // keep the ratio of the original image
        self.height = to_i64(to_f64(self.width) * (self.image_original_height / self.image_original_width));
    }
}

tree VerticalContainer : Element {
    child horiz_list: HorizontalContainerListNode;

    traversal resolve_flex_widths() {
        self.horiz_list.resolve_flex_widths();
        if self.wmode == FLEX {
            self.width = self.horiz_list.max_width;
        }
    }
    traversal resolve_relative_widths(p_width: i64) {
        if self.wmode == REL {
            self.width = to_i64(self.rel_width * to_f64(p_width));
        }
        self.horiz_list.resolve_relative_widths(self.width);
    }
    traversal set_font(parent_font: FontInfo) {
        if self.font_style.size == UNSET {
            self.font_style.size = parent_font.size;
        }
        if self.font_style.color == UNSET {
            self.font_style.color = parent_font.color;
        }
        if self.font_style.font_type == UNSET {
            self.font_style.font_type = parent_font.font_type;
        }
        self.horiz_list.set_font(self.font_style);
    }
    traversal compute_heights() {
        self.horiz_list.compute_heights();
        self.height = self.horiz_list.aggregated_height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.pos_x = x;
        self.pos_y = y;
        self.horiz_list.set_positions(x, y);
    }
}

fuse render(root: Document) {
    root.resolve_flex_widths();
    root.resolve_relative_widths();
    root.set_font();
    root.compute_heights();
    root.set_positions();
}
