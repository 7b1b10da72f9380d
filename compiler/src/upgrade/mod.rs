//! Upgrades: what `streamform plan` computes. It compares the running
//! manifest with the project's and classifies every change (seed 000's
//! "Comparing two of them"); the result is the plan diff ([`PlanDiff`], and
//! the `diff` JSON document). docs/upgrades.md describes the rules.
//!
//! This file holds the diff's types (classifications, change kinds, node
//! and model diffs, notices), the hints from streamform.yml, and [`diff`],
//! the entry point. Everything here is a pure function of two manifests
//! and the project's hints, except [`hints::hint_diagnostics`] (part of a model's
//! checks, which `check` reports):
//!
//! - [`reader`]: the strict reader of a running manifest or applied record,
//!   which also verifies every digest in it;
//! - [`matching`]: which running node each desired node continues, after
//!   `renamed_from` and `nodes.<kind>.<ordinal>.was`;
//! - [`classify`]: each node's fields, change kind, classification and
//!   reason, and the model and application verdicts;
//! - [`suggest`]: help the original does not give (probable renames,
//!   ordinal shifts, readers of a changed output);
//! - [`document`]: the `diff` JSON document (`plan --json`);
//! - [`hints`]: `check`'s diagnostics for the `nodes:` hints.

pub mod classify;
pub mod document;
pub mod hints;
pub mod matching;
pub mod reader;
pub mod suggest;

use serde::Serialize;

use crate::config::ProjectConfig;
use crate::manifest::Manifest;

pub const DIFF_VERSION: u32 = 1;

/// How much an upgrade costs, from cheapest to dearest (the order verdicts
/// are taken in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub enum Classification {
    #[serde(rename = "SAFE")]
    Safe,
    #[serde(rename = "COMPATIBLE")]
    Compatible,
    #[serde(rename = "STATE MIGRATION REQUIRED")]
    StateMigrationRequired,
    #[serde(rename = "BACKFILL REQUIRED")]
    BackfillRequired,
    #[serde(rename = "STATE INCOMPATIBLE")]
    StateIncompatible,
}

impl Classification {
    pub const ALL: [Classification; 5] = [
        Classification::Safe,
        Classification::Compatible,
        Classification::StateMigrationRequired,
        Classification::BackfillRequired,
        Classification::StateIncompatible,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Classification::Safe => "SAFE",
            Classification::Compatible => "COMPATIBLE",
            Classification::StateMigrationRequired => "STATE MIGRATION REQUIRED",
            Classification::BackfillRequired => "BACKFILL REQUIRED",
            Classification::StateIncompatible => "STATE INCOMPATIBLE",
        }
    }

    /// What a model with this verdict needs (the model's last line).
    pub fn summary(self) -> &'static str {
        match self {
            Classification::Safe => "nothing to do",
            Classification::Compatible => "redeploy; existing state continues",
            Classification::StateMigrationRequired => "migrate state before the new plan continues from it",
            Classification::BackfillRequired => "replay history through the new plan",
            Classification::StateIncompatible => "rebuild required",
        }
    }

    /// How the verdict line counts models of this class (`to rebuild`).
    pub fn count_label(self) -> &'static str {
        match self {
            Classification::Safe => "unchanged",
            Classification::Compatible => "changed",
            Classification::StateMigrationRequired => "to migrate",
            Classification::BackfillRequired => "to backfill",
            Classification::StateIncompatible => "to rebuild",
        }
    }

    /// `plan`'s exit code: 0 when the running state simply continues.
    pub fn exit_code(self) -> u8 {
        if self <= Classification::Compatible {
            0
        } else {
            1
        }
    }
}

/// The change kinds of the `diff` document, in its schema's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    StatelessAdded,
    StatelessRemoved,
    StatelessDefinition,
    OutputRenamed,
    OutputReshaped,
    SinkKeyChanged,
    SinkTarget,
    SinkRenamed,
    SinkReshaped,
    KeyedAdded,
    KeyedRemoved,
    KeyChanged,
    AccumulatorTypeChanged,
    AccumulatorAdded,
    AccumulatorRemoved,
    RetentionChanged,
    WindowChanged,
    InputChanged,
    KeyedCompatible,
    StateKindChanged,
    ContractChanged,
    RankOrderChanged,
    RankRangeChanged,
    RankRowChanged,
    RankStrategyChanged,
    JoinChanged,
}

impl ChangeKind {
    pub const ALL: [ChangeKind; 26] = [
        ChangeKind::StatelessAdded,
        ChangeKind::StatelessRemoved,
        ChangeKind::StatelessDefinition,
        ChangeKind::OutputRenamed,
        ChangeKind::OutputReshaped,
        ChangeKind::SinkKeyChanged,
        ChangeKind::SinkTarget,
        ChangeKind::SinkRenamed,
        ChangeKind::SinkReshaped,
        ChangeKind::KeyedAdded,
        ChangeKind::KeyedRemoved,
        ChangeKind::KeyChanged,
        ChangeKind::AccumulatorTypeChanged,
        ChangeKind::AccumulatorAdded,
        ChangeKind::AccumulatorRemoved,
        ChangeKind::RetentionChanged,
        ChangeKind::WindowChanged,
        ChangeKind::InputChanged,
        ChangeKind::KeyedCompatible,
        ChangeKind::StateKindChanged,
        ChangeKind::ContractChanged,
        ChangeKind::RankOrderChanged,
        ChangeKind::RankRangeChanged,
        ChangeKind::RankRowChanged,
        ChangeKind::RankStrategyChanged,
        ChangeKind::JoinChanged,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::StatelessAdded => "stateless-added",
            ChangeKind::StatelessRemoved => "stateless-removed",
            ChangeKind::StatelessDefinition => "stateless-definition",
            ChangeKind::OutputRenamed => "output-renamed",
            ChangeKind::OutputReshaped => "output-reshaped",
            ChangeKind::SinkKeyChanged => "sink-key-changed",
            ChangeKind::SinkTarget => "sink-target",
            ChangeKind::SinkRenamed => "sink-renamed",
            ChangeKind::SinkReshaped => "sink-reshaped",
            ChangeKind::KeyedAdded => "keyed-added",
            ChangeKind::KeyedRemoved => "keyed-removed",
            ChangeKind::KeyChanged => "key-changed",
            ChangeKind::AccumulatorTypeChanged => "accumulator-type-changed",
            ChangeKind::AccumulatorAdded => "accumulator-added",
            ChangeKind::AccumulatorRemoved => "accumulator-removed",
            ChangeKind::RetentionChanged => "retention-changed",
            ChangeKind::WindowChanged => "window-changed",
            ChangeKind::InputChanged => "input-changed",
            ChangeKind::KeyedCompatible => "keyed-compatible",
            ChangeKind::StateKindChanged => "state-kind-changed",
            ChangeKind::JoinChanged => "join-changed",
            ChangeKind::ContractChanged => "contract-changed",
            ChangeKind::RankOrderChanged => "rank-order-changed",
            ChangeKind::RankRangeChanged => "rank-range-changed",
            ChangeKind::RankRowChanged => "rank-row-changed",
            ChangeKind::RankStrategyChanged => "rank-strategy-changed",
        }
    }
}

/// What happened to a model or a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// One field of a node that differs: `definition: old → new`. Digests are
/// full here; text output shortens them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    pub field: &'static str,
    pub old: String,
    pub new: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeDiff {
    /// The desired id; the running id for a removed node.
    pub id: String,
    pub operator: String,
    pub change: Change,
    pub classification: Classification,
    pub kind: ChangeKind,
    pub reason: String,
    pub fields: Vec<FieldChange>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelDiff {
    pub name: String,
    /// `None` for a model that did not change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
    pub verdict: Classification,
    pub nodes: Vec<NodeDiff>,
}

/// A line after the models: unused hints (warnings, as the original prints
/// them), and what we add (help with hints, notes on readers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoticeKind {
    Warning,
    Help,
    Note,
}

impl NoticeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::Warning => "warning",
            NoticeKind::Help => "help",
            NoticeKind::Note => "note",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Notice {
    pub kind: NoticeKind,
    pub message: String,
}

impl Notice {
    pub fn warning(message: impl Into<String>) -> Notice {
        Notice { kind: NoticeKind::Warning, message: message.into() }
    }

    pub fn help(message: impl Into<String>) -> Notice {
        Notice { kind: NoticeKind::Help, message: message.into() }
    }

    pub fn note(message: impl Into<String>) -> Notice {
        Notice { kind: NoticeKind::Note, message: message.into() }
    }
}

/// The comparison of a running manifest (or nothing) with the desired one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanDiff {
    /// Desired models in plan order, then removed models in running order.
    pub models: Vec<ModelDiff>,
    /// The most severe model verdict (SAFE when nothing changed).
    pub verdict: Classification,
    /// Warnings first, then help, then notes.
    pub notices: Vec<Notice>,
}

impl PlanDiff {
    /// How many models have each verdict, most severe first, zero counts
    /// left out: `[(StateIncompatible, 1), (Compatible, 2)]`.
    pub fn counts(&self) -> Vec<(Classification, usize)> {
        Classification::ALL
            .iter()
            .rev()
            .filter(|c| **c > Classification::Safe)
            .map(|c| (*c, self.models.iter().filter(|m| m.verdict == *c).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}

/// What `streamform.yml` says about one model's past.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ModelHints {
    pub model: String,
    pub renamed_from: Option<String>,
    /// `("<kind>.<ordinal>", "<model>::<kind>::<ordinal>")`, in file order.
    pub nodes: Vec<(String, String)>,
}

/// The hints of every configured model that has any.
pub fn hints_of(config: &ProjectConfig) -> Vec<ModelHints> {
    config
        .models
        .iter()
        .filter(|m| m.renamed_from.is_some() || !m.nodes.is_empty())
        .map(|m| ModelHints {
            model: m.name.clone(),
            renamed_from: m.renamed_from.clone(),
            nodes: m.nodes.iter().map(|h| (h.node.clone(), h.was.clone())).collect(),
        })
        .collect()
}

/// Compares `running` (`None`: nothing is recorded) with `desired`.
pub fn diff(running: Option<&Manifest>, desired: &Manifest, hints: &[ModelHints]) -> PlanDiff {
    let Some(running) = running else { return classify::fresh(desired) };
    let matching = matching::match_nodes(running, desired, hints);
    let mut out = classify::classify(running, desired, &matching);
    out.notices.extend(suggest::suggestions(running, desired, hints, &matching, &out));
    out
}

/// `m::aggregate::0` → `("m", "aggregate", "0")`. Model names may hold
/// `::` in theory, so the id splits from the right.
pub fn split_id(id: &str) -> Option<(&str, &str, &str)> {
    let mut parts = id.rsplitn(3, "::");
    let ordinal = parts.next()?;
    let kind = parts.next()?;
    let model = parts.next()?;
    Some((model, kind, ordinal))
}

/// A note when the deployed artifact differs from the one the project
/// builds although no node changed: `idle_timeout`, a source's `key` and a
/// sink's `format` are outside plan identity but inside the Flink SQL.
/// Both digests are needed (an applied record's `artifact_digest`, and the
/// digest of the script the project builds); without them it says nothing.
pub fn artifact_note(running_artifact: Option<&str>, desired_artifact: Option<&str>, diff: &PlanDiff) -> Option<Notice> {
    let (old, new) = (running_artifact?, desired_artifact?);
    (old != new && diff.verdict == Classification::Safe).then(|| {
        Notice::note("the generated Flink SQL differs from the deployed one although no node changed: idle_timeout, a source's key and a sink's format are outside plan identity; redeploy to apply them")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consts(def: &str) -> Vec<String> {
        let schema: serde_json::Value = serde_json::from_str(crate::schemas::find("diff").unwrap().schema).unwrap();
        schema["$defs"][def]["oneOf"].as_array().unwrap().iter().map(|v| v["const"].as_str().unwrap().to_string()).collect()
    }

    /// Our enums are the schema's, in its order.
    #[test]
    fn enums_match_the_diff_schema() {
        assert_eq!(consts("ChangeKind"), ChangeKind::ALL.iter().map(|k| k.as_str()).collect::<Vec<_>>());
        assert_eq!(consts("Classification"), Classification::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>());
        assert_eq!(consts("Change"), [Change::Added, Change::Removed, Change::Changed].iter().map(|c| c.as_str()).collect::<Vec<_>>());
        for k in ChangeKind::ALL {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        for c in Classification::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
    }

    #[test]
    fn ids_split_from_the_right() {
        assert_eq!(split_id("m::aggregate::0"), Some(("m", "aggregate", "0")));
        assert_eq!(split_id("a::b::filter::1"), Some(("a::b", "filter", "1")));
        assert_eq!(split_id("m::sink"), None);
    }
}
