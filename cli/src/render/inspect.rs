//! `inspect-plan` text: each model's identity block (seed 000's layout).

use std::fmt::Write;

use streamform::identity::digest::short;
use streamform::identity::entry::KeyedEntry;
use streamform::identity::text::{changelog_text, schema_text, state_fields, window_text};
use streamform::manifest::{ModelSlice, NodeEntry};

use super::title;

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

fn node_block(s: &mut String, n: &NodeEntry) {
    let _ = writeln!(s, "  {}  {}", n.id, title(&n.operator));
    let _ = writeln!(s, "    definition={}", n.definition);
    // A node of several inputs names them (one input is the node above it).
    if n.inputs.len() > 1 {
        let _ = writeln!(s, "    inputs={}", n.inputs.join(", "));
    }
    if let Some(t) = &n.time {
        let _ = writeln!(s, "    time={t}");
    }
    let _ = writeln!(s, "    schema={}  digest={}", schema_text(&n.schema), short(&n.schema_digest));
    let _ = writeln!(s, "    boundedness={} changelog={}", n.boundedness, changelog_text(&n.changelog.mode, &n.changelog.key));
    match KeyedEntry::of(&n.state) {
        Some(state) => {
            let _ = writeln!(s, "    state={} {}", n.state.kind, state_fields(&state));
            if let Some(w) = n.state.window.as_deref() {
                let _ = writeln!(s, "    window={}", window_text(w));
            }
            let _ = writeln!(s, "    state digest={}", short(n.state.digest.as_deref().unwrap_or("")));
        }
        None => {
            let _ = writeln!(s, "    state={}", n.state.kind);
        }
    }
}
