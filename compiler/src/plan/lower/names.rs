//! Names: identifier folding, dotted object names, and the display name
//! an unaliased select expression gets as its column name.

use sqlparser::ast as sql;

use super::literal::literal;
use crate::plan::expr::{display_name_literal, Expr, Literal};

/// Unquoted identifiers fold to lowercase; quoted ones keep their case.
pub fn ident_name(i: &sql::Ident) -> String {
    if i.quote_style.is_some() {
        i.value.clone()
    } else {
        i.value.to_lowercase()
    }
}

/// A qualifier as `t.*` writes it, folded as every identifier is
/// (`T.*` reads the relation aliased `T`, which is `t`).
pub(super) fn qualifier_name(n: &sql::ObjectName) -> String {
    let part = |p: &sql::ObjectNamePart| p.as_ident().map(ident_name).unwrap_or_else(|| p.to_string());
    n.0.iter().map(part).collect::<Vec<_>>().join(".")
}

pub(super) fn object_name(n: &sql::ObjectName) -> String {
    let part_name = |p: &sql::ObjectNamePart| p.as_ident().map(|i| i.value.clone()).unwrap_or_else(|| p.to_string());
    // Nearly every name has one part: no vector, no join.
    if let [part] = &n.0[..] {
        return part_name(part);
    }
    n.0.iter().map(part_name).collect::<Vec<_>>().join(".")
}

/// DataFusion's display name of an unaliased select expression, which the
/// original used as the column's name (`sum(orders.qty) * Int64(2)`).
/// The name of an unaliased select item `e`, planned as `planned`: a column
/// keeps its name; an aggregate under CASTs is named as the aggregate
/// (`CAST(SUM(qty) AS BIGINT)` is `sum(qty)`: the original's planner names
/// a cast by its operand); anything else, a cast column included, gets its
/// display name (`CAST(qty AS BIGINT)` is `orders.qty`).
pub(super) fn unaliased_name(e: &sql::Expr, planned: &Expr, qualifier: &str) -> String {
    if let Expr::Column { name, .. } = planned {
        // A column is named as written, as Flink names it: over a join,
        // `c.code` is `code` even where the join calls it `code0`.
        return match strip_nested(e) {
            sql::Expr::Identifier(i) => ident_name(i),
            sql::Expr::CompoundIdentifier(p) => p.last().map(ident_name).unwrap_or_else(|| name.clone()),
            _ => name.clone(),
        };
    }
    match strip_casts(e, planned) {
        (sql::Expr::Function(_), Expr::Column { name, .. }) => name.clone(),
        _ => display_name(e, qualifier),
    }
}

/// The field name the original's planner gives a select item, which must
/// be unique among the items: the alias, a column's own name (through casts:
/// `CAST(qty AS BIGINT)` is `qty`), else the display name. Two items may
/// show the same name and still differ here (`COUNT(1)` and `count(*)`).
pub(super) fn planner_field(item: &sql::SelectItem, qualifier: &str) -> Option<String> {
    fn operand(e: &sql::Expr) -> &sql::Expr {
        match e {
            sql::Expr::Nested(i) | sql::Expr::Cast { expr: i, .. } => operand(i),
            other => other,
        }
    }
    match item {
        sql::SelectItem::ExprWithAlias { alias, .. } => Some(ident_name(alias)),
        sql::SelectItem::UnnamedExpr(e) => Some(match operand(e) {
            sql::Expr::Identifier(i) => ident_name(i),
            sql::Expr::CompoundIdentifier(p) => p.last().map(ident_name).unwrap_or_default(),
            _ => display_name(e, qualifier),
        }),
        _ => None,
    }
}

fn strip_casts<'e>(e: &'e sql::Expr, planned: &'e Expr) -> (&'e sql::Expr, &'e Expr) {
    match (e, planned) {
        (sql::Expr::Nested(inner), _) => strip_casts(inner, planned),
        (sql::Expr::Cast { expr, .. }, Expr::Cast { expr: operand, .. }) => strip_casts(expr, operand),
        _ => (e, planned),
    }
}

pub(super) fn display_name(e: &sql::Expr, qualifier: &str) -> String {
    match e {
        // Concatenated, not format!: every unaliased column takes this.
        sql::Expr::Identifier(i) => [qualifier, ".", &ident_name(i)].concat(),
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
            [display_name(left, qualifier).as_str(), " ", &sym, " ", &display_name(right, qualifier)].concat()
        }
        sql::Expr::IsNull(x) => format!("{} IS NULL", display_name(x, qualifier)),
        sql::Expr::IsNotNull(x) => format!("{} IS NOT NULL", display_name(x, qualifier)),
        // A cast keeps the name of what it casts.
        sql::Expr::Cast { expr, .. } => display_name(expr, qualifier),
        sql::Expr::Function(f) => function_display_name(f, qualifier),
        other => display_scalar(other, qualifier),
    }
}

/// The display name of a call: its name in lowercase and its arguments;
/// an aggregate's DISTINCT and FILTER are the caller's to add.
pub(super) fn function_display_name(f: &sql::Function, qualifier: &str) -> String {
    let mut out = object_name(&f.name).to_lowercase();
    out.push('(');
    if let sql::FunctionArguments::List(l) = &f.args {
        for (i, a) in l.args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match a {
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => out.push('*'),
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => out.push_str(&display_name(x, qualifier)),
                other => out.push_str(&other.to_string()),
            }
        }
    }
    out.push(')');
    out
}

/// The display name of the constructs past the original's SQL, in the
/// style of the rest: lowercase functions, columns qualified, so that
/// reformatting never renames a column.
fn display_scalar(e: &sql::Expr, q: &str) -> String {
    let d = |x: &sql::Expr| display_name(x, q);
    let not = |negated: bool| if negated { "NOT " } else { "" };
    match e {
        sql::Expr::Case { operand, conditions, else_result, .. } => {
            let mut s = String::from("CASE");
            if let Some(o) = operand {
                s.push_str(&format!(" {}", d(o)));
            }
            for w in conditions {
                s.push_str(&format!(" WHEN {} THEN {}", d(&w.condition), d(&w.result)));
            }
            if let Some(x) = else_result {
                s.push_str(&format!(" ELSE {}", d(x)));
            }
            s + " END"
        }
        sql::Expr::In { expr, target: sql::InTarget::List(list), negated, .. } => format!("{} {}IN ({})", d(expr), not(*negated), list.iter().map(d).collect::<Vec<_>>().join(", ")),
        sql::Expr::Between { expr, negated, low, high } => format!("{} {}BETWEEN {} AND {}", d(expr), not(*negated), d(low), d(high)),
        sql::Expr::Like { negated, expr, pattern, .. } => format!("{} {}LIKE {}", d(expr), not(*negated), d(pattern)),
        sql::Expr::Substring { expr, substring_from, substring_for, .. } => {
            let args: Vec<String> = std::iter::once(&**expr).chain(substring_from.as_deref()).chain(substring_for.as_deref()).map(d).collect();
            format!("substring({})", args.join(", "))
        }
        sql::Expr::Trim { expr, .. } => format!("trim({})", d(expr)),
        sql::Expr::Floor { expr, .. } => format!("floor({})", d(expr)),
        sql::Expr::Ceil { expr, .. } => format!("ceil({})", d(expr)),
        other => other.to_string(),
    }
}

fn strip_nested(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(i) => strip_nested(i),
        other => other,
    }
}
