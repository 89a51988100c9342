// A pure function reads the nodes it is given; it cannot write their
// fields, replace or move their children, or edit their lists.
abstract tree E {}
tree Num : E { v: i64; }
tree Add : E { child l: E; child r: E; }
tree Blk : E { child items: [E]; }
pure fn f(e: E) -> i64 {
    (e as Num).v = 1;
    (e as Add).l = (e as Add).r;
    (e as Blk).items.push(new Num {});
    (e as Blk).items.insert(0, new Num {});
    (e as Blk).items.remove(0);
    (e as Blk).items[0] = new Num {};
    return 0;
}
