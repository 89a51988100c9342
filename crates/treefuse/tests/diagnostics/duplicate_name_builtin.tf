// Built-in type names cannot be redefined.
record i64 { n: i64 }
tree str {}
