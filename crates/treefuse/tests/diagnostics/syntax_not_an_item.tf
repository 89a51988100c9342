// Only items may appear at the top level.
let x = 3;
tree Leaf {}
