// PLR0911: stub, to be written.
global PLR0911: [Diag] = [];

impl Node { traversal plr0911() walk; }
