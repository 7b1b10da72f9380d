//! The plan manifest: every node's identity for the whole application, and
//! the application digest over it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::db::{Db, ModelName, Project};
use crate::diagnostic::Diagnostic;
use crate::graph::dependency_graph;
use crate::identity::digest::sha256_hex;
use crate::identity::fingerprint::{schema_fingerprint, state_fingerprint};
use crate::model::{lower_model, model_plan};
use crate::plan::node::{ModelPlan, PlanNode};

pub const MANIFEST_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub manifest_version: u32,
    pub application_digest: String,
    pub models: Vec<ModelEntry>,
    pub nodes: Vec<NodeEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    pub name: String,
    pub materialized: String,
    pub key: Vec<String>,
    pub output: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnEntry {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangelogEntry {
    pub mode: String,
    pub key: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowEntry {
    #[serde(rename = "type")]
    pub kind: String,
    pub time: String,
    pub size: String,
    pub alignment: String,
    pub emission: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateEntry {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub keys: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub accumulators: Option<Vec<ColumnEntry>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retention: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub window: Option<WindowEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeEntry {
    pub id: String,
    pub model: String,
    pub operator: String,
    pub inputs: Vec<String>,
    pub definition: String,
    pub schema: Vec<ColumnEntry>,
    pub schema_digest: String,
    pub boundedness: String,
    pub changelog: ChangelogEntry,
    pub state: StateEntry,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub time: Option<String>,
}

/// One model's part of the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelSlice {
    pub model: ModelEntry,
    pub nodes: Vec<NodeEntry>,
}

/// The per-model document of `inspect-plan --json MODEL` / `explain --json`.
#[derive(Serialize)]
pub struct ModelDocument<'a> {
    pub manifest_version: u32,
    pub model: &'a ModelEntry,
    pub nodes: &'a [NodeEntry],
}

pub fn node_entry(model: &str, node: &PlanNode) -> NodeEntry {
    let schema_text = schema_fingerprint(&node.schema);
    NodeEntry {
        id: node.id(model),
        model: model.to_string(),
        operator: node.operator.as_str().to_string(),
        inputs: node.inputs.clone(),
        definition: node.definition.clone(),
        schema: node.schema.iter().map(|c| ColumnEntry { name: c.name.clone(), ty: c.ty.to_string() }).collect(),
        schema_digest: sha256_hex(&schema_text),
        boundedness: if node.bounded { "bounded" } else { "unbounded" }.to_string(),
        changelog: ChangelogEntry { mode: node.changelog.mode().to_string(), key: node.changelog.key().to_vec() },
        state: match &node.state {
            None => StateEntry { kind: "stateless".into(), keys: None, accumulators: None, retention: None, digest: None, window: None },
            Some(st) => StateEntry {
                kind: "keyed".into(),
                keys: Some(st.keys.clone()),
                accumulators: Some(st.accumulators.iter().map(|c| ColumnEntry { name: c.name.clone(), ty: c.ty.to_string() }).collect()),
                retention: Some(st.retention.to_string()),
                digest: Some(sha256_hex(&state_fingerprint(st))),
                window: st.window.as_ref().map(|w| WindowEntry {
                    kind: "tumbling".into(),
                    time: w.time.clone(),
                    size: w.size.to_string(),
                    alignment: "epoch".into(),
                    emission: "final".into(),
                }),
            },
        },
        time: node.time.clone(),
    }
}

pub fn model_entry(plan: &ModelPlan) -> ModelEntry {
    ModelEntry { name: plan.name.clone(), materialized: plan.materialized.as_str().to_string(), key: plan.key.clone(), output: plan.output_id() }
}

/// A model's identity: entries with fingerprints and digests.
#[salsa::tracked(returns(ref))]
pub fn model_identity<'db>(db: &'db dyn Db, project: Project, name: ModelName<'db>) -> Option<Arc<ModelSlice>> {
    let plan = model_plan(db, project, name).as_ref()?;
    Some(Arc::new(ModelSlice { model: model_entry(plan), nodes: plan.nodes.iter().map(|n| node_entry(&plan.name, n)).collect() }))
}

/// The application's manifest as computed: each model's slice shared with
/// [`model_identity`], serialized as a [`Manifest`] document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppManifest {
    pub application_digest: String,
    pub slices: Vec<Arc<ModelSlice>>,
}

impl AppManifest {
    /// An owned document (for comparisons and tests).
    pub fn to_manifest(&self) -> Manifest {
        Manifest {
            manifest_version: MANIFEST_VERSION,
            application_digest: self.application_digest.clone(),
            models: self.slices.iter().map(|s| s.model.clone()).collect(),
            nodes: self.slices.iter().flat_map(|s| s.nodes.iter().cloned()).collect(),
        }
    }

    pub fn models(&self) -> impl Iterator<Item = &ModelEntry> {
        self.slices.iter().map(|s| &s.model)
    }
}

/// Serializes in the manifest's key order without copying the entries.
struct ManifestView<'a> {
    digest: &'a str,
    slices: &'a [Arc<ModelSlice>],
}

impl Serialize for ManifestView<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Models<'a>(&'a [Arc<ModelSlice>]);
        impl Serialize for Models<'_> {
            fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
                ser.collect_seq(self.0.iter().map(|s| &s.model))
            }
        }
        struct Nodes<'a>(&'a [Arc<ModelSlice>]);
        impl Serialize for Nodes<'_> {
            fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
                ser.collect_seq(self.0.iter().flat_map(|s| s.nodes.iter()))
            }
        }
        let mut st = ser.serialize_struct("Manifest", 4)?;
        st.serialize_field("manifest_version", &MANIFEST_VERSION)?;
        st.serialize_field("application_digest", self.digest)?;
        st.serialize_field("models", &Models(self.slices))?;
        st.serialize_field("nodes", &Nodes(self.slices))?;
        st.end()
    }
}

impl Serialize for AppManifest {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ManifestView { digest: &self.application_digest, slices: &self.slices }.serialize(ser)
    }
}

/// Feeds serialized bytes into a hasher without building the string.
struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One model's part of the manifest as compact JSON: its `models` entry
/// and its `nodes` entries (comma-separated). The application digest hashes
/// these, so an edit re-serializes only the edited model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelJson {
    pub model: String,
    pub nodes: String,
}

#[salsa::tracked(returns(ref))]
pub fn model_manifest_json<'db>(db: &'db dyn Db, project: Project, name: ModelName<'db>) -> Option<Arc<ModelJson>> {
    let slice = model_identity(db, project, name).as_ref()?;
    let model = serde_json::to_string(&slice.model).expect("manifests serialize");
    let nodes = slice.nodes.iter().map(|n| serde_json::to_string(n).expect("manifests serialize")).collect::<Vec<_>>().join(",");
    Some(Arc::new(ModelJson { model, nodes }))
}

/// The digest from per-model fragments: byte for byte the compact JSON of
/// the manifest with `application_digest` empty.
fn digest_of_fragments(fragments: &[Arc<ModelJson>]) -> String {
    let mut h = Sha256::new();
    h.update(format!("{{\"manifest_version\":{MANIFEST_VERSION},\"application_digest\":\"\",\"models\":[").as_bytes());
    for (i, f) in fragments.iter().enumerate() {
        if i > 0 {
            h.update(b",");
        }
        h.update(f.model.as_bytes());
    }
    h.update(b"],\"nodes\":[");
    let mut first = true;
    for f in fragments.iter().filter(|f| !f.nodes.is_empty()) {
        if !first {
            h.update(b",");
        }
        first = false;
        h.update(f.nodes.as_bytes());
    }
    h.update(b"]}");
    hex(&h.finalize())
}

#[cfg_attr(not(test), allow(dead_code))]
fn digest_of(slices: &[Arc<ModelSlice>]) -> String {
    let mut w = HashWriter(Sha256::new());
    serde_json::to_writer(&mut w, &ManifestView { digest: "", slices }).expect("manifests serialize");
    hex(&w.0.finalize())
}

/// Why the whole-project manifest cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestError {
    /// A model failed to plan (the first in plan order).
    Model { model: String, error: Diagnostic },
    Cycle(Vec<String>),
}

/// The whole application's manifest, models in dependency order.
#[salsa::tracked(returns(ref))]
pub fn manifest(db: &dyn Db, project: Project) -> Result<AppManifest, ManifestError> {
    let graph = dependency_graph(db, project);
    if let Some(c) = graph.cycles.first() {
        return Err(ManifestError::Cycle(c.clone()));
    }
    let mut slices = Vec::with_capacity(graph.order.len());
    let mut fragments = Vec::with_capacity(graph.order.len());
    for name in &graph.order {
        let key = ModelName::new(db, name.clone());
        match model_identity(db, project, key) {
            Some(slice) => {
                slices.push(slice.clone());
                fragments.push(model_manifest_json(db, project, key).clone().expect("a model with an identity serializes"));
            }
            None => {
                let error = lower_model(db, project, key).error.clone().unwrap_or_else(|| Diagnostic::error("E0400", format!("model `{name}` could not be planned")));
                return Err(ManifestError::Model { model: name.clone(), error });
            }
        }
    }
    Ok(AppManifest { application_digest: digest_of_fragments(&fragments), slices })
}

/// SHA-256 of the compact JSON of the manifest with the digest field empty.
pub fn application_digest(m: &Manifest) -> String {
    let mut w = HashWriter(Sha256::new());
    let copy = Manifest { application_digest: String::new(), ..m.clone() };
    serde_json::to_writer(&mut w, &copy).expect("manifests serialize");
    hex(&w.0.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes pretty JSON (2-space indent, trailing newline) to `out`.
pub fn write_pretty_json<T: Serialize, W: std::io::Write + ?Sized>(value: &T, out: &mut W) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::other)?;
    out.write_all(b"\n")
}

/// The pretty JSON the commands print: 2-space indent, trailing newline.
pub fn to_pretty_json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("documents serialize");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Database, SourceFile};

    /// The fragment-wise digest equals the digest of the whole document.
    #[test]
    fn fragments_hash_like_the_whole_manifest() {
        let db = Database::default();
        let config = SourceFile::new(&db, "streamform.yml".into(), "name: t\nversion: 1\n".into());
        let sources = SourceFile::new(
            &db,
            "sources.yml".into(),
            "sources:\n  o:\n    connector: kafka\n    topic: o\n    schema: {k: int64, v: int32}\n".into(),
        );
        let models = vec![
            SourceFile::new(&db, "models/a.sql".into(), "SELECT k, v FROM source('o') WHERE v > 0".into()),
            SourceFile::new(&db, "models/b.sql".into(), "SELECT k, v FROM ref('a')".into()),
            SourceFile::new(&db, "models/c.sql".into(), "SELECT * FROM source('o')".into()),
        ];
        let project = Project::new(&db, ".".into(), Some(config), Some(sources), models, Vec::new());
        let m = manifest(&db, project).as_ref().unwrap();
        assert_eq!(m.application_digest, digest_of(&m.slices));
        assert_eq!(m.application_digest, application_digest(&m.to_manifest()));
    }
}
