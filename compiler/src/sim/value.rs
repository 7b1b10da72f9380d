//! Runtime values, their total order (for keys and window emission),
//! timestamps, and the renderings reports use.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::decimal::Decimal;
use crate::types::DataType;

/// One column value. Integers of both widths are `Int`; the column's type
/// says which range applies. Decimals carry their scale.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Decimal(Decimal),
    Str(Arc<str>),
    /// Epoch milliseconds.
    Timestamp(i64),
    /// Epoch nanoseconds (`CAST(… AS TIMESTAMP)` only).
    TimestampNanos(i64),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) | Value::Float(_) | Value::Decimal(_) => 2,
            Value::Str(_) => 3,
            Value::Timestamp(_) | Value::TimestampNanos(_) => 4,
        }
    }

    /// True when the value can be stored in a column of `ty` (null always can).
    pub fn conforms_to(&self, ty: DataType) -> bool {
        match (self, ty) {
            (Value::Null, _) => true,
            (Value::Bool(_), DataType::Boolean) => true,
            (Value::Int(i), DataType::Int32) => i32::try_from(*i).is_ok(),
            (Value::Int(_), DataType::Int64 | DataType::Unsupported(crate::types::Unsupported::DurationMs)) => true,
            (Value::Int(i), DataType::Unsupported(crate::types::Unsupported::Int16)) => i16::try_from(*i).is_ok(),
            (Value::Int(i), DataType::Unsupported(crate::types::Unsupported::Int8)) => i8::try_from(*i).is_ok(),
            (Value::Timestamp(_), DataType::Unsupported(crate::types::Unsupported::Date32)) => true,
            (Value::Float(_), DataType::Float64 | DataType::Unsupported(crate::types::Unsupported::Float32)) => true,
            (Value::Decimal(d), DataType::Decimal(p, s)) => d.scale == s && d.fits(p),
            (Value::Str(_), DataType::String | DataType::Unsupported(crate::types::Unsupported::Utf8View)) => true,
            (Value::Timestamp(_), DataType::Timestamp) => true,
            (Value::TimestampNanos(_), DataType::TimestampNanos) => true,
            _ => false,
        }
    }

    /// The text-report rendering: numbers bare (decimals normalised,
    /// floats shortest), strings double-quoted, timestamps as epoch ms.
    pub fn render_text(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => render_float_text(*f),
            Value::Decimal(d) => d.to_plain_string(),
            Value::Str(s) => quote(s),
            Value::Timestamp(ms) => ms.to_string(),
            Value::TimestampNanos(ns) => ns.div_euclid(1_000_000).to_string(),
        }
    }
}

/// Floats print shortest and never in exponent form (`3.0` → `3`).
pub fn render_float_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else {
        format!("{f}")
    }
}

/// A double-quoted string with `"` and `\` escaped.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        // The same kinds compare directly: this is the hot path of key lookups.
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Null, Value::Null) => true,
            (Value::Decimal(a), Value::Decimal(b)) if a.scale == b.scale => a.mantissa == b.mantissa,
            (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => self.cmp(other) == Ordering::Equal,
        }
    }
}

impl Eq for Value {}

/// Nulls first, then by value; numbers compare across representations,
/// strings by bytes, floats by IEEE total order.
impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        use Value::*;
        match (self, other) {
            (Null, Null) => Ordering::Equal,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (Float(a), Float(b)) => a.total_cmp(b),
            (Decimal(a), Decimal(b)) => a.cmp_value(*b),
            (Int(a), Decimal(b)) => super::decimal::Decimal::from_int(*a).cmp_value(*b),
            (Decimal(a), Int(b)) => a.cmp_value(super::decimal::Decimal::from_int(*b)),
            (Int(a), Float(b)) => (*a as f64).total_cmp(b),
            (Float(a), Int(b)) => a.total_cmp(&(*b as f64)),
            (Decimal(a), Float(b)) => a.to_f64().total_cmp(b),
            (Float(a), Decimal(b)) => a.total_cmp(&b.to_f64()),
            (Str(a), Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Timestamp(a), Timestamp(b)) => a.cmp(b),
            (TimestampNanos(a), TimestampNanos(b)) => a.cmp(b),
            (Timestamp(a), TimestampNanos(b)) => (*a as i128 * 1_000_000).cmp(&(*b as i128)),
            (TimestampNanos(a), Timestamp(b)) => (*a as i128).cmp(&(*b as i128 * 1_000_000)),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Consistent with `Eq` within one column type (where keys live): decimals
/// of one column share a scale.
impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::Null => 0u8.hash(state),
            Value::Bool(b) => b.hash(state),
            Value::Int(i) => i.hash(state),
            Value::Float(f) => f.to_bits().hash(state),
            Value::Decimal(d) => d.mantissa.hash(state),
            Value::Str(s) => s.hash(state),
            Value::Timestamp(t) => t.hash(state),
            Value::TimestampNanos(t) => t.hash(state),
        }
    }
}

const MS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `2024-01-01T00:00:00.000Z`: the JSON rendering of a timestamp.
pub fn format_timestamp_ms(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let rem = ms.rem_euclid(MS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
    } else {
        format!("{y:+}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
    }
}

/// Parses an RFC 3339 instant: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`,
/// uppercase `T` and `Z` only. The fraction is truncated to milliseconds;
/// an offset is converted to UTC. Returns epoch milliseconds.
pub fn parse_rfc3339_ms(s: &str) -> Option<i64> {
    parse_rfc3339_nanos(s).map(|ns| ns.div_euclid(1_000_000) as i64)
}

/// As [`parse_rfc3339_ms`], in nanoseconds.
pub fn parse_rfc3339_nanos(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d, h, mi, sec) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d == 0 || d > days_in_month(y as i64, mo) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: i128 = 0;
    if b[i] == b'.' {
        let start = i + 1;
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end == start {
            return None;
        }
        let frac = &s[start..end];
        let nine: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
        nanos = nine.parse().ok()?;
        i = end;
    }
    let offset_secs: i64 = match &b[i..] {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let hh = num(i + 1..i + 3)?;
            let mm = num(i + 4..i + 6)?;
            let _ = (h1, h2, m1, m2);
            if hh > 23 || mm > 59 {
                return None;
            }
            let o = (hh * 3600 + mm * 60) as i64;
            if *sign == b'+' { o } else { -o }
        }
        _ => return None,
    };
    let days = days_from_civil(y as i64, mo, d);
    let secs = days * 86_400 + (h * 3600 + mi * 60 + sec) as i64 - offset_secs;
    Some(secs as i128 * 1_000_000_000 + nanos)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        assert_eq!(parse_rfc3339_ms("2024-01-01T00:00:00Z"), Some(1_704_067_200_000));
        assert_eq!(parse_rfc3339_ms("2024-01-01T00:00:00.9999Z"), Some(1_704_067_200_999));
        assert_eq!(parse_rfc3339_ms("2024-01-01T01:00:00+01:00"), Some(1_704_067_200_000));
        assert_eq!(parse_rfc3339_ms("2023-12-31T19:00:00-05:00"), Some(1_704_067_200_000));
        for bad in ["2024-01-01 00:00:00", "2024-01-01", "2024-01-01T00:00:00", "2024-01-01t00:00:00z", "2024-02-30T00:00:00Z"] {
            assert_eq!(parse_rfc3339_ms(bad), None, "{bad}");
        }
        assert_eq!(format_timestamp_ms(1_704_067_200_000), "2024-01-01T00:00:00.000Z");
        assert_eq!(format_timestamp_ms(-1000), "1969-12-31T23:59:59.000Z");
        assert_eq!(parse_rfc3339_ms("1969-12-31T23:59:59.000Z"), Some(-1000));
    }

    #[test]
    fn keys_order_nulls_first_then_bytes() {
        let mut v = vec![Value::Str("b".into()), Value::Str("a".into()), Value::Null, Value::Str("B".into())];
        v.sort();
        let r: Vec<String> = v.iter().map(Value::render_text).collect();
        assert_eq!(r, ["null", "\"B\"", "\"a\"", "\"b\""]);
    }
}
