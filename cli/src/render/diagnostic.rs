//! rustc-style rendering of diagnostics.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

use streamform::diagnostic::{Diagnostic, Span};

/// ```text
/// error[E0722]: model `w` declares a window, but source `orders` upstream of it keeps late events …
///   --> streamform.yml:4:13
///    |
///  4 |     window: {type: tumbling, size: 5m}
///    |             ^^^^^^^^^^^^^^^^^^^^^^^^^^
///    |
///   ::: sources.yml:6:18
///    |
///  6 |     late_events: keep
///    |                  ---- `orders` keeps late events here
///   help: set `late_events: drop` on `orders`, or remove the window from `w`
/// ```
///
/// The primary location is marked with `^`, each secondary one (a label)
/// with `-` and what it says.
pub fn render(d: &Diagnostic, file_text: &dyn Fn(&str) -> Option<String>) -> String {
    render_in(d, &SourceLines::new(file_text))
}

/// Project files split into lines, each file read and indexed once: a
/// report of thousands of diagnostics in a large `streamform.yml` looks
/// each line up instead of copying and scanning the file every time.
pub struct SourceLines<'a> {
    file_text: &'a dyn Fn(&str) -> Option<String>,
    files: RefCell<HashMap<String, Option<Rc<Lines>>>>,
}

struct Lines {
    text: String,
    /// Where each line starts, as `str::lines` splits them.
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: String) -> Lines {
        let mut starts: Vec<usize> = if text.is_empty() { Vec::new() } else { vec![0] };
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1).filter(|&i| i < text.len()));
        Lines { text, starts }
    }

    /// Line `n` (from 1), as `text.lines().nth(n - 1)` gives it.
    fn line(&self, n: u32) -> Option<&str> {
        let i = (n as usize).checked_sub(1)?;
        let start = *self.starts.get(i)?;
        let last_end = self.text.len() - usize::from(self.text.ends_with('\n'));
        let end = self.starts.get(i + 1).map_or(last_end, |&next| next - 1);
        let line = &self.text[start..end];
        // `lines` drops the `\r` of a `\r\n`, not a lone `\r` at the very end.
        let ends_in_newline = end < self.text.len();
        Some(if ends_in_newline { line.strip_suffix('\r').unwrap_or(line) } else { line })
    }
}

impl<'a> SourceLines<'a> {
    pub fn new(file_text: &'a dyn Fn(&str) -> Option<String>) -> SourceLines<'a> {
        SourceLines { file_text, files: RefCell::new(HashMap::new()) }
    }

    fn file(&self, path: &str) -> Option<Rc<Lines>> {
        let mut files = self.files.borrow_mut();
        files.entry(path.to_string()).or_insert_with(|| (self.file_text)(path).map(|t| Rc::new(Lines::new(t)))).clone()
    }
}

/// The source lines `render_in` quotes for `d`, one per location in the
/// order it shows them: the rendered text depends on these and on `d`
/// alone, so a text rendered before is still right where they are the same.
pub fn quoted(d: &Diagnostic, sources: &SourceLines) -> Vec<Option<String>> {
    locations(d).map(|(path, line)| sources.file(path).and_then(|f| f.line(line).map(str::to_string))).collect()
}

/// Whether `d`'s quoted lines in `sources` are `before` (see [`quoted`]).
pub fn quotes_same(d: &Diagnostic, sources: &SourceLines, before: &[Option<String>]) -> bool {
    let mut before = before.iter();
    let same = locations(d).all(|(path, line)| before.next().is_some_and(|old| sources.file(path).as_deref().and_then(|f| f.line(line)) == old.as_deref()));
    same && before.next().is_none()
}

/// Each location `render_in` quotes a line of: the primary one, then each
/// label's.
fn locations(d: &Diagnostic) -> impl Iterator<Item = (&str, u32)> {
    let primary = d.path.as_deref().zip(d.span).map(|(p, sp)| (p, sp.line));
    primary.into_iter().chain(d.labels.iter().filter_map(|l| l.span.map(|sp| (l.path.as_str(), sp.line))))
}

/// [`render`], with the files' lines from `sources`.
pub fn render_in(d: &Diagnostic, sources: &SourceLines) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}[{}]: {}", d.severity.as_str(), d.code, d.message);
    // One gutter for every location shown, as wide as the largest line number.
    let widest = d.span.iter().chain(d.labels.iter().filter_map(|l| l.span.as_ref())).map(|sp| sp.line.to_string().len()).max().unwrap_or(1);
    let gutter = " ".repeat(widest);
    if let Some(path) = &d.path {
        match d.span {
            Some(span) => {
                let _ = writeln!(s, "  --> {path}:{}:{}", span.line, span.col);
                snippet(&mut s, &gutter, sources.file(path).as_deref(), span, '^', "", d.secret);
            }
            None => {
                let _ = writeln!(s, "  --> {path}");
            }
        }
    }
    for label in &d.labels {
        let _ = writeln!(s, " {gutter} |");
        match label.span {
            Some(span) => {
                let _ = writeln!(s, "  ::: {}:{}:{}", label.path, span.line, span.col);
                snippet(&mut s, &gutter, sources.file(&label.path).as_deref(), span, '-', &label.message, false);
            }
            None => {
                let _ = writeln!(s, "  ::: {}", label.path);
                let _ = writeln!(s, " {gutter} = {}", label.message);
            }
        }
    }
    if let Some(help) = &d.help {
        let _ = writeln!(s, "  help: {help}");
    }
    s
}

/// Lines longer than this many characters are shown as a window of
/// `WINDOW` characters, starting `WINDOW_BEFORE` before the span.
const LONG_LINE: usize = 240;
const WINDOW: usize = 160;
const WINDOW_BEFORE: usize = 60;

/// The marked source line under a `-->` or `:::` line: nothing when the
/// file or the line is not there.
fn snippet(s: &mut String, gutter: &str, text: Option<&Lines>, span: Span, mark: char, message: &str, secret: bool) {
    let Some(line) = text.and_then(|t| t.line(span.line)) else { return };
    let num = format!("{:>width$}", span.line, width = gutter.len());
    let masked;
    let line = if secret {
        // Every character the span covers becomes `*`, so the columns stay.
        let start = line.char_indices().nth(span.col.saturating_sub(1) as usize).map_or(line.len(), |(i, _)| i);
        let end = (start + span.len as usize).min(line.len());
        let end = (end..=line.len()).find(|&i| line.is_char_boundary(i)).unwrap_or(line.len());
        masked = format!("{}{}{}", &line[..start], "*".repeat(line[start..end].chars().count()), &line[end..]);
        masked.as_str()
    } else {
        line
    };
    let col = span.col.saturating_sub(1) as usize;
    let rest: String = line.chars().skip(col).collect();
    let marked_bytes = (span.len as usize).max(1);
    let mut width = rest.char_indices().take_while(|(i, _)| *i < marked_bytes).count().max(1);
    // A line too long to read (a minified file, a 3 MB line) is shown as a
    // window around the span, each cut marked with `…`.
    let chars = line.chars().count();
    let (from, to) = if chars <= LONG_LINE { (0, chars) } else {
        let from = col.saturating_sub(WINDOW_BEFORE).min(chars.saturating_sub(WINDOW));
        (from, (from + WINDOW).min(chars))
    };
    width = width.min(to.saturating_sub(col).max(1));
    let window: String = line.chars().skip(from).take(to - from).collect();
    let cut_before = if from > 0 { "…" } else { "" };
    let cut_after = if to < chars { "…" } else { "" };
    let shown = format!("{cut_before}{}{cut_after}", window.replace('\t', "    "));
    let before: String = line.chars().skip(from).take(col.saturating_sub(from)).collect();
    let indent = cut_before.chars().count() + before.replace('\t', "    ").chars().count();
    let marks = mark.to_string().repeat(width);
    let after = if message.is_empty() { String::new() } else { format!(" {message}") };
    let _ = writeln!(s, " {gutter} |");
    let _ = writeln!(s, " {num} | {shown}");
    let _ = writeln!(s, " {gutter} | {}{marks}{after}", " ".repeat(indent));
}

#[cfg(test)]
mod line_tests {
    use super::Lines;

    #[test]
    fn lines_split_as_str_lines_does() {
        for text in ["", "a", "a\n", "a\n\n", "a\r\nb\r\n", "a\n\nb", "a\rb\r", "\n", "x\r", "é\nß\r\n\n"] {
            let index = Lines::new(text.to_string());
            let want: Vec<&str> = text.lines().collect();
            let got: Vec<&str> = (1..=want.len() as u32 + 1).map_while(|n| index.line(n)).collect();
            assert_eq!(got, want, "{text:?}");
            assert_eq!(index.line(want.len() as u32 + 1), None, "{text:?}");
            assert_eq!(index.line(0), None);
        }
    }
}
