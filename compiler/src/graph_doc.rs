//! The graph document (`graph --json`): sources, models, sinks, the edges
//! between them, plan order and reference cycles, as salsa queries.

use serde::Serialize;

use crate::config::{Connector, SinkConfig, SourceConfig};
use crate::db::{Db, ModelName, Project};
use crate::graph::dependency_graph;
use crate::model::named_reads;
use crate::project::{model_entry, model_names, project_config, sources_config};

pub const GRAPH_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GraphDocument {
    pub graph_version: u32,
    pub project: String,
    /// In name order.
    pub sources: Vec<GraphSource>,
    /// In name order.
    pub models: Vec<GraphModel>,
    /// Grouped by the model they lead to, in model name order; within a
    /// model, its sources and then its models, as the SQL names them.
    pub edges: Vec<GraphEdge>,
    /// Plan order; models on or downstream of a cycle are left out.
    pub order: Vec<String>,
    pub cycles: Vec<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GraphSource {
    pub name: String,
    pub connector: &'static str,
    /// `topic=…` or `path=…`; absent when the source names neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GraphModel {
    pub name: String,
    pub materialized: &'static str,
    pub key: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink: Option<GraphSink>,
    pub reads: GraphReads,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GraphSink {
    pub connector: &'static str,
    /// `topic=…` or `path=…`; absent for Iceberg and when missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct GraphReads {
    pub sources: Vec<String>,
    pub models: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GraphEdge {
    pub from: String,
    pub to: String,
}

impl GraphModel {
    /// `append` or `upsert(k1, k2)`.
    /// `upsert(k1, k2)`, or `upsert` alone for a global aggregate's empty
    /// key, as the original prints it.
    pub fn kind(&self) -> String {
        if self.materialized == "upsert" && !self.key.is_empty() {
            format!("upsert({})", self.key.join(", "))
        } else {
            self.materialized.to_string()
        }
    }
}

fn location(connector: Connector, topic: Option<&str>, path: Option<&str>) -> Option<String> {
    match connector {
        Connector::Kafka => topic.map(|t| format!("topic={t}")),
        Connector::File => path.map(|p| format!("path={p}")),
        Connector::Iceberg => None,
    }
}

fn graph_source(s: &SourceConfig) -> GraphSource {
    GraphSource {
        name: s.name.clone(),
        connector: s.connector.as_str(),
        target: location(s.connector, s.topic.as_deref(), s.path.as_deref()),
    }
}

fn graph_sink(s: &SinkConfig) -> GraphSink {
    GraphSink { connector: s.connector.as_str(), target: location(s.connector, s.topic.as_deref(), s.path.as_deref()) }
}

/// The graph of a loaded project (`None` when it does not load).
#[salsa::tracked(returns(ref))]
pub fn graph_document(db: &dyn Db, project: Project) -> Option<GraphDocument> {
    let config = project_config(db, project).as_ref().ok()?;
    let sources_cfg = sources_config(db, project).as_ref().ok()?;
    let mut sources: Vec<GraphSource> = sources_cfg.iter().map(graph_source).collect();
    sources.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let mut models = Vec::new();
    let mut edges = Vec::new();
    for n in model_names(db, project) {
        let name = ModelName::new(db, project, n.clone());
        // No location is shown: the entry as its model reads it.
        let cfg = model_entry(db, name);
        let r = named_reads(db, name);
        let reads = GraphReads { sources: r.sources.clone(), models: r.models.clone() };
        for s in &reads.sources {
            edges.push(GraphEdge { from: format!("source:{s}"), to: format!("model:{n}") });
        }
        for m in &reads.models {
            edges.push(GraphEdge { from: format!("model:{m}"), to: format!("model:{n}") });
        }
        models.push(GraphModel {
            name: n.clone(),
            materialized: cfg.materialized.as_str(),
            key: cfg.key.clone().unwrap_or_default(),
            sink: cfg.sink.as_ref().map(graph_sink),
            reads,
        });
    }
    let dep = dependency_graph(db, project);
    Some(GraphDocument {
        graph_version: GRAPH_VERSION,
        project: config.name.clone(),
        sources,
        models,
        edges,
        order: dep.order.clone(),
        cycles: dep.cycles.clone(),
    })
}
