// Data fields with and without defaults; defaults are constant expressions
// that may use globals and record and array values.
global BASE: i64 = 10;
record Style { bold: bool, size: f64 }

tree Text {
    a: i64;
    b: i64 = BASE + 1;
    c: f64 = -0.5;
    d: bool = true;
    e: str = "x";
    f: [i64] = [BASE, 2];
    g: [str];
    h: Style = Style { bold: false, size: 12.0 };
    i: Style;
    traversal noop() {}
}

fuse f(root: Text) { root.noop(); }
