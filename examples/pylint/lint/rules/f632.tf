// F632: stub, to be written.
global F632: [Diag] = [];

impl Node { traversal f632() walk; }
