// E741: stub, to be written.
global E741: [Diag] = [];

impl Node { traversal e741() walk; }
