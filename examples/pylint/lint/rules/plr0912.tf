// PLR0912: stub, to be written.
global PLR0912: [Diag] = [];

impl Node { traversal plr0912() walk; }
