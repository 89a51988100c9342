// F541: stub, to be written.
global F541: [Diag] = [];

impl Node { traversal f541() walk; }
