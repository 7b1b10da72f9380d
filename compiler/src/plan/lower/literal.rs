//! SQL literal values as typed plan literals.

use sqlparser::ast as sql;

use crate::plan::expr::Literal;

/// A number, string, boolean or NULL; `None` for other values.
pub(super) fn literal(v: &sql::Value) -> Option<Literal> {
    Some(match v {
        sql::Value::Number(n, _) => {
            if n.bytes().all(|b| b.is_ascii_digit()) {
                match n.parse::<i64>() {
                    Ok(i) => Literal::Int(i),
                    Err(_) => Literal::Float(n.parse().ok()?),
                }
            } else {
                Literal::Float(n.parse().ok()?)
            }
        }
        sql::Value::SingleQuotedString(s) => Literal::Str(s.clone()),
        sql::Value::Boolean(b) => Literal::Bool(*b),
        sql::Value::Null => Literal::Null,
        _ => return None,
    })
}
