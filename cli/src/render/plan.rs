//! `plan` text: the header, one block per model, notices and the verdict.

use std::fmt::Write;

use streamform::identity::digest::short;
use streamform::upgrade::{Change, Classification, ModelDiff, PlanDiff};

use super::title;

/// The three header lines' variable parts.
pub struct Header<'a> {
    pub project: &'a str,
    /// `../v1/plan.json`, or ``target `dev` ``.
    pub against: &'a str,
    /// What runs, after `running: `.
    pub running: &'a str,
    pub desired_digest: &'a str,
    /// The deploy plan follows (the target was observed), so the note
    /// that sends the reader to `plan --out` is not printed.
    pub decided_here: bool,
}

pub const FLINK_NOTE: &str =
    "note: on flink, a change keeps its state only when every change is a kind proven to carry it; `streamform plan --out <file>` says whether this one is an upgrade or a rebuild";

fn model_block(s: &mut String, m: &ModelDiff) {
    match m.change {
        None => {
            let _ = writeln!(s, "{}  {}", m.name, m.verdict.as_str());
            return;
        }
        Some(Change::Added) if m.nodes.is_empty() => {
            // Nothing runs yet: the first deploy.
            let _ = writeln!(s, "{}  added  {}", m.name, m.verdict.as_str());
            return;
        }
        Some(change) => {
            let _ = writeln!(s, "{}  {}", m.name, change.as_str());
        }
    }
    for n in &m.nodes {
        let _ = writeln!(s, "  {}  {}  {}", n.id, title(&n.operator), n.change.as_str());
        for f in &n.fields {
            if f.field == "state digest" {
                let _ = writeln!(s, "    {}: {} \u{2192} {}", f.field, short(&f.old), short(&f.new));
            } else {
                let _ = writeln!(s, "    {}: {} \u{2192} {}", f.field, f.old, f.new);
            }
        }
        let _ = writeln!(s, "    {}: {}", n.classification.as_str(), n.reason);
    }
    let _ = writeln!(s, "  {}: {}", m.verdict.as_str(), m.verdict.summary());
}

pub fn verdict_line(d: &PlanDiff) -> String {
    if d.verdict == Classification::Safe {
        return "verdict: SAFE".into();
    }
    let counts: Vec<String> =
        d.counts().iter().map(|(c, n)| format!("{n} model{} {}", if *n == 1 { "" } else { "s" }, c.count_label())).collect();
    format!("verdict: {} ({})", d.verdict.as_str(), counts.join(", "))
}

pub fn text(h: &Header, d: &PlanDiff) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "plan: {} against {}", h.project, h.against);
    let _ = writeln!(s, "  running: {}", h.running);
    let _ = writeln!(s, "  desired: application digest {}", short(h.desired_digest));
    s.push('\n');
    for m in &d.models {
        model_block(&mut s, m);
        s.push('\n');
    }
    if !d.notices.is_empty() {
        for n in &d.notices {
            let _ = writeln!(s, "{}: {}", n.kind.as_str(), n.message);
        }
        s.push('\n');
    }
    let _ = writeln!(s, "{}", verdict_line(d));
    if d.verdict != Classification::Safe && !h.decided_here {
        let _ = writeln!(s, "{FLINK_NOTE}");
    }
    s
}
