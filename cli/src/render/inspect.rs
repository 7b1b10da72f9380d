//! `inspect-plan` text: each model's identity block (seed 000's layout).

use std::fmt::Write;

use streamform::identity::digest::short;
use streamform::identity::entry::KeyedEntry;
use streamform::identity::text::{changelog_text, schema_text, state_fields, window_text};
use streamform::manifest::{ModelSlice, NodeEntry};

use super::title;

pub fn model_block(slice: &ModelSlice) -> String {
    model_block_reusing(slice, None).0
}

/// An earlier block of a model: its slice, its text and where each node's
/// text starts in it (as [`model_block_reusing`] returns them).
pub type Rendered<'a> = (&'a ModelSlice, &'a str, &'a [u32]);

/// [`model_block`], and where each node's text starts in it. A node that is
/// the same entry as in `last` (by pointer) is copied from `last`'s text
/// rather than rendered: `watch` reprints a model whose Source node alone
/// changed (a source's watermark) a thousand times over.
pub fn model_block_reusing(slice: &ModelSlice, last: Option<Rendered<'_>>) -> (String, Vec<u32>) {
    let m = &slice.model;
    let mut s = String::with_capacity(last.map_or(0, |(_, text, _)| text.len() + 64));
    let _ = writeln!(s, "{}", m.name);
    let _ = writeln!(s, "  materialized={} key=[{}]", m.materialized, m.key.join(", "));
    let _ = writeln!(s, "  output={}", m.output);
    let mut starts = Vec::with_capacity(slice.nodes.len());
    for (i, n) in slice.nodes.iter().enumerate() {
        starts.push(s.len() as u32);
        let same = last.filter(|(old, _, _)| old.nodes.get(i).is_some_and(|o| std::sync::Arc::ptr_eq(o, n)));
        match same {
            Some((old, text, at)) => {
                let end = at.get(i + 1).map_or(text.len(), |&e| e as usize);
                debug_assert_eq!(at.len(), old.nodes.len());
                s.push_str(&text[at[i] as usize..end]);
            }
            None => {
                s.push('\n');
                node_block(&mut s, n);
            }
        }
    }
    (s, starts)
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
