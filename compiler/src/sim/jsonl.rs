//! One line of `streamform run` input: a flat JSON object of scalars.
//!
//! A small reader of its own because numbers must keep their text (a
//! `decimal(38,9)` does not survive a trip through f64) and because it is
//! on the hot path of `run`.

use super::scalar::Scalar;
use crate::limits::MAX_VALUE_BYTES;

/// Parses `{"col": value, …}`; the error says what was expected where.
pub fn parse_object(line: &str) -> Result<Vec<(String, Scalar)>, String> {
    let mut p = Parser { s: line.as_bytes(), i: 0, text: line };
    p.ws();
    p.expect(b'{')?;
    let mut out = Vec::new();
    p.ws();
    if p.peek() == Some(b'}') {
        p.i += 1;
    } else {
        loop {
            p.ws();
            let key = p.string()?;
            p.ws();
            p.expect(b':')?;
            p.ws();
            let v = p.value(&key)?;
            out.push((key, v));
            p.ws();
            match p.next() {
                Some(b',') => continue,
                Some(b'}') => break,
                _ => return Err(format!("expected `,` or `}}` at column {}", p.i)),
            }
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text after the object at column {}", p.i + 1));
    }
    Ok(out)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek();
        self.i += 1;
        b
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        if self.next() == Some(b) {
            Ok(())
        } else {
            Err(format!("expected `{}` at column {}", b as char, self.i))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let start = self.i;
        // Fast path: no escapes.
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    let s = self.text[start..self.i].to_string();
                    self.i += 1;
                    return Ok(s);
                }
                b'\\' => break,
                _ => self.i += 1,
            }
        }
        let mut out = self.text[start..self.i].to_string();
        loop {
            match self.next() {
                None => return Err("unterminated string".into()),
                Some(b'"') => return Ok(out),
                Some(b'\\') => match self.next() {
                    Some(b'"') => out.push('"'),
                    Some(b'\\') => out.push('\\'),
                    Some(b'/') => out.push('/'),
                    Some(b'b') => out.push('\u{8}'),
                    Some(b'f') => out.push('\u{c}'),
                    Some(b'n') => out.push('\n'),
                    Some(b'r') => out.push('\r'),
                    Some(b't') => out.push('\t'),
                    Some(b'u') => {
                        let hi = self.hex4()?;
                        let c = if (0xD800..0xDC00).contains(&hi) {
                            if self.next() != Some(b'\\') || self.next() != Some(b'u') {
                                return Err("unpaired surrogate in a string".into());
                            }
                            let lo = self.hex4()?;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF))
                        } else {
                            char::from_u32(hi)
                        };
                        out.push(c.ok_or("invalid \\u escape")?);
                    }
                    _ => return Err(format!("invalid escape at column {}", self.i)),
                },
                Some(_) => {
                    // Copy one UTF-8 character.
                    let start = self.i - 1;
                    let ch = self.text[start..].chars().next().ok_or("invalid UTF-8")?;
                    out.push(ch);
                    self.i = start + ch.len_utf8();
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.text.get(self.i..self.i + 4).ok_or("short \\u escape")?;
        self.i += 4;
        u32::from_str_radix(h, 16).map_err(|_| "invalid \\u escape".to_string())
    }

    /// A value no longer than [`MAX_VALUE_BYTES`] as written.
    fn value(&mut self, key: &str) -> Result<Scalar, String> {
        let start = self.i;
        let v = self.any_value(key)?;
        if self.i - start > MAX_VALUE_BYTES {
            return Err(format!("column `{key}`: the value is {} bytes, more than the limit of {MAX_VALUE_BYTES} (1 MiB)", self.i - start));
        }
        Ok(v)
    }

    fn any_value(&mut self, key: &str) -> Result<Scalar, String> {
        match self.peek() {
            Some(b'"') => Ok(Scalar::Str(self.string()?)),
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Scalar::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Scalar::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Scalar::Null)
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.i;
                let mut float = false;
                while let Some(b) = self.peek() {
                    match b {
                        b'0'..=b'9' | b'-' | b'+' => {}
                        b'.' | b'e' | b'E' => float = true,
                        _ => break,
                    }
                    self.i += 1;
                }
                let t = &self.text[start..self.i];
                if !float {
                    if let Ok(i) = t.parse::<i128>() {
                        return Ok(Scalar::Int(i));
                    }
                }
                t.parse::<f64>().map(|f| Scalar::Float(f, t.to_string())).map_err(|_| format!("column `{key}`: `{t}` is not a number"))
            }
            Some(b'{' | b'[') => Err(format!("column `{key}`: expected a scalar, got a nested value")),
            _ => Err(format!("column `{key}`: expected a value at column {}", self.i + 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_may_take_a_mebibyte_as_written() {
        // The quotes count: a string of MAX - 2 bytes is MAX as written.
        let line = |n: usize| format!("{{\"note\": \"{}\"}}", "x".repeat(n));
        assert_eq!(parse_object(&line(MAX_VALUE_BYTES - 2)).unwrap()[0].1, Scalar::Str("x".repeat(MAX_VALUE_BYTES - 2)));
        let e = parse_object(&line(MAX_VALUE_BYTES - 1)).unwrap_err();
        assert_eq!(e, format!("column `note`: the value is {} bytes, more than the limit of {MAX_VALUE_BYTES} (1 MiB)", MAX_VALUE_BYTES + 1));
    }

    #[test]
    fn reads_flat_objects_keeping_number_text() {
        let r = parse_object(r#"{"a": 1, "b": "x\"y", "c": 12345678901234567890.123456789, "d": null, "e": true}"#).unwrap();
        assert_eq!(r[0], ("a".into(), Scalar::Int(1)));
        assert_eq!(r[1], ("b".into(), Scalar::Str("x\"y".into())));
        assert!(matches!(&r[2].1, Scalar::Float(_, t) if t == "12345678901234567890.123456789"));
        assert_eq!(r[3].1, Scalar::Null);
        assert_eq!(r[4].1, Scalar::Bool(true));
        assert!(parse_object(r#"{"a": {"b": 1}}"#).is_err());
        assert!(parse_object(r#"{"a": 1} x"#).is_err());
        assert_eq!(parse_object(r#"{"s": "\u00e9\ud83d\ude00"}"#).unwrap()[0].1, Scalar::Str("é😀".into()));
    }
}
