//! Positions between the compiler (byte offsets, 1-based lines and
//! columns in characters) and LSP (0-based lines, UTF-16 code units), and
//! paths between the project (relative) and the editor (file URIs).

use camino::{Utf8Path, Utf8PathBuf};
use lsp_types::{Position, Range, Url};
use streamform::diagnostic::Span;

/// The LSP position of byte `offset` of `text` (clamped to the text, and
/// back to a character boundary).
pub fn position_at(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = text[line_start..offset].encode_utf16().count() as u32;
    Position { line, character }
}

/// The byte offset of an LSP position in `text`; past the end of a line
/// is its end, past the last line is the end of the text.
pub fn offset_at(text: &str, pos: Position) -> usize {
    let mut start = 0usize;
    for _ in 0..pos.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[start..text[start..].find('\n').map_or(text.len(), |i| start + i)];
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= pos.character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    start + line.len()
}

/// The range a compiler span marks in `text` (the file's start when none).
pub fn range_of(text: &str, span: Option<Span>) -> Range {
    match span {
        Some(s) if s.offset > 0 || s.len > 0 || s.line <= 1 => {
            let start = s.offset as usize;
            Range { start: position_at(text, start), end: position_at(text, start + s.len as usize) }
        }
        // A span known only by line and column (offset 0 past line 1).
        Some(s) => {
            let p = Position { line: s.line.saturating_sub(1), character: s.col.saturating_sub(1) };
            Range { start: p, end: p }
        }
        None => Range::default(),
    }
}

/// The project-relative path of a file URI under `root`.
pub fn relative(root: &Utf8Path, uri: &Url) -> Option<String> {
    let path = Utf8PathBuf::from_path_buf(uri.to_file_path().ok()?).ok()?;
    let rel = path.strip_prefix(root).ok()?;
    Some(rel.as_str().replace('\\', "/"))
}

/// The file URI of a project-relative path.
pub fn uri(root: &Utf8Path, rel: &str) -> Url {
    Url::from_file_path(root.join(rel)).unwrap_or_else(|_| Url::parse("file:///").expect("a valid URI"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let text = "SELECT 'é𝄞x'\nFROM t";
        let x = text.find('x').unwrap();
        let p = position_at(text, x);
        assert_eq!(p, Position { line: 0, character: 11 }); // 𝄞 is two UTF-16 units
        assert_eq!(offset_at(text, p), x);
        assert_eq!(offset_at(text, Position { line: 1, character: 99 }), text.len());
        assert_eq!(offset_at(text, Position { line: 7, character: 0 }), text.len());
    }
}
