// Globals of every data type with constant initial values, including
// earlier globals, operators, built-ins, records, arrays and `if`.
record Border { size: i64, color: i64 }
record Box { border: Border, tags: [str] }

global CHAR_WIDTH: i64 = 8;
global DOUBLE: i64 = CHAR_WIDTH * 2 + -1;
global MIN: i64 = -9223372036854775808;
global RATIO: f64 = 2.5e3;
global SQRT2: f64 = sqrt(2.0);
global changed: bool = false;
global enabled: bool = !changed && DOUBLE > 3 || false;
global NAME: str = "tree\tfuse \u{1F333} \"q\" \\";
global NAME_LEN: i64 = len(NAME);
global LENS: [i64] = [1, 2, CHAR_WIDTH];
global EMPTY: [i64] = [];
global NESTED: [[f64]] = [[1.0], [], [to_f64(DOUBLE)]];
global BORDER: Border = Border { size: 2, color: 0 };
global BOX: Box = Box { tags: ["a", "b"], border: BORDER, };
global SIZE: i64 = BOX.border.size + LENS[1];
global PICK: i64 = if enabled { 1 } else if changed { 2 } else { 3 };

tree Leaf {
    traversal touch() { changed = true; }
}

fuse run(root: Leaf) { root.touch(); }
