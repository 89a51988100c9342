// F631: stub, to be written.
global F631: [Diag] = [];

impl Node { traversal f631() walk; }
