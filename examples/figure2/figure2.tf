// The running example of the Grafter paper (PLDI'19, Figure 2): a chain of
// elements, text boxes and groups of elements, whose widths and heights
// are computed by two separate traversals. `layout` runs them in order.

global CHAR_WIDTH: i64 = 8;

record BorderInfo { size: i64, color: i64 }

abstract tree Element {
    height: i64 = 0;
    width: i64 = 0;
    max_height: i64 = 0;
    total_width: i64 = 0;
    traversal compute_width() {}
    traversal compute_height() {}
}

tree TextBox : Element {
    child next: Element;
    text: str;
    traversal compute_width() {
        self.next.compute_width();
        self.width = len(self.text);
        self.total_width = self.next.width + self.width;
    }
    traversal compute_height() {
        self.next.compute_height();
        self.height = len(self.text) * (self.width / CHAR_WIDTH) + 1;
        self.max_height = self.height;
        if self.next.height > self.height {
            self.max_height = self.next.height;
        }
    }
}

tree Group : Element {
    child content: Element;
    child next: Element;
    border: BorderInfo;
    traversal compute_width() {
        self.content.compute_width();
        self.next.compute_width();
        self.width = self.content.width + self.border.size * 2;
        self.total_width = self.width + self.next.width;
    }
    traversal compute_height() {
        self.content.compute_height();
        self.next.compute_height();
        self.height = self.content.max_height + self.border.size * 2;
        self.max_height = self.height;
        if self.next.height > self.height {
            self.max_height = self.next.height;
        }
    }
}

tree End : Element {}

fuse layout(root: Element) {
    root.compute_width();
    root.compute_height();
}
