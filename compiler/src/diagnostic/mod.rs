//! Diagnostics as data: the compiler never prints. `cli` renders them.

mod code;

pub use code::Code;

/// A location in a project file: 1-based line and column (in characters),
/// the byte offset and the byte length of the marked text (0 = a point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub offset: u32,
    pub len: u32,
}

impl Span {
    pub fn new(line: u32, col: u32, offset: u32) -> Span {
        Span { line, col, offset, len: 0 }
    }

    pub fn with_len(mut self, len: usize) -> Span {
        self.len = len as u32;
        self
    }

    /// This span counted from `base` (lines and bytes; the column stays,
    /// as lines above do not move it). [`Span::placed_at`] the same base
    /// gives it back, so a span relative to the start of its entry in a
    /// configuration file is the same wherever an edit above moves the entry.
    pub fn relative_to(self, base: Span) -> Span {
        Span { line: self.line.wrapping_sub(base.line), offset: self.offset.wrapping_sub(base.offset), ..self }
    }

    /// A span made [`Span::relative_to`] `base`, placed back at `base`.
    pub fn placed_at(self, base: Span) -> Span {
        Span { line: self.line.wrapping_add(base.line), offset: self.offset.wrapping_add(base.offset), ..self }
    }

    /// Where the marked text ends in `text`, the file it marks: the 1-based
    /// line and column (in characters) just past it.
    pub fn end(&self, text: &str) -> (u32, u32) {
        let mut at = (self.offset as usize + self.len as usize).min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let end = Span::at_offset(text, at, 0);
        (end.line, end.col)
    }

    /// The span of `len` bytes at byte `offset` of `text`.
    pub fn at_offset(text: &str, offset: usize, len: usize) -> Span {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = text[line_start..offset].chars().count() as u32 + 1;
        Span { line, col, offset: offset as u32, len: len as u32 }
    }

    /// The span of a 1-based (line, column-in-characters) position of `text`.
    pub fn at_line_col(text: &str, line: u64, col: u64, len_chars: u64) -> Span {
        let mut offset = 0usize;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i as u64 + 1 == line {
                let (k, e) = (col.saturating_sub(1) as usize, col.saturating_sub(1).saturating_add(len_chars) as usize);
                // Where the line is ASCII up to the end, characters are bytes:
                // counting characters made spans of long lines quadratic.
                let (start, end) = if e < l.len() && l.as_bytes()[..=e].is_ascii() {
                    (k, e)
                } else {
                    (l.char_indices().nth(k).map_or(l.len(), |(b, _)| b), l.char_indices().nth(e).map_or(l.trim_end_matches('\n').len(), |(b, _)| b))
                };
                return Span { line: line as u32, col: col.max(1) as u32, offset: (offset + start) as u32, len: end.saturating_sub(start) as u32 };
            }
            offset += l.len();
        }
        Span::at_offset(text, text.len(), 0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    /// Not a problem of its own: why a model is not checked further (what
    /// it reads has errors, reported where they are).
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A secondary location of a diagnostic that involves two places: where
/// the other half of the conflict is written, and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub path: String,
    pub span: Option<Span>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable code, listed in docs/errors.md.
    pub code: Code,
    pub message: String,
    /// Project-relative path of the file the diagnostic is about.
    pub path: Option<String>,
    pub span: Option<Span>,
    pub help: Option<String>,
    /// Secondary locations, after the primary one (where the user acts).
    pub labels: Vec<Label>,
    /// The primary span's text is a secret (a credential written into a
    /// file): a rendering masks it, so CI logs never carry it.
    pub secret: bool,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, code, message: message.into(), path: None, span: None, help: None, labels: Vec::new(), secret: false }
    }

    pub fn warning(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, code, message: message.into(), path: None, span: None, help: None, labels: Vec::new(), secret: false }
    }

    pub fn note(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Note, code, message: message.into(), path: None, span: None, help: None, labels: Vec::new(), secret: false }
    }

    pub fn at(mut self, path: impl Into<String>, span: Option<Span>) -> Diagnostic {
        self.path = Some(path.into());
        self.span = span;
        self
    }

    pub fn in_file(mut self, path: impl Into<String>) -> Diagnostic {
        self.path = Some(path.into());
        self
    }

    pub fn with_span(mut self, span: Span) -> Diagnostic {
        self.span = Some(span);
        self
    }

    /// Adds a secondary location: `message` says what is written there.
    pub fn label(mut self, path: impl Into<String>, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label { path: path.into(), span, message: message.into() });
        self
    }

    /// Places the spans in `path` (the primary one and labels) that were
    /// made [`Span::relative_to`] `base`.
    pub fn place(&mut self, path: &str, base: Span) {
        if self.path.as_deref() == Some(path) {
            self.span = self.span.map(|s| s.placed_at(base));
        }
        for l in self.labels.iter_mut().filter(|l| l.path == path) {
            l.span = l.span.map(|s| s.placed_at(base));
        }
    }

    /// [`Diagnostic::place`], by value.
    pub fn placed(mut self, path: &str, base: Span) -> Diagnostic {
        self.place(path, base);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Names longer than this get no "did you mean": nobody mistypes one, and
/// generated names (an unaliased expression's text) can be kilobytes long.
const SUGGEST_MAX_CHARS: usize = 256;

/// The closest candidate to `name` by edit distance, for "did you mean" hints:
/// within a third of the name's length, the first of the closest.
///
/// Called once per unknown name, with every name in scope: a candidate
/// whose length alone rules it out costs nothing, and the distance is only
/// computed near the diagonal, so a long name costs its length, not a
/// product of lengths.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let n = name.chars().count();
    if n > SUGGEST_MAX_CHARS {
        return None;
    }
    let limit = (n.max(3) / 3).max(1);
    let lower: Vec<char> = name.to_lowercase().chars().collect();
    let mut other = Vec::new();
    let mut rows: [Vec<usize>; 3] = Default::default();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        // Lowercasing never shortens a name and makes at most three
        // characters of one; a character is one to four bytes.
        if c.len() / 4 > lower.len() + limit || 3 * c.len() + limit < lower.len() {
            continue;
        }
        // Only a closer candidate replaces the best so far.
        let within = match best {
            Some((0, _)) => break,
            Some((d, _)) => d - 1,
            None => limit,
        };
        other.clear();
        // Without an allocation per candidate for the common ASCII name:
        // a did-you-mean may look through every model of a large project.
        if c.is_ascii() {
            other.extend(c.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            other.extend(c.to_lowercase().chars());
        }
        if let Some(d) = edit_distance_within(&lower, &other, within, &mut rows) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance (insertions, deletions, substitutions
/// and transpositions of neighbours each cost one: `kafak` → `kafka` is 1),
/// when it is at most `k`. Only cells within `k` of the diagonal can be, so
/// only they are computed, and a row with none within `k` ends the search.
fn edit_distance_within(a: &[char], b: &[char], k: usize, rows: &mut [Vec<usize>; 3]) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > k {
        return None;
    }
    let far = k + 1;
    // Rows i-2, i-1 and i; cells outside the band hold `far`. The caller's
    // buffers, reused from one candidate to the next.
    for row in rows.iter_mut() {
        row.clear();
        row.resize(m + 1, far);
    }
    for (j, cell) in rows[1].iter_mut().enumerate().take(k.min(m) + 1) {
        *cell = j;
    }
    for i in 1..=n {
        let [before, prev, cur] = &mut *rows;
        let lo = i.saturating_sub(k).max(1);
        let hi = (i + k).min(m);
        cur.fill(far);
        if i <= k {
            cur[0] = i;
        }
        let mut row_min = cur[0];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d.min(far);
            row_min = row_min.min(cur[j]);
        }
        if row_min > k {
            return None;
        }
        rows.rotate_left(1);
    }
    let d = rows[1][m];
    (d <= k).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        assert_eq!(did_you_mean("custmer_id", ["order_id", "customer_id"]), Some("customer_id"));
        assert_eq!(did_you_mean("zzz", ["order_id", "customer_id"]), None);
        assert_eq!(did_you_mean("materialised", ["materialized", "key"]), Some("materialized"));
        assert_eq!(did_you_mean("kafak", ["kafka", "file", "iceberg"]), Some("kafka"));
        // The first of the closest.
        assert_eq!(did_you_mean("amont", ["amounts", "amount", "mount"]), Some("amount"));
        assert_eq!(did_you_mean("ab", ["xb", "ay"]), Some("xb"));
        assert_eq!(did_you_mean("Amount", ["AMOUNT"]), Some("AMOUNT"));
    }

    /// The whole matrix, as the distance was computed before the band.
    fn full_distance(a: &[char], b: &[char]) -> usize {
        let (n, m) = (a.len(), b.len());
        let mut d = vec![vec![0usize; m + 1]; n + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for j in 0..=m {
            d[0][j] = j;
        }
        for i in 1..=n {
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[n][m]
    }

    /// The banded distance agrees with the whole matrix wherever it answers,
    /// on pairs of short strings over a small alphabet (so that
    /// transpositions and near misses are common).
    #[test]
    fn the_band_agrees_with_the_whole_matrix() {
        let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15_u64);
        let word = |next: &mut dyn FnMut() -> u64| -> Vec<char> {
            let len = (next() % 9) as usize;
            (0..len).map(|_| ['a', 'b', 'c'][(next() % 3) as usize]).collect()
        };
        for _ in 0..20_000 {
            let (a, b) = (word(&mut next), word(&mut next));
            let k = (next() % 6) as usize;
            let full = full_distance(&a, &b);
            assert_eq!(edit_distance_within(&a, &b, k, &mut Default::default()), (full <= k).then_some(full), "{a:?} {b:?} within {k}");
        }
    }

    /// A kilobytes-long unknown name (an unaliased expression's text) gets
    /// no suggestion, and a long candidate is ruled out by its length.
    #[test]
    fn long_names_are_not_compared() {
        let long = "id + ".repeat(2_000);
        assert_eq!(did_you_mean(&long, [long.as_str()]), None);
        assert_eq!(did_you_mean("qty", [long.as_str(), "qtx"]), Some("qtx"));
        let near = format!("{}x", "a".repeat(255));
        assert_eq!(did_you_mean(&"a".repeat(256), [near.as_str()]), Some(near.as_str()));
    }

    /// `at_line_col` as it was, counting characters on every line.
    fn at_line_col_by_chars(text: &str, line: u64, col: u64, len_chars: u64) -> Span {
        let mut offset = 0usize;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i as u64 + 1 == line {
                let start = l.char_indices().nth(col.saturating_sub(1) as usize).map_or(l.len(), |(b, _)| b);
                let end = l.char_indices().nth((col.saturating_sub(1) + len_chars) as usize).map_or(l.trim_end_matches('\n').len(), |(b, _)| b);
                return Span { line: line as u32, col: col.max(1) as u32, offset: (offset + start) as u32, len: end.saturating_sub(start) as u32 };
            }
            offset += l.len();
        }
        Span::at_offset(text, text.len(), 0)
    }

    #[test]
    fn line_col_spans_equal_counting_characters() {
        // Lines of ASCII, of two-, three- and four-byte characters, and
        // empty ones; every position on and past each line, every length.
        let pieces = ["a", "é", "→", "😀", " ", "\n", "\n", "bc"];
        let mut state = 0x2545_f491_u64;
        let mut ascii_fast = 0;
        for round in 0..400 {
            // Every other text is ASCII alone, as most models are.
            let choices = if round % 2 == 0 { pieces.len() } else { 1 };
            let mut text = String::new();
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state % choices as u64) as usize;
                text.push_str(pieces[if choices == 1 { [0, 4, 7, 0, 4, 7, 5][(state >> 8) as usize % 7] } else { i }]);
            }
            let lines = text.matches('\n').count() as u64 + 2;
            for line in 0..=lines {
                for col in 0..12 {
                    for len in 0..6 {
                        let got = Span::at_line_col(&text, line, col, len);
                        assert_eq!(got, at_line_col_by_chars(&text, line, col, len), "{text:?} {line}:{col} +{len}");
                        ascii_fast += usize::from(text.is_ascii() && got.len as u64 == len && len > 0);
                    }
                }
            }
        }
        assert!(ascii_fast > 200, "too few spans took the ASCII path: {ascii_fast}");
    }

    #[test]
    fn spans_from_offsets_count_characters() {
        let s = Span::at_offset("ab\nxé y", 6, 1);
        assert_eq!((s.line, s.col), (2, 3));
    }
}
