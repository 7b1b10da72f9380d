//! Small readers of sqlparser's AST: unwrapping, walking sub-expressions,
//! finding aggregate calls, resolving select aliases.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::names::{ident_name, object_name};
use super::Rel;
use crate::plan::expr::AggFunc;

pub(super) fn order_span(o: &sql::OrderBy) -> Option<SqlSpan> {
    match &o.kind {
        sql::OrderByKind::Expressions(e) => e.first().map(|e| e.expr.span()),
        _ => None,
    }
}

pub(super) fn strip_nested(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(i) => strip_nested(i),
        other => other,
    }
}

pub(super) fn select_item_expr(item: &sql::SelectItem) -> Option<&sql::Expr> {
    match item {
        sql::SelectItem::UnnamedExpr(e) | sql::SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

/// HAVING may name a select alias that is not an input column.
pub(super) fn resolve_alias(e: &sql::Expr, aliases: &[(String, &sql::Expr)], rel: &Rel) -> sql::Expr {
    match e {
        sql::Expr::Identifier(id) if rel.cols.iter().all(|c| c.name != ident_name(id)) => {
            aliases.iter().find(|(a, _)| *a == ident_name(id)).map(|(_, x)| (*x).clone()).unwrap_or_else(|| e.clone())
        }
        sql::Expr::BinaryOp { left, op, right } => sql::Expr::BinaryOp {
            left: Box::new(resolve_alias(left, aliases, rel)),
            op: op.clone(),
            right: Box::new(resolve_alias(right, aliases, rel)),
        },
        sql::Expr::Nested(i) => sql::Expr::Nested(Box::new(resolve_alias(i, aliases, rel))),
        sql::Expr::UnaryOp { op, expr } => sql::Expr::UnaryOp { op: *op, expr: Box::new(resolve_alias(expr, aliases, rel)) },
        sql::Expr::IsNull(x) => sql::Expr::IsNull(Box::new(resolve_alias(x, aliases, rel))),
        sql::Expr::IsNotNull(x) => sql::Expr::IsNotNull(Box::new(resolve_alias(x, aliases, rel))),
        other => other.clone(),
    }
}

fn is_aggregate_call(e: &sql::Expr) -> bool {
    matches!(e, sql::Expr::Function(f) if f.over.is_none() && AggFunc::is_aggregate(&object_name(&f.name).to_lowercase()))
}

pub(super) fn contains_aggregate(e: &sql::Expr) -> bool {
    if is_aggregate_call(e) {
        return true;
    }
    let mut found = false;
    for_each_child(e, &mut |c| found |= contains_aggregate(c));
    found
}

/// The direct sub-expressions of the forms we plan.
pub(super) fn for_each_child<'e>(e: &'e sql::Expr, f: &mut dyn FnMut(&'e sql::Expr)) {
    match e {
        sql::Expr::BinaryOp { left, right, .. } => {
            f(left);
            f(right);
        }
        sql::Expr::UnaryOp { expr, .. } | sql::Expr::Nested(expr) | sql::Expr::IsNull(expr) | sql::Expr::IsNotNull(expr) | sql::Expr::Cast { expr, .. } => f(expr),
        sql::Expr::Floor { expr, .. } | sql::Expr::Ceil { expr, .. } => f(expr),
        sql::Expr::Case { operand, conditions, else_result, .. } => {
            operand.iter().for_each(|o| f(o));
            for w in conditions {
                f(&w.condition);
                f(&w.result);
            }
            else_result.iter().for_each(|x| f(x));
        }
        sql::Expr::In { expr, target: sql::InTarget::List(list), .. } => {
            f(expr);
            list.iter().for_each(|x| f(x));
        }
        sql::Expr::Between { expr, low, high, .. } => {
            f(expr);
            f(low);
            f(high);
        }
        sql::Expr::Like { expr, pattern, .. } => {
            f(expr);
            f(pattern);
        }
        sql::Expr::Substring { expr, substring_from, substring_for, .. } => {
            f(expr);
            substring_from.iter().chain(substring_for).for_each(|x| f(x));
        }
        sql::Expr::Trim { expr, trim_what, .. } => {
            f(expr);
            trim_what.iter().for_each(|x| f(x));
        }
        sql::Expr::Function(func) => {
            if let sql::FunctionArguments::List(l) = &func.args {
                for a in &l.args {
                    if let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) = a {
                        f(x);
                    }
                }
            }
        }
        _ => {}
    }
}
