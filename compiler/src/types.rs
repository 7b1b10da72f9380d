//! Column types: the vocabulary of sources.yml and of every fingerprint.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    Int32,
    Int64,
    Float64,
    Decimal(u8, u8),
    String,
    Boolean,
    /// `timestamp` in sources.yml: millisecond precision.
    Timestamp,
    /// Only from expressions (`CAST(x AS TIMESTAMP)`, `TIMESTAMP '…'`).
    TimestampNanos,
    /// Types an expression can produce that Streamform cannot carry to a sink.
    Unsupported(Unsupported),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unsupported {
    Utf8View,
    Float32,
    Null,
    Int8,
    Int16,
    Date32,
    /// `timestamp - timestamp`.
    DurationMs,
    /// An INTERVAL literal.
    Interval,
}

impl Unsupported {
    pub fn as_str(self) -> &'static str {
        match self {
            Unsupported::Utf8View => "Utf8View",
            Unsupported::Float32 => "Float32",
            Unsupported::Null => "Null",
            Unsupported::Int8 => "Int8",
            Unsupported::Int16 => "Int16",
            Unsupported::Date32 => "Date32",
            Unsupported::DurationMs => "Duration(ms)",
            Unsupported::Interval => "Interval(ms)",
        }
    }

    /// The type as a model's author wrote or meant it, for messages
    /// (`date`, not the plan's `Date32`).
    pub fn sql_name(self) -> &'static str {
        match self {
            Unsupported::Utf8View => "string view",
            Unsupported::Float32 => "float (32-bit)",
            Unsupported::Null => "an untyped NULL",
            Unsupported::Int8 => "tinyint",
            Unsupported::Int16 => "smallint",
            Unsupported::Date32 => "date",
            Unsupported::DurationMs => "a duration (timestamp minus timestamp)",
            Unsupported::Interval => "an interval",
        }
    }

    /// What to write instead, for the help of E0320.
    pub fn instead(self) -> &'static str {
        match self {
            Unsupported::Utf8View => "CAST it AS STRING",
            Unsupported::Float32 => "CAST it AS DOUBLE (float64)",
            Unsupported::Null => "give the NULL a type: CAST(NULL AS STRING), or the type the column should have",
            Unsupported::Int8 | Unsupported::Int16 => "CAST it AS INT (int32) or BIGINT (int64)",
            Unsupported::Date32 => "truncate the timestamp to the day, FLOOR(ts TO DAY), or write the day as text, DATE_FORMAT(ts, 'yyyy-MM-dd')",
            Unsupported::DurationMs => "compare the timestamps instead, or add an INTERVAL to one of them",
            Unsupported::Interval => "add the INTERVAL to a timestamp column",
        }
    }
}

/// The instants a `timestamp` value may hold, in epoch milliseconds: the
/// four-digit years of RFC 3339 and of Flink's TIMESTAMP, 0000-01-01T00:00:00Z
/// to 9999-12-31T23:59:59.999Z (docs/limits.md). Inside them, adding any
/// duration Streamform accepts cannot overflow.
pub const MIN_TIMESTAMP_MS: i64 = -62_167_219_200_000;
pub const MAX_TIMESTAMP_MS: i64 = 253_402_300_799_999;

pub const SUPPORTED_TYPES: &str = "int32, int64, float64, decimal, string, boolean, timestamp, decimal(precision,scale)";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeError {
    MalformedDecimal,
    Unsupported,
}

impl DataType {
    /// Parses a sources.yml type name (case-sensitive).
    pub fn parse(s: &str) -> Result<DataType, TypeError> {
        Ok(match s {
            "int32" => DataType::Int32,
            "int64" => DataType::Int64,
            "float64" => DataType::Float64,
            "decimal" => DataType::Decimal(38, 9),
            "string" => DataType::String,
            "boolean" => DataType::Boolean,
            "timestamp" => DataType::Timestamp,
            _ => {
                let Some(args) = s.strip_prefix("decimal") else { return Err(TypeError::Unsupported) };
                let inner = args.strip_prefix('(').and_then(|a| a.strip_suffix(')')).ok_or(TypeError::MalformedDecimal)?;
                let mut parts = inner.split(',');
                let (Some(p), Some(sc), None) = (parts.next(), parts.next(), parts.next()) else {
                    return Err(TypeError::MalformedDecimal);
                };
                let num = |x: &str| -> Option<u8> {
                    let x = x.trim_matches(' ');
                    (!x.is_empty() && x.len() <= 2 && x.bytes().all(|b| b.is_ascii_digit())).then(|| x.parse().ok()).flatten()
                };
                match (num(p), num(sc)) {
                    (Some(p), Some(sc)) if (1..=38).contains(&p) && sc <= p => DataType::Decimal(p, sc),
                    _ => return Err(TypeError::MalformedDecimal),
                }
            }
        })
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DataType::Int32 | DataType::Int64)
    }

    pub fn is_numeric(self) -> bool {
        matches!(self, DataType::Int32 | DataType::Int64 | DataType::Float64 | DataType::Decimal(..))
    }

    pub fn is_timestamp(self) -> bool {
        matches!(self, DataType::Timestamp | DataType::TimestampNanos)
    }

    /// The name DataFusion uses in error messages and display names.
    pub fn arrow_name(self) -> String {
        match self {
            DataType::Int32 => "Int32".into(),
            DataType::Int64 => "Int64".into(),
            DataType::Float64 => "Float64".into(),
            DataType::Decimal(p, s) => format!("Decimal128({p}, {s})"),
            DataType::String => "Utf8".into(),
            DataType::Boolean => "Boolean".into(),
            DataType::Timestamp => "Timestamp(Millisecond, None)".into(),
            DataType::TimestampNanos => "Timestamp(Nanosecond, None)".into(),
            DataType::Unsupported(u) => u.as_str().into(),
        }
    }

    /// The Flink SQL type, when there is one.
    pub fn flink_sql(self) -> Option<String> {
        Some(match self {
            DataType::Int32 => "INT".into(),
            DataType::Int64 => "BIGINT".into(),
            DataType::Float64 => "DOUBLE".into(),
            DataType::Decimal(p, s) => format!("DECIMAL({p}, {s})"),
            DataType::String => "STRING".into(),
            DataType::Boolean => "BOOLEAN".into(),
            DataType::Timestamp => "TIMESTAMP(3)".into(),
            DataType::TimestampNanos => "TIMESTAMP(9)".into(),
            DataType::Unsupported(_) => return None,
        })
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::Int32 => f.write_str("int32"),
            DataType::Int64 => f.write_str("int64"),
            DataType::Float64 => f.write_str("float64"),
            DataType::Decimal(p, s) => write!(f, "decimal({p},{s})"),
            DataType::String => f.write_str("string"),
            DataType::Boolean => f.write_str("boolean"),
            DataType::Timestamp => f.write_str("timestamp(millisecond)"),
            DataType::TimestampNanos => f.write_str("timestamp(nanosecond)"),
            DataType::Unsupported(u) => write!(f, "unsupported({})", u.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_source_types() {
        assert_eq!(DataType::parse("decimal( 12 , 4 )"), Ok(DataType::Decimal(12, 4)));
        assert_eq!(DataType::parse("decimal").unwrap().to_string(), "decimal(38,9)");
        assert_eq!(DataType::parse("timestamp").unwrap().to_string(), "timestamp(millisecond)");
        for bad in ["decimal(39,2)", "decimal(10,11)", "decimal(0,0)", "decimal(10)", "decimal(100,2)"] {
            assert_eq!(DataType::parse(bad), Err(TypeError::MalformedDecimal), "{bad}");
        }
        for bad in ["int", "INT64", "timestamp(3)", "varchar", "Decimal(1,1)"] {
            assert_eq!(DataType::parse(bad), Err(TypeError::Unsupported), "{bad}");
        }
    }
}
