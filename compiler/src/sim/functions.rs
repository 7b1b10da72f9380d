//! The scalar functions past the original's SQL, on evaluated values, with
//! Flink's semantics (docs/semantics.md): LIKE, `%`, `||`, the string
//! functions, ABS, ROUND, FLOOR and CEIL. NULL in gives NULL out.

use std::sync::Arc;

use super::decimal::{Decimal, POW10};
use super::eval_error::{kind, EvalError, EvalResult};
use super::value::{civil_from_days, days_from_civil, Value};
use crate::plan::expr::ScalarFunc;
use crate::plan::func::{TimeUnit, TrimSide};
use crate::types::DataType;

/// A function of already evaluated arguments (COALESCE and NULLIF, which
/// look at their arguments in turn, are the evaluator's): NULL in, NULL out.
pub fn call_values(func: ScalarFunc, vals: &[Value], ty: DataType) -> EvalResult {
    if func == ScalarFunc::Concat {
        return concat(vals);
    }
    if vals.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    match func {
        ScalarFunc::Upper | ScalarFunc::Lower | ScalarFunc::Trim(_) | ScalarFunc::CharLength | ScalarFunc::Substring => string_call(func, vals),
        ScalarFunc::Extract(_) | ScalarFunc::FloorTime(_) | ScalarFunc::CeilTime(_) | ScalarFunc::DateFormat => time_call(func, vals),
        _ => number_call(func, vals, ty),
    }
}

/// `a % b` on integers; the sign follows the dividend, as in Java.
pub fn modulo(a: Value, b: Value) -> EvalResult {
    match (a, b) {
        (Value::Int(_), Value::Int(0)) => Err(EvalError::DivisionByZero),
        (Value::Int(a), Value::Int(b)) => Ok(Value::Int(a.checked_rem(b).unwrap_or(0))),
        (a, b) if a.is_null() || b.is_null() => Ok(Value::Null),
        (a, _) => Err(EvalError::Type(format!("`%` needs integers, got {}", kind(&a)))),
    }
}

fn text(v: &Value) -> Result<&str, EvalError> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(EvalError::Type(format!("expected a string, got {}", kind(other)))),
    }
}

/// Strings joined; NULL when any is NULL.
pub fn concat(vals: &[Value]) -> EvalResult {
    if vals.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let mut out = String::new();
    for v in vals {
        out.push_str(text(v)?);
    }
    Ok(Value::Str(Arc::from(out.as_str())))
}

fn string_call(func: ScalarFunc, vals: &[Value]) -> EvalResult {
    let s = text(&vals[0])?;
    let str_value = |t: String| Ok(Value::Str(Arc::from(t.as_str())));
    match func {
        ScalarFunc::Upper => str_value(s.to_uppercase()),
        ScalarFunc::Lower => str_value(s.to_lowercase()),
        ScalarFunc::CharLength => Ok(Value::Int(s.chars().count() as i64)),
        ScalarFunc::Trim(side) => {
            let chars: Vec<char> = text(&vals[1])?.chars().collect();
            let t = match side {
                TrimSide::Both => s.trim_matches(chars.as_slice()),
                TrimSide::Leading => s.trim_start_matches(chars.as_slice()),
                TrimSide::Trailing => s.trim_end_matches(chars.as_slice()),
            };
            str_value(t.to_string())
        }
        _ => {
            let int = |v: &Value| match v {
                Value::Int(i) => Ok(*i),
                other => Err(EvalError::Type(format!("substring() needs integers, got {}", kind(other)))),
            };
            let start = int(&vals[1])?;
            let len = vals.get(2).map(int).transpose()?;
            Ok(substring(s, start, len).map_or(Value::Null, |t| Value::Str(Arc::from(t.as_str()))))
        }
    }
}

/// Flink's SUBSTRING: 1-based; a start of 0 is 1; a negative start counts
/// from the end; a negative length is NULL.
fn substring(s: &str, pos: i64, len: Option<i64>) -> Option<String> {
    if len.is_some_and(|l| l < 0) {
        return None;
    }
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i64;
    let start = match pos {
        p if p > 0 => p - 1,
        p if p < 0 => n + p,
        _ => 0,
    };
    if start < 0 || start >= n {
        return Some(String::new());
    }
    let end = match len {
        Some(l) if n - start >= l => start + l,
        _ => n,
    };
    Some(chars[start as usize..end as usize].iter().collect())
}

fn number_call(func: ScalarFunc, vals: &[Value], ty: DataType) -> EvalResult {
    let overflow = || EvalError::Overflow(format!("{}({})", func.name(), vals[0].render_text()));
    match (func, &vals[0]) {
        (ScalarFunc::Abs, Value::Int(i)) => i.checked_abs().map(Value::Int).ok_or_else(overflow),
        (ScalarFunc::Abs, Value::Float(f)) => Ok(Value::Float(f.abs())),
        (ScalarFunc::Abs, Value::Decimal(d)) => Ok(Value::Decimal(Decimal::new(d.mantissa.abs(), d.scale))),
        (ScalarFunc::Floor | ScalarFunc::Ceil, Value::Int(i)) => Ok(Value::Int(*i)),
        (ScalarFunc::Floor, Value::Float(f)) => Ok(Value::Float(f.floor())),
        (ScalarFunc::Ceil, Value::Float(f)) => Ok(Value::Float(f.ceil())),
        (ScalarFunc::Floor | ScalarFunc::Ceil, Value::Decimal(d)) => {
            let unit = POW10[d.scale as usize] as i128;
            let (q, r) = (d.mantissa.div_euclid(unit), d.mantissa.rem_euclid(unit));
            let m = if func == ScalarFunc::Ceil && r != 0 { q + 1 } else { q };
            Ok(Value::Decimal(Decimal::new(m, 0)))
        }
        (ScalarFunc::Avg, sum) => {
            let Value::Int(n) = vals[1] else { return Err(EvalError::Type("avg() needs its count".into())) };
            match (sum, ty) {
                (_, _) if n == 0 => Ok(Value::Null),
                (Value::Int(s), _) => Ok(Value::Float(*s as f64 / n as f64)),
                (Value::Float(s), _) => Ok(Value::Float(s / n as f64)),
                (Value::Decimal(s), DataType::Decimal(p, scale)) => s.div(Decimal::from_int(n), p, scale).map(Value::Decimal).map_err(|_| overflow()),
                (other, _) => Err(EvalError::Type(format!("avg() needs a number, got {}", kind(other)))),
            }
        }
        (ScalarFunc::Round, v) => {
            let digits = match vals.get(1) {
                Some(Value::Int(d)) => *d,
                _ => 0,
            };
            round(v, digits, ty).ok_or_else(overflow)
        }
        (_, other) => Err(EvalError::Type(format!("{}() needs a number, got {}", func.name(), kind(other)))),
    }
}

/// ROUND half away from zero (Java's HALF_UP), to `digits` after the point
/// (before it when negative).
fn round(v: &Value, digits: i64, ty: DataType) -> Option<Value> {
    match v {
        Value::Int(i) if digits >= 0 => Some(Value::Int(*i)),
        Value::Int(i) => {
            let unit = 10i64.checked_pow((-digits) as u32)?;
            let half = unit / 2;
            let q = (i.abs() + half) / unit * unit;
            Some(Value::Int(if *i < 0 { -q } else { q }))
        }
        // Flink rounds the double's shortest decimal text (BigDecimal.valueOf).
        Value::Float(f) if !f.is_finite() => Some(Value::Float(*f)),
        Value::Float(f) => {
            let t = format!("{f}");
            let scale = t.split_once('.').map_or(0, |(_, frac)| frac.len());
            let Some(d) = u8::try_from(scale).ok().filter(|s| *s <= 38).and_then(|s| Decimal::parse(&t, s).ok()) else { return Some(Value::Float(*f)) };
            Some(Value::Float(round_decimal(d, digits)?.to_f64()))
        }
        Value::Decimal(d) => {
            let r = round_decimal(*d, digits)?;
            let scale = match ty {
                DataType::Decimal(_, s) => s,
                _ => r.scale,
            };
            Some(Value::Decimal(r.rescale(scale)?))
        }
        _ => None,
    }
}

fn round_decimal(d: Decimal, digits: i64) -> Option<Decimal> {
    if digits >= d.scale as i64 {
        return Some(d);
    }
    if digits >= 0 {
        return d.rescale(digits as u8);
    }
    // One rounding, straight to tens or hundreds: 14.5 to tens is 10.
    let unit = *POW10.get(d.scale as usize + (-digits) as usize)? as i128;
    let step = *POW10.get((-digits) as usize)? as i128;
    let q = (d.mantissa.abs() + unit / 2) / unit * step;
    Some(Decimal::new(if d.mantissa < 0 { -q } else { q }, 0))
}

/// A timestamp as nanoseconds since the epoch, and how to make one back.
fn instant(v: &Value) -> Result<(i64, bool), EvalError> {
    match v {
        Value::Timestamp(ms) => Ok((ms.saturating_mul(1_000_000), false)),
        Value::TimestampNanos(ns) => Ok((*ns, true)),
        other => Err(EvalError::Type(format!("expected a timestamp, got {}", kind(other)))),
    }
}

const NS_PER_DAY: i64 = 86_400_000_000_000;

/// EXTRACT, FLOOR/CEIL(ts TO unit) and DATE_FORMAT, in UTC (a timestamp
/// has no zone; Flink's TIMESTAMP is the same wall clock).
fn time_call(func: ScalarFunc, vals: &[Value]) -> EvalResult {
    let (ns, nanos) = instant(&vals[0])?;
    let (days, in_day) = (ns.div_euclid(NS_PER_DAY), ns.rem_euclid(NS_PER_DAY));
    let (y, m, d) = civil_from_days(days);
    let back = |ns: i64| if nanos { Value::TimestampNanos(ns) } else { Value::Timestamp(ns.div_euclid(1_000_000)) };
    match func {
        ScalarFunc::Extract(u) => Ok(Value::Int(match u {
            TimeUnit::Year => y,
            TimeUnit::Quarter => (m as i64 - 1) / 3 + 1,
            TimeUnit::Month => m as i64,
            TimeUnit::Day => d as i64,
            TimeUnit::Hour => in_day / 3_600_000_000_000,
            TimeUnit::Minute => in_day / 60_000_000_000 % 60,
            TimeUnit::Second => in_day / 1_000_000_000 % 60,
        })),
        ScalarFunc::FloorTime(u) | ScalarFunc::CeilTime(u) => {
            let floor = floor_to(u, days, in_day, y, m);
            if matches!(func, ScalarFunc::FloorTime(_)) || floor == ns {
                return Ok(back(floor));
            }
            // The next unit boundary: one unit past the floor.
            let next = match u {
                TimeUnit::Year => days_from_civil(y + 1, 1, 1) * NS_PER_DAY,
                TimeUnit::Quarter | TimeUnit::Month => {
                    let first = if u == TimeUnit::Quarter { (m - 1) / 3 * 3 + 1 } else { m };
                    let step = if u == TimeUnit::Quarter { 3 } else { 1 };
                    let (ny, nm) = if first + step > 12 { (y + 1, first + step - 12) } else { (y, first + step) };
                    days_from_civil(ny, nm, 1) * NS_PER_DAY
                }
                _ => floor + unit_ns(u),
            };
            Ok(back(next))
        }
        _ => {
            let pattern = text(&vals[1])?;
            let ms = ns.div_euclid(1_000_000);
            let fields = [("yyyy", format!("{y:04}")), ("MM", format!("{m:02}")), ("dd", format!("{d:02}")), ("HH", format!("{:02}", in_day / 3_600_000_000_000)), ("mm", format!("{:02}", in_day / 60_000_000_000 % 60)), ("ss", format!("{:02}", in_day / 1_000_000_000 % 60)), ("SSS", format!("{:03}", ms.rem_euclid(1000)))];
            let mut out = String::new();
            let mut rest = pattern;
            while !rest.is_empty() {
                match fields.iter().find(|(f, _)| rest.starts_with(f)) {
                    Some((f, v)) => {
                        out.push_str(v);
                        rest = &rest[f.len()..];
                    }
                    None => {
                        let c = rest.chars().next().unwrap_or(' ');
                        out.push(c);
                        rest = &rest[c.len_utf8()..];
                    }
                }
            }
            Ok(Value::Str(Arc::from(out.as_str())))
        }
    }
}

fn unit_ns(u: TimeUnit) -> i64 {
    match u {
        TimeUnit::Hour => 3_600_000_000_000,
        TimeUnit::Minute => 60_000_000_000,
        TimeUnit::Second => 1_000_000_000,
        _ => NS_PER_DAY,
    }
}

/// The start of the unit holding the instant.
fn floor_to(u: TimeUnit, days: i64, in_day: i64, y: i64, m: u32) -> i64 {
    match u {
        TimeUnit::Year => days_from_civil(y, 1, 1) * NS_PER_DAY,
        TimeUnit::Quarter => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1) * NS_PER_DAY,
        TimeUnit::Month => days_from_civil(y, m, 1) * NS_PER_DAY,
        TimeUnit::Day => days * NS_PER_DAY,
        _ => days * NS_PER_DAY + in_day / unit_ns(u) * unit_ns(u),
    }
}

/// `s LIKE p`: `%` any run, `_` one character, `escape` makes the next
/// character literal.
pub fn like(s: &[char], p: &[char], escape: Option<char>) -> Result<bool, EvalError> {
    let Some((&c, rest)) = p.split_first() else { return Ok(s.is_empty()) };
    if Some(c) == escape {
        let Some((&lit, rest)) = rest.split_first() else {
            return Err(EvalError::Type("a LIKE pattern ends with its escape character".into()));
        };
        return Ok(s.first() == Some(&lit) && like(&s[1..], rest, escape)?);
    }
    match c {
        '%' => {
            for i in 0..=s.len() {
                if like(&s[i..], rest, escape)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        '_' => Ok(!s.is_empty() && like(&s[1..], rest, escape)?),
        _ => Ok(s.first() == Some(&c) && like(&s[1..], rest, escape)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn like_matches_sql() {
        let m = |s: &str, p: &str, e: Option<char>| like(&chars(s), &chars(p), e).unwrap();
        assert!(m("shipped", "ship%", None));
        assert!(m("a_b", "a!_b", Some('!')));
        assert!(!m("axb", "a!_b", Some('!')));
        assert!(m("axb", "a_b", None));
        assert!(m("", "%", None));
        assert!(!m("abc", "ab", None));
        assert!(m("50%", "50!%", Some('!')));
    }

    #[test]
    fn substring_follows_flink() {
        assert_eq!(substring("hello", 2, Some(3)).as_deref(), Some("ell"));
        assert_eq!(substring("hello", 0, Some(2)).as_deref(), Some("he"));
        assert_eq!(substring("hello", -3, None).as_deref(), Some("llo"));
        assert_eq!(substring("hello", 9, None).as_deref(), Some(""));
        assert_eq!(substring("hello", 1, Some(-1)), None);
    }

    #[test]
    fn round_is_half_away_from_zero() {
        let d = |m: i128, s: u8| Value::Decimal(Decimal::new(m, s));
        assert_eq!(round(&d(125, 2), 1, DataType::Decimal(3, 1)), Some(d(13, 1)));
        assert_eq!(round(&d(-125, 2), 1, DataType::Decimal(3, 1)), Some(d(-13, 1)));
        assert_eq!(round(&Value::Int(15), -1, DataType::Int32), Some(Value::Int(20)));
        assert_eq!(round(&d(1450, 2), -1, DataType::Decimal(4, 0)), Some(d(10, 0)));
        assert_eq!(round(&d(-1550, 2), -1, DataType::Decimal(4, 0)), Some(d(-20, 0)));
        assert_eq!(round(&Value::Float(2.5), 0, DataType::Float64), Some(Value::Float(3.0)));
    }
}
