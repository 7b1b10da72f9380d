//! rustc-style rendering of diagnostics.

use std::fmt::Write;

use streamform::diagnostic::Diagnostic;

/// ```text
/// error[E0509]: model `m` uses the column `nope`, which does not exist here
///   --> models/m.sql:1:8
///    |
///  1 | SELECT nope FROM source('orders')
///    |        ^^^^
///   help: the columns are amount, customer_id
/// ```
pub fn render(d: &Diagnostic, file_text: &dyn Fn(&str) -> Option<String>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}[{}]: {}", d.severity.as_str(), d.code, d.message);
    if let Some(path) = &d.path {
        match d.span {
            Some(span) => {
                let _ = writeln!(s, "  --> {path}:{}:{}", span.line, span.col);
                if let Some(line) = file_text(path).and_then(|t| t.lines().nth(span.line as usize - 1).map(str::to_string)) {
                    let num = span.line.to_string();
                    let pad = " ".repeat(num.len());
                    let shown = line.replace('\t', "    ");
                    let before: String = line.chars().take(span.col.saturating_sub(1) as usize).collect();
                    let indent = before.replace('\t', "    ").chars().count();
                    let rest: String = line.chars().skip(span.col.saturating_sub(1) as usize).collect();
                    let marked_bytes = (span.len as usize).max(1);
                    let width = rest.char_indices().take_while(|(i, _)| *i < marked_bytes).count().max(1);
                    let _ = writeln!(s, " {pad} |");
                    let _ = writeln!(s, " {num} | {shown}");
                    let _ = writeln!(s, " {pad} | {}{}", " ".repeat(indent), "^".repeat(width));
                }
            }
            None => {
                let _ = writeln!(s, "  --> {path}");
            }
        }
    }
    if let Some(help) = &d.help {
        let _ = writeln!(s, "  help: {help}");
    }
    s
}
