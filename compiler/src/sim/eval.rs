//! Evaluating typed expressions over a row, with SQL's three-valued logic
//! and arithmetic in the plan's result type (docs/semantics.md).

use std::sync::Arc;

use super::decimal::{Decimal, DecimalError};
pub use super::eval_error::{kind, EvalError, EvalResult};
use super::functions::{call_values, concat, like, modulo};
use super::value::{format_timestamp_ms, parse_rfc3339_nanos, Value};
use crate::plan::expr::{BinOp, Expr, Literal, ScalarFunc};
use crate::types::{DataType, Unsupported};

pub fn eval(e: &Expr, row: &[Value]) -> EvalResult {
    match e {
        Expr::Column { index, .. } => Ok(row.get(*index).cloned().unwrap_or(Value::Null)),
        Expr::Literal(l) => Ok(literal(l)),
        Expr::Binary { op: BinOp::Modulo, left, right, .. } => modulo(eval(left, row)?, eval(right, row)?),
        Expr::Binary { op: BinOp::Concat, left, right, .. } => concat(&[eval(left, row)?, eval(right, row)?]),
        Expr::Binary { op, left, right, ty } => {
            let l = eval(left, row)?;
            match op {
                // Short-circuit only where the result is already decided.
                BinOp::And if matches!(l, Value::Bool(false)) => return Ok(Value::Bool(false)),
                BinOp::Or if matches!(l, Value::Bool(true)) => return Ok(Value::Bool(true)),
                _ => {}
            }
            let r = eval(right, row)?;
            binary(*op, l, r, *ty)
        }
        Expr::Not(inner) => match eval(inner, row)? {
            Value::Null => Ok(Value::Null),
            Value::Bool(b) => Ok(Value::Bool(!b)),
            other => Err(EvalError::Type(format!("NOT needs a boolean, got {}", kind(&other)))),
        },
        Expr::IsNull { expr, negated } => Ok(Value::Bool(eval(expr, row)?.is_null() != *negated)),
        Expr::Cast { expr, to } => cast(eval(expr, row)?, *to),
        Expr::Case { .. } | Expr::Call { .. } | Expr::InList { .. } | Expr::Between { .. } | Expr::Like { .. } => scalar(e, row),
    }
}

/// CASE, the scalar functions, IN, BETWEEN and LIKE (past the original's SQL).
fn scalar(e: &Expr, row: &[Value]) -> EvalResult {
    match e {
        Expr::Case { branches, otherwise, ty } => {
            for (c, r) in branches {
                if holds(c, row)? {
                    return cast(eval(r, row)?, *ty);
                }
            }
            otherwise.as_deref().map_or(Ok(Value::Null), |o| cast(eval(o, row)?, *ty))
        }
        Expr::Call { func: ScalarFunc::Coalesce, args, ty } => {
            // The arguments after the first non-NULL one are not evaluated.
            for a in args {
                let v = eval(a, row)?;
                if !v.is_null() {
                    return cast(v, *ty);
                }
            }
            Ok(Value::Null)
        }
        Expr::Call { func: ScalarFunc::NullIf, args, ty } => {
            let (a, b) = (eval(&args[0], row)?, eval(&args[1], row)?);
            match compare(BinOp::Eq, a.clone(), b)? {
                Value::Bool(true) => Ok(Value::Null),
                _ => cast(a, *ty),
            }
        }
        Expr::Call { func, args, ty } => call_values(*func, &args.iter().map(|a| eval(a, row)).collect::<Result<Vec<_>, _>>()?, *ty),
        Expr::InList { expr, list, negated } => {
            let x = eval(expr, row)?;
            let mut found = Value::Bool(false);
            for item in list {
                match compare(BinOp::Eq, x.clone(), eval(item, row)?)? {
                    Value::Bool(true) => return Ok(negate(Value::Bool(true), *negated)),
                    Value::Null => found = Value::Null,
                    _ => {}
                }
            }
            Ok(negate(found, *negated))
        }
        Expr::Between { expr, low, high, negated } => {
            let x = eval(expr, row)?;
            let above = compare(BinOp::GtEq, x.clone(), eval(low, row)?)?;
            let below = compare(BinOp::LtEq, x, eval(high, row)?)?;
            Ok(negate(logic(BinOp::And, above, below)?, *negated))
        }
        Expr::Like { expr, pattern, escape, negated } => match (eval(expr, row)?, eval(pattern, row)?) {
            (Value::Str(s), Value::Str(p)) => {
                let (s, p): (Vec<char>, Vec<char>) = (s.chars().collect(), p.chars().collect());
                Ok(negate(Value::Bool(like(&s, &p, *escape)?), *negated))
            }
            (a, b) if a.is_null() || b.is_null() => Ok(Value::Null),
            (a, _) => Err(EvalError::Type(format!("LIKE needs strings, got {}", kind(&a)))),
        },
        other => eval(other, row),
    }
}

/// NOT of a three-valued result when `negated`.
fn negate(v: Value, negated: bool) -> Value {
    match v {
        Value::Bool(b) if negated => Value::Bool(!b),
        other => other,
    }
}

/// True only when the predicate is TRUE (NULL and FALSE filter out).
pub fn holds(e: &Expr, row: &[Value]) -> Result<bool, EvalError> {
    match eval(e, row)? {
        Value::Bool(b) => Ok(b),
        Value::Null => Ok(false),
        other => Err(EvalError::Type(format!("a predicate must be a boolean, got {}", kind(&other)))),
    }
}

pub fn literal(l: &Literal) -> Value {
    match l {
        Literal::Int(i) => Value::Int(*i),
        Literal::Float(f) => Value::Float(*f),
        Literal::Str(s) => Value::Str(Arc::from(s.as_str())),
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Null => Value::Null,
        Literal::Interval(ms) => Value::Int(*ms),
    }
}

fn binary(op: BinOp, l: Value, r: Value, ty: DataType) -> EvalResult {
    match op {
        BinOp::And | BinOp::Or => logic(op, l, r),
        _ if op.is_comparison() => compare(op, l, r),
        _ => arithmetic(op, l, r, ty),
    }
}

fn logic(op: BinOp, l: Value, r: Value) -> EvalResult {
    let as_bool = |v: &Value| match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        other => Err(EvalError::Type(format!("{} needs booleans, got {}", op.symbol(), kind(other)))),
    };
    let (a, b) = (as_bool(&l)?, as_bool(&r)?);
    Ok(match (op, a, b) {
        (BinOp::And, Some(false), _) | (BinOp::And, _, Some(false)) => Value::Bool(false),
        (BinOp::And, Some(true), Some(true)) => Value::Bool(true),
        (BinOp::Or, Some(true), _) | (BinOp::Or, _, Some(true)) => Value::Bool(true),
        (BinOp::Or, Some(false), Some(false)) => Value::Bool(false),
        _ => Value::Null,
    })
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Float(_) | Value::Decimal(_))
}

pub(super) fn compare(op: BinOp, l: Value, r: Value) -> EvalResult {
    use std::cmp::Ordering::*;
    if l.is_null() || r.is_null() {
        return Ok(Value::Null);
    }
    let ord = match (&l, &r) {
        // With a float on either side, IEEE comparison, as Flink's generated
        // code compares doubles: -0.0 = 0.0, and NaN is equal to nothing.
        (Value::Float(_), b) | (b, Value::Float(_)) if is_number(b) => match as_f64(&l).partial_cmp(&as_f64(&r)) {
            Some(o) => o,
            None => return Ok(Value::Bool(op == BinOp::NotEq)),
        },
        (a, b) if is_number(a) && is_number(b) => a.cmp(b),
        (Value::Str(_), Value::Str(_)) | (Value::Bool(_), Value::Bool(_)) => l.cmp(&r),
        (Value::Timestamp(_) | Value::TimestampNanos(_), Value::Timestamp(_) | Value::TimestampNanos(_)) => l.cmp(&r),
        // `ts > '2024-01-01T00:00:00Z'`: the string is read as an instant.
        (Value::Timestamp(_) | Value::TimestampNanos(_), Value::Str(s)) => l.cmp(&string_instant(s, &l)?),
        (Value::Str(s), Value::Timestamp(_) | Value::TimestampNanos(_)) => string_instant(s, &r)?.cmp(&r),
        _ => return Err(EvalError::Type(format!("cannot compare {} with {}", kind(&l), kind(&r)))),
    };
    Ok(Value::Bool(match op {
        BinOp::Eq => ord == Equal,
        BinOp::NotEq => ord != Equal,
        BinOp::Lt => ord == Less,
        BinOp::LtEq => ord != Greater,
        BinOp::Gt => ord == Greater,
        _ => ord != Less,
    }))
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        Value::Int(i) => *i as f64,
        Value::Decimal(d) => d.to_f64(),
        _ => f64::NAN,
    }
}

fn string_instant(s: &str, other: &Value) -> EvalResult {
    match parse_instant_nanos(s) {
        Some(ns) => Ok(Value::TimestampNanos(ns)),
        None => Err(EvalError::Type(format!("cannot compare {} with the string {}", kind(other), super::value::quote(s)))),
    }
}

/// RFC 3339, or Flink's `YYYY-MM-DD HH:MM:SS[.fff]` (read as UTC).
fn parse_instant_nanos(s: &str) -> Option<i64> {
    let ns = parse_rfc3339_nanos(s).or_else(|| {
        let t = s.trim();
        let with_t = if t.len() == 10 { format!("{t}T00:00:00Z") } else { format!("{}Z", t.replacen(' ', "T", 1)) };
        parse_rfc3339_nanos(&with_t)
    })?;
    i64::try_from(ns).ok()
}

fn overflow(l: &Value, op: BinOp, r: &Value) -> EvalError {
    EvalError::Overflow(format!("{} {} {}", l.render_text(), op.symbol(), r.render_text()))
}

fn to_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Decimal(d) => Some(d.to_f64()),
        _ => None,
    }
}

fn to_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Int(i) => Some(Decimal::from_int(*i)),
        Value::Decimal(d) => Some(*d),
        _ => None,
    }
}

/// `timestamp ± interval` and `interval + timestamp` (typing allows no
/// other timestamp arithmetic); an interval evaluates to its milliseconds.
fn shift(op: BinOp, l: &Value, r: &Value) -> Option<Value> {
    let ms = |d: i64| if op == BinOp::Minus { d.checked_neg() } else { Some(d) };
    match (l, r) {
        (Value::Timestamp(t), Value::Int(d)) => Some(Value::Timestamp(t.checked_add(ms(*d)?)?)),
        (Value::Int(d), Value::Timestamp(t)) => Some(Value::Timestamp(t.checked_add(*d)?)),
        (Value::TimestampNanos(t), Value::Int(d)) => Some(Value::TimestampNanos(t.checked_add(ms(*d)?.checked_mul(1_000_000)?)?)),
        (Value::Int(d), Value::TimestampNanos(t)) => Some(Value::TimestampNanos(t.checked_add(d.checked_mul(1_000_000)?)?)),
        _ => None,
    }
}

fn arithmetic(op: BinOp, l: Value, r: Value, ty: DataType) -> EvalResult {
    if l.is_null() || r.is_null() {
        return Ok(Value::Null);
    }
    let type_error = || EvalError::Type(format!("cannot apply `{}` to {} and {}", op.symbol(), kind(&l), kind(&r)));
    if let (Value::Timestamp(a), Value::Timestamp(b), BinOp::Minus) = (&l, &r, op) {
        // `timestamp - timestamp`: a duration, in milliseconds.
        return a.checked_sub(*b).map(Value::Int).ok_or_else(|| overflow(&l, op, &r));
    }
    if matches!(ty, DataType::Timestamp | DataType::TimestampNanos) {
        return shift(op, &l, &r).ok_or_else(|| overflow(&l, op, &r));
    }
    match ty {
        DataType::Int32 | DataType::Int64 => {
            let (Value::Int(a), Value::Int(b)) = (&l, &r) else { return Err(type_error()) };
            let v = match op {
                BinOp::Plus => a.checked_add(*b),
                BinOp::Minus => a.checked_sub(*b),
                BinOp::Multiply => a.checked_mul(*b),
                _ => {
                    if *b == 0 {
                        return Err(EvalError::DivisionByZero);
                    }
                    a.checked_div(*b)
                }
            };
            match v {
                Some(v) if ty == DataType::Int64 || i32::try_from(v).is_ok() => Ok(Value::Int(v)),
                _ => Err(overflow(&l, op, &r)),
            }
        }
        DataType::Decimal(p, s) => {
            let (Some(a), Some(b)) = (to_decimal(&l), to_decimal(&r)) else { return Err(type_error()) };
            let res = match op {
                BinOp::Plus => a.add(b, p, s),
                BinOp::Minus => a.sub(b, p, s),
                BinOp::Multiply => a.mul(b, p, s),
                _ => a.div(b, p, s),
            };
            match res {
                Ok(d) => Ok(Value::Decimal(d)),
                Err(DecimalError::DivisionByZero) => Err(EvalError::DivisionByZero),
                Err(DecimalError::Overflow) => Err(overflow(&l, op, &r)),
            }
        }
        // float64, and anything else the plan could not type more precisely.
        _ => {
            let (Some(a), Some(b)) = (to_f64(&l), to_f64(&r)) else { return Err(type_error()) };
            let v = match op {
                BinOp::Plus => a + b,
                BinOp::Minus => a - b,
                BinOp::Multiply => a * b,
                _ => {
                    if b == 0.0 {
                        return Err(EvalError::DivisionByZero);
                    }
                    a / b
                }
            };
            if v.is_finite() || !(a.is_finite() && b.is_finite()) {
                Ok(Value::Float(v))
            } else {
                Err(overflow(&l, op, &r))
            }
        }
    }
}

/// CAST with Flink's conversions; values without a representation in the
/// target type are errors (Flink's CAST fails the job; TRY_CAST is not in
/// the language).
pub fn cast(v: Value, to: DataType) -> EvalResult {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let fail = |v: &Value| cast_error(v, to);
    match to {
        DataType::Int32 | DataType::Int64 | DataType::Unsupported(Unsupported::Int8 | Unsupported::Int16) => cast_to_integer(&v, to),
        DataType::Float64 | DataType::Unsupported(Unsupported::Float32) => {
            let f = match &v {
                Value::Bool(b) => *b as i64 as f64,
                Value::Str(s) => s.trim().parse::<f64>().map_err(|_| fail(&v))?,
                other => to_f64(other).ok_or_else(|| fail(&v))?,
            };
            Ok(Value::Float(if to == DataType::Float64 { f } else { f as f32 as f64 }))
        }
        DataType::Decimal(p, s) => cast_to_decimal(&v, to, p, s),
        DataType::String | DataType::Unsupported(Unsupported::Utf8View) => Ok(Value::Str(Arc::from(cast_to_string(&v).as_str()))),
        DataType::Boolean => match &v {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::Int(i) => Ok(Value::Bool(*i != 0)),
            Value::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(fail(&v)),
            },
            _ => Err(fail(&v)),
        },
        DataType::Timestamp | DataType::TimestampNanos => cast_to_instant(&v, to),
        // A date is held as the instant of its midnight (UTC).
        DataType::Unsupported(Unsupported::Date32) => match cast(v.clone(), DataType::Timestamp)? {
            Value::Timestamp(ms) => Ok(Value::Timestamp(ms.div_euclid(86_400_000) * 86_400_000)),
            _ => Err(fail(&v)),
        },
        DataType::Unsupported(Unsupported::DurationMs | Unsupported::Interval) => match &v {
            Value::Int(i) => Ok(Value::Int(*i)),
            _ => Err(fail(&v)),
        },
        DataType::Unsupported(Unsupported::Null) => Ok(Value::Null),
    }
}

fn cast_error(v: &Value, to: DataType) -> EvalError {
    EvalError::Cast(format!("cannot cast {} to {to}", v.render_text()))
}

/// CAST to an integer type: decimals and floats truncate toward zero.
fn cast_to_integer(v: &Value, to: DataType) -> EvalResult {
    let i: i128 = match v {
        Value::Int(i) => *i as i128,
        Value::Decimal(d) => d.mantissa / super::decimal::POW10[d.scale as usize] as i128,
        Value::Float(f) if f.is_finite() => f.trunc() as i128,
        Value::Bool(b) => *b as i128,
        Value::Str(s) => s.trim().parse::<i128>().map_err(|_| cast_error(v, to))?,
        _ => return Err(cast_error(v, to)),
    };
    let ok = match to {
        DataType::Int32 => i32::try_from(i).is_ok(),
        DataType::Unsupported(Unsupported::Int16) => i16::try_from(i).is_ok(),
        DataType::Unsupported(Unsupported::Int8) => i8::try_from(i).is_ok(),
        _ => i64::try_from(i).is_ok(),
    };
    if ok {
        Ok(Value::Int(i as i64))
    } else {
        Err(EvalError::Overflow(format!("CAST({} AS {to})", v.render_text())))
    }
}

/// CAST to decimal(p, s): a string that is no number fails the cast; a
/// number with too many digits overflows.
fn cast_to_decimal(v: &Value, to: DataType, p: u8, s: u8) -> EvalResult {
    let d = match v {
        Value::Int(i) => Decimal::from_int(*i).rescale(s),
        Value::Decimal(d) => d.rescale(s),
        Value::Float(f) => Decimal::from_f64(*f, s),
        Value::Str(t) => Decimal::parse(t.trim(), 38.min(s.saturating_add(20))).ok().and_then(|d| d.rescale(s)),
        Value::Bool(b) => Decimal::from_int(*b as i64).rescale(s),
        _ => return Err(cast_error(v, to)),
    };
    match d {
        Some(d) if d.fits(p) => Ok(Value::Decimal(d)),
        _ if matches!(v, Value::Str(_)) && d.is_none() => Err(cast_error(v, to)),
        _ => Err(EvalError::Overflow(format!("CAST({} AS {to})", v.render_text()))),
    }
}

/// CAST to timestamp (milliseconds) or timestamp_ns.
fn cast_to_instant(v: &Value, to: DataType) -> EvalResult {
    let nanos = to == DataType::TimestampNanos;
    match v {
        Value::Timestamp(t) if nanos => t.checked_mul(1_000_000).map(Value::TimestampNanos).ok_or_else(|| cast_error(v, to)),
        Value::Timestamp(t) => Ok(Value::Timestamp(*t)),
        Value::TimestampNanos(n) if nanos => Ok(Value::TimestampNanos(*n)),
        Value::TimestampNanos(n) => Ok(Value::Timestamp(n.div_euclid(1_000_000))),
        Value::Str(s) if nanos => parse_instant_nanos(s).map(Value::TimestampNanos).ok_or_else(|| cast_error(v, to)),
        Value::Str(s) => parse_instant_nanos(s).map(|n| Value::Timestamp(n.div_euclid(1_000_000))).ok_or_else(|| cast_error(v, to)),
        _ => Err(cast_error(v, to)),
    }
}

/// Flink's CAST(… AS STRING) text.
fn cast_to_string(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => super::value::render_float_text(*f),
        Value::Decimal(d) => d.to_scaled_string(),
        Value::Str(s) => s.to_string(),
        Value::Timestamp(ms) => format_timestamp_ms(*ms).trim_end_matches('Z').replacen('T', " ", 1),
        Value::TimestampNanos(ns) => {
            let base = format_timestamp_ms(ns.div_euclid(1_000_000));
            let base = base.trim_end_matches('Z').replacen('T', " ", 1);
            format!("{base}{:06}", ns.rem_euclid(1_000_000))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::expr::Expr;

    fn col(i: usize, ty: DataType) -> Expr {
        Expr::Column { index: i, name: format!("c{i}"), ty }
    }

    fn bin(op: BinOp, l: Expr, r: Expr, ty: DataType) -> Expr {
        Expr::Binary { op, left: Box::new(l), right: Box::new(r), ty }
    }

    #[test]
    fn floats_compare_as_ieee_numbers() {
        // 0 * -2.5 is -0.0, which SQL (and Flink's generated code) calls equal to 0.
        let eq = |l: Value, r: Value| compare(BinOp::Eq, l, r).unwrap();
        assert_eq!(eq(Value::Float(-0.0), Value::Int(0)), Value::Bool(true));
        assert_eq!(eq(Value::Float(-0.0), Value::Float(0.0)), Value::Bool(true));
        assert_eq!(compare(BinOp::Lt, Value::Float(-0.0), Value::Float(0.0)).unwrap(), Value::Bool(false));
        assert_eq!(eq(Value::Float(f64::NAN), Value::Float(f64::NAN)), Value::Bool(false));
        assert_eq!(compare(BinOp::NotEq, Value::Float(f64::NAN), Value::Int(1)).unwrap(), Value::Bool(true));
        assert_eq!(compare(BinOp::Lt, Value::Float(1.5), Value::Int(2)).unwrap(), Value::Bool(true));
    }

    #[test]
    fn integer_overflow_and_division() {
        let e = bin(BinOp::Plus, col(0, DataType::Int64), Expr::Literal(Literal::Int(1)), DataType::Int64);
        assert_eq!(eval(&e, &[Value::Int(i64::MAX)]).unwrap_err().to_string(), "arithmetic overflow in 9223372036854775807 + 1");
        let d = bin(BinOp::Divide, col(0, DataType::Int32), Expr::Literal(Literal::Int(0)), DataType::Int64);
        assert_eq!(eval(&d, &[Value::Int(1)]), Err(EvalError::DivisionByZero));
        let q = bin(BinOp::Divide, col(0, DataType::Int64), Expr::Literal(Literal::Int(2)), DataType::Int64);
        assert_eq!(eval(&q, &[Value::Int(-7)]).unwrap().render_text(), "-3");
    }

    #[test]
    fn three_valued_logic() {
        let t = Expr::Literal(Literal::Bool(true));
        let n = Expr::Literal(Literal::Null);
        let f = Expr::Literal(Literal::Bool(false));
        assert!(eval(&bin(BinOp::And, n.clone(), f.clone(), DataType::Boolean), &[]).unwrap() == Value::Bool(false));
        assert!(eval(&bin(BinOp::And, n.clone(), t.clone(), DataType::Boolean), &[]).unwrap().is_null());
        assert!(eval(&bin(BinOp::Or, n.clone(), t, DataType::Boolean), &[]).unwrap() == Value::Bool(true));
        assert!(eval(&bin(BinOp::Gt, n, Expr::Literal(Literal::Int(1)), DataType::Boolean), &[]).unwrap().is_null());
    }

    #[test]
    fn mixed_comparisons() {
        let e = bin(BinOp::Gt, col(0, DataType::String), Expr::Literal(Literal::Int(5)), DataType::Boolean);
        assert_eq!(eval(&e, &[Value::Str("7".into())]).unwrap_err().to_string(), "type error: cannot compare a string with an integer");
        let ts = bin(BinOp::Gt, col(0, DataType::Timestamp), Expr::Literal(Literal::Str("2024-01-01T00:00:00Z".into())), DataType::Boolean);
        assert_eq!(eval(&ts, &[Value::Timestamp(1_704_067_200_001)]).unwrap(), Value::Bool(true));
        let dec = bin(BinOp::Gt, col(0, DataType::Decimal(10, 2)), Expr::Literal(Literal::Float(0.1)), DataType::Boolean);
        assert_eq!(eval(&dec, &[Value::Decimal(Decimal::new(10, 2))]).unwrap(), Value::Bool(false));
    }

    #[test]
    fn casts() {
        assert_eq!(cast(Value::Decimal(Decimal::new(1050, 2)), DataType::String).unwrap(), Value::Str("10.50".into()));
        assert_eq!(cast(Value::Decimal(Decimal::new(-1999, 2)), DataType::Int64).unwrap(), Value::Int(-19));
        assert_eq!(cast(Value::Float(2.675), DataType::Decimal(10, 2)).unwrap().render_text(), "2.68");
        assert!(cast(Value::Str("abc".into()), DataType::Int64).is_err());
        assert_eq!(cast(Value::Int(3_000_000_000), DataType::Int32).unwrap_err().to_string(), "arithmetic overflow in CAST(3000000000 AS int32)");
    }
}
