// A data field of a type that does not exist.
tree Leaf {
    n: Integer;
    xs: [Strng];
}
