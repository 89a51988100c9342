// Records are copied by value and cannot contain themselves.
record Node { value: i64, next: Node }
record A { b: B }
record B { list: [A] }
