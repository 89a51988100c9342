// A field declared on a subtype is reached through a cast.
abstract tree Element { n: i64; }
tree Box : Element { width: i64; }
tree Holder {
    child e: Element;
    n: i64;
    traversal f() { self.n = self.e.width; }
}
