//! Names: identifier folding, dotted object names, and the display name
//! an unaliased select expression gets as its column name.

use sqlparser::ast as sql;

use super::literal::literal;
use crate::plan::expr::{display_name_literal, Literal};

/// Unquoted identifiers fold to lowercase; quoted ones keep their case.
pub fn ident_name(i: &sql::Ident) -> String {
    if i.quote_style.is_some() {
        i.value.clone()
    } else {
        i.value.to_lowercase()
    }
}

pub(super) fn object_name(n: &sql::ObjectName) -> String {
    n.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_else(|| p.to_string())).collect::<Vec<_>>().join(".")
}

/// DataFusion's display name of an unaliased select expression, which the
/// original used as the column's name (`sum(orders.qty) * Int64(2)`).
pub(super) fn display_name(e: &sql::Expr, qualifier: &str) -> String {
    match e {
        sql::Expr::Identifier(i) => format!("{qualifier}.{}", ident_name(i)),
        sql::Expr::CompoundIdentifier(p) => p.iter().map(ident_name).collect::<Vec<_>>().join("."),
        sql::Expr::Nested(i) => display_name(i, qualifier),
        sql::Expr::Value(v) => literal(&v.value).map(|l| display_name_literal(&l)).unwrap_or_else(|| v.to_string()),
        sql::Expr::UnaryOp { op: sql::UnaryOperator::Minus, expr } => match expr.as_ref() {
            sql::Expr::Value(v) => match literal(&v.value) {
                Some(Literal::Int(i)) => display_name_literal(&Literal::Int(-i)),
                Some(Literal::Float(f)) => display_name_literal(&Literal::Float(-f)),
                _ => format!("(- {})", display_name(expr, qualifier)),
            },
            _ => format!("(- {})", display_name(expr, qualifier)),
        },
        sql::Expr::UnaryOp { op: sql::UnaryOperator::Not, expr } => format!("NOT {}", display_name(expr, qualifier)),
        sql::Expr::BinaryOp { left, op, right } => {
            let sym = match op {
                sql::BinaryOperator::NotEq => "!=".to_string(),
                other => other.to_string(),
            };
            format!("{} {sym} {}", display_name(left, qualifier), display_name(right, qualifier))
        }
        sql::Expr::IsNull(x) => format!("{} IS NULL", display_name(x, qualifier)),
        sql::Expr::IsNotNull(x) => format!("{} IS NOT NULL", display_name(x, qualifier)),
        // A cast keeps the name of what it casts.
        sql::Expr::Cast { expr, .. } => display_name(expr, qualifier),
        sql::Expr::Function(f) => {
            let name = object_name(&f.name).to_lowercase();
            let args = match &f.args {
                sql::FunctionArguments::List(l) => l
                    .args
                    .iter()
                    .map(|a| match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => "*".to_string(),
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => display_name(x, qualifier),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => String::new(),
            };
            format!("{name}({args})")
        }
        other => other.to_string(),
    }
}
