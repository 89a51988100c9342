// An alias annotation names a supertype of the path's type.
abstract tree E {}
tree A : E { child c: E; traversal f() { let x: B = self.c; } }
tree B : E {}
