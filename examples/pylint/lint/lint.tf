// Every rule, run on one module. Each rule lives in `rules/` as if it were
// alone; this item is the only place that names them together.
fuse lint(root: Module) {
    root.e711();
    root.e712();
    root.e722();
    root.e731(false);
    root.e741();
    root.f541();
    root.f631();
    root.f632();
    root.b006(false);
    root.b011();
    root.plr0911();
    root.plr0912();
    root.plr0915();
    root.c901();
    root.f841();
}
