//! A code lens on the first line of each model: its output changelog and
//! a summary of its state (keyed nodes and their fingerprint digests).

use lsp_types::{CodeLens, CodeLensParams, Command, Range};
use streamform::manifest::model_identity;
use streamform::ModelName;

use super::position::relative;
use super::state::World;
use super::syntax::model_of;

pub fn lenses(s: &World, p: &CodeLensParams) -> Option<Vec<CodeLens>> {
    let path = relative(&s.root, &p.text_document.uri)?;
    let model = model_of(&path)?;
    let title = match model_identity(&s.db, s.files.project, ModelName::new(&s.db, model.clone())) {
        Some(slice) => state_summary(slice),
        None => "does not compile: see the diagnostics".to_string(),
    };
    Some(vec![CodeLens { range: Range::default(), command: Some(Command { title, command: String::new(), arguments: None }), data: None }])
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
