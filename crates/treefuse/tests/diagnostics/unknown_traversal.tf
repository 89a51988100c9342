// Calls name traversals visible on the receiver's static type.
abstract tree Element {
    traversal a() {}
}
tree Box : Element {
    child content: Element;
    traversal b() {
        self.content.b();
        self.content.zzz();
        self.b();
    }
}
