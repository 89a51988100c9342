// An enum needs a variant: its first is the default value of its fields.
enum Nothing {}
enum Twice { A, B, A }
