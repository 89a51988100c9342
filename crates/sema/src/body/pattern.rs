//! `match` expressions (LANGUAGE.md §7.5): patterns, exhaustiveness and
//! unreachable arms.
//!
//! Patterns are constants, so the checker resolves each to a [`Value`] and
//! decides coverage exactly: an enum or `bool` match covers its type when
//! every value appears (or a `_` arm ends it); an `i64` or `str` match needs
//! the `_`. A pattern that an earlier arm already covers can never match:
//! it gets a warning and is left out of the model, so that no engine (and
//! no generated Rust `match`) sees an unreachable arm.

use super::*;

impl BodyChecker<'_> {
    /// Checks `match scrutinee { arms }`.
    pub(super) fn match_expr(
        &mut self,
        scrutinee: &ast::Expr,
        arms: &[ast::MatchArm],
        span: Span,
        expected: Option<&DataType>,
    ) -> Option<Expr> {
        let x = self.expr(scrutinee, None)?;
        if !matches!(
            x.ty,
            DataType::Int | DataType::Str | DataType::Bool | DataType::Enum(_)
        ) {
            self.error(
                "match-type",
                scrutinee.span,
                format!(
                    "`match` works on `i64`, `str`, `bool` and enum values, not on `{}`",
                    self.type_name(&x.ty)
                ),
            );
            return None;
        }
        let mut seen: Vec<Value> = Vec::new();
        let mut wildcard: Option<Span> = None;
        let mut out: Vec<MatchArm> = Vec::new();
        let mut result_ty: Option<DataType> = None;
        let mut ok = true;
        for arm in arms {
            let mut values = Vec::new();
            let mut arm_wildcard = false;
            let mut reachable = false;
            for p in &arm.patterns {
                let Some(v) = self.pattern(p, &x.ty) else {
                    ok = false;
                    continue;
                };
                let covered = match &v {
                    None => wildcard.is_some() || self.all_covered(&x.ty, &seen),
                    Some(v) => wildcard.is_some() || seen.contains(v),
                };
                if covered {
                    self.report(
                        Diagnostic::warning(
                            "unreachable-pattern",
                            p.span,
                            "this pattern can never match: earlier arms cover it",
                        )
                        .with_note("remove it"),
                    );
                    continue;
                }
                reachable = true;
                match v {
                    None => arm_wildcard = true,
                    Some(v) => {
                        seen.push(v.clone());
                        values.push(v);
                    }
                }
            }
            // The body is checked even when the arm is dropped, so that its
            // errors are reported.
            let body = self.expr(&arm.body, result_ty.as_ref().or(expected));
            let Some(body) = body else {
                ok = false;
                continue;
            };
            match &result_ty {
                None => result_ty = Some(body.ty.clone()),
                Some(t) => {
                    if !self.expect_type(&body, t) {
                        ok = false;
                        continue;
                    }
                }
            }
            if arm_wildcard {
                wildcard = Some(arm.span);
            }
            if reachable {
                out.push(MatchArm {
                    patterns: if arm_wildcard { Vec::new() } else { values },
                    body,
                });
            }
        }
        if !ok {
            return None;
        }
        if wildcard.is_none() && !self.all_covered(&x.ty, &seen) {
            let missing = self.missing_values(&x.ty, &seen);
            let mut d = Diagnostic::error(
                "match-not-exhaustive",
                scrutinee.span,
                format!("this `match` does not cover every value: {missing}"),
            );
            d = d.with_note("add the missing patterns, or a final `_ => ...` arm");
            self.report(d);
            return None;
        }
        let Some(ty) = result_ty else {
            self.error(
                "match-not-exhaustive",
                span,
                "a `match` needs at least one arm",
            );
            return None;
        };
        Some(Expr {
            kind: ExprKind::Match(Box::new(x), out),
            ty,
            span,
        })
    }

    /// One pattern: `Some(value)`, or `None` for `_`; reports bad patterns.
    fn pattern(&mut self, p: &ast::Expr, ty: &DataType) -> Option<Option<Value>> {
        let value = match (&p.kind, ty) {
            (ast::ExprKind::Name(n), _) if n.name == "_" => return Some(None),
            (ast::ExprKind::Int(v), DataType::Int) => Value::Int(*v),
            (ast::ExprKind::Str(s), DataType::Str) => Value::Str(s.as_str().into()),
            (ast::ExprKind::Bool(b), DataType::Bool) => Value::Bool(*b),
            (ast::ExprKind::Variant(..), DataType::Enum(e)) => {
                let v = self.expr(p, None)?;
                if v.ty != DataType::Enum(*e) {
                    self.expect_type(&v, ty);
                    return None;
                }
                match v.kind {
                    ExprKind::Const(v) => v,
                    _ => return None,
                }
            }
            (
                ast::ExprKind::Int(_)
                | ast::ExprKind::Str(_)
                | ast::ExprKind::Bool(_)
                | ast::ExprKind::Variant(..),
                _,
            ) => {
                let v = self.expr(p, None)?;
                self.expect_type(&v, ty);
                return None;
            }
            _ => {
                self.error(
                    "match-pattern",
                    p.span,
                    "a pattern is a literal (`3`, `-5`, `\"a\"`, `true`), an enum variant (`Op::Add`) or `_`",
                );
                return None;
            }
        };
        Some(Some(value))
    }

    /// Whether `seen` holds every value of `ty` (only enums and `bool`
    /// have finitely many).
    fn all_covered(&self, ty: &DataType, seen: &[Value]) -> bool {
        match ty {
            DataType::Bool => [true, false]
                .iter()
                .all(|b| seen.contains(&Value::Bool(*b))),
            DataType::Enum(e) => (0..self.program.enums[e.index()].variants.len())
                .all(|i| seen.contains(&Value::Enum(i as u32))),
            _ => false,
        }
    }

    /// The values of `ty` missing from `seen`, for the message.
    fn missing_values(&self, ty: &DataType, seen: &[Value]) -> String {
        let names: Vec<String> = match ty {
            DataType::Bool => [true, false]
                .iter()
                .filter(|b| !seen.contains(&Value::Bool(**b)))
                .map(|b| format!("`{b}`"))
                .collect(),
            DataType::Enum(e) => {
                let def = &self.program.enums[e.index()];
                def.variants
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !seen.contains(&Value::Enum(*i as u32)))
                    .map(|(_, v)| format!("`{}::{v}`", def.name))
                    .collect()
            }
            _ => vec![format!("`_` (every other `{}`)", self.type_name(ty))],
        };
        format!("missing {}", names.join(", "))
    }
}
