//! Typing an event against its source's columns: the one path by which
//! `run`'s JSON lines and fixtures' `given:` events become rows, the
//! errors it reports and their texts, and how a watermark value reads.

use super::change::Row;
use super::dataflow::SourceSpec;
use super::scalar::{type_scalar, Scalar, ValueWarning};
use super::value::{parse_rfc3339_ms, Value};
use crate::types::DataType;

/// Why an event does not type; `field` is the index of the offending
/// column in the event as written.
#[derive(Clone, Debug, PartialEq)]
pub enum EventError {
    /// The event has a column its source does not declare.
    UndeclaredColumn { field: usize, column: String, source: String },
    /// A value does not fit its column's type.
    BadValue { field: usize, message: String, ty: DataType },
}

impl EventError {
    pub fn message(&self) -> String {
        match self {
            EventError::UndeclaredColumn { column, source, .. } => format!("event has column `{column}`, which source `{source}` does not declare"),
            EventError::BadValue { message, .. } => message.clone(),
        }
    }

    /// What to write instead (worded for a fixture's YAML).
    pub fn help(&self, spec: &SourceSpec) -> String {
        match self {
            EventError::UndeclaredColumn { source, .. } => {
                let cols = spec.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ");
                format!("the columns of `{source}` are {cols}")
            }
            EventError::BadValue { ty, .. } => type_help(*ty),
        }
    }
}

/// Types an event's `fields` (column, value as written) into a row in the
/// source's column order; columns it leaves out are null, and of a column
/// written twice the last value counts. `warn` is told of each value that
/// typed with a warning (its field index and the text). A row that does
/// not type gives every field's error, in field order.
#[inline]
pub fn type_event(spec: &SourceSpec, fields: &[(String, Scalar)], mut warn: impl FnMut(usize, ValueWarning)) -> Result<Row, Vec<EventError>> {
    let mut row: Row = vec![Value::Null; spec.columns.len()];
    let mut errors = Vec::new();
    for (field, (name, s)) in fields.iter().enumerate() {
        let Some(i) = spec.columns.iter().position(|c| &c.name == name) else {
            errors.push(EventError::UndeclaredColumn { field, column: name.clone(), source: spec.name.clone() });
            continue;
        };
        let ty = spec.columns[i].ty;
        match type_scalar(name, s, ty) {
            Ok((v, warning)) => {
                if let Some(w) = warning {
                    warn(field, w);
                }
                row[i] = v;
            }
            Err(message) => errors.push(EventError::BadValue { field, message, ty }),
        }
    }
    if errors.is_empty() {
        Ok(row)
    } else {
        Err(errors)
    }
}

/// A watermark as written: epoch milliseconds or an RFC 3339 instant.
pub fn watermark_ms(v: &Scalar) -> Option<i64> {
    match v {
        Scalar::Int(i) => i64::try_from(*i).ok(),
        Scalar::Str(s) => parse_rfc3339_ms(s),
        _ => None,
    }
}

fn type_help(ty: DataType) -> String {
    use DataType::*;
    match ty {
        Int32 | Int64 => format!("write an integer ({ty})"),
        Float64 => "write a number".into(),
        Decimal(_, s) => format!("write a number or a numeric string with at most {s} fraction digits"),
        String => "write a string (quote it if YAML would read it as something else)".into(),
        Boolean => "write true or false".into(),
        Timestamp | TimestampNanos => "write an RFC 3339 instant such as 2024-01-01T00:00:00Z (an offset such as +01:00 is converted to UTC), or epoch milliseconds".into(),
        Unsupported(_) => "this column's type holds no value".into(),
    }
}
