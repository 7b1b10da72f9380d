//! Diagnostics for CI: GitHub Actions workflow commands
//! (`check --format github`) and SARIF 2.1.0 for code scanning
//! (`check --format sarif`). Paths are the project's files as seen from the
//! directory the command runs in, which is where CI resolves them.

use std::collections::BTreeMap;

use camino::Utf8Path;
use serde_json::{json, Value};
use streamform::diagnostic::{Code, Diagnostic, Severity, Span};
use streamform::project::CONFIG_FILE;
use streamform::warnings::AllowedWarning;

use super::check::FileText;

/// A project file's path from the current directory (`root` is the project
/// directory as given; an absolute one is made relative when it can be).
pub fn workspace_path(root: &str, path: &str) -> String {
    let joined = Utf8Path::new(root).join(path);
    let cwd = std::env::current_dir().ok().and_then(|d| camino::Utf8PathBuf::from_path_buf(d).ok());
    let rel = match &cwd {
        Some(c) if joined.is_absolute() => joined.strip_prefix(c).map(|p| p.to_path_buf()).unwrap_or(joined.clone()),
        _ => joined.clone(),
    };
    let s = rel.as_str().trim_start_matches("./");
    if s.is_empty() { ".".into() } else { s.to_string() }
}

/// Where a diagnostic's marked text starts and ends: (line, column, end line, end column).
fn region(span: Option<Span>, path: Option<&str>, text: FileText) -> Option<(u32, u32, u32, u32)> {
    let s = span?;
    let (el, ec) = path.and_then(text).map_or((s.line, s.col), |t| s.end(&t));
    Some((s.line, s.col, el, ec))
}

/// The message with its help, as one text.
fn full_message(d: &Diagnostic) -> String {
    match &d.help {
        Some(h) => format!("{}\nhelp: {h}", d.message),
        None => d.message.clone(),
    }
}

/// GitHub's escaping of a workflow command's message and property values.
fn escape(s: &str, property: bool) -> String {
    let mut out = s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

/// One `::error …::`, `::warning …::` or `::notice …::` line per diagnostic.
pub fn github(root: &str, diags: &[Diagnostic], text: FileText) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut props = Vec::new();
        if let Some(p) = &d.path {
            props.push(format!("file={}", escape(&workspace_path(root, p), true)));
        }
        if let Some((l, c, el, ec)) = region(d.span, d.path.as_deref(), text) {
            props.push(format!("line={l},col={c},endLine={el},endColumn={ec}"));
        }
        props.push(format!("title={}", escape(d.code.as_str(), true)));
        out.push_str(&format!("::{kind} {}::{}\n", props.join(","), escape(&full_message(d), false)));
    }
    out
}

fn physical(root: &str, path: &str, region: Option<(u32, u32, u32, u32)>) -> Value {
    let mut loc = json!({ "artifactLocation": { "uri": workspace_path(root, path) } });
    if let Some((l, c, el, ec)) = region {
        loc["region"] = json!({ "startLine": l, "startColumn": c, "endLine": el, "endColumn": ec });
    }
    loc
}

/// The SARIF 2.1.0 log of one run: a rule per code that occurs, a result
/// per diagnostic, and one per allowed warning, marked suppressed with the
/// entry's reason as its justification.
pub fn sarif(root: &str, diags: &[Diagnostic], allowed: &[AllowedWarning], text: FileText) -> Value {
    // One rule per code that occurs, in code order; results point at theirs by index.
    let mut codes: Vec<Code> = diags.iter().chain(allowed.iter().map(|a| &a.diagnostic)).map(|d| d.code).collect();
    codes.sort_by_key(|c| c.as_str());
    codes.dedup();
    let index: BTreeMap<&str, usize> = codes.iter().enumerate().map(|(i, c)| (c.as_str(), i)).collect();
    let rule_docs: Vec<Value> = codes.iter().map(|c| json!({ "id": c.as_str(), "shortDescription": { "text": c.meaning() } })).collect();
    let shown = diags.iter().map(|d| (d, None));
    let set_aside = allowed.iter().map(|a| (&a.diagnostic, Some(a)));
    let results: Vec<Value> = shown
        .chain(set_aside)
        .map(|(d, allowed)| {
            let mut r = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": index[d.code.as_str()],
                "level": match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                },
                "message": { "text": full_message(d) },
            });
            if let Some(p) = &d.path {
                r["locations"] = json!([{ "physicalLocation": physical(root, p, region(d.span, Some(p), text)) }]);
            }
            let related: Vec<Value> = d
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| json!({ "id": i, "physicalLocation": physical(root, &l.path, region(l.span, Some(&l.path), text)), "message": { "text": l.message } }))
                .collect();
            if !related.is_empty() {
                r["relatedLocations"] = Value::Array(related);
            }
            if let Some(a) = allowed {
                let mut s = json!({ "kind": "external", "location": { "physicalLocation": physical(root, CONFIG_FILE, Some((a.entry.span.line, a.entry.span.col, a.entry.span.line, a.entry.span.col + a.entry.span.len))) } });
                if let Some(reason) = &a.entry.reason {
                    s["justification"] = json!(reason);
                }
                r["suppressions"] = json!([s]);
            }
            r
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "streamform", "version": env!("CARGO_PKG_VERSION"), "rules": rule_docs } },
            "results": results,
        }],
    })
}
