//! The common shape of a project file, read without the YAML parser: block
//! maps of plain keys whose values are one-line scalars, one-line flow lists
//! and maps of scalars, nested block maps, or block lists of such values.
//! `streamform.yml` at 10,000 models is about 100,000 parser events, read
//! before any model compiles; this reads it several times faster. Every
//! document outside the subset is left to the parser, and tests hold that
//! what this returns is exactly the parser's node, spans included.

use super::lines::{ends_line, flow_body, plain, Cursor};
use super::{resolve_plain, Node, Value};
use crate::diagnostic::Span;
use crate::limits::MAX_VALUE_BYTES;

/// Nesting past this is left to the parser, which holds the depth limit.
const MAX_DEPTH: usize = 32;

/// A line with content (not blank, not only a comment), without its `\n`.
struct Line<'t> {
    text: &'t str,
    offset: usize,
    number: u32,
    indent: usize,
}

impl Line<'_> {
    fn cursor_at(&self, pos: usize) -> Cursor<'_> {
        let mut c = Cursor::new(self.text, self.offset, self.number);
        c.pos = pos;
        c
    }

    fn span(&self, at: usize, len: usize) -> Span {
        self.cursor_at(0).span(at, len)
    }

    /// Where the content after the indicator (`:` or `-`) at `at` starts:
    /// past the spaces that follow it.
    fn after_indicator(&self, at: usize) -> usize {
        let mut c = self.cursor_at(at + 1);
        c.spaces();
        c.pos
    }

    /// A block list's item: `- ` at its indentation.
    fn is_item(&self) -> bool {
        let rest = &self.text[self.indent..];
        rest.starts_with("- ") || rest == "-"
    }
}

/// The document as the parser would build it, or `None` when it is not
/// plainly in the subset.
pub fn document(text: &str) -> Option<Node> {
    read_document(&content_lines(text)?)
}

/// [`document`] of `text` with its whole lines in `blank` read as blank
/// lines, without reading them: `blank` starts and ends at the start of a
/// line (or the end of `text`), and `blank_lines` is the number of the
/// lines before its end. Spans elsewhere are as in `text`.
pub fn document_without(text: &str, blank: std::ops::Range<usize>, blank_lines: u32) -> Option<Node> {
    let mut lines = Vec::new();
    content_lines_into(text.get(..blank.start)?, 0, 0, &mut lines)?;
    content_lines_into(text.get(blank.end..)?, blank.end, blank_lines, &mut lines)?;
    read_document(&lines)
}

fn read_document(lines: &[Line<'_>]) -> Option<Node> {
    if lines.first()?.indent != 0 {
        return None;
    }
    let mut reader = Reader { lines, at: 0 };
    let root = reader.map(0, 1)?;
    (reader.at == lines.len()).then_some(root)
}

/// One entry of a block map at nesting `depth` (the root map is 1), cut
/// from a document in the subset: its key's line and the deeper lines
/// below it. Read as [`document`] reads it there, but with every span
/// counted from the start of `text`, as line 1: [`Span::relative_to`] its
/// key, each span is what it is in the document relative to the same key.
/// `None` when it is not plainly one entry in the subset.
pub fn entry(text: &str, depth: usize) -> Option<(Node, Node)> {
    let lines = content_lines(text)?;
    let mut reader = Reader { lines: &lines, at: 0 };
    let node = reader.map(lines.first()?.indent, depth)?;
    match node.value {
        Value::Map(mut pairs) if reader.at == lines.len() && pairs.len() == 1 => pairs.pop(),
        _ => None,
    }
}

/// The lines of `text` with content, or `None` when a character or a line
/// is outside the subset.
fn content_lines(text: &str) -> Option<Vec<Line<'_>>> {
    let mut lines = Vec::new();
    content_lines_into(text, 0, 0, &mut lines)?;
    Some(lines)
}

/// [`content_lines`] of `text`, which starts at byte `offset` and after
/// `lines_before` lines of the document, appended to `out`.
fn content_lines_into<'t>(text: &'t str, offset: usize, lines_before: u32, out: &mut Vec<Line<'t>>) -> Option<()> {
    // Printable ASCII only, comments too: the parser refuses control
    // characters anywhere, and reads a lone `\r` as a line break.
    if (offset + text.len()) >= u32::MAX as usize || !text.bytes().all(|b| matches!(b, b' '..=b'~' | b'\n' | b'\t')) {
        return None;
    }
    let mut at = offset;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let start = at;
        at += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if line.contains('\t') || line.len() > MAX_VALUE_BYTES {
            return None;
        }
        out.push(Line { text: line, offset: start, number: lines_before + i as u32 + 1, indent: line.len() - content.len() });
    }
    Some(())
}

struct Reader<'l, 't> {
    lines: &'l [Line<'t>],
    at: usize,
}

impl Reader<'_, '_> {
    /// Whether the next line is indented past `indent`.
    fn deeper_than(&self, indent: usize) -> bool {
        self.lines.get(self.at).is_some_and(|l| l.indent > indent)
    }

    /// The block map whose keys are at `indent`, from the current line.
    fn map(&mut self, indent: usize, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (mut pairs, mut span) = (Vec::new(), None);
        while let Some(line) = self.lines.get(self.at) {
            if line.indent < indent {
                break;
            }
            let (key, colon) = key(line).filter(|_| line.indent == indent)?;
            span.get_or_insert(key.span.with_len(0));
            self.at += 1;
            let after = line.after_indicator(colon);
            let value = if after < line.text.len() && line.text.as_bytes()[after] != b'#' {
                let value = inline(line, after)?;
                // A deeper line would continue a plain scalar.
                if self.deeper_than(indent) {
                    return None;
                }
                value
            } else {
                match self.lines.get(self.at) {
                    Some(next) if next.indent > indent && next.is_item() => self.list(next.indent, depth + 1)?,
                    Some(next) if next.indent > indent => self.map(next.indent, depth + 1)?,
                    // A list at its key's indentation: the parser places it oddly.
                    Some(next) if next.indent == indent && next.is_item() => return None,
                    // Nothing: the parser's null sits at the colon.
                    _ => Node { span: line.span(colon, 0), value: Value::Null },
                }
            };
            pairs.push((key, value));
        }
        Some(Node { span: span?, value: Value::Map(pairs) })
    }

    /// The block list whose dashes are at `indent`, each item one value on its line.
    fn list(&mut self, indent: usize, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut items = Vec::new();
        let span = self.lines.get(self.at)?.span(indent, 0);
        while let Some(line) = self.lines.get(self.at) {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || !line.is_item() {
                return None;
            }
            let at = line.after_indicator(indent);
            if at == line.text.len() || line.text.as_bytes()[at] == b'#' {
                return None;
            }
            // A `key: value` item (a map) is refused by `inline`.
            items.push(inline(line, at)?);
            self.at += 1;
            if self.deeper_than(indent) {
                return None;
            }
        }
        Some(Node { span, value: Value::Seq(items) })
    }
}

/// A map key at the line's indentation, plain and simple, and where its
/// colon is; the colon ends the line or is followed by a space.
fn key(line: &Line) -> Option<(Node, usize)> {
    let b = line.text.as_bytes();
    let start = line.indent;
    if !(b[start].is_ascii_alphanumeric() || b[start] == b'_') {
        return None;
    }
    let len = b[start..].iter().take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')).count();
    let colon = start + len;
    // The parser refuses implicit keys over 1,024 characters.
    if len > 256 || b.get(colon) != Some(&b':') || !matches!(b.get(colon + 1), None | Some(b' ')) {
        return None;
    }
    Some((Node { span: line.span(start, len), value: resolve_plain(&line.text[start..colon]) }, colon))
}

/// The value that starts at `at` and ends its line (but for a comment).
fn inline(line: &Line, at: usize) -> Option<Node> {
    let text = line.text;
    let mut c = line.cursor_at(at);
    let value = match text.as_bytes()[at] {
        open @ (b'[' | b'{') => {
            c.pos += 1;
            flow_body(&mut c, if open == b'[' { b']' } else { b'}' })?
        }
        b'"' | b'\'' => c.scalar(false)?.value,
        _ => {
            let end = text[at..].find(" #").map_or(text.len(), |i| at + i);
            let scalar = text[at..end].trim_end_matches(' ');
            return plain(scalar.as_bytes()).then(|| Node { span: line.span(at, scalar.len()), value: resolve_plain(scalar) });
        }
    };
    // The parser ends a flow collection or a quoted scalar at the next
    // token: past any comment, the end of its line.
    ends_line(&text[c.pos..]).then(|| Node { span: line.span(at, text.len() - at), value })
}

#[cfg(test)]
mod tests;
