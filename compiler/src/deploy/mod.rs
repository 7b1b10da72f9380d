//! The deploy plan (`plan --out`, `apply`): what deploying the project to a
//! target does, as a pure function of what `plan` classified and what was
//! observed on the target. The command line observes (files, HTTP) and hands
//! the facts in; this module decides the action, its consequences and the
//! plan's id, and says when Flink cannot keep state that `plan` kept.
//!
//! How state maps on Flink: the job is submitted as a compiled plan whose
//! stateful operators carry uids pinned to Streamform's nodes
//! (`flink_uids`), so a savepoint restores node by node: every node in both
//! jobs with the same row layout keeps its state (`flink_keeps_state_pinned`).
//! A job submitted without pins (by an older streamform, or when Flink's
//! plan could not be mapped) has uids that hash its topology, so its
//! savepoint restores only into the same operator graph
//! (`flink_keeps_state`). `flink_mapping` picks the rule; when a SAFE or
//! COMPATIBLE change cannot keep the state, the action is a rebuild and the
//! plan says why.

pub mod journal;
pub mod savepoint;
pub mod uids;

use serde::{Deserialize, Serialize};

use crate::flink_uids::Pin;
use crate::identity::digest::{sha256_hex, short};
use crate::manifest::{Manifest, NodeEntry};
use crate::upgrade::matching::match_nodes;
use crate::upgrade::{ChangeKind, Classification, ModelHints, PlanDiff};

pub const DEPLOY_PLAN_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeployAction {
    NoOp,
    Initial,
    Rebuild,
    Restore,
    Upgrade,
}

impl DeployAction {
    pub fn as_str(self) -> &'static str {
        match self {
            DeployAction::NoOp => "no-op",
            DeployAction::Initial => "initial",
            DeployAction::Rebuild => "rebuild",
            DeployAction::Restore => "restore",
            DeployAction::Upgrade => "upgrade",
        }
    }

    /// Whether the new job starts from a savepoint.
    pub fn restores(self) -> bool {
        matches!(self, DeployAction::Restore | DeployAction::Upgrade)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunningJob {
    pub job_id: String,
    pub job_name: String,
    #[serde(default)]
    pub artifact_digest: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preconditions {
    pub running: Vec<RunningJob>,
    #[serde(default)]
    pub savepoint: Option<String>,
    #[serde(default)]
    pub recorded_attempt: Option<String>,
    #[serde(default)]
    pub stop_attempt: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedChange {
    pub node: String,
    pub kind: ChangeKind,
    pub classification: Classification,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsequenceKind {
    StateStartsEmpty,
    ReplayFromEarliest,
    SkipHistory,
    RewritesKeys,
    DuplicatesRows,
    TableMustBeEmpty,
    Gap,
    OldState,
    StateCarriesOver,
    OutputChanges,
    Rollback,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consequence {
    pub kind: ConsequenceKind,
    pub subject: String,
    pub text: String,
}

/// Whether a sink receives records again when the plan is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replay {
    /// The sources resume at the savepoint's offsets: nothing is written twice.
    None,
    /// The sources start again from their startup position (a rebuild, or a
    /// first deploy): the sink receives every record the topics still hold.
    FromStartup,
    /// A sink new to a restored job: its sources resume at the savepoint's
    /// offsets, so it gets nothing from before the cutover.
    NoHistory,
    /// A rebuild whose sources start at the latest offset: what is produced
    /// between the stop and the start is never read.
    Gap,
}

/// What a rebuilt upsert sink does to the keys its topic already holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RebuiltKeys {
    /// Nothing is retracted: a key the new job writes is overwritten (from
    /// the replay's first value up to the current one); a key it no longer
    /// writes keeps its last row.
    OverwriteKeepStale,
}

/// One model's sink as the deploy plan sees it (from the project and target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SinkFacts {
    pub model: String,
    pub connector: String,
    /// The topic, path or table written on the target.
    pub writes: String,
    pub materialized: String,
    pub delivery: String,
}

/// What one sink's readers see when the plan is applied (docs/deploy.md,
/// "What sinks see during an upgrade").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkOutlook {
    pub model: String,
    pub node: String,
    pub connector: String,
    pub writes: String,
    pub materialized: String,
    pub delivery: String,
    pub replay: Replay,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuilt_keys: Option<RebuiltKeys>,
    pub text: String,
}

/// The cutover a plan promises: the savepoint the old job stops with (or the
/// one restored), whose source offsets `apply` records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedCutover {
    /// Already taken (a stopped job's, or a rollback's); else `apply` takes it.
    #[serde(default)]
    pub savepoint: Option<String>,
    /// Where `apply`'s stop-with-savepoint writes it.
    #[serde(default)]
    pub savepoint_dir: Option<String>,
    /// Whether the new job restores it (else it is the rollback point only).
    pub restored: bool,
    /// `scan.startup.mode` of the sources when the new job does not restore.
    pub startup: String,
}

/// Where the old job stopped and the new one took over, as `apply` records
/// it: the savepoint and, per source topic partition, the next offset the
/// savepoint's Kafka source splits read (what a restored job resumes at; a
/// rebuilt one reads from its startup position instead).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cutover {
    pub savepoint: String,
    pub offsets: Vec<SourceOffset>,
    /// Why the offsets could not be read from the savepoint, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread: Option<String>,
}

/// One Kafka partition's position in a savepoint: the next offset to read,
/// or Flink's marker for a split that has read nothing yet (-2 earliest,
/// -1 latest, -3 the group's committed offset).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceOffset {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
}

impl Cutover {
    /// `topic[0]=9, topic[1]=4`, or why there is none.
    pub fn offsets_text(&self) -> String {
        if let Some(why) = &self.unread {
            return format!("offsets not read: {why}");
        }
        if self.offsets.is_empty() {
            return "no Kafka source positions in it".to_string();
        }
        let one = |o: &SourceOffset| match o.offset {
            -2 => format!("{}[{}]=earliest (nothing read)", o.topic, o.partition),
            -1 => format!("{}[{}]=latest (nothing read)", o.topic, o.partition),
            n if n < 0 => format!("{}[{}]=committed (nothing read)", o.topic, o.partition),
            n => format!("{}[{}]={n}", o.topic, o.partition),
        };
        self.offsets.iter().map(one).collect::<Vec<_>>().join(", ")
    }
}

/// The `deploy-plan` document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeployPlan {
    pub deploy_plan_version: u32,
    pub plan_id: String,
    pub created_at: String,
    pub streamform_version: String,
    pub application: String,
    pub target: String,
    pub backend: String,
    pub action: DeployAction,
    #[serde(default)]
    pub verdict: Option<Classification>,
    #[serde(default)]
    pub fresh: Option<bool>,
    pub artifact_digest: String,
    pub job_name: String,
    pub application_digest: String,
    pub preconditions: Preconditions,
    #[serde(default)]
    pub changes: Vec<PlannedChange>,
    pub consequences: Vec<Consequence>,
    #[serde(default)]
    pub notes: Vec<String>,
    /// What each sink's readers see when the plan is applied (absent, as
    /// in plans made before it was added, when there is no sink).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sinks: Vec<SinkOutlook>,
    /// Where the old job stops and the new one takes over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutover: Option<PlannedCutover>,
}

impl DeployPlan {
    /// The digest of everything the plan decides and was made from: all of
    /// it but `plan_id` and `created_at`. A saved plan whose id does not
    /// match was edited; one whose id differs from a fresh plan's is stale.
    pub fn digest(&self) -> String {
        let mut copy = self.clone();
        copy.plan_id = String::new();
        copy.created_at = String::new();
        sha256_hex(&serde_json::to_string(&copy).unwrap_or_default())
    }

    /// Whether applying it discards state (`--allow-state-loss`).
    pub fn loses_state(&self) -> bool {
        self.action == DeployAction::Rebuild
            || matches!(self.verdict, Some(Classification::StateIncompatible | Classification::BackfillRequired))
    }
}

/// What the target was observed to run and hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// The recorded application (applied record): its manifest, artifact
    /// digest, attempt and jobs.
    pub recorded: Option<Recorded>,
    /// The recorded job, when it runs (per the gateway or the JobManager).
    pub running: Option<RunningJob>,
    /// The savepoint of the last `stop`, newer than the applied record.
    pub savepoint: Option<String>,
    pub stop_attempt: Option<String>,
    /// `apply --from-savepoint`: the savepoint to return to.
    pub rollback: Option<Rollback>,
}

/// A savepoint to roll back to, and what the journal says about the job
/// that wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rollback {
    pub savepoint: String,
    pub job_id: String,
    pub application_digest: String,
    pub artifact_digest: String,
}

/// Why the project (its manifest and the digest of its Flink SQL) cannot
/// return to `rb`, or None. Only the application that wrote a savepoint is
/// sure to claim all of its state as it was, so a rollback restores
/// exactly that application: the version checked out.
pub fn rollback_refusal(manifest: &Manifest, artifact_digest: &str, rb: &Rollback) -> Option<String> {
    let same = rb.application_digest == manifest.application_digest && rb.artifact_digest == artifact_digest;
    (!same).then(|| {
        format!(
            "savepoint {} was written by job {}, which ran application {} (Flink SQL {}); the project is application {} (Flink SQL {})",
            rb.savepoint,
            rb.job_id,
            short(&rb.application_digest),
            short(&rb.artifact_digest),
            short(&manifest.application_digest),
            short(artifact_digest)
        )
    })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub manifest: Manifest,
    pub artifact_digest: Option<String>,
    pub attempt: Option<String>,
    /// The uids the recorded job was submitted with; None for topology uids.
    pub pins: Option<Vec<Pin>>,
}

/// What `deploy_plan` needs besides the diff and the observation.
pub struct Desired<'a> {
    pub application: &'a str,
    pub target: &'a str,
    pub streamform_version: &'a str,
    pub created_at: &'a str,
    pub manifest: &'a Manifest,
    pub artifact_digest: &'a str,
    pub job_name: &'a str,
    /// Whether the target can keep state across a stop (`flink.savepoint_dir`).
    pub can_savepoint: bool,
    /// The new job's pinned uids (Flink's compiled plan mapped), or why not.
    pub pins: Result<Vec<Pin>, String>,
    pub hints: &'a [ModelHints],
    /// Every model's sink on the target.
    pub sinks: Vec<SinkFacts>,
    /// `scan.startup.mode` of the Kafka sources on the target.
    pub startup: &'a str,
    /// The target's `flink.savepoint_dir`.
    pub savepoint_dir: Option<&'a str>,
}

/// Why Flink cannot restore the running job's savepoint into the desired
/// job, or None when the operator graph is the same (see the module doc).
pub fn flink_keeps_state(running: &Manifest, desired: &Manifest) -> Option<String> {
    let shape = |m: &Manifest| m.nodes.iter().map(|n| (n.id.clone(), n.operator.clone(), n.inputs.clone())).collect::<Vec<_>>();
    let (old, new) = (shape(running), shape(desired));
    if let Some(n) = new.iter().find(|n| !old.iter().any(|o| o.0 == n.0)) {
        return Some(format!("node `{}` is new", n.0));
    }
    if let Some(o) = old.iter().find(|o| !new.iter().any(|n| n.0 == o.0)) {
        return Some(format!("node `{}` is gone", o.0));
    }
    if let Some(n) = new.iter().find(|n| !old.contains(n)) {
        return Some(format!("node `{}` reads other inputs", n.0));
    }
    if old.iter().map(|o| &o.0).ne(new.iter().map(|n| &n.0)) {
        return Some("the nodes are in another order".to_string());
    }
    let by_id = |id: &str| running.nodes.iter().find(|n| n.id == id);
    for n in &desired.nodes {
        let Some(o) = by_id(&n.id) else { continue };
        // A source's state is its read positions, kept per definition (topic, time attribute).
        if n.operator == "source" && (o.definition != n.definition || o.time != n.time) {
            return Some(format!("source node `{}` is defined differently", n.id));
        }
        // Flink stores a keyed node's rows as the plan's layout: another
        // aggregate list, order, schema, retention or window is another
        // serializer (or, worse, the same one over other columns).
        if n.state.kind == "keyed" && (o.definition != n.definition || o.schema != n.schema || o.state != n.state) {
            return Some(format!("keyed node `{}` stores another row layout", n.id));
        }
        // An upsert sink may keep rows (Flink's upsert materializer) in its row type.
        if n.operator == "sink" && n.changelog.mode == "upsert" && o.schema != n.schema {
            return Some(format!("upsert sink `{}` writes another row type", n.id));
        }
    }
    None
}

/// Why the running job's savepoint cannot restore into the new job when
/// both are pinned, or the running nodes whose state the new job does not
/// claim (dropped). Only a node in both jobs restores, and only into the
/// same row layout; a new one starts empty. Flink's upsert materializer
/// is part of a sink's state, so its presence must not change.
pub fn flink_keeps_state_pinned(running: &Manifest, desired: &Manifest, hints: &[ModelHints], old: &[Pin], new: &[Pin]) -> Result<Vec<String>, String> {
    let m = match_nodes(running, desired, hints);
    let continued = |id: &str| -> Option<(&NodeEntry, &NodeEntry)> {
        let d = desired.nodes.iter().position(|n| n.id == id)?;
        Some((&desired.nodes[d], &running.nodes[m.desired_to_running[d]?]))
    };
    for p in new {
        let Some(o) = old.iter().find(|o| o.key == p.key) else { continue };
        if o.exec != p.exec {
            return Err(format!("`{}` ran as Flink's {} and would run as its {}", p.key, o.exec, p.exec));
        }
        if o.materializer != p.materializer {
            let how = if p.materializer { "adds" } else { "removes" };
            return Err(format!("Flink {how} an upsert materializer (state) on sink `{}`", p.nodes.join(", ")));
        }
        for (n, r) in p.nodes.iter().filter_map(|id| continued(id)) {
            if n.operator == "source" && r.definition != n.definition {
                return Err(format!("source node `{}` is defined differently, so its read positions are not the new source's", n.id));
            }
            if n.state.kind == "keyed" && (r.definition != n.definition || r.schema != n.schema || r.state != n.state) {
                return Err(format!("keyed node `{}` stores another row layout", n.id));
            }
            if n.operator == "sink" && n.changelog.mode == "upsert" && r.schema != n.schema {
                return Err(format!("upsert sink `{}` writes another row type", n.id));
            }
        }
    }
    Ok(old.iter().filter(|o| !new.iter().any(|p| p.key == o.key)).map(|o| if o.nodes.is_empty() { o.key.clone() } else { o.nodes.join(", ") }).collect())
}

/// How the new job's state maps onto what the target recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlinkMapping {
    /// Submit the pinned compiled plan; else the SQL, with topology uids.
    pub pinned: bool,
    /// Why the savepoint cannot be restored into the new job.
    pub lost: Option<String>,
    /// Running nodes whose state the new job does not claim: restoring
    /// drops it (`execution.state-recovery.ignore-unclaimed-state`).
    pub dropped: Vec<String>,
    /// Why the uids follow the topology, when they do.
    pub unpinned: Option<String>,
}

/// Which rule maps the state: pinned uids when the recorded job and the
/// new plan are both pinned; topology uids when the recorded job was not
/// (a pinned job would claim none of its state, so an upgrade keeps
/// submitting the SQL, and only a fresh start or a rebuild pins).
pub fn flink_mapping(desired: &Desired, recorded: Option<&Recorded>) -> FlinkMapping {
    let pinnable = desired.pins.is_ok();
    let why = desired.pins.as_ref().err().cloned();
    let Some(rec) = recorded else { return FlinkMapping { pinned: pinnable, unpinned: why, ..FlinkMapping::default() } };
    match (&rec.pins, &desired.pins) {
        (Some(old), Ok(new)) => match flink_keeps_state_pinned(&rec.manifest, desired.manifest, desired.hints, old, new) {
            Ok(dropped) => FlinkMapping { pinned: true, lost: None, dropped, unpinned: None },
            Err(lost) => FlinkMapping { pinned: true, lost: Some(lost), ..FlinkMapping::default() },
        },
        (Some(_), Err(w)) => FlinkMapping { pinned: false, lost: Some(format!("Flink's new plan cannot be pinned: {w}")), dropped: Vec::new(), unpinned: None },
        (None, _) => {
            let lost = flink_keeps_state(&rec.manifest, desired.manifest);
            let unpinned = why.unwrap_or_else(|| "the running job was submitted without pinned uids (by an older streamform, or when they could not be pinned)".to_string());
            FlinkMapping { pinned: pinnable && lost.is_some(), lost, dropped: Vec::new(), unpinned: Some(unpinned) }
        }
    }
}

fn keyed_nodes(m: &Manifest) -> impl Iterator<Item = &str> {
    m.nodes.iter().filter(|n| n.state.kind == "keyed").map(|n| n.id.as_str())
}

fn consequence(kind: ConsequenceKind, subject: &str, text: &str) -> Consequence {
    Consequence { kind, subject: subject.to_string(), text: text.to_string() }
}

/// The deploy plan for `desired` on a target observed as `observed`, from
/// `plan`'s classification `diff` of the recorded manifest against it.
pub fn deploy_plan(desired: &Desired, observed: &Observed, diff: &PlanDiff) -> DeployPlan {
    let mut notes = Vec::new();
    let mut consequences = Vec::new();
    let mut verdict = Some(diff.verdict);
    let changes: Vec<PlannedChange> = diff
        .models
        .iter()
        .flat_map(|m| m.nodes.iter())
        .map(|n| PlannedChange { node: n.id.clone(), kind: n.kind, classification: n.classification })
        .collect();
    let action = choose_action(desired, observed, diff, &mut verdict, &mut notes, &mut consequences);
    for n in diff.models.iter().flat_map(|m| m.nodes.iter()) {
        if matches!(n.kind, ChangeKind::SinkTarget | ChangeKind::SinkReshaped | ChangeKind::SinkRenamed | ChangeKind::SinkKeyChanged) {
            consequences.push(consequence(ConsequenceKind::OutputChanges, &n.id, &n.reason));
        }
    }
    let preconditions = Preconditions {
        running: observed.running.iter().cloned().collect(),
        savepoint: observed.rollback.as_ref().map(|r| r.savepoint.clone()).or_else(|| observed.savepoint.clone()),
        recorded_attempt: observed.recorded.as_ref().and_then(|r| r.attempt.clone()),
        stop_attempt: observed.stop_attempt.clone(),
    };
    let mut plan = DeployPlan {
        deploy_plan_version: DEPLOY_PLAN_VERSION,
        plan_id: String::new(),
        created_at: desired.created_at.to_string(),
        streamform_version: desired.streamform_version.to_string(),
        application: desired.application.to_string(),
        target: desired.target.to_string(),
        backend: "flink".to_string(),
        action,
        verdict,
        fresh: Some(observed.recorded.is_none()),
        artifact_digest: desired.artifact_digest.to_string(),
        job_name: desired.job_name.to_string(),
        application_digest: desired.manifest.application_digest.clone(),
        preconditions,
        changes,
        consequences,
        notes,
        sinks: Vec::new(),
        cutover: None,
    };
    plan.cutover = planned_cutover(desired, &plan);
    plan.sinks = sink_outlooks(desired, observed, &plan);
    plan.plan_id = plan.digest();
    plan
}

/// The action for what was observed, and why state is lost when it is.
fn choose_action(desired: &Desired, observed: &Observed, diff: &PlanDiff, verdict: &mut Option<Classification>, notes: &mut Vec<String>, consequences: &mut Vec<Consequence>) -> DeployAction {
    if let Some(rb) = &observed.rollback {
        notes.push(format!("rollback: restore savepoint {} of job {}, which ran this application", rb.savepoint, rb.job_id));
        if observed.running.is_some() {
            notes.push("the running job is stopped with a savepoint first (when the target names `flink.savepoint_dir`), so its state is kept too".to_string());
        }
        for id in keyed_nodes(desired.manifest) {
            consequences.push(consequence(ConsequenceKind::StateCarriesOver, id, "restored from the rollback savepoint: it continues from the values stored when that job stopped"));
        }
        return DeployAction::Restore;
    }
    match &observed.recorded {
        None => {
            *verdict = None;
            if let Err(w) = &desired.pins {
                notes.push(format!("on flink, the new job's uids follow its topology: {w}"));
            }
            for id in keyed_nodes(desired.manifest) {
                consequences.push(consequence(ConsequenceKind::StateStartsEmpty, id, "a first deploy: state starts empty and fills from what the sources replay"));
            }
            DeployAction::Initial
        }
        Some(rec) => {
            let same_app = rec.manifest.application_digest == desired.manifest.application_digest
                && rec.artifact_digest.as_deref() == Some(desired.artifact_digest);
            let map = flink_mapping(desired, Some(rec));
            let keeps = matches!(diff.verdict, Classification::Safe | Classification::Compatible);
            if same_app && observed.running.is_some() {
                DeployAction::NoOp
            } else if keeps && map.lost.is_none() && (observed.running.is_some() && desired.can_savepoint || observed.savepoint.is_some()) {
                pinning_notes(desired, rec, &map, notes, consequences);
                for id in keyed_nodes(desired.manifest) {
                    consequences.push(consequence(ConsequenceKind::StateCarriesOver, id, "restored from the savepoint; it continues from its stored values"));
                }
                if same_app { DeployAction::Restore } else { DeployAction::Upgrade }
            } else {
                if keeps {
                    if let Some(why) = &map.lost {
                        let how = if rec.pins.is_some() { "the running job's uids are pinned to Streamform's nodes, but" } else { "this change moves the job's operators, and" };
                        notes.push(format!("on flink, {how} the savepoint's state cannot be mapped ({why}): every keyed node starts empty"));
                        *verdict = Some(Classification::BackfillRequired);
                    } else if observed.running.is_some() {
                        notes.push(format!("target `{}` names no `flink.savepoint_dir`, so the running job's state cannot be kept", desired.target));
                        *verdict = Some(Classification::BackfillRequired);
                    } else {
                        notes.push("no savepoint is recorded since the last apply, so there is no state to restore".to_string());
                        *verdict = Some(Classification::BackfillRequired);
                    }
                }
                if let (false, Some(w)) = (map.pinned, &map.unpinned) {
                    notes.push(format!("on flink, the new job's uids follow its topology: {w}"));
                }
                for id in keyed_nodes(desired.manifest) {
                    consequences.push(consequence(ConsequenceKind::StateStartsEmpty, id, "the new job starts without the old state"));
                }
                consequences.push(consequence(ConsequenceKind::ReplayFromEarliest, "sources", "sources read from their startup mode again (earliest by default), so history is replayed only as far as the topics retain it"));
                DeployAction::Rebuild
            }
        }
    }
}

/// What a restore under pinned (or topology) uids does besides keeping state.
fn pinning_notes(desired: &Desired, rec: &Recorded, map: &FlinkMapping, notes: &mut Vec<String>, consequences: &mut Vec<Consequence>) {
    match (&rec.pins, &desired.pins) {
        (Some(old), Ok(new)) => {
            notes.push(format!("on flink, state maps node by node: the job's {} stateful operators have uids pinned to Streamform's nodes", new.len()));
            for p in new.iter().filter(|p| p.exec == "sink" && !old.iter().any(|o| o.key == p.key)) {
                consequences.push(consequence(ConsequenceKind::SkipHistory, &p.nodes.join(", "), "a new sink: its sources resume from the savepoint's read positions, so it gets no history"));
            }
        }
        _ => {
            if let Some(w) = &map.unpinned {
                notes.push(format!("on flink, the job's uids follow its topology ({w}); the graph is unchanged, so the savepoint maps"));
            }
        }
    }
    for d in &map.dropped {
        notes.push(format!("on flink, the state of `{d}` is not in the new job: restoring drops it (execution.state-recovery.ignore-unclaimed-state)"));
    }
}

/// The savepoint between the old job and the new, when there is an old job.
fn planned_cutover(desired: &Desired, plan: &DeployPlan) -> Option<PlannedCutover> {
    let stops = !plan.preconditions.running.is_empty();
    let taken = plan.preconditions.savepoint.clone();
    let dir = desired.savepoint_dir.map(str::to_string);
    let restored = plan.action.restores();
    if matches!(plan.action, DeployAction::NoOp | DeployAction::Initial) || (taken.is_none() && !(stops && dir.is_some())) {
        return None;
    }
    // A rollback stops the running job too, but restores its own savepoint.
    Some(PlannedCutover { savepoint: taken, savepoint_dir: dir.filter(|_| stops), restored, startup: desired.startup.to_string() })
}

/// What each sink's readers see: replayed or not, from where, and what a
/// rebuilt upsert sink does to the keys it holds. Flink's facts behind it:
/// a restored job's sources resume at the savepoint's offsets; a job
/// started without one reads from `scan.startup.mode`, with empty state, and
/// writes each key's rows again with no retraction of the old job's rows.
fn sink_outlooks(desired: &Desired, observed: &Observed, plan: &DeployPlan) -> Vec<SinkOutlook> {
    let recorded = observed.rollback.as_ref().map(|_| desired.manifest).or(observed.recorded.as_ref().map(|r| &r.manifest));
    let latest = desired.startup == "latest-offset";
    let mut out = Vec::new();
    for s in &desired.sinks {
        let node = format!("{}::sink::0", s.model);
        let existed = recorded.is_some_and(|m| m.nodes.iter().any(|n| n.id == node));
        let upsert = s.materialized == "upsert";
        let failure = if s.delivery == "exactly-once" {
            "exactly-once: a read_committed reader sees each record once, also after a failure"
        } else {
            "at-least-once: only after a failure does it write again the records since the last checkpoint"
        };
        let (replay, rebuilt_keys, text) = match plan.action {
            DeployAction::NoOp => continue,
            DeployAction::Initial => (
                if latest { Replay::None } else { Replay::FromStartup },
                None,
                format!("a first deploy: the sources read from {} ({})", desired.startup, failure),
            ),
            DeployAction::Upgrade | DeployAction::Restore if !existed => {
                (Replay::NoHistory, None, format!("a new sink: the sources resume at the savepoint's offsets, so it gets nothing from before the cutover ({failure})"))
            }
            DeployAction::Upgrade | DeployAction::Restore => {
                (Replay::None, None, format!("nothing replayed: the sources resume at the savepoint's offsets and the sink continues after its last record ({failure})"))
            }
            DeployAction::Rebuild if latest => (
                Replay::Gap,
                upsert.then_some(RebuiltKeys::OverwriteKeepStale),
                "nothing replayed, and a gap: the sources start at latest-offset, so records produced between the stop and the start are never read".to_string(),
            ),
            DeployAction::Rebuild => {
                let what = if !existed {
                    "a new sink: its first records, not duplicates"
                } else if upsert {
                    "keys are overwritten, not retracted: each key the new job writes restarts from its first replayed value and climbs back to its current one; keys it no longer writes keep their last row (stale)"
                } else {
                    "every record is written again: duplicates for its readers"
                };
                let upto = if plan.cutover.is_some() { " (as many as the cutover offsets, less what retention deleted)" } else { "" };
                (
                    Replay::FromStartup,
                    upsert.then_some(RebuiltKeys::OverwriteKeepStale),
                    format!("replayed: the new job starts with empty state and its sources read again from {}, so every record the topics still hold passes through again{upto}; {what}", desired.startup),
                )
            }
        };
        out.push(SinkOutlook {
            model: s.model.clone(),
            node,
            connector: s.connector.clone(),
            writes: s.writes.clone(),
            materialized: s.materialized.clone(),
            delivery: s.delivery.clone(),
            replay,
            rebuilt_keys,
            text,
        });
    }
    out
}

/// Every model's sink on `target`, as the deploy plan describes it.
pub fn sink_facts(config: &crate::config::ProjectConfig, target: &crate::config::Target) -> Vec<SinkFacts> {
    config
        .models
        .iter()
        .filter_map(|m| m.sink.as_ref().map(|s| (m, s)))
        .map(|(m, s)| SinkFacts {
            model: m.name.clone(),
            connector: s.connector.as_str().to_string(),
            writes: match s.connector {
                crate::config::Connector::Kafka => target.sink_topic(&m.name, s.topic.as_deref()).unwrap_or_default().to_string(),
                _ => s.target().unwrap_or_default().to_string(),
            },
            materialized: m.materialized.as_str().to_string(),
            delivery: crate::delivery::sink_delivery(config, s).as_str().to_string(),
        })
        .collect()
}

/// Reads a saved deploy plan and checks its id: an edited plan is refused.
pub fn read_deploy_plan(text: &str) -> Result<DeployPlan, String> {
    let plan = decode_deploy_plan(text)?;
    if plan.deploy_plan_version != DEPLOY_PLAN_VERSION {
        return Err(format!("the deploy plan is format version {}; this build reads version {DEPLOY_PLAN_VERSION}", plan.deploy_plan_version));
    }
    let digest = plan.digest();
    if plan.plan_id != digest {
        return Err(format!("its plan_id {} does not match its contents (digest {}); the file was edited", plan.plan_id, digest));
    }
    Ok(plan)
}

/// A deploy plan's document as written, its id not yet checked (the fuzz
/// target reads past the check with it).
pub fn decode_deploy_plan(text: &str) -> Result<DeployPlan, String> {
    serde_json::from_str(text).map_err(|e| format!("it is not a deploy plan: {e}"))
}

/// Why a saved plan no longer describes what applying now would do, or
/// None when it still does.
pub fn staleness(saved: &DeployPlan, fresh: &DeployPlan) -> Option<String> {
    if saved.target != fresh.target {
        return Some(format!("it was made for target `{}`", saved.target));
    }
    if saved.application_digest != fresh.application_digest || saved.artifact_digest != fresh.artifact_digest {
        return Some("the project changed since the plan was made".to_string());
    }
    if saved.preconditions != fresh.preconditions {
        return Some("what runs on the target changed since the plan was made".to_string());
    }
    if saved.plan_id != fresh.plan_id {
        return Some("applying now would do something else".to_string());
    }
    None
}

/// Refuses a document of another version before decoding the rest: a
/// newer streamform may have renamed fields, and "written by another
/// version" is the message that helps. A text that is no JSON object, or
/// whose version is no number, is left to the full decode to refuse.
pub(crate) fn version_first(text: &str, field: &str, want: u32) -> Result<(), String> {
    use std::collections::BTreeMap;
    // Raw values: the rest of the document is checked, not built.
    let Ok(fields) = serde_json::from_str::<BTreeMap<String, &serde_json::value::RawValue>>(text) else { return Ok(()) };
    match fields.get(field).and_then(|v| v.get().parse::<u64>().ok()) {
        Some(v) if v != u64::from(want) => Err(format!("{field} {v} is not one this streamform reads ({want}); it was written by another version")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consts(def: &str) -> Vec<String> {
        let schema: serde_json::Value = serde_json::from_str(crate::schemas::find("deploy-plan").unwrap().schema).unwrap();
        schema["$defs"][def]["oneOf"].as_array().unwrap().iter().map(|v| v["const"].as_str().unwrap().to_string()).collect()
    }

    #[test]
    fn enums_match_the_deploy_plan_schema() {
        let actions = [DeployAction::NoOp, DeployAction::Initial, DeployAction::Rebuild, DeployAction::Restore, DeployAction::Upgrade];
        assert_eq!(consts("DeployAction"), actions.iter().map(|a| a.as_str()).collect::<Vec<_>>());
        for a in actions {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
        assert_eq!(serde_json::to_value(ConsequenceKind::StateCarriesOver).unwrap(), "state-carries-over");
        assert!(consts("ConsequenceKind").contains(&"replay-from-earliest".to_string()));
    }

    fn node(id: &str, op: &str, inputs: &[&str], keyed: bool, def: &str) -> serde_json::Value {
        let state = if keyed {
            serde_json::json!({"kind": "keyed", "keys": ["k"], "accumulators": [{"name": "sum(v)", "type": "int64"}], "retention": "unbounded", "digest": "d"})
        } else {
            serde_json::json!({"kind": "stateless"})
        };
        serde_json::json!({"id": id, "model": "m", "operator": op, "inputs": inputs, "definition": def, "schema": [], "schema_digest": "s",
            "boundedness": "unbounded", "changelog": {"mode": "append", "key": []}, "state": state})
    }

    fn manifest(digest: &str, nodes: Vec<serde_json::Value>) -> Manifest {
        serde_json::from_value(serde_json::json!({"manifest_version": 1, "application_digest": digest,
            "models": [{"name": "m", "materialized": "upsert", "key": ["k"], "output": "o"}], "nodes": nodes})).unwrap()
    }

    fn v1() -> Manifest {
        manifest("a1", vec![
            node("m::source::0", "source", &[], false, "kafka t"),
            node("m::aggregate::0", "aggregate", &["m::source::0"], true, "key=[k]"),
            node("m::sink::0", "sink", &["m::aggregate::0"], false, "upsert kafka out"),
        ])
    }

    fn desired<'a>(m: &'a Manifest, can_savepoint: bool) -> Desired<'a> {
        Desired { application: "app", target: "dev", streamform_version: "0", created_at: "t", manifest: m, artifact_digest: "art2", job_name: "j", can_savepoint, pins: Err("not compiled".into()), hints: &[], sinks: Vec::new(), startup: "earliest-offset", savepoint_dir: None }
    }

    fn running(m: &Manifest) -> Observed {
        Observed {
            recorded: Some(Recorded { manifest: m.clone(), artifact_digest: Some("art1".into()), attempt: Some("a".into()), pins: None }),
            running: Some(RunningJob { job_id: "job".into(), job_name: "j".into(), artifact_digest: Some("art1".into()) }),
            savepoint: None,
            stop_attempt: None,
            rollback: None,
        }
    }

    #[test]
    fn the_same_graph_keeps_state_and_a_new_node_does_not() {
        let mut same = v1();
        same.nodes[2].definition = "upsert kafka out-v2".into();
        assert_eq!(flink_keeps_state(&v1(), &same), None);
        let mut moved = v1();
        moved.nodes.insert(1, serde_json::from_value(node("m::filter::0", "filter", &["m::source::0"], false, "v > 0")).unwrap());
        assert_eq!(flink_keeps_state(&v1(), &moved).as_deref(), Some("node `m::filter::0` is new"));
        let mut rewired = v1();
        rewired.nodes[2].inputs = vec!["m::source::0".into()];
        assert_eq!(flink_keeps_state(&v1(), &rewired).as_deref(), Some("node `m::sink::0` reads other inputs"));
        let mut reordered = v1();
        reordered.nodes[1].definition = "key=[k] aggregates=[count(*), sum(v)]".into();
        assert_eq!(flink_keeps_state(&v1(), &reordered).as_deref(), Some("keyed node `m::aggregate::0` stores another row layout"));
        let mut topic = v1();
        topic.nodes[0].definition = "kafka t2".into();
        assert_eq!(flink_keeps_state(&v1(), &topic).as_deref(), Some("source node `m::source::0` is defined differently"));
    }

    #[test]
    fn actions_follow_the_verdict_and_what_flink_can_map() {
        let old = v1();
        let mut new = v1();
        new.nodes[2].definition = "upsert kafka out-v2".into();
        new.application_digest = "a2".into();
        let d = crate::upgrade::diff(Some(&old), &new, &[]);
        assert_eq!(d.verdict, Classification::Compatible);
        let plan = deploy_plan(&desired(&new, true), &running(&old), &d);
        assert_eq!(plan.action, DeployAction::Upgrade);
        assert!(!plan.loses_state());
        assert_eq!(read_deploy_plan(&serde_json::to_string(&plan).unwrap()).unwrap(), plan);
        // Without a savepoint_dir the running state cannot be kept.
        let plan = deploy_plan(&desired(&new, false), &running(&old), &d);
        assert_eq!((plan.action, plan.verdict), (DeployAction::Rebuild, Some(Classification::BackfillRequired)));
        // Nothing recorded: initial; the same application running: no-op.
        assert_eq!(deploy_plan(&desired(&new, true), &Observed::default(), &d).action, DeployAction::Initial);
        let mut same = running(&new);
        same.recorded.as_mut().unwrap().artifact_digest = Some("art2".into());
        assert_eq!(deploy_plan(&desired(&new, true), &same, &crate::upgrade::diff(Some(&new), &new, &[])).action, DeployAction::NoOp);
    }

    #[test]
    fn a_rollback_restores_its_savepoint_only_into_the_application_that_wrote_it() {
        // v1 was rebuilt into an incompatible v2; v1 is checked out again.
        let v1m = v1();
        let mut v2 = v1();
        v2.application_digest = "a2".into();
        let rb = Rollback { savepoint: "file:/sp/savepoint-1".into(), job_id: "old".into(), application_digest: "a1".into(), artifact_digest: "art2".into() };
        let want = desired(&v1m, true);
        assert_eq!(rollback_refusal(&v1m, "art2", &rb), None);
        let mut obs = running(&v2);
        obs.rollback = Some(rb.clone());
        let plan = deploy_plan(&want, &obs, &crate::upgrade::diff(Some(&v1m), &v1m, &[]));
        assert_eq!(plan.action, DeployAction::Restore);
        assert!(!plan.loses_state());
        assert_eq!(plan.preconditions.savepoint.as_deref(), Some("file:/sp/savepoint-1"), "the rollback savepoint, not a fresh one");
        assert_eq!(plan.preconditions.running[0].job_id, "job", "the running job is stopped first");
        assert!(plan.notes[0].starts_with("rollback: restore savepoint file:/sp/savepoint-1 of job old"), "{:?}", plan.notes);
        // Another application (v2, or v1's Flink SQL changed) is refused.
        assert!(rollback_refusal(&v2, "art2", &rb).unwrap().contains("written by job old, which ran application a1"));
        let other_sql = Rollback { artifact_digest: "art9".into(), ..rb };
        assert!(rollback_refusal(&v1m, "art2", &other_sql).is_some());
    }

    fn pins(m: &Manifest) -> Vec<Pin> {
        let exec = |op: &str| match op { "source" => "table-source-scan", "aggregate" => "group-aggregate", _ => "sink" };
        m.nodes.iter().map(|n| Pin { key: n.id.clone(), uid: format!("streamform/{}", n.id), exec: exec(&n.operator).into(), nodes: vec![n.id.clone()], materializer: false }).collect()
    }

    #[test]
    fn pinned_uids_keep_state_across_a_moved_graph_and_topology_uids_do_not() {
        let old = v1();
        // A new stateless model before `m`: every node of `m` moves in Flink's graph.
        let mut moved = v1();
        let mut n = moved.models[0].clone();
        (n.name, n.output) = ("n".into(), "n::sink::0".into());
        moved.models.insert(0, n);
        moved.nodes.insert(0, serde_json::from_value(node("n::source::0", "source", &[], false, "kafka t")).unwrap());
        moved.nodes.insert(1, serde_json::from_value(node("n::sink::0", "sink", &["n::source::0"], false, "upsert kafka n")).unwrap());
        moved.application_digest = "a2".into();
        let d = crate::upgrade::diff(Some(&old), &moved, &[]);
        assert_eq!(d.verdict, Classification::Compatible, "{:?}", d.models);
        let mut want = desired(&moved, true);
        want.pins = Ok(pins(&moved));
        // Recorded without pins (an older streamform): the topology rule, a rebuild.
        let plan = deploy_plan(&want, &running(&old), &d);
        assert_eq!(plan.action, DeployAction::Rebuild);
        assert!(plan.notes[0].contains("moves the job's operators"), "{:?}", plan.notes);
        assert!(flink_mapping(&want, running(&old).recorded.as_ref()).pinned, "a rebuild pins the new job");
        // Recorded with pins: node by node, an upgrade.
        let mut obs = running(&old);
        obs.recorded.as_mut().unwrap().pins = Some(pins(&old));
        let plan = deploy_plan(&want, &obs, &d);
        assert_eq!((plan.action, plan.verdict), (DeployAction::Upgrade, Some(d.verdict)), "{:?}", plan.notes);
        // The new plan cannot be pinned: the savepoint's uids match nothing.
        want.pins = Err("Flink's rank (ExecNode 3) is not mapped".into());
        let plan = deploy_plan(&want, &obs, &d);
        assert_eq!((plan.action, plan.verdict), (DeployAction::Rebuild, Some(Classification::BackfillRequired)));
        assert!(plan.notes[0].contains("Flink's new plan cannot be pinned: Flink's rank"), "{:?}", plan.notes);
        // Unpinned and the same graph: restored, submitted as SQL again.
        let mut same = v1();
        same.nodes[2].definition = "upsert kafka out-v2".into();
        let mut w = desired(&same, true);
        w.pins = Ok(pins(&same));
        let m = flink_mapping(&w, running(&old).recorded.as_ref());
        assert_eq!((m.pinned, m.lost), (false, None));
    }

    fn sink(model: &str, materialized: &str) -> SinkFacts {
        SinkFacts { model: model.into(), connector: "kafka".into(), writes: format!("{model}-topic"), materialized: materialized.into(), delivery: "at-least-once".into() }
    }

    #[test]
    fn each_sink_is_told_what_it_sees_and_where_the_cutover_is() {
        let old = v1();
        let mut new = v1();
        new.nodes[2].definition = "upsert kafka out-v2".into();
        new.application_digest = "a2".into();
        let mut want = desired(&new, true);
        want.savepoint_dir = Some("/sp");
        want.sinks = vec![sink("m", "upsert"), sink("fresh", "append")];
        fn replays(p: &DeployPlan) -> Vec<(&str, Replay, Option<RebuiltKeys>)> {
            p.sinks.iter().map(|s| (s.model.as_str(), s.replay, s.rebuilt_keys)).collect()
        }
        // An upgrade: the existing sink continues, a new one gets no history.
        let up = deploy_plan(&want, &running(&old), &crate::upgrade::diff(Some(&old), &new, &[]));
        assert_eq!(up.action, DeployAction::Upgrade);
        assert_eq!(replays(&up), vec![("m", Replay::None, None), ("fresh", Replay::NoHistory, None)]);
        assert_eq!(up.cutover, Some(PlannedCutover { savepoint: None, savepoint_dir: Some("/sp".into()), restored: true, startup: "earliest-offset".into() }));
        // A rebuild: everything replays; the upsert sink is overwritten, its stale keys kept.
        // (Flink's new plan cannot be pinned while the running job's was.)
        let mut want = desired(&new, true);
        want.savepoint_dir = Some("/sp");
        want.sinks = vec![sink("m", "upsert"), sink("log", "append")];
        let mut old = old.clone();
        old.models.push(crate::manifest::ModelEntry { name: "log".into(), materialized: "append".into(), key: vec![], output: "log::sink::0".into() });
        old.nodes.push(serde_json::from_value(node("log::sink::0", "sink", &["m::source::0"], false, "kafka log")).unwrap());
        let mut obs = running(&old);
        obs.recorded.as_mut().unwrap().pins = Some(pins(&old));
        let d = crate::upgrade::diff(Some(&old), &new, &[]);
        let rebuilt = deploy_plan(&want, &obs, &d);
        assert_eq!(rebuilt.action, DeployAction::Rebuild);
        assert_eq!(replays(&rebuilt), vec![("m", Replay::FromStartup, Some(RebuiltKeys::OverwriteKeepStale)), ("log", Replay::FromStartup, None)]);
        assert!(rebuilt.sinks[0].text.contains("overwritten, not retracted") && rebuilt.sinks[1].text.contains("written again: duplicates"), "{:?}", rebuilt.sinks);
        // A sink the old job did not have replays too, but to it nothing is a duplicate.
        want.sinks.push(sink("fresh", "append"));
        assert!(deploy_plan(&want, &obs, &d).sinks[2].text.ends_with("a new sink: its first records, not duplicates"));
        want.sinks.pop();
        assert!(rebuilt.cutover.as_ref().is_some_and(|c| !c.restored));
        // From latest-offset a rebuild replays nothing and skips what is produced meanwhile.
        want.startup = "latest-offset";
        assert_eq!(deploy_plan(&want, &obs, &d).sinks[1].replay, Replay::Gap);
        // A plan without sinks serializes as before they were added.
        let plain = serde_json::to_value(deploy_plan(&desired(&new, false), &Observed::default(), &d)).unwrap();
        assert!(plain.get("sinks").is_none() && plain.get("cutover").is_none(), "{plain}");
    }

    #[test]
    fn a_changed_precondition_makes_a_saved_plan_stale() {
        let old = v1();
        let d = crate::upgrade::diff(Some(&old), &old, &[]);
        let saved = deploy_plan(&desired(&old, true), &running(&old), &d);
        let mut stopped = running(&old);
        stopped.running = None;
        stopped.savepoint = Some("file:/sp".into());
        let fresh = deploy_plan(&desired(&old, true), &stopped, &d);
        assert_eq!(staleness(&saved, &fresh).as_deref(), Some("what runs on the target changed since the plan was made"));
        assert_eq!(staleness(&saved, &saved), None);
        let mut edited = saved.clone();
        edited.action = DeployAction::Rebuild;
        assert!(read_deploy_plan(&serde_json::to_string(&edited).unwrap()).unwrap_err().contains("the file was edited"));
    }
}
