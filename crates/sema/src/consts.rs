//! Evaluation of constant expressions (global initial values, defaults).

use crate::model::*;
use crate::ops;
use crate::value::Value;
use std::sync::Arc;
use treefuse_syntax::Diagnostic;

/// Evaluates a checked constant expression: literals, operators, record and
/// array values, built-ins, `if`, and earlier globals.
/// The error is boxed: a diagnostic is large and the path is cold.
pub fn const_eval(program: &Program, e: &Expr) -> Result<Value, Box<Diagnostic>> {
    let not_const = || {
        Box::new(Diagnostic::error(
            "const-expr",
            e.span,
            "this must be a constant expression (literals, operators, record and array values, and earlier globals)",
        ))
    };
    Ok(match &e.kind {
        ExprKind::Const(v) => v.clone(),
        ExprKind::Global(g) => program.globals[g.index()].init.clone(),
        ExprKind::Unary(op, x) => ops::unary(*op, &const_eval(program, x)?),
        ExprKind::Binary(op, a, b) => {
            let a = const_eval(program, a)?;
            match op {
                ops::BinaryOp::And if !a.as_bool() => Value::Bool(false),
                ops::BinaryOp::Or if a.as_bool() => Value::Bool(true),
                _ => ops::binary(*op, &a, &const_eval(program, b)?).map_err(|err| {
                    Box::new(Diagnostic::error("const-expr", e.span, err.to_string()))
                })?,
            }
        }
        ExprKind::Array(items) => Value::Array(Arc::new(
            items
                .iter()
                .map(|x| const_eval(program, x))
                .collect::<Result<_, _>>()?,
        )),
        ExprKind::Record(_, items) => Value::Record(Arc::new(
            items
                .iter()
                .map(|x| const_eval(program, x))
                .collect::<Result<_, _>>()?,
        )),
        ExprKind::Member(x, i) => match const_eval(program, x)? {
            Value::Record(fields) => fields[*i as usize].clone(),
            _ => return Err(not_const()),
        },
        ExprKind::Index(a, i) => {
            let a = const_eval(program, a)?;
            let i = const_eval(program, i)?.as_int();
            ops::index(&a, i)
                .map_err(|err| Box::new(Diagnostic::error("const-expr", e.span, err.to_string())))?
        }
        ExprKind::Builtin(b, arg_exprs) => {
            let args = arg_exprs
                .iter()
                .map(|x| const_eval(program, x))
                .collect::<Result<Vec<_>, _>>()?;
            ops::builtin(*b, &args).map_err(|err| {
                let message = err.message(program.key_variants(arg_exprs));
                Box::new(Diagnostic::error("const-expr", e.span, message))
            })?
        }
        ExprKind::If(c, a, b) => {
            if const_eval(program, c)?.as_bool() {
                const_eval(program, a)?
            } else {
                const_eval(program, b)?
            }
        }
        ExprKind::Match(x, arms) => {
            let v = const_eval(program, x)?;
            match ops::match_arm(&v, arms) {
                Some(arm) => const_eval(program, &arm.body)?,
                None => return Err(not_const()),
            }
        }
        ExprKind::Local(_)
        | ExprKind::Field(..)
        | ExprKind::Call(..)
        | ExprKind::NodeCall(..)
        | ExprKind::Is(..)
        | ExprKind::IsNone(_)
        | ExprKind::ListLen(_)
        | ExprKind::InList => return Err(not_const()),
    })
}
