// Render tree with list children: the idiomatic twin of render.tf.
//
// Same data, same five passes, same results as render.tf (the tests compare
// every computed field on generated documents), but pages, containers and
// elements are list children (`[T]`) instead of `*ListInner` / `*ListEnd`
// chains. What the list nodes of render.tf stored (MaxWidth,
// AggregatedHeight, AccumulatedWidth, MaxHeight) is computed in loops by
// the owner of the list. Loops visit a list in order, where render.tf
// visits some chains back to front (resolveFlexWidths on elements,
// resolveRelativeWidths on pages and containers); those visits are
// independent of each other, and every error log of one pass writes the
// same code, so the results agree.
//
// Generate inputs with `treefuse gen-example render-lists --size N`.

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
    child page_list: [Page];

    traversal resolve_flex_widths() {
        for p in self.page_list {
            p.resolve_flex_widths();
        }
    }
    traversal resolve_relative_widths() {
        for p in self.page_list {
            p.resolve_relative_widths();
        }
    }
    traversal set_font() {
        for p in self.page_list {
            p.set_font(self.font_style);
        }
    }
    traversal compute_heights() {
        for p in self.page_list {
            p.compute_heights();
        }
    }
    traversal set_positions() {
        for p in self.page_list {
            p.set_positions();
        }
    }
}

// ------------------------------------------------------------ pages

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

    child horiz_list: [HorizontalContainer];

    // The widest container (what HorizontalContainerListNode.MaxWidth held).
    traversal resolve_flex_widths() {
        let max_width: i64 = 0;
        let first: bool = true;
        for h in self.horiz_list {
            h.resolve_flex_widths();
            if first || h.width > max_width {
                max_width = h.width;
            }
            first = false;
        }
        if self.wmode == FLEX {
            self.width = max_width;
        }
    }
    traversal resolve_relative_widths() {
        if self.wmode == REL {
            rel_error = true; // LogError2()
            return;
        }
        for h in self.horiz_list {
            h.resolve_relative_widths(self.width);
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
        for h in self.horiz_list {
            h.set_font(self.font_style);
        }
    }
    // The containers stack up (what AggregatedHeight held).
    traversal compute_heights() {
        let aggregated_height: i64 = 0;
        for h in self.horiz_list {
            h.compute_heights();
            aggregated_height = aggregated_height + h.height;
        }
        self.height = aggregated_height;
    }
    traversal set_positions() {
        self.pos_x = 0;
        self.pos_y = 0;
        let y: i64 = self.pos_y;
        for h in self.horiz_list {
            h.set_positions(self.pos_x, y);
            y = y + h.height;
        }
    }
}

// ------------------------------------------------------------ horizontal containers

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

    child elements_list: [Element];

    // The elements side by side (what AccumulatedWidth held).
    traversal resolve_flex_widths() {
        let accumulated_width: i64 = 0;
        for e in self.elements_list {
            e.resolve_flex_widths();
            accumulated_width = accumulated_width + e.width;
        }
        if self.wmode == FLEX {
            self.width = accumulated_width;
        }
    }
    traversal resolve_relative_widths(p_width: i64) {
        if self.wmode == REL {
            self.width = to_i64(self.rel_width * to_f64(p_width));
        }
        for e in self.elements_list {
            e.resolve_relative_widths(self.width);
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
        for e in self.elements_list {
            e.set_font(self.font_style);
        }
    }
    // The tallest element (what MaxHeight held).
    traversal compute_heights() {
        let max_height: i64 = 0;
        let first: bool = true;
        for e in self.elements_list {
            e.compute_heights();
            if first || e.height >= max_height {
                max_height = e.height;
            }
            first = false;
        }
        self.height = max_height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.pos_x = x;
        self.pos_y = y;
        let cur_x: i64 = x;
        for e in self.elements_list {
            e.set_positions(cur_x, y);
            cur_x = cur_x + e.width;
        }
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
    child horiz_list: [HorizontalContainer];

    traversal resolve_flex_widths() {
        let max_width: i64 = 0;
        let first: bool = true;
        for h in self.horiz_list {
            h.resolve_flex_widths();
            if first || h.width > max_width {
                max_width = h.width;
            }
            first = false;
        }
        if self.wmode == FLEX {
            self.width = max_width;
        }
    }
    traversal resolve_relative_widths(p_width: i64) {
        if self.wmode == REL {
            self.width = to_i64(self.rel_width * to_f64(p_width));
        }
        for h in self.horiz_list {
            h.resolve_relative_widths(self.width);
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
        for h in self.horiz_list {
            h.set_font(self.font_style);
        }
    }
    traversal compute_heights() {
        let aggregated_height: i64 = 0;
        for h in self.horiz_list {
            h.compute_heights();
            aggregated_height = aggregated_height + h.height;
        }
        self.height = aggregated_height;
    }
    traversal set_positions(x: i64, y: i64) {
        self.pos_x = x;
        self.pos_y = y;
        let cur_y: i64 = y;
        for h in self.horiz_list {
            h.set_positions(x, cur_y);
            cur_y = cur_y + h.height;
        }
    }
}

fuse render(root: Document) {
    root.resolve_flex_widths();
    root.resolve_relative_widths();
    root.set_font();
    root.compute_heights();
    root.set_positions();
}
