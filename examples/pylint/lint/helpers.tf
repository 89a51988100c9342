// Helpers several rules share, as ruff's rules share
// `ruff_python_ast::helpers`. Pure functions may not recurse, so a tuple
// counts as constant through three levels of nesting (`((1, 2), 3)`);
// deeper literal tuples are not seen as constants (none occur in the
// standard library).

// A literal: a string, bytes, number, boolean, `None` or `...`.
pure fn is_literal(e: Expr) -> bool =
    e is StringLiteral || e is BytesLiteral || e is NumberLiteral
        || e is BooleanLiteral || e is NoneLiteral || e is EllipsisLiteral;

pure fn is_constant_1(e: Expr) -> bool {
    if e is Tuple {
        for x in (e as Tuple).elts { if !is_literal(x) { return false; } }
        return true;
    }
    return is_literal(e);
}

pure fn is_constant_2(e: Expr) -> bool {
    if e is Tuple {
        for x in (e as Tuple).elts { if !is_constant_1(x) { return false; } }
        return true;
    }
    return is_literal(e);
}

// ruff's `is_constant`: a literal, or a tuple of constants.
pure fn is_constant(e: Expr) -> bool {
    if e is Tuple {
        for x in (e as Tuple).elts { if !is_constant_2(x) { return false; } }
        return true;
    }
    return is_literal(e);
}

// ruff's `is_constant_non_singleton`: constant, but not `None`, `True`,
// `False` or `...`.
pure fn is_constant_non_singleton(e: Expr) -> bool =
    is_constant(e) && !(e is NoneLiteral || e is BooleanLiteral || e is EllipsisLiteral);

// `==` or `!=`.
pure fn is_equality(op: CmpOperator) -> bool = op == CmpOperator::Eq || op == CmpOperator::NotEq;
