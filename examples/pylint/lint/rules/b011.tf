// B011: stub, to be written.
global B011: [Diag] = [];

impl Node { traversal b011() walk; }
