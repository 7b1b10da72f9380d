//! `plan`: compare the running plan with the project's and classify every
//! change.
//!
//! The running plan is `--against FILE` (a plan manifest or an applied
//! record, digests verified), or what `apply` recorded for the target in
//! `.streamform/applied/<target>.json` (none: a first deploy). Exit 0 when
//! the verdict is SAFE or COMPATIBLE, 1 when state needs work, 2 when the
//! plan cannot be made.

use std::fs;

use camino::Utf8Path;
use streamform::driver::Work;
use streamform::identity::digest::short;
use streamform::manifest::manifest;
use streamform::upgrade::document::document;
use streamform::upgrade::reader::{read_running, RunningDoc};
use streamform::upgrade::{artifact_note, diff, hints_of};
use streamform::project::project_config;
use streamform::backend::flink::{flink_script, TargetName};
use streamform::backend::flink::ddl::startup_mode;
use streamform::deploy::{deploy_plan, flink_mapping, sink_facts, DeployAction, DeployPlan, Desired, FlinkMapping};
use streamform::identity::digest::sha256_hex;
use streamform::manifest::Manifest;
use streamform::upgrade::PlanDiff;

use super::inspect::whole_manifest_error;
use crate::deploy::uids::{compile_pinned, PinnedPlan};
use crate::deploy::{now_utc, observe, write_json, Observation, Target, STREAMFORM_VERSION};
use streamform::config::project::ProjectConfig;
use crate::out::{eprint, print, print_text};
use crate::render::json::to_pretty_json;
use crate::render::plan::{text, Header};

pub struct Args {
    pub project: String,
    pub target: Option<String>,
    pub against: Option<String>,
    pub json: bool,
    /// Write the deploy plan here (needs a reachable target).
    pub out: Option<String>,
}

/// Where applied records live, per target.
pub const APPLIED_DIR: &str = ".streamform/applied";

/// Reads and verifies a running plan; prints why not.
fn read_doc(path: &str) -> Result<RunningDoc, ()> {
    let text = fs::read_to_string(path).map_err(|e| eprint(&format!("error: could not use {path}: {e}\n")))?;
    read_running(&text).map_err(|e| eprint(&format!("error: could not use {path}: {e}\n")))
}

/// `running: …` for a record, a file, or nothing.
fn running_line(doc: Option<&RunningDoc>, file: &str, target: Option<&str>) -> String {
    match doc {
        None => format!("nothing is recorded as applied to target `{}`; the application starts fresh", target.unwrap_or("")),
        Some(RunningDoc::Manifest(m)) => format!("{file}, application digest {}", short(&m.application_digest)),
        Some(RunningDoc::Record(r)) => {
            let jobs = match r.jobs.as_slice() {
                [] => String::new(),
                [one] => format!("job {one}, "),
                many => format!("jobs {}, ", many.join(", ")),
            };
            format!("applied {} by streamform {}, {jobs}application digest {}", r.applied_at, r.streamform_version, short(&r.manifest.application_digest))
        }
    }
}

pub fn run(a: &Args) -> u8 {
    let loaded = match super::load_checked_past_fixtures(&a.project, "planning", Work::All) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let Ok(config) = project_config(&loaded.db, loaded.project).clone() else { return 2 };

    // What runs.
    let (target, file, running) = match &a.against {
        Some(file) => match read_doc(file) {
            Ok(doc) => (None, file.clone(), Some(doc)),
            Err(()) => return 2,
        },
        None => {
            let target = match config.select_target(a.target.as_deref(), "add a `targets:` section, or compare with a manifest using `--against FILE`") {
                Ok(t) => t,
                Err(msg) => {
                    eprint(&format!("error: {msg}\n"));
                    return 2;
                }
            };
            let path = Utf8Path::new(&a.project).join(APPLIED_DIR).join(format!("{target}.json"));
            let running = if path.is_file() {
                match read_doc(path.as_str()) {
                    Ok(doc) => {
                        if let Some(r) = doc.record().filter(|r| r.target != target) {
                            eprint(&format!("error: could not use {path}: it records target `{}`, not `{target}`\n", r.target));
                            return 2;
                        }
                        Some(doc)
                    }
                    Err(()) => return 2,
                }
            } else {
                None
            };
            (Some(target), path.to_string(), running)
        }
    };

    // What the project compiles to.
    let desired = match manifest(&loaded.db, loaded.project) {
        Ok(m) => m.to_manifest(),
        Err(e) => {
            whole_manifest_error(&loaded, e);
            return 2;
        }
    };

    // The script the target would run, and its digest (the artifact).
    let resolved = match target.as_deref().map(|t| super::resolve_target(&loaded, t)).transpose() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let script = target.as_deref().and_then(|t| flink_script(&loaded.db, loaded.project, loaded.env, TargetName::new(&loaded.db, t.to_string())).as_ref().ok().cloned());
    let desired_artifact: Option<String> = script.as_ref().map(|s| sha256_hex(&s.text));
    let mut d = diff(running.as_ref().map(|r| r.manifest()), &desired, &hints_of(&config));
    let running_artifact = running.as_ref().and_then(|r| r.record()).and_then(|r| r.artifact_digest.as_deref());
    d.notices.extend(artifact_note(running_artifact, desired_artifact.as_deref(), &d));

    // Observing the target: with `--out` (the gateway must answer), and
    // with `--target` naming a Flink target, so that `plan --target` gives
    // the deploy plan's verdict, as `plan --out` and `apply` do.
    let flink = resolved.as_ref().and_then(|r| r.target.flink.clone());
    let observe_now = target.is_some() && (a.out.is_some() || (a.target.is_some() && flink.is_some()));
    let doc = document(&d, target.as_deref(), running.as_ref(), &desired.application_digest);
    // Observed, the JSON document also holds the deploy plan (`deploy`),
    // so it is printed once that is made; else now, as before.
    let print_doc = |deploy: Option<&DeployPlan>| match deploy {
        None => print(&to_pretty_json(&doc)),
        Some(p) => print(&to_pretty_json(&Observed { doc: &doc, deploy: p })),
    };
    if a.json && !observe_now {
        print_doc(None);
    } else if a.json {
    } else {
        let against = match (&a.against, &target) {
            (Some(f), _) => f.clone(),
            (None, Some(t)) => format!("target `{t}`"),
            (None, None) => String::new(),
        };
        let running_text = running_line(running.as_ref(), &file, target.as_deref());
        let header = Header { project: &config.name, against: &against, running: &running_text, desired_digest: &desired.application_digest, decided_here: observe_now };
        print_text(&text(&header, &d));
    }

    let Some(name) = target.as_deref() else { return d.verdict.exit_code() };
    if !observe_now {
        return d.verdict.exit_code();
    }
    let what = if a.out.is_some() { "so no plan was written" } else { "so what runs is unknown" };
    let Some(flink) = flink else {
        if a.json {
            print_doc(None);
        }
        eprint(&format!("error: could not observe target `{name}`, {what}: it declares no `flink:` section\n"));
        return 2;
    };
    let t = Target::new(&loaded.root, &config.name, name, &flink);
    let obs = match observe(&t) {
        Ok(o) => o,
        Err(e) => {
            if a.json {
                print_doc(None);
            }
            eprint(&format!("error: could not observe target `{name}`, {what}: {}\n", e.message));
            return 2;
        }
    };
    // The running job's state maps by its pins: without them, no verdict.
    if let Err(e) = &obs.pins {
        if a.json {
            print_doc(None);
        }
        let what = if a.out.is_some() { what } else { "so how the running job's state maps is unknown" };
        eprint(&format!("error: could not read the uids record of target `{name}`, {what}: {e}\n"));
        return 2;
    }
    if !a.json {
        print(&observed_lines(&t, &obs));
    }
    // Once the target is observed, `plan --target` decides exactly as
    // `plan --out` and `apply` do (the same deploy plan, from Flink's
    // compiled plan), so the two never disagree; `--out` also writes it.
    let Some(script) = script.as_ref() else {
        if a.json {
            print_doc(None);
        }
        let what = if a.out.is_some() { "no plan was written" } else { "there is no deploy plan" };
        eprint(&format!("error: {what}: the flink backend cannot run this application; run `streamform build --backend flink` to see why\n"));
        return 2;
    };
    let (plan, _, _) = make_deploy_plan(&t, &config, &desired, &script.text, &obs, &d);
    if a.json {
        print_doc(Some(&plan));
    } else {
        print(&deploy_lines(&plan));
    }
    if let Some(out) = a.out.as_deref() {
        if let Err(e) = write_json(Utf8Path::new(out), &plan) {
            eprint(&format!("error: {e}\n"));
            return 2;
        }
        if !a.json {
            print(&format!("ok: deploy plan {} written to {out}\n", short(&plan.plan_id)));
        }
    }
    plan.verdict.map(|v| v.exit_code()).unwrap_or(0)
}

/// The deploy plan for what was observed on `t`, and the pinned compiled
/// plan when Flink's plan maps onto Streamform's nodes.
pub fn make_deploy_plan(t: &Target, config: &ProjectConfig, desired: &Manifest, script: &str, obs: &Observation, d: &PlanDiff) -> (DeployPlan, Option<PinnedPlan>, FlinkMapping) {
    let now = now_utc();
    let job_name = t.job_name();
    let artifact = sha256_hex(script);
    let hints = hints_of(config);
    let stmts = crate::deploy::statements(script);
    let compiled = match stmts.split_last() {
        Some((set, ddl)) => {
            // A rollback's uids are the ones the savepoint's job had.
            let running = match &obs.rollback {
                Some(rb) => rb.pins.as_deref().map(|p| (&rb.manifest, p)),
                None => obs.record.as_ref().zip(obs.pins.as_ref().ok().and_then(|p| p.as_deref())).map(|(r, p)| (&r.manifest, p)),
            };
            compile_pinned(t, config, desired, ddl, set, running)
        }
        None => Err("the script has no statements".to_string()),
    };
    let want = Desired {
        application: &config.name,
        target: &t.name,
        streamform_version: STREAMFORM_VERSION,
        created_at: &now,
        manifest: desired,
        artifact_digest: &artifact,
        job_name: &job_name,
        can_savepoint: t.flink.savepoint_dir.is_some(),
        pins: compiled.as_ref().map(|c| c.pins.clone()).map_err(|e| e.clone()),
        hints: &hints,
        sinks: config.targets.iter().find(|x| x.name == t.name).map(|x| sink_facts(config, x)).unwrap_or_default(),
        startup: config.targets.iter().find(|x| x.name == t.name).map(startup_mode).unwrap_or("earliest-offset"),
        savepoint_dir: t.flink.savepoint_dir.as_deref(),
    };
    let facts = obs.facts();
    let mapping = flink_mapping(&want, facts.recorded.as_ref());
    (deploy_plan(&want, &facts, d), compiled.ok(), mapping)
}

/// What the target runs, as observed (one line per recorded job).
pub fn observed_lines(t: &Target, obs: &Observation) -> String {
    let mut out = String::new();
    for j in &obs.jobs {
        let state = j.flink_state.as_deref().unwrap_or("unknown to Flink");
        out.push_str(&format!("observed: job {} on target `{}` is {state}", j.job_id, t.name));
        if let Some(sp) = &j.restored_from {
            out.push_str(&format!(", restored from {sp}"));
        }
        out.push('\n');
    }
    if let Some(stop) = obs.facts().savepoint {
        out.push_str(&format!("observed: stopped with savepoint {stop}\n"));
    }
    out
}

/// The deploy plan in words: its action, then its notes.
pub fn deploy_lines(plan: &DeployPlan) -> String {
    let job = plan.preconditions.running.first().map(|j| j.job_id.as_str());
    let sp = plan.preconditions.savepoint.as_deref();
    let what = match (plan.action, job) {
        (DeployAction::NoOp, _) => "the recorded application runs; nothing to do".to_string(),
        (DeployAction::Initial, _) => "submit the application; its state starts empty".to_string(),
        // A rollback: the running job's savepoint is not the one restored.
        (DeployAction::Restore, Some(j)) if sp.is_some() => format!("stop job {j} with a savepoint, then submit the application restored from savepoint {}", sp.unwrap_or("?")),
        (DeployAction::Upgrade | DeployAction::Restore, Some(j)) => format!("stop job {j} with a savepoint, then submit the application restored from it"),
        (DeployAction::Upgrade | DeployAction::Restore, None) => format!("submit the application restored from savepoint {}", sp.unwrap_or("?")),
        (DeployAction::Rebuild, Some(j)) => format!("stop job {j}, then submit the application with empty state"),
        (DeployAction::Rebuild, None) => "submit the application with empty state".to_string(),
    };
    let mut out = format!("deploy: {}: {what}\n", plan.action.as_str());
    for n in &plan.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if let Some(c) = &plan.cutover {
        let sp = match (&c.savepoint, &c.savepoint_dir) {
            (Some(sp), _) => format!("savepoint {sp}"),
            (None, Some(dir)) => format!("the savepoint the stop takes in {dir}"),
            (None, None) => "no savepoint".to_string(),
        };
        let after = if c.restored { "the new job's sources resume there".to_string() } else { format!("the new job does not restore it: its sources read from {}", c.startup) };
        out.push_str(&format!("cutover: {sp}; apply records the source offsets it holds; {after}\n"));
    }
    for s in &plan.sinks {
        out.push_str(&format!("sink: {} ({} {} {}, {}): {}\n", s.model, s.materialized, s.connector, s.writes, s.delivery, s.text));
    }
    out
}

/// `plan --json` once the target is observed: the diff document, then the
/// deploy plan `plan --out` writes and `apply` carries out.
#[derive(serde::Serialize)]
struct Observed<'a, D: serde::Serialize> {
    #[serde(flatten)]
    doc: &'a D,
    deploy: &'a DeployPlan,
}
