// F541 (pyflakes f-string-missing-placeholders): `f"no placeholders"`.
//
// As ruff's `f_string_missing_placeholders`: when no f-string part of an
// f-string expression (an implicit concatenation counts as one
// expression) has a `{...}` interpolation, each of its f-string parts is
// reported, at its prefix; plain string parts are not. t-strings are not
// f-strings. Nested f-strings (inside an interpolation) are expressions of
// their own.
global F541: [Diag] = [];

pure fn f541_has_placeholder(s: FString) -> bool {
    for p in s.parts {
        if p is InterpolatedPart {
            for e in (p as InterpolatedPart).elements {
                if e is Interpolation { return true; }
            }
        }
    }
    return false;
}

impl Node { traversal f541() walk; }
impl FString {
    traversal f541() {
        if !f541_has_placeholder(self) {
            for p in self.parts {
                if p is InterpolatedPart {
                    F541 = append(F541, Diag { start: p.start, message: "f-string without any placeholders" });
                }
            }
        }
        walk;
    }
}
