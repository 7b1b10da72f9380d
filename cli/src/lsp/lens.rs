//! Code lenses on the first line of each model: its output changelog and a
//! summary of its state (keyed nodes and their fingerprint digests), and,
//! when a running plan is set to compare with, the model's upgrade verdict
//! as `plan` computes it, updated as you type.

use lsp_types::{CodeLens, CodeLensParams, Command, Range};
use streamform::manifest::{manifest, model_identity};
use streamform::project::project_config;
use streamform::upgrade::{diff, hints_of, Classification};
use streamform::ModelName;

use super::position::relative;
use super::state::World;
use super::syntax::model_of;

pub fn lenses(s: &World, p: &CodeLensParams) -> Option<Vec<CodeLens>> {
    let path = relative(&s.root, &p.text_document.uri)?;
    let model = model_of(&path)?;
    let title = match model_identity(&s.db, ModelName::new(&s.db, s.files.project, model.clone())) {
        Some(id) => state_summary(&id.slice),
        None => "does not compile: see the diagnostics".to_string(),
    };
    let lens = |title: String| CodeLens { range: Range::default(), command: Some(Command { title, command: String::new(), arguments: None }), data: None };
    let mut out = vec![lens(title)];
    out.extend(verdict(s, &model).map(lens));
    Some(out)
}

/// The model's upgrade verdict against the running plan, as `plan`
/// computes it: `SAFE`, or `STATE INCOMPATIBLE: <the first reason>`.
fn verdict(s: &World, model: &str) -> Option<String> {
    let running = match s.running()? {
        Ok(r) => r,
        Err(e) => return Some(format!("plan: cannot compare, {e}")),
    };
    let (Ok(desired), Ok(config)) = (manifest(&s.db, s.files.project), project_config(&s.db, s.files.project)) else {
        return Some("plan: no verdict while the project has errors".to_string());
    };
    let d = diff(Some(running.manifest()), &desired.to_manifest(), &hints_of(config));
    let m = d.models.iter().find(|m| m.name == model)?;
    let reason = m.nodes.iter().filter(|n| n.classification == m.verdict).map(|n| n.reason.as_str()).find(|r| !r.is_empty());
    Some(match reason {
        Some(r) if m.verdict != Classification::Safe => format!("plan: {}: {r}", m.verdict.as_str()),
        _ => format!("plan: {}", m.verdict.as_str()),
    })
}

/// `upsert(customer_id) · 1 keyed node: aggregate 3f2a9c1e` style text.
fn state_summary(slice: &streamform::manifest::ModelSlice) -> String {
    let out = slice.nodes.last();
    let mode = out.map(|n| if n.changelog.key.is_empty() { n.changelog.mode.clone() } else { format!("{}({})", n.changelog.mode, n.changelog.key.join(", ")) }).unwrap_or_default();
    let keyed: Vec<String> = slice
        .nodes
        .iter()
        .filter(|n| n.state.kind != "stateless")
        .map(|n| format!("{} {}", n.operator, n.state.digest.as_deref().map_or("", |d| &d[..d.len().min(8)])))
        .collect();
    match keyed.len() {
        0 => format!("{mode} · stateless"),
        1 => format!("{mode} · 1 keyed node: {}", keyed[0]),
        n => format!("{mode} · {n} keyed nodes: {}", keyed.join(", ")),
    }
}
