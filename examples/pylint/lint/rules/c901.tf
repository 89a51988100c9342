// C901: stub, to be written.
global C901: [Diag] = [];

impl Node { traversal c901() walk; }
