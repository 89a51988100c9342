// LANGUAGE.md §8.7: reading a field through an empty optional child is a
// runtime error (after the first `Item`, whose `price` is full, added 4).
global TOTAL: i64 = 0;
tree Price { amount: i64; }
tree Item {
    child price: Price?;
    child next: Item?;
    traversal sum() {
        TOTAL = TOTAL + self.price.amount;
        self.next.sum();
    }
}
fuse main(root: Item) { root.sum(); }
