// E722: stub, to be written.
global E722: [Diag] = [];

impl Node { traversal e722() walk; }
