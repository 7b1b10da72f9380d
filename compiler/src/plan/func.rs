//! Scalar functions beyond the original's SQL: which exist, how each
//! renders in definitions, and its result type (docs/types.md). The types
//! follow Flink's rules, so the generated SQL computes the same type.

use crate::types::{DataType, Unsupported};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrimSide {
    Both,
    Leading,
    Trailing,
}

/// A calendar unit of EXTRACT and FLOOR/CEIL(ts TO unit), in UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    Year,
    Quarter,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

impl TimeUnit {
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Year => "YEAR",
            TimeUnit::Quarter => "QUARTER",
            TimeUnit::Month => "MONTH",
            TimeUnit::Day => "DAY",
            TimeUnit::Hour => "HOUR",
            TimeUnit::Minute => "MINUTE",
            TimeUnit::Second => "SECOND",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarFunc {
    Coalesce,
    NullIf,
    Upper,
    Lower,
    /// Arguments: the string, the characters to trim.
    Trim(TrimSide),
    CharLength,
    /// Arguments: the string, the 1-based start, the length if given.
    Substring,
    Concat,
    Abs,
    /// Arguments: the number, the digits (an integer literal, 0 if omitted).
    Round,
    Floor,
    Ceil,
    /// `EXTRACT(unit FROM ts)`.
    Extract(TimeUnit),
    /// `FLOOR(ts TO unit)`, `CEIL(ts TO unit)`.
    FloorTime(TimeUnit),
    CeilTime(TimeUnit),
    /// `DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss')`: arguments the timestamp and the pattern.
    DateFormat,
    /// AVG above its aggregate: arguments the `sum(x)` and `count(x)`
    /// accumulators AVG is stored as.
    Avg,
}

/// Every function callable as `name(args)`, for help texts.
pub const CALLABLE: &str = "coalesce, nullif, upper, lower, trim, char_length, substring, concat, abs, round, floor, ceil, extract, date_format";

impl ScalarFunc {
    pub fn name(self) -> &'static str {
        match self {
            ScalarFunc::Coalesce => "coalesce",
            ScalarFunc::NullIf => "nullif",
            ScalarFunc::Upper => "upper",
            ScalarFunc::Lower => "lower",
            ScalarFunc::Trim(_) => "trim",
            ScalarFunc::CharLength => "char_length",
            ScalarFunc::Substring => "substring",
            ScalarFunc::Concat => "concat",
            ScalarFunc::Abs => "abs",
            ScalarFunc::Round => "round",
            ScalarFunc::Floor => "floor",
            ScalarFunc::Ceil => "ceil",
            ScalarFunc::Avg => "avg",
            ScalarFunc::Extract(_) => "extract",
            ScalarFunc::FloorTime(_) => "floor",
            ScalarFunc::CeilTime(_) => "ceil",
            ScalarFunc::DateFormat => "date_format",
        }
    }

    /// The function a `name(args)` call names (lowercase name).
    pub fn parse(lower: &str) -> Option<ScalarFunc> {
        Some(match lower {
            "coalesce" => ScalarFunc::Coalesce,
            "nullif" => ScalarFunc::NullIf,
            "upper" => ScalarFunc::Upper,
            "lower" => ScalarFunc::Lower,
            "char_length" | "character_length" => ScalarFunc::CharLength,
            "concat" => ScalarFunc::Concat,
            "abs" => ScalarFunc::Abs,
            "round" => ScalarFunc::Round,
            "date_format" => ScalarFunc::DateFormat,
            _ => return None,
        })
    }

    /// The result type for arguments of types `args`; `digits` is ROUND's
    /// literal second argument.
    pub fn result_type(self, args: &[DataType], digits: i64) -> Result<DataType, String> {
        let name = self.name();
        let string_args = |from: usize| -> Result<(), String> {
            for (i, t) in args.iter().enumerate().skip(from) {
                if !is_string(*t) {
                    return Err(format!("{name}() takes strings, but argument {} is {t}", i + 1));
                }
            }
            Ok(())
        };
        match self {
            ScalarFunc::Coalesce => common_type(args).map_err(|why| format!("coalesce() needs arguments of one type: {why}")),
            ScalarFunc::NullIf => {
                common_type(args).map_err(|why| format!("nullif() compares its arguments: {why}"))?;
                Ok(args[0])
            }
            ScalarFunc::Upper | ScalarFunc::Lower | ScalarFunc::Trim(_) | ScalarFunc::Concat => string_args(0).map(|_| DataType::String),
            ScalarFunc::CharLength => string_args(0).map(|_| DataType::Int32),
            ScalarFunc::Substring => {
                for t in &args[1..] {
                    if !matches!(t, DataType::Int32 | DataType::Int64 | DataType::Unsupported(Unsupported::Null)) {
                        return Err(format!("substring() takes an integer start and length, not {t}"));
                    }
                }
                if !is_string(args[0]) {
                    return Err(format!("substring() takes a string, not {}", args[0]));
                }
                Ok(DataType::String)
            }
            ScalarFunc::Extract(_) | ScalarFunc::FloorTime(_) | ScalarFunc::CeilTime(_) | ScalarFunc::DateFormat if !args[0].is_timestamp() && args[0] != DataType::Unsupported(Unsupported::Null) => {
                Err(format!("{name}() takes a timestamp, not {}", args[0]))
            }
            ScalarFunc::Extract(_) => Ok(DataType::Int64),
            ScalarFunc::FloorTime(_) | ScalarFunc::CeilTime(_) => Ok(args[0]),
            ScalarFunc::DateFormat => string_args(1).map(|_| DataType::String),
            ScalarFunc::Avg => avg_type(args[0]).ok_or_else(|| format!("avg() averages numbers, not {}", args[0])),
            ScalarFunc::Abs | ScalarFunc::Round | ScalarFunc::Floor | ScalarFunc::Ceil => {
                let t = args[0];
                match (self, t) {
                    (_, DataType::Int32 | DataType::Int64 | DataType::Float64) => Ok(t),
                    (ScalarFunc::Abs, DataType::Decimal(..)) => Ok(t),
                    (ScalarFunc::Round, DataType::Decimal(p, s)) => Ok(round_decimal_type(p, s, digits)),
                    (_, DataType::Decimal(p, _)) => Ok(DataType::Decimal(p, 0)),
                    _ => Err(format!("{name}() takes a number, not {t}")),
                }
            }
        }
    }
}

/// AVG's type, from its sum's: integers average to float64 (Flink's
/// AVG(INT) would truncate), decimal(38,s) to decimal(38, max(6,s))
/// (Flink's rule), float64 stays.
pub fn avg_type(sum: DataType) -> Option<DataType> {
    match sum {
        DataType::Int64 | DataType::Float64 => Some(DataType::Float64),
        DataType::Decimal(_, s) => Some(DataType::Decimal(38, s.max(6))),
        _ => None,
    }
}

/// Whether a DATE_FORMAT pattern uses only the fields both engines print
/// alike: `yyyy MM dd HH mm ss SSS`, with any non-letter between them.
pub fn date_pattern_ok(p: &str) -> bool {
    let mut rest = p;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_alphabetic() {
            let Some(run) = ["yyyy", "MM", "dd", "HH", "mm", "ss", "SSS"].into_iter().find(|r| rest.starts_with(r)) else { return false };
            rest = &rest[run.len()..];
            if rest.starts_with(c) {
                return false;
            }
        } else if c == '\'' {
            return false;
        } else {
            rest = &rest[c.len_utf8()..];
        }
    }
    true
}

fn is_string(t: DataType) -> bool {
    matches!(t, DataType::String | DataType::Unsupported(Unsupported::Null))
}

/// Flink's ROUND(decimal(p,s), r): the scale becomes r (when below s), with
/// one more integer digit for a carry.
pub fn round_decimal_type(p: u8, s: u8, r: i64) -> DataType {
    let (p, s) = (p as i64, s as i64);
    if r >= s {
        DataType::Decimal(p as u8, s as u8)
    } else if r < 0 {
        DataType::Decimal((1 + p - s).min(38) as u8, 0)
    } else {
        DataType::Decimal((1 + p - s + r).min(38) as u8, r as u8)
    }
}

/// The type of values of several types together (CASE branches, COALESCE
/// arguments, IN lists): integers widen to BIGINT, then to a decimal that
/// holds both, DOUBLE absorbs every number; NULL takes any type.
pub fn common_type(types: &[DataType]) -> Result<DataType, String> {
    let mut out: Option<DataType> = None;
    for &t in types {
        if t == DataType::Unsupported(Unsupported::Null) {
            continue;
        }
        out = Some(match out {
            None => t,
            Some(a) => widen(a, t).ok_or_else(|| format!("{a} and {t} have no common type"))?,
        });
    }
    Ok(out.unwrap_or(DataType::Unsupported(Unsupported::Null)))
}

fn widen(a: DataType, b: DataType) -> Option<DataType> {
    use DataType::*;
    let digits = |t: DataType| match t {
        Int32 => Some((10u32, 0u32)),
        Int64 => Some((19, 0)),
        Decimal(p, s) => Some((p as u32, s as u32)),
        _ => None,
    };
    Some(match (a, b) {
        _ if a == b => a,
        (Int32 | Int64, Int32 | Int64) => Int64,
        (Float64, t) | (t, Float64) if t.is_numeric() => Float64,
        (Decimal(..), _) | (_, Decimal(..)) => {
            let ((p1, s1), (p2, s2)) = (digits(a)?, digits(b)?);
            let s = s1.max(s2);
            let p = ((p1 - s1).max(p2 - s2) + s).min(38);
            Decimal(p as u8, s.min(p) as u8)
        }
        (Timestamp | TimestampNanos, Timestamp | TimestampNanos) => TimestampNanos,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn common_types() {
        assert_eq!(common_type(&[Int32, Int64]), Ok(Int64));
        assert_eq!(common_type(&[Int32, Decimal(10, 2)]), Ok(Decimal(12, 2)));
        assert_eq!(common_type(&[Decimal(10, 2), Float64]), Ok(Float64));
        assert_eq!(common_type(&[Unsupported(crate::types::Unsupported::Null), String]), Ok(String));
        assert!(common_type(&[String, Int32]).is_err());
    }

    #[test]
    fn round_follows_flink() {
        assert_eq!(round_decimal_type(32, 8, 5), Decimal(30, 5));
        assert_eq!(round_decimal_type(32, 8, 10), Decimal(32, 8));
        assert_eq!(round_decimal_type(30, 20, 18), Decimal(29, 18));
        assert_eq!(round_decimal_type(10, 10, 2), Decimal(3, 2));
        assert_eq!(round_decimal_type(10, 2, -1), Decimal(9, 0));
    }
}
