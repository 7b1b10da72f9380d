//! Typing an event against its source's columns: the one path by which
//! `run`'s JSON lines and fixtures' `given:` events become rows, the
//! errors it reports and their texts, and how a watermark value reads.

use super::change::Row;
use super::dataflow::SourceSpec;
use super::scalar::{type_scalar, Scalar, ValueWarning};
use super::value::{parse_rfc3339_ms, Value};
use crate::types::{DataType, MAX_TIMESTAMP_MS, MIN_TIMESTAMP_MS};

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

/// Why a watermark as written is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadWatermark {
    /// Neither an integer nor an RFC 3339 instant.
    NotAnInstant,
    /// An instant outside the range a timestamp holds (docs/limits.md).
    OutOfRange,
}

/// A watermark as written: epoch milliseconds or an RFC 3339 instant, in
/// the range of a timestamp value, as an event's time is. The fixture
/// decoder, the fixture run and `run`'s input all read it here.
pub fn watermark_ms(v: &Scalar) -> Result<i64, BadWatermark> {
    let ms = match v {
        Scalar::Int(i) => i64::try_from(*i).map_err(|_| BadWatermark::OutOfRange)?,
        Scalar::Str(s) => parse_rfc3339_ms(s).ok_or(BadWatermark::NotAnInstant)?,
        _ => return Err(BadWatermark::NotAnInstant),
    };
    if (MIN_TIMESTAMP_MS..=MAX_TIMESTAMP_MS).contains(&ms) {
        Ok(ms)
    } else {
        Err(BadWatermark::OutOfRange)
    }
}

impl BadWatermark {
    /// What is wrong with watermark `written`.
    pub fn message(self, written: &str) -> String {
        match self {
            BadWatermark::NotAnInstant => format!("watermark `{written}` is neither an RFC 3339 instant in UTC nor epoch milliseconds"),
            BadWatermark::OutOfRange => format!("watermark `{written}` is outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z"),
        }
    }

    pub fn help(self) -> &'static str {
        match self {
            BadWatermark::NotAnInstant => "write an instant such as 2026-08-30T10:00:00Z, or an integer of milliseconds since the epoch",
            BadWatermark::OutOfRange => "write an instant from year 0000 to 9999, as timestamps hold; 9999-12-31T23:59:59.999Z passes every event",
        }
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
