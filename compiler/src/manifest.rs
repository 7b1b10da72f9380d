//! The plan manifest: every node's identity for the whole application, and
//! the application digest over it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::db::{Db, ModelName, Project, SourceName};
use crate::diagnostic::Diagnostic;
use crate::graph::dependency_graph;
use crate::identity::digest::sha256_hex;
use crate::identity::fingerprint::{schema_fingerprint, state_fingerprint};
use crate::model::{lower_model, model_plan, source_definition};
use crate::project::{model_segment_starts, segment_keys};
use crate::plan::node::{Column, ModelPlan, NodeKind, PlanNode, RankKeep, TimeWindow};
use crate::segments;
use crate::diagnostic::Code;

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
    /// A fixed window's size (absent for session windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// A hop window's slide (absent for tumbling windows, as the original wrote them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slide: Option<String>,
    /// A session window's gap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<String>,
    /// `epoch` for fixed windows; absent for session windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<String>,
    pub emission: String,
}

/// One ORDER BY column of a Rank's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderEntry {
    pub column: String,
    /// `ASC` or `DESC`.
    pub direction: String,
    /// `NULLS FIRST` or `NULLS LAST`, only when not the direction's default
    /// (NULL is the smallest value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nulls: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateEntry {
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub keys: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub accumulators: Option<Vec<ColumnEntry>>,
    /// A Rank's ORDER BY.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub order: Option<Vec<OrderEntry>>,
    /// A Top-N's N.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub top: Option<u64>,
    /// A deduplication's kept row: `first` or `last`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub keep: Option<String>,
    /// How Flink ranks an updating input: `retract` or
    /// `update-fast(key=[..])`; absent over an append input.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub strategy: Option<String>,
    /// A Rank's stored row: its columns and types.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub row: Option<Vec<ColumnEntry>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retention: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub digest: Option<String>,
    /// Boxed, as `join`: few nodes have one, and every node is kept.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub window: Option<Box<WindowEntry>>,
    /// A join's two stores.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub join: Option<Box<JoinEntry>>,
}

/// A join's state: its type and each side's store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinEntry {
    #[serde(rename = "type")]
    pub join_type: String,
    pub left: JoinSideEntry,
    pub right: JoinSideEntry,
    /// An interval join's time bounds.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub interval: Option<IntervalEntry>,
    /// An event-time temporal join's time attributes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub temporal: Option<TemporalEntry>,
}

/// An event-time temporal join's time attributes: the left side's, which
/// AS OF names, and the right side's, by which its versions are ordered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemporalEntry {
    pub left_time: String,
    pub right_time: String,
}

/// An interval join's time condition: `right_time - left_time` within
/// `[lower_ms, upper_ms]`, both inclusive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalEntry {
    pub left_time: String,
    pub right_time: String,
    pub lower_ms: i64,
    pub upper_ms: i64,
}

/// One side of a join: its join key, the columns it stores, and the
/// unique key Flink infers for it (empty: none).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinSideEntry {
    pub keys: Vec<String>,
    pub stored: Vec<ColumnEntry>,
    pub unique: Vec<String>,
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
    /// Shared with the identity before its sources' definitions were
    /// written in ([`plan_identity`]), but for the Source nodes.
    pub nodes: Vec<Arc<NodeEntry>>,
}

/// The per-model document of `inspect-plan --json MODEL` / `explain --json`.
#[derive(Serialize)]
pub struct ModelDocument<'a> {
    pub manifest_version: u32,
    pub model: &'a ModelEntry,
    pub nodes: &'a [Arc<NodeEntry>],
}

/// A node's entry. `definition` is the node's own, except for a Source
/// node, whose plan leaves it to its source (`source_definition`).
pub fn node_entry(model: &str, node: &PlanNode, definition: String) -> NodeEntry {
    let schema_text = schema_fingerprint(&node.schema);
    NodeEntry {
        id: node.id(model),
        model: model.to_string(),
        operator: node.operator.as_str().to_string(),
        inputs: node.inputs.clone(),
        definition,
        schema: node.schema.iter().map(|c| ColumnEntry { name: c.name.clone(), ty: c.ty.to_string() }).collect(),
        schema_digest: sha256_hex(&schema_text),
        boundedness: if node.bounded { "bounded" } else { "unbounded" }.to_string(),
        changelog: ChangelogEntry { mode: node.changelog.mode().to_string(), key: node.changelog.key().to_vec() },
        state: match &node.state {
            None => StateEntry { kind: "stateless".into(), keys: None, accumulators: None, order: None, top: None, keep: None, strategy: None, row: None, retention: None, digest: None, window: None, join: None },
            Some(st) => StateEntry {
                kind: "keyed".into(),
                keys: Some(st.keys.clone()),
                accumulators: st.rank.is_none().then(|| columns(&st.accumulators)),
                order: st.rank.as_ref().map(|r| r.order.iter().map(|k| OrderEntry { column: k.column.clone(), direction: k.direction().into(), nulls: k.nulls().map(str::to_string) }).collect()),
                top: st.rank.as_ref().and_then(|r| match r.keep {
                    RankKeep::Top(n) => Some(n),
                    _ => None,
                }),
                keep: st.rank.as_ref().and_then(|r| r.keep.kept()).map(str::to_string),
                strategy: st.rank.as_ref().and_then(|r| r.strategy.text()),
                row: st.rank.as_ref().map(|r| columns(&r.row)),
                retention: Some(st.retention.to_string()),
                digest: Some(sha256_hex(&state_fingerprint(st))),
                window: st.window.as_ref().map(|w| Box::new(WindowEntry {
                    kind: w.kind().into(),
                    time: w.time.clone(),
                    size: w.shape.size().map(|s| s.to_string()),
                    slide: w.shape.slide().map(|s| s.to_string()),
                    gap: w.shape.gap().map(|s| s.to_string()),
                    alignment: w.alignment().map(str::to_string),
                    emission: TimeWindow::EMISSION.into(),
                })),
                join: st.join.as_ref().map(|j| {
                    let side = |s: &crate::plan::node::JoinSideState| JoinSideEntry {
                        keys: s.keys.clone(),
                        stored: s.stored.iter().map(|c| ColumnEntry { name: c.name.clone(), ty: c.ty.to_string() }).collect(),
                        unique: s.unique.clone(),
                    };
                    let interval = j.interval.as_ref().map(|i| IntervalEntry { left_time: i.left_time.clone(), right_time: i.right_time.clone(), lower_ms: i.lower, upper_ms: i.upper });
                    let temporal = j.temporal.as_ref().map(|t| TemporalEntry { left_time: t.left_time.clone(), right_time: t.right_time.clone() });
                    Box::new(JoinEntry { join_type: j.join_type.as_str().into(), left: side(&j.left), right: side(&j.right), interval, temporal })
                }),
            },
        },
        time: node.time.clone(),
    }
}

fn columns(cols: &[Column]) -> Vec<ColumnEntry> {
    cols.iter().map(|c| ColumnEntry { name: c.name.clone(), ty: c.ty.to_string() }).collect()
}

pub fn model_entry(plan: &ModelPlan) -> ModelEntry {
    ModelEntry { name: plan.name.clone(), materialized: plan.materialized.as_str().to_string(), key: plan.key.clone(), output: plan.output_id() }
}

/// A model's identity as its plan gives it: every entry, with its
/// fingerprints and digests, and their compact JSON, but for the Source
/// nodes' definitions, left empty: those are their sources' text
/// ([`source_definition`]), which [`model_identity`] writes in. Apart so that
/// an edit of a source's topic or watermark re-identifies its readers by
/// splicing a string into each, not by building every entry again.
#[salsa::tracked(returns(ref), lru = 0)]
fn plan_identity<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<PlanIdentity> {
    let plan = model_plan(db, name).as_ref()?;
    let mut holes = Vec::new();
    let mut nodes_json = String::new();
    let nodes = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let source = match &n.kind {
                NodeKind::Source(read) => Some(read.source.clone()),
                _ => None,
            };
            let entry = node_entry(&plan.name, n, if source.is_some() { String::new() } else { n.definition.clone() });
            if i > 0 {
                nodes_json.push(',');
            }
            let start = nodes_json.len();
            nodes_json.push_str(&serde_json::to_string(&entry).expect("manifests serialize"));
            if let Some(source) = source {
                // The key's first occurrence: a `"` inside the string values
                // before it (id, model, operator, inputs) is escaped.
                let key = ",\"definition\":";
                let at = nodes_json[start..].find(&format!("{key}\"\"")).expect("a node entry has a definition") + key.len();
                holes.push(Hole { node: i, at: start + at, source });
            }
            Arc::new(entry)
        })
        .collect();
    // Kept as long as the model (`model_json`): no spare capacity.
    nodes_json.shrink_to_fit();
    let slice = ModelSlice { model: model_entry(plan), nodes };
    let model = serde_json::to_string(&slice.model).expect("manifests serialize");
    Some(PlanIdentity { base: ModelIdentity { slice: Arc::new(slice), json: Arc::new(ModelJson { model, nodes: nodes_json }) }, holes })
}

/// See [`plan_identity`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlanIdentity {
    /// The identity with every Source node's definition empty.
    base: ModelIdentity,
    /// Each Source node's empty definition, in node order.
    holes: Vec<Hole>,
}

/// Where a Source node's definition goes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hole {
    /// The node's index in the slice.
    node: usize,
    /// The byte offset of the empty string `""` in the nodes' JSON.
    at: usize,
    source: String,
}

/// A model's identity: entries with fingerprints and digests, and their
/// compact JSON, which the application digest hashes (so an edit
/// re-serializes only the edited model): [`plan_identity`] with its
/// sources' definitions written in. One query for both: the JSON changes
/// exactly when the entries do, and a memo fewer per model is less for an
/// edit to walk. `lru`: `inspect-plan --json` keeps only the JSON
/// ([`model_json`]), so its driver evicts these after each batch.
#[salsa::tracked(returns(ref), lru = 0)]
pub fn model_identity<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<ModelIdentity> {
    let PlanIdentity { base, holes } = plan_identity(db, name).as_ref()?;
    if holes.is_empty() {
        return Some(base.clone());
    }
    let project = name.project(db);
    let mut nodes = base.slice.nodes.clone();
    let mut quoted = Vec::with_capacity(holes.len());
    for hole in holes {
        let definition = source_definition(db, project, SourceName::new(db, hole.source.clone())).clone().unwrap_or_default();
        quoted.push(serde_json::to_string(&definition).expect("strings serialize"));
        let mut entry = NodeEntry::clone(&nodes[hole.node]);
        entry.definition = definition;
        nodes[hole.node] = Arc::new(entry);
    }
    // Kept as long as the model (`model_json`): sized exactly.
    let mut json = String::with_capacity(base.json.nodes.len() + quoted.iter().map(|q| q.len() - 2).sum::<usize>());
    let mut from = 0;
    for (hole, q) in holes.iter().zip(&quoted) {
        json.push_str(&base.json.nodes[from..hole.at]);
        json.push_str(q);
        from = hole.at + 2;
    }
    json.push_str(&base.json.nodes[from..]);
    let slice = ModelSlice { model: base.slice.model.clone(), nodes };
    Some(ModelIdentity { slice: Arc::new(slice), json: Arc::new(ModelJson { model: base.json.model.clone(), nodes: json }) })
}

/// Whether [`model_identity`] keeps every model's entries (the default)
/// or only the last one's, the rest evicted between a compile's batches;
/// and whether [`plan_identity`] is kept (`watch`) or, for a one-shot
/// command, evicted likewise.
pub(crate) fn keep_entries(db: &mut crate::db::Database, keep: bool, one_shot: bool) {
    db.set_identities_kept(keep);
    model_identity::set_lru_capacity(db, if keep { 0 } else { 1 });
    plan_identity::set_lru_capacity(db, if one_shot { 1 } else { 0 });
}

/// A model's compact JSON alone, which the application digest and the
/// printed manifest read: kept when [`model_identity`] is evicted (the
/// entries took twice the memory of the JSON).
#[salsa::tracked(returns(ref))]
pub fn model_json<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<Arc<ModelJson>> {
    model_identity(db, name).as_ref().map(|id| id.json.clone())
}

/// A model's compact JSON, from whichever memo the database keeps
/// ([`Db::identities_kept`]).
pub(crate) fn json_of<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<Arc<ModelJson>> {
    if db.identities_kept() {
        model_identity(db, name).as_ref().map(|id| id.json.clone())
    } else {
        model_json(db, name).clone()
    }
}

/// See [`model_identity`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelIdentity {
    pub slice: Arc<ModelSlice>,
    pub json: Arc<ModelJson>,
}

/// The application's manifest as computed: each model's slice shared with
/// [`model_identity`], serialized as a [`Manifest`] document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppManifest {
    pub application_digest: String,
    pub slices: Vec<Arc<ModelSlice>>,
    /// Each slice's compact JSON, which the digest hashed.
    json: Vec<Arc<ModelJson>>,
}

impl AppManifest {
    /// An owned document (for comparisons and tests).
    pub fn to_manifest(&self) -> Manifest {
        Manifest {
            manifest_version: MANIFEST_VERSION,
            application_digest: self.application_digest.clone(),
            models: self.slices.iter().map(|s| s.model.clone()).collect(),
            nodes: self.slices.iter().flat_map(|s| s.nodes.iter().map(|n| NodeEntry::clone(n))).collect(),
        }
    }

    pub fn models(&self) -> impl Iterator<Item = &ModelEntry> {
        self.slices.iter().map(|s| &s.model)
    }

    /// The document as pretty JSON (see [`ManifestJson::write_pretty`]).
    pub fn write_pretty(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        ManifestJson { application_digest: &self.application_digest, json: &self.json }.write_pretty(out)
    }
}

/// The manifest as the compact JSON of its models, without their entries
/// ([`manifest_document`]).
pub struct ManifestJson<'a> {
    pub application_digest: &'a str,
    json: &'a [Arc<ModelJson>],
}

impl ManifestJson<'_> {
    /// The document as pretty JSON (serde_json's layout, as its
    /// `Serialize` prints it), from the compact JSON the digest hashed.
    pub fn write_pretty(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut p = crate::pretty_json::Pretty::new(out);
        let digest = serde_json::to_string(&self.application_digest).expect("strings serialize");
        p.feed(format!("{{\"manifest_version\":{MANIFEST_VERSION},\"application_digest\":{digest},\"models\":[").as_bytes())?;
        for (i, j) in self.json.iter().enumerate() {
            if i > 0 {
                p.feed(b",")?;
            }
            p.feed(j.model.as_bytes())?;
        }
        p.feed(b"],\"nodes\":[")?;
        let mut first = true;
        for j in self.json.iter().filter(|j| !j.nodes.is_empty()) {
            if !std::mem::take(&mut first) {
                p.feed(b",")?;
            }
            p.feed(j.nodes.as_bytes())?;
        }
        p.feed(b"]}")?;
        p.finish()
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
/// and its `nodes` entries (comma-separated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelJson {
    pub model: String,
    pub nodes: String,
}

#[cfg_attr(not(test), allow(dead_code))]
fn digest_of(slices: &[Arc<ModelSlice>]) -> String {
    let mut w = HashWriter(Sha256::new());
    serde_json::to_writer(&mut w, &ManifestView { digest: "", slices }).expect("manifests serialize");
    hex(&w.0.finalize())
}

/// One segment of models in name order (see [`crate::segments`]): the
/// compact JSON of each, None for a model that does not plan. Keyed by
/// name, not plan order, so that a segment depends only on its own models,
/// and an edit elsewhere leaves it valid without walking into it.
#[salsa::tracked(returns(ref))]
pub(crate) fn manifest_segment(db: &dyn Db, project: Project, segment: u32) -> Vec<Option<Arc<ModelJson>>> {
    segment_keys(db, project, segment).iter().map(|&key| json_of(db, key)).collect()
}

/// The entries of each model of a segment, as [`manifest_segment`] has
/// their JSON; apart, so that `inspect-plan --json` keeps none.
#[salsa::tracked(returns(ref))]
pub(crate) fn slice_segment(db: &dyn Db, project: Project, segment: u32) -> Vec<Option<Arc<ModelSlice>>> {
    segment_keys(db, project, segment).iter().map(|&key| Some(model_identity(db, key).as_ref()?.slice.clone())).collect()
}

/// Per-segment answers by a model's position in name order, each segment's
/// query fetched once: a walk in plan order visits every segment many
/// times, and a fetch per model was a tenth of a model added in `watch`.
struct BySegment<'db, T> {
    starts: &'db [usize],
    fetched: Vec<Option<&'db T>>,
    fetch: Box<dyn Fn(u32) -> &'db T + 'db>,
}

impl<'db, T> BySegment<'db, T> {
    fn new(db: &'db dyn Db, project: Project, fetch: impl Fn(u32) -> &'db T + 'db) -> Self {
        let starts = model_segment_starts(db, project);
        BySegment { starts, fetched: vec![None; starts.len()], fetch: Box::new(fetch) }
    }

    /// The segment's answer and the offset of the model in it.
    fn at(&mut self, position: usize) -> (&'db T, usize) {
        let (segment, offset) = segments::segment_of(self.starts, position);
        let answer = *self.fetched[segment as usize].get_or_insert_with(|| (self.fetch)(segment));
        (answer, offset)
    }
}

/// The JSON of models by position in name order.
fn json_at<'db>(db: &'db dyn Db, project: Project) -> impl FnMut(usize) -> Option<&'db Arc<ModelJson>> {
    let mut by = BySegment::new(db, project, move |segment| manifest_segment(db, project, segment));
    move |position| {
        let (segment, offset) = by.at(position);
        segment[offset].as_ref()
    }
}

/// The application digest part-way: SHA-256 over a prefix of the manifest's
/// compact JSON. The digest is one hash over the whole document, so it is
/// chained segment by segment; an edit re-hashes from its model's segment
/// on, and the segments before it are reused.
#[derive(Clone)]
struct DigestState {
    hasher: Sha256,
    /// Whether a `nodes` entry has been written (the next one takes a comma).
    wrote_node: bool,
    /// The hash of the prefix so far: equal states are equal prefixes, so an
    /// unchanged prefix stops the re-hashing downstream.
    so_far: [u8; 32],
}

impl DigestState {
    fn new(hasher: Sha256, wrote_node: bool) -> DigestState {
        let so_far = hasher.clone().finalize().into();
        DigestState { hasher, wrote_node, so_far }
    }
}

impl PartialEq for DigestState {
    fn eq(&self, other: &Self) -> bool {
        self.so_far == other.so_far && self.wrote_node == other.wrote_node
    }
}

impl Eq for DigestState {}

impl std::fmt::Debug for DigestState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DigestState({}…)", hex(&self.so_far[..6]))
    }
}

/// The `models` entries of one segment (in name order), None for a model
/// without identity. Apart from [`manifest_segment`] so that an edit that
/// keeps a model's entry (most do: it holds no digest) does not re-hash them.
#[salsa::tracked(returns(ref))]
fn segment_model_entries(db: &dyn Db, project: Project, segment: u32) -> Vec<Option<String>> {
    manifest_segment(db, project, segment).iter().map(|m| m.as_ref().map(|json| json.model.clone())).collect()
}

/// The document up to the opening of `nodes`: the header and every model's
/// `models` entry (None when a model has no identity).
#[salsa::tracked(returns(ref))]
fn digest_head(db: &dyn Db, project: Project) -> Option<DigestState> {
    let graph = dependency_graph(db, project);
    let mut h = Sha256::new();
    h.update(format!("{{\"manifest_version\":{MANIFEST_VERSION},\"application_digest\":\"\",\"models\":[").as_bytes());
    let mut entries = BySegment::new(db, project, move |segment| segment_model_entries(db, project, segment));
    for (i, &position) in graph.positions.iter().enumerate() {
        if i > 0 {
            h.update(b",");
        }
        let (segment, offset) = entries.at(position);
        h.update(segment[offset].as_ref()?.as_bytes());
    }
    h.update(b"],\"nodes\":[");
    Some(DigestState::new(h, false))
}

/// The document up to the end of the `nodes` entries of the models in
/// segment `segment` of plan order.
#[salsa::tracked(returns(ref))]
fn digest_through(db: &dyn Db, project: Project, segment: u32) -> Option<DigestState> {
    let before = match segment {
        0 => digest_head(db, project),
        _ => digest_through(db, project, segment - 1),
    };
    let DigestState { mut hasher, mut wrote_node, .. } = before.clone()?;
    let positions = &dependency_graph(db, project).positions;
    let mut json = json_at(db, project);
    for &position in &positions[segments::range(positions.len(), segment)] {
        let nodes = &json(position)?.nodes;
        if nodes.is_empty() {
            continue;
        }
        if wrote_node {
            hasher.update(b",");
        }
        wrote_node = true;
        hasher.update(nodes.as_bytes());
    }
    Some(DigestState::new(hasher, wrote_node))
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
    let json = manifest_models(db, project).clone()?;
    let slices = manifest_slices(db, project).clone();
    let application_digest = manifest_digest(db, project).clone().expect("every model has an identity");
    Ok(AppManifest { application_digest, slices, json })
}

/// The manifest as its models' compact JSON and the digest, without the
/// entries [`manifest`] also holds: all that `inspect-plan --json` prints.
pub fn manifest_document(db: &dyn Db, project: Project) -> Result<ManifestJson<'_>, &ManifestError> {
    let json = manifest_models(db, project).as_ref()?;
    let application_digest = manifest_digest(db, project).as_deref().expect("every model has an identity");
    Ok(ManifestJson { application_digest, json })
}

/// The manifest's entries in plan order, or why it cannot be built: all
/// of [`manifest`] but its digest, so that a caller can use them while
/// another thread hashes.
pub fn manifest_entries(db: &dyn Db, project: Project) -> Result<&[Arc<ModelSlice>], &ManifestError> {
    manifest_models(db, project).as_ref()?;
    Ok(manifest_slices(db, project))
}

/// The application digest, None exactly when [`manifest_models`] is an
/// error: a cycle, or a model without identity (see [`manifest`]).
pub fn application_digest_of(db: &dyn Db, project: Project) -> Option<&str> {
    manifest_digest(db, project).as_deref()
}

/// Every model's compact JSON, in plan order: the manifest but its entries
/// ([`manifest_slices`]) and its digest, which [`manifest_digest`] computes
/// apart (the driver has a helper thread hash while this thread goes on).
#[salsa::tracked(returns(ref))]
pub(crate) fn manifest_models(db: &dyn Db, project: Project) -> Result<Vec<Arc<ModelJson>>, ManifestError> {
    let graph = dependency_graph(db, project);
    if let Some(c) = graph.cycles.first() {
        return Err(ManifestError::Cycle(c.clone()));
    }
    let mut json = Vec::with_capacity(graph.order.len());
    let mut json_of = json_at(db, project);
    for (name, &position) in graph.order.iter().zip(&graph.positions) {
        match json_of(position) {
            Some(j) => json.push(j.clone()),
            None => {
                let key = ModelName::new(db, project, name.clone());
                let error = lower_model(db, key).error.clone().unwrap_or_else(|| Diagnostic::error(Code::SqlNotOneSelect, format!("model `{name}` could not be planned")));
                return Err(ManifestError::Model { model: name.clone(), error });
            }
        }
    }
    Ok(json)
}

/// Every model's entries in plan order, when [`manifest_models`] has every
/// model's JSON (empty otherwise).
#[salsa::tracked(returns(ref))]
pub(crate) fn manifest_slices(db: &dyn Db, project: Project) -> Vec<Arc<ModelSlice>> {
    if manifest_models(db, project).is_err() {
        return Vec::new();
    }
    let mut by = BySegment::new(db, project, move |segment| slice_segment(db, project, segment));
    let positions = &dependency_graph(db, project).positions;
    positions
        .iter()
        .map(|&position| {
            let (segment, offset) = by.at(position);
            segment[offset].clone().expect("a model with JSON has entries")
        })
        .collect()
}

/// The application digest: SHA-256 over the manifest's compact JSON with
/// the digest field empty. None when the models form a cycle or one has no
/// identity (the manifest is then an error).
#[salsa::tracked(returns(ref))]
pub(crate) fn manifest_digest(db: &dyn Db, project: Project) -> Option<String> {
    let graph = dependency_graph(db, project);
    if !graph.cycles.is_empty() {
        return None;
    }
    let last = match segments::count(graph.order.len()) {
        0 => digest_head(db, project),
        n => digest_through(db, project, n - 1),
    };
    let mut h = last.as_ref()?.hasher.clone();
    h.update(b"]}");
    Some(hex(&h.finalize()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Database, SourceFile};

    /// The segment-by-segment digest equals the digest of the whole document, also
    /// after edits re-hash only some segments.
    #[test]
    fn chained_digest_hashes_like_the_whole_manifest() {
        use salsa::Setter;
        let mut db = Database::default();
        let config = SourceFile::new(&db, "streamform.yml".into(), "name: t\nversion: 1\n".into());
        let sources = SourceFile::new(
            &db,
            "sources.yml".into(),
            "sources:\n  o:\n    connector: kafka\n    topic: o\n    schema: {k: int64, v: int32}\n".into(),
        );
        // Three segments of models, some reading others.
        let mut models = Vec::new();
        for i in 0..300 {
            let sql = match i % 3 {
                0 => format!("SELECT k, v FROM source('o') WHERE v > {i}"),
                1 => format!("SELECT k, v FROM ref('m{:03}')", i - 1),
                _ => "SELECT * FROM source('o')".to_string(),
            };
            models.push(SourceFile::new(&db, format!("models/m{i:03}.sql"), sql));
        }
        let project = Project::new(&db, ".".into(), Some(config), Some(sources), models.clone(), Vec::new());
        let check = |db: &Database| {
            let m = manifest(db, project).as_ref().unwrap();
            assert_eq!(m.slices.len(), 300);
            assert_eq!(m.application_digest, digest_of(&m.slices));
            assert_eq!(m.application_digest, application_digest(&m.to_manifest()));
            // Printed from the compact JSON, byte for byte what serializing prints.
            let mut printed = Vec::new();
            m.write_pretty(&mut printed).unwrap();
            assert_eq!(String::from_utf8(printed).unwrap(), serde_json::to_string_pretty(m).unwrap());
            m.application_digest.clone()
        };
        let first = check(&db);
        // A logic edit late in plan order, one early, then both undone.
        models[297].set_text(&mut db).to("SELECT k, v FROM source('o') WHERE v > 1".into());
        let late = check(&db);
        models[3].set_text(&mut db).to("SELECT k, v FROM source('o') WHERE v > 1".into());
        let early = check(&db);
        assert!(first != late && late != early && first != early);
        models[297].set_text(&mut db).to("SELECT k, v FROM source('o') WHERE v > 297".into());
        models[3].set_text(&mut db).to("SELECT k, v FROM source('o') WHERE v > 3".into());
        assert_eq!(check(&db), first);
    }

    /// Three models over one source, `b` reading `a`.
    fn small_project(db: &Database) -> Project {
        let config = SourceFile::new(db, "streamform.yml".into(), "name: t\nversion: 1\n".into());
        let sources = SourceFile::new(
            db,
            "sources.yml".into(),
            "sources:\n  o:\n    connector: kafka\n    topic: o\n    schema: {k: int64, v: int32}\n".into(),
        );
        let models = vec![
            SourceFile::new(db, "models/a.sql".into(), "SELECT k, v FROM source('o') WHERE v > 0".into()),
            SourceFile::new(db, "models/b.sql".into(), "SELECT k, v FROM ref('a')".into()),
            SourceFile::new(db, "models/c.sql".into(), "SELECT * FROM source('o')".into()),
        ];
        Project::new(db, ".".into(), Some(config), Some(sources), models, Vec::new())
    }

    /// A database that keeps every identity reads the JSON through them,
    /// one that does not through `model_json`: the same document.
    #[test]
    fn either_memo_gives_the_same_document() {
        let document = |kept: bool| {
            let db = Database::default();
            db.set_identities_kept(kept);
            let project = small_project(&db);
            let mut printed = Vec::new();
            manifest_document(&db, project).unwrap().write_pretty(&mut printed).unwrap();
            String::from_utf8(printed).unwrap()
        };
        let through_json = document(false);
        assert_eq!(through_json, document(true));
        assert!(through_json.contains("\"definition\": \"o (kafka o)\""), "{through_json}");
    }

    #[test]
    fn small_manifest_hashes_like_the_whole_document() {
        let db = Database::default();
        let project = small_project(&db);
        let m = manifest(&db, project).as_ref().unwrap();
        assert_eq!(m.application_digest, digest_of(&m.slices));
        assert_eq!(m.application_digest, application_digest(&m.to_manifest()));
    }
}
