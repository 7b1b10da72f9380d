//! The strict reader of a running plan: a plan manifest
//! (`manifest_version`) or an applied record (`record_version`, with the
//! manifest inside), from its text.
//!
//! It refuses rather than guesses: another format version, an unknown or a
//! missing field, a node that contradicts its manifest, and any digest that
//! does not match what it digests (the schema digest and state digest of
//! every node, and the application digest) are errors. Syntax and shape
//! errors carry the line and column in the file, and the node they are in.
//! The digests are recomputed from the texts `identity::entry` rebuilds, the
//! same renderers the compiler hashed.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::identity::digest::{sha256_hex, short};
use crate::identity::entry::{schema_fingerprint_of, state_fingerprint_of};
use crate::manifest::{application_digest, Manifest, ModelEntry, NodeEntry, MANIFEST_VERSION};
use crate::plan::node::Operator;

pub const RECORD_VERSION: u32 = 1;

/// What `apply` records in `.streamform/applied/<target>.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliedRecord {
    pub record_version: u32,
    pub target: String,
    pub applied_at: String,
    pub streamform_version: String,
    pub backend: String,
    pub jobs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<String>,
    /// The digest of the deployed artifact (the Flink SQL script).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_from: Option<String>,
    /// The savepoint this job took over from and its source offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutover: Option<crate::deploy::Cutover>,
    pub manifest: Manifest,
}

/// A running plan as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunningDoc {
    Manifest(Manifest),
    Record(Box<AppliedRecord>),
}

impl RunningDoc {
    pub fn manifest(&self) -> &Manifest {
        match self {
            RunningDoc::Manifest(m) => m,
            RunningDoc::Record(r) => &r.manifest,
        }
    }

    pub fn record(&self) -> Option<&AppliedRecord> {
        match self {
            RunningDoc::Manifest(_) => None,
            RunningDoc::Record(r) => Some(r),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocKind {
    Manifest,
    Record,
}

impl DocKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Manifest => "plan manifest",
            DocKind::Record => "applied record",
        }
    }
}

/// Why a running plan was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Not JSON at all.
    NotJson { message: String, line: usize, column: usize },
    /// JSON, but neither document.
    Unrecognized,
    /// Another format version (as written in the file).
    Version { document: DocKind, found: String },
    /// A field missing, unknown or of the wrong type.
    Malformed { document: DocKind, node: Option<String>, message: String, line: usize, column: usize },
    /// Fields that contradict each other.
    Invalid { document: DocKind, message: String },
    /// A digest that does not match what it digests.
    Digest { node: Option<String>, message: String },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotJson { message, line, column } => write!(f, "the file is not JSON: {message} at line {line} column {column}"),
            ReadError::Unrecognized => {
                f.write_str("the file is neither an applied record (`record_version`) nor a plan manifest (`manifest_version`)")
            }
            ReadError::Version { document, found } => {
                let expected = match document {
                    DocKind::Manifest => MANIFEST_VERSION,
                    DocKind::Record => RECORD_VERSION,
                };
                if found.bytes().all(|b| b.is_ascii_digit()) {
                    write!(f, "the {} is format version {found}; this build reads version {expected}", document.as_str())
                } else {
                    let field = match document {
                        DocKind::Manifest => "manifest_version",
                        DocKind::Record => "record_version",
                    };
                    write!(f, "the {}'s `{field}` is {found}, not a format version; this build reads version {expected}", document.as_str())
                }
            }
            ReadError::Malformed { document, node: Some(node), message, line, column } => {
                write!(f, "could not read the {}: node `{node}`: {message} at line {line} column {column}", document.as_str())
            }
            ReadError::Malformed { document, node: None, message, line, column } => {
                write!(f, "could not read the {}: {message} at line {line} column {column}", document.as_str())
            }
            ReadError::Invalid { document, message } => write!(f, "the {} is inconsistent: {message}", document.as_str()),
            ReadError::Digest { message, .. } => {
                write!(f, "{message}; the file was edited or damaged, so it cannot stand for the running plan")
            }
        }
    }
}

/// What a running plan says it is, read without building the rest.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    record_version: Option<serde_json::Value>,
    #[serde(default)]
    manifest_version: Option<serde_json::Value>,
    #[serde(default)]
    manifest: Option<ProbeInner>,
}

#[derive(Deserialize)]
struct ProbeInner {
    #[serde(default)]
    manifest_version: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a plan manifest object")]
struct ManifestShell<'a> {
    manifest_version: u32,
    application_digest: String,
    models: Vec<ModelEntry>,
    #[serde(borrow)]
    nodes: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an applied record object")]
struct RecordShell<'a> {
    record_version: u32,
    target: String,
    applied_at: String,
    streamform_version: String,
    backend: String,
    jobs: Vec<String>,
    #[serde(default)]
    job_name: Option<String>,
    #[serde(default)]
    attempt: Option<String>,
    #[serde(default)]
    artifact_digest: Option<String>,
    #[serde(default)]
    restored_from: Option<String>,
    #[serde(default)]
    cutover: Option<crate::deploy::Cutover>,
    #[serde(borrow)]
    manifest: &'a RawValue,
}

/// Reads a running plan and verifies its digests.
pub fn read_running(text: &str) -> Result<RunningDoc, ReadError> {
    let doc = parse_running(text)?;
    verify(doc.manifest())?;
    Ok(doc)
}

/// Reads a running plan without verifying its digests.
pub fn parse_running(text: &str) -> Result<RunningDoc, ReadError> {
    let probe: Probe = match serde_json::from_str(text) {
        Ok(p) => p,
        // Not an object, or `manifest` not one: look closer.
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            let v: serde_json::Value = serde_json::from_str(text).map_err(|_| ReadError::Unrecognized)?;
            let Some(obj) = v.as_object() else { return Err(ReadError::Unrecognized) };
            Probe {
                record_version: obj.get("record_version").cloned(),
                manifest_version: obj.get("manifest_version").cloned(),
                manifest: obj.get("manifest").and_then(|m| m.as_object()).map(|m| ProbeInner { manifest_version: m.get("manifest_version").cloned() }),
            }
        }
        Err(e) => {
            let (line, column) = locate(text, 0, text, &e);
            return Err(ReadError::NotJson { message: bare_message(&e), line, column });
        }
    };
    if let Some(v) = &probe.record_version {
        check_version(DocKind::Record, v, RECORD_VERSION)?;
        if let Some(v) = probe.manifest.as_ref().and_then(|m| m.manifest_version.as_ref()) {
            check_version(DocKind::Manifest, v, MANIFEST_VERSION)?;
        }
        let shell: RecordShell = serde_json::from_str(text).map_err(|e| malformed(DocKind::Record, text, 0, text, None, &e))?;
        let base = offset_in(text, shell.manifest.get());
        let manifest = parse_manifest(DocKind::Record, text, base, shell.manifest.get())?;
        return Ok(RunningDoc::Record(Box::new(AppliedRecord {
            record_version: shell.record_version,
            target: shell.target,
            applied_at: shell.applied_at,
            streamform_version: shell.streamform_version,
            backend: shell.backend,
            jobs: shell.jobs,
            job_name: shell.job_name,
            attempt: shell.attempt,
            artifact_digest: shell.artifact_digest,
            restored_from: shell.restored_from,
            cutover: shell.cutover,
            manifest,
        })));
    }
    if let Some(v) = &probe.manifest_version {
        check_version(DocKind::Manifest, v, MANIFEST_VERSION)?;
        return Ok(RunningDoc::Manifest(parse_manifest(DocKind::Manifest, text, 0, text)?));
    }
    Err(ReadError::Unrecognized)
}

fn check_version(document: DocKind, v: &serde_json::Value, supported: u32) -> Result<(), ReadError> {
    match v.as_u64() {
        Some(n) if n == supported as u64 => Ok(()),
        Some(n) => Err(ReadError::Version { document, found: n.to_string() }),
        None => Err(ReadError::Version { document, found: v.to_string() }),
    }
}

/// The manifest at `sub`, which starts at byte `base` of the file `text`.
fn parse_manifest(document: DocKind, text: &str, base: usize, sub: &str) -> Result<Manifest, ReadError> {
    let shell: ManifestShell = serde_json::from_str(sub).map_err(|e| malformed(document, text, base, sub, None, &e))?;
    let mut nodes = Vec::with_capacity(shell.nodes.len());
    for raw in shell.nodes {
        let node_text = raw.get();
        let node: NodeEntry = serde_json::from_str(node_text).map_err(|e| {
            let id = serde_json::from_str::<serde_json::Value>(node_text).ok().and_then(|v| v.get("id").and_then(|i| i.as_str()).map(str::to_string));
            malformed(document, text, offset_in(text, node_text), node_text, id, &e)
        })?;
        nodes.push(node);
    }
    let m = Manifest { manifest_version: shell.manifest_version, application_digest: shell.application_digest, models: shell.models, nodes };
    validate(document, &m)?;
    Ok(m)
}

/// Where `sub` (a slice of `text`) starts in it.
fn offset_in(text: &str, sub: &str) -> usize {
    let (t, s) = (text.as_ptr() as usize, sub.as_ptr() as usize);
    if s >= t && s + sub.len() <= t + text.len() {
        s - t
    } else {
        0
    }
}

/// The error's message without serde's ` at line L column C`.
fn bare_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).map(str::to_string).unwrap_or(full)
}

/// The file line and column (in characters) of an error in `sub`, a slice
/// of `text` starting at byte `base`.
fn locate(text: &str, base: usize, sub: &str, e: &serde_json::Error) -> (usize, usize) {
    let mut offset = 0usize;
    for (i, l) in sub.split_inclusive('\n').enumerate() {
        if i + 1 == e.line() {
            offset += e.column().saturating_sub(1).min(l.len());
            break;
        }
        offset += l.len();
    }
    let mut abs = (base + offset).min(text.len());
    while !text.is_char_boundary(abs) {
        abs -= 1;
    }
    let before = &text[..abs];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..abs].chars().count() + 1)
}

fn malformed(document: DocKind, text: &str, base: usize, sub: &str, node: Option<String>, e: &serde_json::Error) -> ReadError {
    let (line, column) = locate(text, base, sub, e);
    ReadError::Malformed { document, node, message: bare_message(e), line, column }
}

/// Fields that contradict each other.
fn validate(document: DocKind, m: &Manifest) -> Result<(), ReadError> {
    let invalid = |message: String| Err(ReadError::Invalid { document, message });
    let mut models = HashSet::new();
    for e in &m.models {
        if !models.insert(e.name.as_str()) {
            return invalid(format!("it lists the model `{}` twice", e.name));
        }
    }
    let mut ids = HashSet::new();
    for n in &m.nodes {
        if !ids.insert(n.id.as_str()) {
            return invalid(format!("it lists the node `{}` twice", n.id));
        }
        if !models.contains(n.model.as_str()) {
            return invalid(format!("node `{}` belongs to the model `{}`, which it does not list", n.id, n.model));
        }
        if Operator::parse(&n.operator).is_none() {
            return invalid(format!("node `{}` has the operator `{}`; operators are {}", n.id, n.operator, Operator::names()));
        }
        for i in &n.inputs {
            if !ids.contains(i.as_str()) {
                return invalid(format!("node `{}` reads `{i}`, which is not listed before it", n.id));
            }
        }
        let s = &n.state;
        match s.kind.as_str() {
            "stateless" => {
                let extra = [
                    ("keys", s.keys.is_some()),
                    ("accumulators", s.accumulators.is_some()),
                    ("order", s.order.is_some()),
                    ("top", s.top.is_some()),
                    ("keep", s.keep.is_some()),
                    ("row", s.row.is_some()),
                    ("retention", s.retention.is_some()),
                    ("digest", s.digest.is_some()),
                    ("window", s.window.is_some()),
                ];
                if let Some((f, _)) = extra.iter().find(|(_, present)| *present) {
                    return invalid(format!("node `{}` is stateless but its state has `{f}`", n.id));
                }
            }
            "keyed" => {
                // An aggregate's state has accumulators; a Rank's a stored row, its order, and a `top` or a `keep`.
                let ranked = s.row.is_some();
                let missing = [
                    ("keys", s.keys.is_none()),
                    ("accumulators", !ranked && s.accumulators.is_none()),
                    ("order", ranked && s.order.is_none()),
                    ("top", ranked && s.top.is_none() && s.keep.is_none()),
                    ("retention", s.retention.is_none()),
                    ("digest", s.digest.is_none()),
                ];
                if let Some((f, _)) = missing.iter().find(|(_, absent)| *absent) {
                    return invalid(format!("node `{}` is keyed but its state has no `{f}`", n.id));
                }
                let extra = [("accumulators", ranked && s.accumulators.is_some()), ("order", !ranked && s.order.is_some()), ("top", !ranked && s.top.is_some()), ("keep", !ranked && s.keep.is_some())];
                if let Some((f, _)) = extra.iter().find(|(_, present)| *present) {
                    return invalid(format!("node `{}` has keyed state with `{f}`, which {} state does not have", n.id, if ranked { "a Rank's" } else { "an aggregate's" }));
                }
                if s.top.is_some() && s.keep.is_some() {
                    return invalid(format!("node `{}` keeps both a `top` and a `keep`; a Rank keeps one or the other", n.id));
                }
            }
            other => return invalid(format!("node `{}` has the state kind `{other}`; kinds are stateless and keyed", n.id)),
        }
    }
    for e in &m.models {
        if !ids.contains(e.output.as_str()) {
            return invalid(format!("the output of model `{}`, `{}`, is not one of its nodes", e.name, e.output));
        }
    }
    Ok(())
}

/// Every digest of a manifest against what it digests.
pub fn verify(m: &Manifest) -> Result<(), ReadError> {
    for n in &m.nodes {
        let schema = sha256_hex(&schema_fingerprint_of(n));
        if schema != n.schema_digest {
            return Err(ReadError::Digest {
                node: Some(n.id.clone()),
                message: format!("node `{}` records the schema digest {}, but its schema hashes to {}", n.id, short(&n.schema_digest), short(&schema)),
            });
        }
        if let Some(fp) = state_fingerprint_of(n) {
            let state = sha256_hex(&fp);
            let recorded = n.state.digest.as_deref().unwrap_or("");
            if state != recorded {
                return Err(ReadError::Digest {
                    node: Some(n.id.clone()),
                    message: format!("node `{}` records the state digest {}, but its state hashes to {}", n.id, short(recorded), short(&state)),
                });
            }
        }
    }
    let app = application_digest(m);
    if app != m.application_digest {
        return Err(ReadError::Digest {
            node: None,
            message: format!("the manifest records the application digest {}, but its content hashes to {}", short(&m.application_digest), short(&app)),
        });
    }
    Ok(())
}
