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
    };
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

/// Reads a saved deploy plan and checks its id: an edited plan is refused.
pub fn read_deploy_plan(text: &str) -> Result<DeployPlan, String> {
    let plan: DeployPlan = serde_json::from_str(text).map_err(|e| format!("it is not a deploy plan: {e}"))?;
    if plan.deploy_plan_version != DEPLOY_PLAN_VERSION {
        return Err(format!("the deploy plan is format version {}; this build reads version {DEPLOY_PLAN_VERSION}", plan.deploy_plan_version));
    }
    let digest = plan.digest();
    if plan.plan_id != digest {
        return Err(format!("its plan_id {} does not match its contents (digest {}); the file was edited", plan.plan_id, digest));
    }
    Ok(plan)
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
        Desired { application: "app", target: "dev", streamform_version: "0", created_at: "t", manifest: m, artifact_digest: "art2", job_name: "j", can_savepoint, pins: Err("not compiled".into()), hints: &[] }
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
