//! Fingerprint texts: what a node outputs and what a keyed node stores.

use crate::plan::node::{render_schema, Column, KeyedState};

/// `[name: type, ...]`: a node's schema fingerprint.
pub fn schema_fingerprint(columns: &[Column]) -> String {
    render_schema(columns)
}

/// `aggregate key=[..] accumulators=[..] retention=..[ window=..]`.
pub fn state_fingerprint(state: &KeyedState) -> String {
    let accs: Vec<String> = state.accumulators.iter().map(|c| format!("{}: {}", c.name, c.ty)).collect();
    let mut s = format!("aggregate key=[{}] accumulators=[{}] retention={}", state.keys.join(", "), accs.join(", "), state.retention);
    if let Some(w) = &state.window {
        s.push(' ');
        s.push_str(&window_text(w));
    }
    s
}

/// `window=tumbling(time=ts size=5m align=epoch emit=final)`.
pub fn window_text(w: &crate::plan::node::TumblingWindow) -> String {
    format!("window=tumbling(time={} size={} align=epoch emit=final)", w.time, w.size)
}
