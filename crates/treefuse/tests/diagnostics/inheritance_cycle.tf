// Inheritance must not be cyclic.
tree A : B {}
tree B : A {}
tree C : C {}
