//! `inspect-plan` text: each model's identity block (seed 000's layout).

use std::fmt::Write;

use streamform::identity::digest::short;
use streamform::manifest::{ModelSlice, NodeEntry};

pub fn model_block(slice: &ModelSlice) -> String {
    let m = &slice.model;
    let mut s = String::new();
    let _ = writeln!(s, "{}", m.name);
    let _ = writeln!(s, "  materialized={} key=[{}]", m.materialized, m.key.join(", "));
    let _ = writeln!(s, "  output={}", m.output);
    for n in &slice.nodes {
        s.push('\n');
        node_block(&mut s, n);
    }
    s
}

fn title(op: &str) -> String {
    let mut c = op.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

pub fn schema_text(n: &NodeEntry) -> String {
    let cols: Vec<String> = n.schema.iter().map(|c| format!("{}: {}", c.name, c.ty)).collect();
    format!("[{}]", cols.join(", "))
}

pub fn changelog_text(n: &NodeEntry) -> String {
    match (n.changelog.mode.as_str(), n.changelog.key.is_empty()) {
        ("upsert", false) => format!("upsert({})", n.changelog.key.join(", ")),
        (mode, _) => mode.to_string(),
    }
}

/// `key=[..] accumulators=[..] retention=..` (the fingerprint sans kind and window).
pub fn keyed_state_text(n: &NodeEntry) -> Option<String> {
    let st = &n.state;
    let accs: Vec<String> = st.accumulators.as_ref()?.iter().map(|c| format!("{}: {}", c.name, c.ty)).collect();
    Some(format!("key=[{}] accumulators=[{}] retention={}", st.keys.as_ref()?.join(", "), accs.join(", "), st.retention.as_deref()?))
}

pub fn window_text(n: &NodeEntry) -> Option<String> {
    let w = n.state.window.as_ref()?;
    Some(format!("window={}(time={} size={} align={} emit={})", w.kind, w.time, w.size, w.alignment, w.emission))
}

fn node_block(s: &mut String, n: &NodeEntry) {
    let _ = writeln!(s, "  {}  {}", n.id, title(&n.operator));
    let _ = writeln!(s, "    definition={}", n.definition);
    if let Some(t) = &n.time {
        let _ = writeln!(s, "    time={t}");
    }
    let _ = writeln!(s, "    schema={}  digest={}", schema_text(n), short(&n.schema_digest));
    let _ = writeln!(s, "    boundedness={} changelog={}", n.boundedness, changelog_text(n));
    match keyed_state_text(n) {
        Some(state) => {
            let _ = writeln!(s, "    state={} {state}", n.state.kind);
            if let Some(w) = window_text(n) {
                let _ = writeln!(s, "    {w}");
            }
            let _ = writeln!(s, "    state digest={}", short(n.state.digest.as_deref().unwrap_or("")));
        }
        None => {
            let _ = writeln!(s, "    state={}", n.state.kind);
        }
    }
}
