// E731: stub, to be written.
global E731: [Diag] = [];

impl Node { traversal e731() walk; }
