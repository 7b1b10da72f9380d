//! Printing a revision: the text a developer reads, or one JSON event per
//! line for editors.

use std::fmt::Write;
use std::time::Duration;

use serde_json::{json, Value};
use streamform::manifest::ModelDocument;

use crate::render::check::LabelReport;
use crate::files::{ChangeKind, FileChange};
use super::fixtures::TestOutcome;
use super::view::{Delta, ModelStatus, Rendered};

/// One revision, ready to print.
pub struct Revision<'a> {
    /// Empty for the first compile.
    pub changes: &'a [FileChange],
    pub initial: bool,
    /// Print the plan blocks; false for a quiet or large startup, which
    /// says how many it leaves out.
    pub blocks: bool,
    /// From the end of the debounce to the output being ready.
    pub elapsed: Duration,
    pub delta: &'a Delta,
    pub tests: Option<&'a TestOutcome>,
    /// Files that stayed unreadable, with the reason.
    pub notes: &'a [(String, String)],
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn change_text(c: &FileChange) -> String {
    match &c.kind {
        ChangeKind::Renamed { from } => format!("{from} renamed to {}", c.path),
        k => format!("{} {}", c.path, k.as_str()),
    }
}

/// `models/a.sql modified, models/d.sql added` (the first few, then a count).
pub fn what_changed(changes: &[FileChange]) -> String {
    const SHOWN: usize = 4;
    let mut parts: Vec<String> = changes.iter().take(SHOWN).map(change_text).collect();
    if changes.len() > SHOWN {
        parts.truncate(SHOWN - 1);
        parts.push(format!("and {} more files", changes.len() - (SHOWN - 1)));
    }
    parts.join(", ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A revision's text output, into `s`, which the caller keeps from one
/// revision to the next: a reprint of a thousand blocks is megabytes, and
/// fresh memory for it cost the kernel's zeroing of its pages (about 10 ms
/// the first time a source that a thousand models read was edited).
pub fn text_into(r: &Revision, s: &mut String) {
    s.clear();
    let d = r.delta;
    if r.initial {
        let _ = writeln!(s, "--- compiled {}; took {}", plural(d.model_count, "model", "models"), ms(r.elapsed));
    } else {
        let _ = writeln!(s, "\n--- {}; recompiled in {}", what_changed(r.changes), ms(r.elapsed));
    }
    let blocks: Vec<&str> = d.models.iter().filter_map(|m| m.printed.as_ref()).map(|p| &*p.block).collect();
    if !r.blocks && !blocks.is_empty() {
        let _ = writeln!(
            s,
            "{} not shown (`streamform inspect-plan` prints them); each edit prints what it changes",
            plural(blocks.len(), "plan block", "plan blocks")
        );
    } else if !blocks.is_empty() {
        s.reserve(blocks.iter().map(|b| b.len() + 1).sum());
        for b in &blocks {
            s.push_str(b);
            s.push('\n');
        }
    }
    for name in &d.removed {
        let _ = writeln!(s, "model `{name}` removed");
    }
    for m in d.models.iter().filter(|m| m.status == ModelStatus::Failed) {
        let _ = writeln!(s, "model `{}` does not compile", m.name);
    }
    for r in &d.appeared {
        s.push_str(&r.text);
        s.push('\n');
    }
    for r in &d.resolved {
        let _ = writeln!(s, "resolved: {}", r.text.lines().next().unwrap_or(""));
    }
    if let Some(t) = r.tests {
        tests_text(s, t);
    }
    for (path, reason) in r.notes {
        let _ = writeln!(s, "note: {path} cannot be read ({reason}); its last readable contents stay in effect");
    }
    match (&d.digest, d.loaded) {
        (Some(digest), _) => {
            let unchanged = if r.initial || d.digest_changed { "" } else { " (unchanged)" };
            let _ = writeln!(s, "application digest={}{unchanged}", &digest[..12.min(digest.len())]);
        }
        (None, true) => {
            let _ = writeln!(s, "application digest: none ({})", plural(d.errors, "error", "errors"));
        }
        (None, false) => {
            let _ = writeln!(s, "application digest: none (the project does not load)");
        }
    }
}

fn tests_text(s: &mut String, t: &TestOutcome) {
    for run in &t.runs {
        let _ = writeln!(s, "test {} ({}) ... {}", run.path, run.model, if run.passed { "ok" } else { "FAILED" });
        if !run.passed {
            s.push_str(&run.report);
        }
    }
}

fn diagnostic_json(r: &Rendered) -> Value {
    let d = &r.diag;
    json!({
        "severity": d.severity.as_str(),
        "code": d.code,
        "message": d.message,
        "path": d.path,
        "line": d.span.map(|s| s.line),
        "column": d.span.map(|s| s.col),
        "help": d.help,
        "labels": d.labels.iter().map(LabelReport::of).collect::<Vec<_>>(),
        "rendered": r.text,
    })
}

/// One event, one line.
pub fn json_event(r: &Revision) -> String {
    let d = r.delta;
    let changes: Vec<Value> = r
        .changes
        .iter()
        .map(|c| match &c.kind {
            ChangeKind::Renamed { from } => json!({"path": c.path, "change": "renamed", "from": from}),
            k => json!({"path": c.path, "change": k.as_str()}),
        })
        .collect();
    let models: Vec<Value> = d
        .models
        .iter()
        .map(|m| match &m.printed {
            Some(p) => json!({
                "name": m.name,
                "status": m.status.as_str(),
                "block": &*p.block,
                "plan": ModelDocument { manifest_version: 1, model: &p.slice.model, nodes: &p.slice.nodes },
            }),
            None => json!({"name": m.name, "status": m.status.as_str()}),
        })
        .collect();
    let mut ev = json!({
        "event": if r.initial { "compiled" } else { "changed" },
        "changes": changes,
        "elapsed_ms": (r.elapsed.as_secs_f64() * 1e6).round() / 1e3,
        "loaded": d.loaded,
        "models": models,
        "removed_models": d.removed,
        "diagnostics": {
            "appeared": d.appeared.iter().map(diagnostic_json).collect::<Vec<_>>(),
            "resolved": d.resolved.iter().map(diagnostic_json).collect::<Vec<_>>(),
        },
        "errors": d.errors,
        "warnings": d.warnings,
        "application_digest": d.digest,
        "digest_changed": d.digest_changed,
    });
    if let Some(t) = r.tests {
        ev["tests"] = json!(t.runs.iter().map(|r| json!({"path": r.path, "model": r.model, "passed": r.passed, "report": r.report})).collect::<Vec<_>>());
    }
    if !r.notes.is_empty() {
        ev["notes"] = json!(r.notes.iter().map(|(p, why)| json!({"path": p, "unreadable": why})).collect::<Vec<_>>());
    }
    let mut line = serde_json::to_string(&ev).expect("events serialize");
    line.push('\n');
    line
}
