//! Values as written in fixtures and input files, and how they are typed
//! against a column's declared type (peer-behaviour §7.2, with the spec's
//! fixes: UTC offsets accepted, precision overflow warned about).

use std::sync::Arc;

use super::decimal::Decimal;
use super::value::{parse_rfc3339_nanos, Value};
use crate::types::{DataType, Unsupported, MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS};

/// A scalar as written. Floats keep their text so decimals read exactly
/// and messages show what the user wrote.
#[derive(Clone, Debug)]
pub enum Scalar {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64, String),
    Str(String),
}

impl PartialEq for Scalar {
    /// Equality "as written": same kind and value (`"-1.00"` ≠ `-1`).
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Scalar::Null, Scalar::Null) => true,
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            (Scalar::Int(a), Scalar::Int(b)) => a == b,
            (Scalar::Float(a, _), Scalar::Float(b, _)) => a == b || (a.is_nan() && b.is_nan()),
            (Scalar::Str(a), Scalar::Str(b)) => a == b,
            _ => false,
        }
    }
}

impl Scalar {
    /// The text rendering: strings double-quoted, numbers as written.
    pub fn render(&self) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(_, text) => text.clone(),
            Scalar::Str(s) => super::value::quote(s),
        }
    }
}

/// A typed value, and a warning when it had to be adjusted or exceeds
/// what the column declares.
pub type Typed = (Value, Option<ValueWarning>);

/// Why a value typed with a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueWarningKind {
    /// A decimal with more integer digits than its precision allows.
    OverPrecision,
    /// An integer outside int64's range, saturated as the original does.
    Saturated,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueWarning {
    pub kind: ValueWarningKind,
    pub message: String,
}

/// Types `s` for a column `name` of type `ty`; the error is the message the
/// report shows (`column `x` expects int64, got "5"`).
pub fn type_scalar(name: &str, s: &Scalar, ty: DataType) -> Result<Typed, String> {
    let bad = || format!("column `{name}` expects {ty}, got {}", s.render());
    if let Scalar::Null = s {
        return Ok((Value::Null, None));
    }
    let plain = |v: Option<Value>| v.map(|v| (v, None)).ok_or_else(bad);
    match ty {
        DataType::Int32 | DataType::Int64 => type_integer(name, s, ty).ok_or_else(bad),
        DataType::Float64 | DataType::Unsupported(Unsupported::Float32) => plain(match s {
            Scalar::Int(i) => Some(Value::Float(*i as f64)),
            Scalar::Float(f, _) => Some(Value::Float(*f)),
            _ => None,
        }),
        DataType::Decimal(p, sc) => type_decimal(name, s, ty, p, sc).ok_or_else(bad),
        DataType::String | DataType::Unsupported(Unsupported::Utf8View) => plain(match s {
            Scalar::Str(t) => Some(Value::Str(Arc::from(t.as_str()))),
            _ => None,
        }),
        DataType::Boolean => plain(match s {
            Scalar::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        }),
        DataType::Timestamp => match type_instant(s, ty) {
            Some(Value::Timestamp(ms)) if !(MIN_TIMESTAMP_MS..=MAX_TIMESTAMP_MS).contains(&ms) => {
                Err(format!("column `{name}` expects {ty}, got {}, outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z", s.render()))
            }
            v => plain(v),
        },
        DataType::TimestampNanos => plain(type_instant(s, ty)),
        DataType::Unsupported(Unsupported::Int8 | Unsupported::Int16) => plain(match s {
            Scalar::Int(i) => {
                let ok = if ty == DataType::Unsupported(Unsupported::Int8) { i8::try_from(*i).is_ok() } else { i16::try_from(*i).is_ok() };
                ok.then_some(Value::Int(*i as i64))
            }
            _ => None,
        }),
        DataType::Unsupported(Unsupported::Date32) => match type_scalar(name, s, DataType::Timestamp) {
            Ok((Value::Timestamp(ms), w)) => Ok((Value::Timestamp(ms.div_euclid(86_400_000) * 86_400_000), w)),
            _ => Err(bad()),
        },
        DataType::Unsupported(Unsupported::DurationMs | Unsupported::Interval) => plain(match s {
            Scalar::Int(i) => i64::try_from(*i).ok().map(Value::Int),
            _ => None,
        }),
        DataType::Unsupported(Unsupported::Null) => Err(bad()),
    }
}

/// An int32 or int64; `None` when `s` is not an integer of the type.
fn type_integer(name: &str, s: &Scalar, ty: DataType) -> Option<Typed> {
    let i: i128 = match s {
        Scalar::Int(i) => *i,
        Scalar::Float(f, _) if f.fract() == 0.0 && f.is_finite() => *f as i128,
        _ => return None,
    };
    if ty == DataType::Int32 {
        return i32::try_from(i).ok().map(|v| (Value::Int(v as i64), None));
    }
    Some(match i64::try_from(i) {
        Ok(v) => (Value::Int(v), None),
        Err(_) => {
            // The original saturates; fixtures depend on it, so keep it and say so.
            let v = if i < 0 { i64::MIN } else { i64::MAX };
            let message = format!("column `{name}`: {} is outside int64's range; the simulator uses {v}", s.render());
            (Value::Int(v), Some(ValueWarning { kind: ValueWarningKind::Saturated, message }))
        }
    })
}

/// A decimal(p, sc), warned about when it has more integer digits than
/// `p` allows; `None` when `s` is not a number at that scale.
fn type_decimal(name: &str, s: &Scalar, ty: DataType, p: u8, sc: u8) -> Option<Typed> {
    let text = match s {
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(_, t) => t.clone(),
        Scalar::Str(t) => t.clone(),
        _ => return None,
    };
    let d = Decimal::parse(&text, sc).ok()?;
    if d.fits(p) {
        return Some((Value::Decimal(d), None));
    }
    let message = format!("column `{name}` is {ty}, but {} has {} integer digits (at most {}); Flink reads such a value as null", s.render(), d.digits().saturating_sub(sc as u32), p - sc);
    Some((Value::Decimal(d), Some(ValueWarning { kind: ValueWarningKind::OverPrecision, message })))
}

/// A timestamp (milliseconds) or timestamp_ns from epoch milliseconds or
/// an RFC 3339 instant.
fn type_instant(s: &Scalar, ty: DataType) -> Option<Value> {
    match (s, ty) {
        (Scalar::Int(i), DataType::Timestamp) => i64::try_from(*i).ok().map(Value::Timestamp),
        (Scalar::Str(t), DataType::Timestamp) => parse_rfc3339_nanos(t).and_then(|ns| i64::try_from(ns.div_euclid(1_000_000)).ok()).map(Value::Timestamp),
        (Scalar::Int(i), _) => i64::try_from(*i).ok().and_then(|v| v.checked_mul(1_000_000)).map(Value::TimestampNanos),
        (Scalar::Str(t), _) => parse_rfc3339_nanos(t).and_then(|ns| i64::try_from(ns).ok()).map(Value::TimestampNanos),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: Scalar, t: DataType) -> Result<String, String> {
        type_scalar("x", &s, t).map(|(v, _)| v.render_text())
    }

    #[test]
    fn values_type_as_the_original_does() {
        use DataType::*;
        assert_eq!(ty(Scalar::Float(5.0, "5.0".into()), Int64), Ok("5".into()));
        assert_eq!(ty(Scalar::Float(5.5, "5.5".into()), Int64), Err("column `x` expects int64, got 5.5".into()));
        assert_eq!(ty(Scalar::Int(9223372036854775808), Int64), Ok("9223372036854775807".into()));
        assert_eq!(ty(Scalar::Int(2147483648), Int32), Err("column `x` expects int32, got 2147483648".into()));
        assert_eq!(ty(Scalar::Str("5".into()), Int64), Err("column `x` expects int64, got \"5\"".into()));
        assert_eq!(ty(Scalar::Str("1e2".into()), Decimal(10, 2)), Ok("100".into()));
        assert_eq!(ty(Scalar::Float(1.005, "1.005".into()), Decimal(10, 2)), Err("column `x` expects decimal(10,2), got 1.005".into()));
        assert_eq!(ty(Scalar::Str("1.005".into()), Decimal(10, 2)), Err("column `x` expects decimal(10,2), got \"1.005\"".into()));
        assert_eq!(ty(Scalar::Str("1.5".into()), Float64), Err("column `x` expects float64, got \"1.5\"".into()));
        assert_eq!(ty(Scalar::Int(1), Boolean), Err("column `x` expects boolean, got 1".into()));
        assert_eq!(ty(Scalar::Str("2024-01-01T01:00:00+01:00".into()), Timestamp), Ok("1704067200000".into()));
        assert_eq!(ty(Scalar::Float(1.5, "1704067200000.5".into()), Timestamp), Err("column `x` expects timestamp(millisecond), got 1704067200000.5".into()));
        let (_, warn) = type_scalar("amount", &Scalar::Str("123456789.12".into()), Decimal(10, 2)).unwrap();
        assert!(warn.unwrap().message.contains("at most 8"));
    }
}
