//! Why evaluating an expression stopped, and how a value's kind reads in
//! those errors: shared by the evaluator and the functions it calls.

use std::fmt;

use super::value::Value;

/// Why evaluation stopped; it aborts the run (a fixture reports it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// `arithmetic overflow in 9223372036854775807 + 1`
    Overflow(String),
    DivisionByZero,
    /// `cannot compare a string with an integer`
    Type(String),
    /// A CAST whose value has no representation in the target type.
    Cast(String),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Overflow(what) => write!(f, "arithmetic overflow in {what}"),
            EvalError::DivisionByZero => f.write_str("division by zero"),
            EvalError::Type(m) => write!(f, "type error: {m}"),
            EvalError::Cast(m) => write!(f, "cast error: {m}"),
        }
    }
}

pub type EvalResult = Result<Value, EvalError>;

/// How a value's kind reads in type errors.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Decimal(_) => "a decimal",
        Value::Str(_) => "a string",
        Value::Timestamp(_) | Value::TimestampNanos(_) => "a timestamp",
    }
}

