//! INTERVAL literals, which only ever move a timestamp: `ts + INTERVAL
//! '1' HOUR`, `INTERVAL '5' MINUTE + ts`, `ts - INTERVAL '30' SECOND`.

use sqlparser::ast::{self as sql, Spanned};

use super::{operand_type, unsupported, Grouping, LowerError, Lowerer, Rel, Result};
use crate::diagnostic::Code;
use crate::plan::expr::{interval_fits, BinOp, Expr, Literal};
use crate::types::DataType;

/// What to write instead of an INTERVAL that is not a timestamp's operand.
pub(super) const INTERVAL_HELP: &str = "an INTERVAL moves a timestamp: `ts + INTERVAL '1' HOUR`, `ts - INTERVAL '30' SECOND`";

impl<'a> Lowerer<'a> {
    /// `a ± b` where a side is an INTERVAL: the other side must be a
    /// timestamp, and the result is a timestamp of its type.
    pub(super) fn interval_arithmetic(&self, e: &sql::Expr, op: BinOp, left: &sql::Expr, right: &sql::Expr, rel: &Rel, grouping: Option<&Grouping>) -> Result<Expr> {
        let model = self.model;
        let (l_iv, r_iv) = (as_interval(left), as_interval(right));
        let (iv, other) = match (l_iv, r_iv) {
            (Some(_), Some(_)) => return Err(unsupported(model, "arithmetic between two INTERVALs", e.span()).help("add each INTERVAL to the timestamp, or write their sum as one")),
            (Some(_), None) if op == BinOp::Minus => {
                return Err(unsupported(model, "an INTERVAL minus a timestamp", e.span()).help("subtract the INTERVAL from the timestamp: `ts - INTERVAL '1' HOUR`"))
            }
            (Some(iv), None) => (iv, right),
            (None, Some(iv)) => (iv, left),
            (None, None) => unreachable!("called with an INTERVAL operand"),
        };
        let ms = interval_ms(iv).map_err(|why| unsupported(model, format_args!("`{iv}`"), e.span()).help(why))?;
        let moved = self.expr(other, rel, grouping)?;
        let ty = operand_type(&moved, rel);
        if !matches!(ty, DataType::Timestamp | DataType::TimestampNanos) {
            return Err(LowerError::new(Code::ArithmeticTypeMismatch, format!("model `{model}` computes `{e}`: an INTERVAL can only move a timestamp, and `{}` is {ty}", moved.render()), e.span())
                .help(INTERVAL_HELP));
        }
        let interval = Box::new(Expr::Literal(Literal::Interval(ms)));
        let (left, right) = if l_iv.is_some() { (interval, Box::new(moved)) } else { (Box::new(moved), interval) };
        Ok(Expr::Binary { op, left, right, ty })
    }
}

/// The INTERVAL `e` is, looking through parentheses.
pub(super) fn as_interval(e: &sql::Expr) -> Option<&sql::Interval> {
    match e {
        sql::Expr::Interval(iv) => Some(iv),
        sql::Expr::Nested(inner) => as_interval(inner),
        _ => None,
    }
}

/// An INTERVAL's length in milliseconds, or why it has none we support.
pub(super) fn interval_ms(iv: &sql::Interval) -> std::result::Result<i64, String> {
    if iv.last_field.is_some() {
        return Err("write the INTERVAL in one unit, for example INTERVAL '90' MINUTE".into());
    }
    let sql::Expr::Value(v) = iv.value.as_ref() else { return Err("write the INTERVAL's amount as a quoted number: INTERVAL '5' MINUTE".into()) };
    let sql::Value::SingleQuotedString(text) = &v.value else { return Err("write the INTERVAL's amount as a quoted number: INTERVAL '5' MINUTE".into()) };
    use sql::DateTimeField as F;
    let unit: i64 = match &iv.leading_field {
        Some(F::Day | F::Days) => 86_400_000,
        Some(F::Hour | F::Hours) => 3_600_000,
        Some(F::Minute | F::Minutes) => 60_000,
        Some(F::Second | F::Seconds) => 1000,
        Some(F::Year | F::Years | F::Month | F::Months) => return Err("a YEAR or MONTH INTERVAL has no fixed length; write days, for example INTERVAL '30' DAY".into()),
        Some(F::Week(_) | F::Weeks) => return Err("write weeks as days, for example INTERVAL '7' DAY".into()),
        Some(other) => return Err(format!("{other} is not an INTERVAL unit here; use DAY, HOUR, MINUTE or SECOND")),
        None => return Err("give the INTERVAL a unit after the amount: INTERVAL '1' HOUR".into()),
    };
    let bad = || format!("`{text}` is not an amount; write a whole number (seconds may have up to three decimals), for example INTERVAL '5' MINUTE");
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(frac) || (!frac.is_empty() && unit != 1000) || frac.len() > 3 {
        return Err(bad());
    }
    let frac_ms: i64 = if frac.is_empty() { 0 } else { format!("{frac:0<3}").parse().map_err(|_| bad())? };
    let too_long = || "the INTERVAL is too long for Flink (at most six digits in its unit)".to_string();
    let n: i64 = whole.parse().map_err(|_| too_long())?;
    let ms = n.checked_mul(unit).and_then(|m| m.checked_add(frac_ms)).ok_or_else(too_long)?;
    let ms = if neg { -ms } else { ms };
    if !interval_fits(ms) {
        return Err(too_long());
    }
    Ok(ms)
}
