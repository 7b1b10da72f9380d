//! The common shape of a large fixture, read without the YAML parser: a
//! document that is a block map at column 1, whose lists hold one flow map
//! of scalars per line (`- {customer_id: 1, amount: "10.00"}`). saphyr
//! reads 50 MB/s; this reads the same lines several times faster. Every
//! line outside this narrow subset is left to the parser, and a test holds
//! that what this returns is exactly the parser's node, spans included.

use super::{resolve_plain, Node, Value};
use crate::diagnostic::Span;

/// Whether `text` holds only characters YAML allows unescaped (its
/// printable set): the parser refuses any other anywhere, comments
/// included, which the line reader skips unread.
pub fn printable(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b'\t' | b'\n' | b'\r' | b' '..=b'~' | 0x80..))
        && (text.is_ascii() || text.chars().all(|c| c.is_ascii() || matches!(c, '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)))
}

/// One top-level entry of a block map at column 1: `text[start..end]`,
/// starting at line `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub start: usize,
    pub end: usize,
    pub line: u32,
}

/// The document's top-level entries, or `None` when it is not plainly a
/// block map at column 1 (directives, document markers, a flow root).
pub fn root_entries(text: &str) -> Option<Vec<Entry>> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let first = line.as_bytes().first().copied().unwrap_or(b'\n');
        match first {
            b' ' | b'\n' | b'\r' | b'#' => continue,
            b'-' if matches!(line.as_bytes().get(1), Some(b' ' | b'\n' | b'\r')) => {
                if entries.is_empty() {
                    return None;
                }
                continue;
            }
            b'%' | b'\t' | b'{' | b'[' | b'?' | b':' | b'&' | b'*' | b'!' | b'|' | b'>' | b'@' | b'`' | b',' | b']' | b'}' => return None,
            _ if line.starts_with("---") || line.starts_with("...") => return None,
            _ => {}
        }
        if let Some(last) = entries.last_mut() {
            last.end = start;
        }
        entries.push(Entry { start, end: text.len(), line: i as u32 + 1 });
    }
    Some(entries)
}

/// The key of an entry whose first line is only `key:` (and perhaps a
/// comment), with the offset of its body.
pub fn list_key(text: &str, e: Entry) -> Option<(&str, usize)> {
    let body = &text[e.start..e.end];
    let eol = body.find('\n').map_or(body.len(), |i| i + 1);
    let line = body[..eol].trim_end_matches(['\n', '\r']);
    let colon = line.find(':')?;
    let key = &line[..colon];
    let rest = &line[colon + 1..];
    let rest_ok = rest.trim_start_matches(' ').is_empty() || (rest.starts_with(' ') && rest.trim_start_matches(' ').starts_with('#'));
    (key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') && rest_ok).then_some((key, e.start + eol))
}

/// The item lines of an entry's body (`text[body..end]`, from the line
/// after `key_line`), skipping blank and comment lines: each item's offset
/// and line number, or `None` for a line that is not an item at the
/// first item's indentation.
pub fn item_lines(text: &str, body: usize, end: usize, key_line: u32) -> impl Iterator<Item = Option<(usize, u32)>> + '_ {
    let mut indent = None;
    let mut offset = body;
    text[body..end].split_inclusive('\n').enumerate().filter_map(move |(i, line)| {
        let start = offset;
        offset += line.len();
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content == "\n" || content.starts_with('#') {
            return None;
        }
        let n = line.len() - content.len();
        let ok = *indent.get_or_insert(n) == n && content.starts_with("- ");
        Some(ok.then_some((start, key_line + 1 + i as u32)))
    })
}

/// The flow map on the item line at `offset` (line `number`), exactly as
/// the parser would build it, or `None` when the line is outside the subset.
pub fn flow_map(text: &str, offset: usize, number: u32) -> Option<Node> {
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[offset..line_end];
    // A line that may hold a value past the limit is left to the parser, which says so.
    // Printable ASCII only: the parser refuses control characters (NUL among them).
    if !line.bytes().all(|b| matches!(b, b' '..=b'~')) || line.len() > crate::limits::MAX_VALUE_BYTES {
        return None;
    }
    let mut c = Cursor::new(line, offset, number);
    c.spaces();
    if !c.eat(b'-') || c.spaces() == 0 {
        return None;
    }
    let open = c.pos;
    if !c.eat(b'{') {
        return None;
    }
    let value = flow_body(&mut c, b'}')?;
    if !ends_line(&line[c.pos..]) {
        return None;
    }
    // The parser's end of the map takes the rest of the line.
    Some(Node { span: c.span(open, line.len() - open), value })
}

/// Whether what follows a value on its line is nothing but spaces and a comment.
pub(super) fn ends_line(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// Whether `text`, trimmed and on one line, reads as one plain scalar in
/// a block or a flow collection: it starts as a plain scalar does and holds
/// nothing the parser would stop at or refuse. After a space only a letter,
/// a digit or another space may follow (the parser reads ` -}` as the start
/// of a new scalar, and refuses it).
pub(super) fn plain(text: &[u8]) -> bool {
    let Some(&first) = text.first() else { return false };
    let second = text.get(1).copied().unwrap_or(b' ');
    let starts = first.is_ascii_alphanumeric() || matches!(first, b'_' | b'.' | b'+' | b'~') || (first == b'-' && (second.is_ascii_alphanumeric() || matches!(second, b'_' | b'.')));
    starts
        && !text.iter().any(|&b| matches!(b, b'[' | b']' | b'{' | b'}' | b'#' | b'"' | b'\''))
        && !text.windows(2).any(|w| w == b": " || (w[0] == b' ' && !(w[1].is_ascii_alphanumeric() || w[1] == b' ')))
        && !text.ends_with(b":")
}

/// A flow map's or list's items of scalars, after its opening bracket and
/// through the `close`ing one, or `None` outside the subset.
pub(super) fn flow_body(c: &mut Cursor, close: u8) -> Option<Value> {
    let (mut pairs, mut items) = (Vec::new(), Vec::new());
    loop {
        c.spaces();
        if c.eat(close) {
            break;
        }
        if close == b'}' {
            let key = c.scalar(true)?;
            if !c.eat(b':') || c.spaces() == 0 {
                return None;
            }
            pairs.push((key, c.scalar(false)?));
        } else {
            items.push(c.scalar(false)?);
        }
        c.spaces();
        if c.eat(close) {
            break;
        }
        // A trailing comma moves the parser's end of the map; leave it to the parser.
        if !c.eat(b',') || (c.spaces(), c.b.get(c.pos)).1 == Some(&close) {
            return None;
        }
    }
    Some(if close == b'}' { Value::Map(pairs) } else { Value::Seq(items) })
}

/// A position in an ASCII line (so every byte index is a char boundary).
pub(super) struct Cursor<'b> {
    s: &'b str,
    b: &'b [u8],
    pub(super) pos: usize,
    offset: usize,
    number: u32,
}

impl<'b> Cursor<'b> {
    /// At the start of `line`, which starts at byte `offset` of its file, on line `number`.
    pub(super) fn new(line: &'b str, offset: usize, number: u32) -> Self {
        Cursor { s: line, b: line.as_bytes(), pos: 0, offset, number }
    }

    pub(super) fn spaces(&mut self) -> usize {
        let start = self.pos;
        while self.b.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
        self.pos - start
    }

    pub(super) fn eat(&mut self, byte: u8) -> bool {
        let hit = self.b.get(self.pos) == Some(&byte);
        self.pos += hit as usize;
        hit
    }

    /// The span of `len` bytes at byte `at` of the line.
    pub(super) fn span(&self, at: usize, len: usize) -> Span {
        Span { line: self.number, col: at as u32 + 1, offset: (self.offset + at) as u32, len: len as u32 }
    }

    /// A key (up to its `:`) or a value (up to `,`, `}` or `]`).
    pub(super) fn scalar(&mut self, key: bool) -> Option<Node> {
        let start = self.pos;
        match *self.b.get(start)? {
            q @ (b'"' | b'\'') => {
                let len = self.b[start + 1..].iter().position(|&b| b == q)?;
                let inner = &self.b[start + 1..start + 1 + len];
                if inner.contains(&b'\\') || self.b.get(start + 2 + len) == Some(&q) {
                    return None;
                }
                self.pos = start + 2 + len;
                let text = &self.s[start + 1..start + 1 + len];
                // The parser's end of a quoted scalar takes the spaces after it.
                let end = if key { self.pos } else { self.pos + self.b[self.pos..].iter().take_while(|&&b| b == b' ').count() };
                Some(Node { span: self.span(start, end - start), value: Value::Str(text.to_string()) })
            }
            _ => {
                let run = if key {
                    self.b[start..].iter().take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')).count()
                } else {
                    self.b[start..].iter().take_while(|&&b| !matches!(b, b',' | b'}' | b']')).count()
                };
                let raw = &self.b[start..start + run];
                let len = raw.len() - raw.iter().rev().take_while(|&&b| b == b' ').count();
                if !plain(&raw[..len]) {
                    return None;
                }
                self.pos = start + len;
                Some(Node { span: self.span(start, len), value: resolve_plain(&self.s[start..start + len]) })
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests;
