//! rustc-style rendering of diagnostics.

use std::fmt::Write;

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
    let mut s = String::new();
    let _ = writeln!(s, "{}[{}]: {}", d.severity.as_str(), d.code, d.message);
    // One gutter for every location shown, as wide as the largest line number.
    let widest = d.span.iter().chain(d.labels.iter().filter_map(|l| l.span.as_ref())).map(|sp| sp.line.to_string().len()).max().unwrap_or(1);
    let gutter = " ".repeat(widest);
    if let Some(path) = &d.path {
        match d.span {
            Some(span) => {
                let _ = writeln!(s, "  --> {path}:{}:{}", span.line, span.col);
                snippet(&mut s, &gutter, file_text(path).as_deref(), span, '^', "", d.secret);
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
                snippet(&mut s, &gutter, file_text(&label.path).as_deref(), span, '-', &label.message, false);
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

/// The marked source line under a `-->` or `:::` line: nothing when the
/// file or the line is not there.
fn snippet(s: &mut String, gutter: &str, text: Option<&str>, span: Span, mark: char, message: &str, secret: bool) {
    let Some(line) = text.and_then(|t| t.lines().nth(span.line as usize - 1)) else { return };
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
    let shown = line.replace('\t', "    ");
    let before: String = line.chars().take(span.col.saturating_sub(1) as usize).collect();
    let indent = before.replace('\t', "    ").chars().count();
    let rest: String = line.chars().skip(span.col.saturating_sub(1) as usize).collect();
    let marked_bytes = (span.len as usize).max(1);
    let width = rest.char_indices().take_while(|(i, _)| *i < marked_bytes).count().max(1);
    let marks = mark.to_string().repeat(width);
    let after = if message.is_empty() { String::new() } else { format!(" {message}") };
    let _ = writeln!(s, " {gutter} |");
    let _ = writeln!(s, " {num} | {shown}");
    let _ = writeln!(s, " {gutter} | {}{marks}{after}", " ".repeat(indent));
}
