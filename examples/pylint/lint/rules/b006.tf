// B006: stub, to be written.
global B006: [Diag] = [];

impl Node { traversal b006() walk; }
