//! `graph` text (a forest rooted at sources) and DOT.

use std::collections::{BTreeMap, BTreeSet};

use streamform::graph_doc::{GraphDocument, GraphModel};

/// Where a model hangs in the forest: under every source and model it
/// reads that exists.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Parent<'a> {
    Source(&'a str),
    Model(&'a str),
}

fn parents<'a>(doc: &'a GraphDocument, m: &'a GraphModel) -> Vec<Parent<'a>> {
    let mut out = Vec::new();
    for s in &m.reads.sources {
        if doc.sources.iter().any(|x| &x.name == s) {
            out.push(Parent::Source(s));
        }
    }
    for r in &m.reads.models {
        if doc.models.iter().any(|x| &x.name == r) {
            out.push(Parent::Model(r));
        }
    }
    out
}

struct Row {
    label: String,
    kind: String,
    target: String,
}

fn with_connector(connector: &str, target: Option<&str>) -> String {
    match target {
        Some(t) => format!("{connector} {t}"),
        None => connector.to_string(),
    }
}

/// The text forest, with the project name and a blank line above it.
pub fn graph_text(doc: &GraphDocument) -> String {
    let mut children: BTreeMap<Parent, Vec<&GraphModel>> = BTreeMap::new();
    for m in &doc.models {
        for p in parents(doc, m) {
            children.entry(p).or_default().push(m);
        }
    }
    let mut forest = Forest { children: &children, rows: Vec::new(), path: BTreeSet::new(), printed: BTreeSet::new() };
    for s in &doc.sources {
        forest.rows.push(Row { label: s.name.clone(), kind: "source".into(), target: with_connector(s.connector, s.target.as_deref()) });
        forest.walk(Parent::Source(&s.name), "");
    }
    // Then, in name order, every model not drawn yet is a root with its
    // subtree (a model drawn before may be drawn again there), as the
    // original lays out models that no declared source reaches.
    for m in &doc.models {
        if !forest.printed.contains(m.name.as_str()) {
            forest.draw(m, String::new(), "");
        }
    }
    let rows = forest.rows;
    let lw = rows.iter().map(|r| r.label.chars().count()).max().unwrap_or(0) + 3;
    let kw = rows.iter().map(|r| r.kind.chars().count()).max().unwrap_or(0) + 3;
    let mut out = format!("{}\n\n", doc.project);
    for r in rows {
        let line = format!("{}{}{}", pad(&r.label, lw), pad(&r.kind, kw), r.target);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}

fn model_row(m: &GraphModel, label: String) -> Row {
    let target = m.sink.as_ref().map(|s| format!("\u{2192} {}", with_connector(s.connector, s.target.as_deref()))).unwrap_or_default();
    Row { label: format!("{label}{}", m.name), kind: m.kind(), target }
}

struct Forest<'a, 'c> {
    children: &'c BTreeMap<Parent<'a>, Vec<&'a GraphModel>>,
    rows: Vec<Row>,
    /// The models on the path being drawn: a cycle is never followed twice.
    path: BTreeSet<&'a str>,
    printed: BTreeSet<&'a str>,
}

impl<'a> Forest<'a, '_> {
    /// Draws `m` with `label` before its name, then its readers below it.
    fn draw(&mut self, m: &'a GraphModel, label: String, indent: &str) {
        self.rows.push(model_row(m, label));
        self.printed.insert(&m.name);
        if self.path.insert(&m.name) {
            self.walk(Parent::Model(&m.name), indent);
            self.path.remove(m.name.as_str());
        }
    }

    /// Draws the readers of `parent`, each on a branch.
    fn walk(&mut self, parent: Parent<'a>, indent: &str) {
        let kids = self.children.get(&parent).cloned().unwrap_or_default();
        for (i, m) in kids.iter().enumerate() {
            let last = i + 1 == kids.len();
            let branch = if last { "\u{2514}\u{2500} " } else { "\u{251c}\u{2500} " };
            let next = format!("{indent}{}", if last { "   " } else { "\u{2502}  " });
            self.draw(m, format!("{indent}{branch}"), &next);
        }
    }
}

fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Graphviz DOT: sources and sinks as cylinders, models as boxes.
pub fn graph_dot(doc: &GraphDocument) -> String {
    let mut out = format!("digraph {} {{\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n", q(&doc.project));
    for s in &doc.sources {
        let label = format!("{}\n{}", s.name, with_connector(s.connector, s.target.as_deref()));
        out.push_str(&format!("  {} [shape=cylinder, label={}];\n", q(&format!("source:{}", s.name)), q(&label).replace('\n', "\\n")));
    }
    for m in &doc.models {
        let label = format!("{}\n{}", m.name, m.kind());
        out.push_str(&format!("  {} [label={}];\n", q(&m.name), q(&label).replace('\n', "\\n")));
        if let Some(s) = &m.sink {
            let sink = format!("sink:{}", m.name);
            out.push_str(&format!("  {} [shape=cylinder, label={}];\n", q(&sink), q(&with_connector(s.connector, s.target.as_deref()))));
            out.push_str(&format!("  {} -> {};\n", q(&m.name), q(&sink)));
        }
    }
    for e in &doc.edges {
        let from = e.from.strip_prefix("model:").unwrap_or(&e.from);
        let to = e.to.strip_prefix("model:").unwrap_or(&e.to);
        out.push_str(&format!("  {} -> {};\n", q(from), q(to)));
    }
    out.push_str("}\n");
    out
}
