// Every statement form of a traversal.
global count: i64 = 0;
record R { n: i64 }

abstract tree E {
    traversal run(k: i64) {}
}

tree Num : E { value: i64; r: R; }

tree Add : E {
    child left: E;
    child right: E;
    total: i64;
    traversal run(k: i64) {
        self.left.run(k);                       // call on a child
        self.right.run(k + 1);
        let x: i64 = k * 2;                     // data local
        let y = x + 1;
        x = y;                                  // local write
        k = k + x;                              // parameter write
        count = count + 1;                      // global write
        let n = self.left;                      // tree alias
        let m: E = self.right;
        if n is Num {
            (n as Num).value = 3;               // write through an alias
            (self.left as Num).r.n = 4;         // record member write
        } else if m is Add {
            (m as Add).total = 1;
        } else {
            self.total = 0;
        }
        if x > 100 {
            return;
        }
        self.total = x + y;                     // field write
        self.self_call();
    }
    traversal self_call() {}
}

fuse f(root: E) { root.run(0); }
