// PLR0915: stub, to be written.
global PLR0915: [Diag] = [];

impl Node { traversal plr0915() walk; }
