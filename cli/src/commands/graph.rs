//! `graph`: sources, models, sinks and their edges, as text, DOT or JSON.

use streamform::graph_doc::graph_document;

use super::report_load_errors;
use crate::load::load;
use crate::out::{eprint, print};
use crate::render::graph::{graph_dot, graph_text};
use crate::render::json::to_pretty_json;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum GraphFormat {
    Text,
    Dot,
}

pub fn run(project: &str, format: GraphFormat, json: bool) -> u8 {
    let loaded = load(project);
    if report_load_errors(&loaded) {
        return 2;
    }
    let Some(doc) = graph_document(&loaded.db, loaded.project) else {
        // Unreachable once the project loads; report it like a load error.
        eprint(&format!("error: could not load project at {}\n", loaded.root));
        return 2;
    };
    if json {
        // The document is printed even with a cycle; the exit code says so.
        print(&to_pretty_json(doc));
        return if doc.cycles.is_empty() { 0 } else { 1 };
    }
    if let Some(cycle) = doc.cycles.first() {
        eprint(&format!("error: models form a reference cycle: {}; run `streamform check`\n", cycle.join(" \u{2192} ")));
        return 2;
    }
    print(&match format {
        GraphFormat::Text => graph_text(doc),
        GraphFormat::Dot => graph_dot(doc),
    });
    0
}
