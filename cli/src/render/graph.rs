//! `graph` text (a forest rooted at sources) and DOT.

use std::collections::{BTreeMap, BTreeSet};

use streamform::graph_doc::{GraphDocument, GraphModel};

/// Where a model hangs in the forest: under every source and model it reads
/// that exists; a model that reads none of those is a root, listed after
/// the sources.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Parent<'a> {
    Source(&'a str),
    Model(&'a str),
    Root,
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
    if out.is_empty() {
        out.push(Parent::Root);
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
    let mut rows: Vec<Row> = Vec::new();
    // The models on the path being drawn: a cycle is never followed twice.
    let mut path: BTreeSet<&str> = BTreeSet::new();
    for s in &doc.sources {
        rows.push(Row { label: s.name.clone(), kind: "source".into(), target: with_connector(s.connector, s.target.as_deref()) });
        let kids = children.get(&Parent::Source(&s.name)).map(Vec::as_slice).unwrap_or(&[]);
        walk(&children, kids, "", &mut rows, &mut path);
    }
    for m in children.get(&Parent::Root).map(Vec::as_slice).unwrap_or(&[]) {
        rows.push(model_row(m, String::new()));
        path.insert(&m.name);
        let kids = children.get(&Parent::Model(&m.name)).map(Vec::as_slice).unwrap_or(&[]);
        walk(&children, kids, "", &mut rows, &mut path);
        path.remove(m.name.as_str());
    }
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

fn walk<'a>(
    children: &BTreeMap<Parent<'a>, Vec<&'a GraphModel>>,
    kids: &[&'a GraphModel],
    indent: &str,
    rows: &mut Vec<Row>,
    path: &mut BTreeSet<&'a str>,
) {
    for (i, m) in kids.iter().enumerate() {
        let last = i + 1 == kids.len();
        let branch = if last { "\u{2514}\u{2500} " } else { "\u{251c}\u{2500} " };
        rows.push(model_row(m, format!("{indent}{branch}")));
        let next = format!("{indent}{}", if last { "   " } else { "\u{2502}  " });
        if path.insert(&m.name) {
            let grand = children.get(&Parent::Model(&m.name)).map(Vec::as_slice).unwrap_or(&[]);
            walk(children, grand, &next, rows, path);
            path.remove(m.name.as_str());
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
