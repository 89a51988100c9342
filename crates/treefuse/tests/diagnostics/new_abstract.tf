// Abstract types cannot be instantiated.
abstract tree Element {}
tree End : Element {}
tree Holder {
    child c: Element;
    traversal f() { self.c = new Element {}; }
}
