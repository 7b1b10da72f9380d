//! An accumulator's arithmetic, shared by the keyed store (state.rs) and
//! the retracting groups (retract.rs): adding to a sum, and a value as the
//! accumulator type stores it.

use super::decimal::DecimalError;
use super::eval::EvalError;
use super::value::Value;
use crate::types::DataType;

/// Sums keep the accumulator type: int64, decimal(38,s) or float64.
pub fn add(acc: &Value, v: &Value, ty: DataType) -> Result<Value, EvalError> {
    let overflow = || EvalError::Overflow(format!("{} + {}", acc.render_text(), v.render_text()));
    Ok(match (acc, v, ty) {
        (Value::Null, _, _) => retype(v.clone(), ty),
        (Value::Int(a), Value::Int(b), _) => Value::Int(a.checked_add(*b).ok_or_else(overflow)?),
        (Value::Decimal(a), Value::Decimal(b), DataType::Decimal(p, s)) => {
            if a.scale == b.scale {
                // The common case: one column, one scale.
                let m = a.mantissa.checked_add(b.mantissa).ok_or_else(overflow)?;
                let d = super::decimal::Decimal::new(m, a.scale);
                if !d.fits(p) {
                    return Err(overflow());
                }
                Value::Decimal(d)
            } else {
                Value::Decimal(a.add(*b, p, s).map_err(|e| match e {
                    DecimalError::Overflow | DecimalError::DivisionByZero => overflow(),
                })?)
            }
        }
        (Value::Float(a), Value::Float(b), _) => Value::Float(a + b),
        _ => return Err(EvalError::Type(format!("cannot add {} to a {ty} sum", super::eval::kind(v)))),
    })
}

/// A value as the accumulator type stores it (sums of int32 are int64,
/// sums of decimal(p,s) are decimal(38,s): same numbers, wider type).
pub fn retype(v: Value, ty: DataType) -> Value {
    match (v, ty) {
        (Value::Decimal(d), DataType::Decimal(_, s)) if d.scale != s => Value::Decimal(d.rescale(s).unwrap_or(d)),
        (v, _) => v,
    }
}
