//! A retracting aggregate's per-group state (docs/semantics.md, "Aggregates
//! over an updating input"): what an Aggregate over an updating input keeps
//! beside each accumulator so that a row can be taken back, as Flink's
//! retracting group aggregate keeps it. The row count says when a group is
//! empty; a sum keeps its count of non-null values (Flink's
//! SumWithRetractAggFunction); MIN, MAX and the DISTINCT calls keep every
//! value with its multiplicity, so retracting the current minimum yields
//! the next one.

use std::collections::BTreeMap;

use super::eval::{eval, holds, EvalError};
use super::accumulator::{add, retype};
use super::value::Value;
use crate::plan::expr::{AggCall, AggFunc, Expr};

/// What one group keeps beside its accumulators.
#[derive(Clone, Debug)]
pub struct Retracting {
    /// Rows folded in minus rows taken back; the group is deleted at 0.
    pub rows: i64,
    calls: Vec<CallState>,
}

#[derive(Clone, Debug)]
struct CallState {
    /// MIN, MAX and DISTINCT: each value and how many rows hold it.
    values: BTreeMap<Value, i64>,
    /// SUM: the running sum (kept when the count falls to 0, as Flink
    /// keeps it) and how many non-null values it holds.
    sum: Value,
    nonnull: i64,
}

impl Retracting {
    pub fn new(calls: &[AggCall]) -> Retracting {
        Retracting { rows: 0, calls: vec![CallState { values: BTreeMap::new(), sum: Value::Null, nonnull: 0 }; calls.len()] }
    }

    /// Folds `row` in (`sign` 1) or takes it back (`sign` -1), and sets each
    /// accumulator to its result.
    pub fn fold(&mut self, calls: &[AggCall], accs: &mut [Value], row: &[Value], sign: i64) -> Result<(), EvalError> {
        self.rows += sign;
        for ((call, acc), st) in calls.iter().zip(accs.iter_mut()).zip(self.calls.iter_mut()) {
            if let Some(f) = &call.filter {
                if !holds(f, row)? {
                    continue;
                }
            }
            let v = match &call.arg {
                None => {
                    *acc = count_plus(acc, sign);
                    continue;
                }
                Some(Expr::Column { index, .. }) => row.get(*index).cloned().unwrap_or(Value::Null),
                Some(arg) => eval(arg, row)?,
            };
            if v.is_null() {
                continue; // every aggregate ignores nulls
            }
            st.fold(call, acc, v, sign)?;
        }
        Ok(())
    }
}

impl CallState {
    fn fold(&mut self, call: &AggCall, acc: &mut Value, v: Value, sign: i64) -> Result<(), EvalError> {
        let v = retype(v, call.ty);
        if call.distinct || matches!(call.func, AggFunc::Min | AggFunc::Max) {
            let n = self.values.entry(v.clone()).or_insert(0);
            *n += sign;
            let now = *n;
            if now == 0 {
                self.values.remove(&v);
            }
            // A DISTINCT call sees a value when its first row comes and
            // when its last row goes; MIN and MAX read the map.
            let changed = (sign > 0 && now == 1) || (sign < 0 && now == 0);
            match call.func {
                AggFunc::Min => *acc = self.values.keys().next().cloned().unwrap_or(Value::Null),
                AggFunc::Max => *acc = self.values.keys().next_back().cloned().unwrap_or(Value::Null),
                AggFunc::Count => *acc = Value::Int(self.values.len() as i64),
                AggFunc::Sum if changed => self.sum_fold(call, acc, &v, sign)?,
                AggFunc::Sum => {}
            }
            return Ok(());
        }
        match call.func {
            AggFunc::Count => *acc = count_plus(acc, sign),
            AggFunc::Sum => self.sum_fold(call, acc, &v, sign)?,
            AggFunc::Min | AggFunc::Max => unreachable!("handled above"),
        }
        Ok(())
    }

    /// A sum with retraction: NULL while it holds no value.
    fn sum_fold(&mut self, call: &AggCall, acc: &mut Value, v: &Value, sign: i64) -> Result<(), EvalError> {
        let term = if sign > 0 { v.clone() } else { negated(v)? };
        self.sum = add(&self.sum, &term, call.ty)?;
        self.nonnull += sign;
        *acc = if self.nonnull == 0 { Value::Null } else { self.sum.clone() };
        Ok(())
    }
}

fn count_plus(acc: &Value, sign: i64) -> Value {
    Value::Int(if let Value::Int(n) = acc { n + sign } else { sign })
}

fn negated(v: &Value) -> Result<Value, EvalError> {
    Ok(match v {
        Value::Int(n) => Value::Int(n.checked_neg().ok_or_else(|| EvalError::Overflow(format!("-{n}")))?),
        Value::Decimal(d) => Value::Decimal(super::decimal::Decimal::new(-d.mantissa, d.scale)),
        Value::Float(f) => Value::Float(-f),
        other => return Err(EvalError::Type(format!("cannot subtract {} from a sum", super::eval::kind(other)))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    fn call(func: AggFunc, distinct: bool, ty: DataType) -> AggCall {
        let arg = Some(Expr::Column { index: 0, name: "x".into(), ty: DataType::Int64 });
        AggCall { func, arg, filter: None, distinct, name: String::new(), ty, identity: String::new() }
    }

    #[test]
    fn takes_rows_back_as_flink_does() {
        let calls = [call(AggFunc::Min, false, DataType::Int64), call(AggFunc::Max, false, DataType::Int64), call(AggFunc::Sum, false, DataType::Int64), call(AggFunc::Count, true, DataType::Int64), call(AggFunc::Sum, true, DataType::Int64)];
        let mut r = Retracting::new(&calls);
        let mut accs = vec![Value::Null, Value::Null, Value::Null, Value::Int(0), Value::Null];
        for x in [5, 5, 9] {
            r.fold(&calls, &mut accs, &[Value::Int(x)], 1).unwrap();
        }
        assert_eq!(accs, [Value::Int(5), Value::Int(9), Value::Int(19), Value::Int(2), Value::Int(14)]);
        // One of two 5s goes: the minimum and the distinct values stay.
        r.fold(&calls, &mut accs, &[Value::Int(5)], -1).unwrap();
        assert_eq!(accs, [Value::Int(5), Value::Int(9), Value::Int(14), Value::Int(2), Value::Int(14)]);
        // The maximum goes: the next one is read from the values kept.
        r.fold(&calls, &mut accs, &[Value::Int(9)], -1).unwrap();
        assert_eq!(accs, [Value::Int(5), Value::Int(5), Value::Int(5), Value::Int(1), Value::Int(5)]);
        // A row with a NULL argument keeps the group; its last value goes: NULL, not 0.
        r.fold(&calls, &mut accs, &[Value::Null], 1).unwrap();
        r.fold(&calls, &mut accs, &[Value::Int(5)], -1).unwrap();
        assert_eq!(accs, [Value::Null, Value::Null, Value::Null, Value::Int(0), Value::Null]);
        assert_eq!(r.rows, 1);
    }
}
