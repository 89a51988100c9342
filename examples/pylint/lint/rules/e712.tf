// E712: stub, to be written.
global E712: [Diag] = [];

impl Node { traversal e712() walk; }
