//! The `diff` document `plan --json` prints (schema `diff.json`).

use serde::Serialize;

use super::reader::RunningDoc;
use super::{Classification, ModelDiff, PlanDiff, DIFF_VERSION};

/// One side of the comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Side<'a> {
    pub application_digest: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_at: Option<&'a str>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiffDocument<'a> {
    pub diff_version: u32,
    /// The target compared against; `null` with `--against FILE`.
    pub target: Option<&'a str>,
    /// Omitted when nothing is recorded as applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<Side<'a>>,
    pub desired: Side<'a>,
    pub verdict: Classification,
    pub models: &'a [ModelDiff],
    /// Every notice's text: unused hints, then our help and notes.
    pub warnings: Vec<&'a str>,
}

pub fn document<'a>(diff: &'a PlanDiff, target: Option<&'a str>, running: Option<&'a RunningDoc>, desired_digest: &'a str) -> DiffDocument<'a> {
    DiffDocument {
        diff_version: DIFF_VERSION,
        target,
        running: running.map(|r| Side {
            application_digest: &r.manifest().application_digest,
            applied_at: r.record().map(|rec| rec.applied_at.as_str()),
        }),
        desired: Side { application_digest: desired_digest, applied_at: None },
        verdict: diff.verdict,
        models: &diff.models,
        warnings: diff.notices.iter().map(|n| n.message.as_str()).collect(),
    }
}
