// Only a single child can be optional: `T?` on a data field is rejected.
tree Item {
    price: i64?;
}
