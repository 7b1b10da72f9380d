//! serde_json's pretty layout (two-space indent), made from compact JSON
//! that serde_json wrote. The manifest keeps every model's compact JSON
//! for the application digest; printing re-indents it instead of
//! serializing every entry again, which at 10,000 models was a sixth of
//! `inspect-plan --json` on a single thread.

use std::io::{self, Write};

/// Re-indents compact JSON fed in pieces (split anywhere) and writes it.
pub struct Pretty<'w> {
    out: &'w mut dyn Write,
    buf: Vec<u8>,
    depth: usize,
    in_string: bool,
    /// The previous byte of a string was a backslash.
    escaped: bool,
    /// An opening bracket not yet written: the next byte says whether the
    /// container is empty (`[]`, `{}` stay on one line).
    open: Option<u8>,
}

/// Bytes gathered before each write.
const CHUNK: usize = 1 << 16;

impl<'w> Pretty<'w> {
    pub fn new(out: &'w mut dyn Write) -> Self {
        Pretty { out, buf: Vec::with_capacity(CHUNK + 256), depth: 0, in_string: false, escaped: false, open: None }
    }

    /// The next piece of the document.
    pub fn feed(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            if self.in_string {
                if std::mem::take(&mut self.escaped) {
                    self.buf.push(bytes[0]);
                    bytes = &bytes[1..];
                    continue;
                }
                // Up to and with the next quote or backslash, at once.
                let Some(at) = memchr::memchr2(b'"', b'\\', bytes) else {
                    self.buf.extend_from_slice(bytes);
                    break;
                };
                self.buf.extend_from_slice(&bytes[..=at]);
                if bytes[at] == b'\\' {
                    self.escaped = true;
                } else {
                    self.in_string = false;
                }
                bytes = &bytes[at + 1..];
                continue;
            }
            let b = bytes[0];
            bytes = &bytes[1..];
            if let Some(open) = self.open.take() {
                let close = if open == b'[' { b']' } else { b'}' };
                self.buf.push(open);
                if b == close {
                    self.buf.push(close);
                    continue;
                }
                self.depth += 1;
                self.newline();
            }
            match b {
                b'[' | b'{' => self.open = Some(b),
                b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.newline();
                    self.buf.push(b);
                }
                b',' => {
                    self.buf.push(b',');
                    self.newline();
                    if self.buf.len() >= CHUNK {
                        self.out.write_all(&self.buf)?;
                        self.buf.clear();
                    }
                }
                b':' => self.buf.extend_from_slice(b": "),
                b'"' => {
                    self.buf.push(b);
                    self.in_string = true;
                }
                _ => self.buf.push(b),
            }
        }
        Ok(())
    }

    fn newline(&mut self) {
        const SPACES: &[u8; 64] = &[b' '; 64];
        self.buf.push(b'\n');
        let mut n = 2 * self.depth;
        while n > 0 {
            let k = n.min(SPACES.len());
            self.buf.extend_from_slice(&SPACES[..k]);
            n -= k;
        }
    }

    /// Writes what is left.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(open) = self.open.take() {
            self.buf.push(open);
        }
        self.out.write_all(&self.buf)
    }
}

/// `compact` re-indented.
pub fn pretty(compact: &str) -> String {
    let mut out = Vec::with_capacity(compact.len() * 2);
    let mut p = Pretty::new(&mut out);
    p.feed(compact.as_bytes()).and_then(|()| p.finish()).expect("writing to memory does not fail");
    String::from_utf8(out).expect("re-indenting keeps UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn same_as_serde(v: &Value) {
        let compact = serde_json::to_string(v).unwrap();
        assert_eq!(pretty(&compact), serde_json::to_string_pretty(v).unwrap(), "{compact}");
        // Fed one byte at a time, as a piece may end anywhere.
        let mut out = Vec::new();
        let mut p = Pretty::new(&mut out);
        for b in compact.as_bytes() {
            p.feed(std::slice::from_ref(b)).unwrap();
        }
        p.finish().unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string_pretty(v).unwrap(), "{compact}");
    }

    #[test]
    fn lays_out_like_serde_json() {
        for v in [
            json!(null),
            json!(1),
            json!(-2.5e-7),
            json!("a"),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"a": {}}),
            json!({"a": [], "b": [{}], "c": [[], {}, [1]]}),
            json!({"k": "x:y,z{[\"]}\\", "\\\"": "\u{1}\u{1f}\"\\\\\"", "é": "日本"}),
            json!([{"a": 1, "b": [true, false, null]}, {"c": {"d": {"e": []}}}]),
        ] {
            same_as_serde(&v);
        }
    }

    /// Many generated documents: nesting, empty containers, and strings
    /// full of the characters that mean something outside a string.
    #[test]
    fn lays_out_generated_documents_like_serde_json() {
        let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        fn gen(next: &mut dyn FnMut() -> u64, depth: u32) -> Value {
            let pieces = ["a", "\"", "\\", ":", ",", "{", "}", "[", "]", " ", "\n", "é", "\u{7}"];
            match next() % if depth > 4 { 4 } else { 6 } {
                0 => Value::Null,
                1 => json!(next() % 1000),
                2 => Value::String((0..next() % 6).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect()),
                3 => json!(next() % 2 == 0),
                4 => Value::Array((0..next() % 4).map(|_| gen(next, depth + 1)).collect()),
                _ => Value::Object((0..next() % 4).map(|i| (format!("k{i}{}", pieces[(next() % pieces.len() as u64) as usize]), gen(next, depth + 1))).collect()),
            }
        }
        for _ in 0..2000 {
            same_as_serde(&gen(&mut next, 0));
        }
    }
}
