// E711: stub, to be written.
global E711: [Diag] = [];

impl Node { traversal e711() walk; }
