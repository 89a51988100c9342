// F841: stub, to be written.
global F841: [Diag] = [];

impl Node { traversal f841() walk; }
