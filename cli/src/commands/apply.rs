//! `apply`: deploy the project to a target through its Flink SQL Gateway.
//!
//! It observes the target, makes the deploy plan (or reads `--plan FILE`
//! and refuses it when it is stale or edited), prints it, refuses a plan
//! that loses state without `--allow-state-loss`, asks on a terminal unless
//! `--yes`, then: stops the running job (with a savepoint when it
//! restores), submits the script (DDL, then `EXECUTE STATEMENT SET` with
//! `pipeline.name` and `execution.state-recovery.path` in that statement's
//! `executionConfig`), waits until the job runs, and writes the applied
//! record. Each step is a journal transition, written atomically.

use std::io::{BufRead, IsTerminal};
use std::time::Instant;

use serde_json::{json, Map, Value};
use streamform::backend::flink::{flink_script, reveal, TargetName};
use streamform::deploy::{read_deploy_plan, rollback_refusal, staleness, DeployAction, DeployPlan};
use streamform::identity::digest::{sha256_hex, short};
use streamform::manifest::{manifest, Manifest};
use streamform::upgrade::reader::{AppliedRecord, RECORD_VERSION};
use streamform::upgrade::{diff, hints_of};

use super::plan::{deploy_lines, make_deploy_plan, observed_lines};
use crate::deploy::cutover::read_cutover;
use crate::deploy::flink::{self, Session};
use crate::deploy::uids::{clear_pins, prune_plans, write_pins, PinnedPlan, RevealedPlan, UidsRecord, UIDS_VERSION};
use crate::deploy::{now_utc, observe, savepoint_writer, statements, read_journal, write_json, Attempt, JournalEntry, Journaled, Lock, Target, STREAMFORM_VERSION};
use crate::out::{eprint, print};
use crate::render::plan::{text, Header};

pub struct Args {
    pub project: String,
    pub target: Option<String>,
    pub plan: Option<String>,
    pub yes: bool,
    pub allow_state_loss: bool,
    /// Roll back to this savepoint (`--from-savepoint`).
    pub from_savepoint: Option<String>,
}

fn fail(msg: &str) -> u8 {
    eprint(&format!("error: {msg}\n"));
    2
}

// Whole: apply is one sequence of checks, then one of steps, each journaled;
// splitting it would scatter the order the journal documents.
pub fn run(a: &Args) -> u8 {
    let (loaded, config, t) = match super::open_target(&a.project, a.target.as_deref(), "applying") {
        Ok(x) => x,
        Err(code) => return code,
    };
    let name = t.name.clone();
    let _ = std::fs::create_dir_all(t.journal_dir());
    let desired: Manifest = match manifest(&loaded.db, loaded.project) {
        Ok(m) => m.to_manifest(),
        Err(_) => return fail("the project does not plan; run `streamform check`"),
    };
    let script = match flink_script(&loaded.db, loaded.project, loaded.env, TargetName::new(&loaded.db, name.clone())) {
        Ok(s) => s.clone(),
        Err(_) => return fail("the flink backend cannot run this application; run `streamform build --backend flink` to see why"),
    };
    let artifact = sha256_hex(&script.text);
    // A saved plan is refused before anything is observed when it was
    // edited, or made from another project or for another target.
    let saved = match &a.plan {
        None => None,
        Some(file) => match std::fs::read_to_string(file).map_err(|e| e.to_string()).and_then(|s| read_deploy_plan(&s)) {
            Ok(p) => {
                if p.target != name {
                    return fail(&stale(file, &name, &format!("it was made for target `{}`", p.target)));
                }
                if p.application_digest != desired.application_digest || p.artifact_digest != artifact {
                    return fail(&stale(file, &name, "the project changed since the plan was made"));
                }
                Some(p)
            }
            Err(e) => return fail(&format!("could not use the plan {file}: {e}; nothing was submitted")),
        },
    };
    // A journal entry that cannot be read might hold the savepoint to
    // restore: refuse rather than guess. (A temporary file is only a write
    // a crash interrupted; the entry it was replacing is intact.)
    let (_, unreadable) = read_journal(&t);
    if let Some(bad) = unreadable.iter().find(|u| !u.contains("a temporary file")) {
        return fail(&format!("the journal of target `{name}` has an entry that cannot be read, so nothing was submitted: {bad}\nhelp: restore the file from a backup, or move it away once you know what it recorded"));
    }
    // A rollback is refused before anything is observed when the journal
    // does not know its savepoint or the project is not its application.
    let rollback = match &a.from_savepoint {
        None => None,
        Some(sp) => match rollback_to(&t, &desired, &artifact, sp) {
            Ok(rb) => Some(rb),
            Err(e) => {
                let (why, help) = e.split_once("\nhelp: ").unwrap_or((&e, ""));
                return fail(&format!("{why}; nothing was submitted\nhelp: {help}"));
            }
        },
    };
    let _lock = match Lock::take(&t) {
        Ok(l) => l,
        Err(e) => return fail(&e),
    };
    let mut obs = match observe(&t) {
        Ok(o) => o,
        Err(e) => return fail(&format!("could not observe target `{name}`, so nothing was submitted: {}", e.message)),
    };
    if let Err(e) = &obs.pins {
        return fail(&format!("could not read the uids record of target `{name}`, so nothing was submitted: {e}"));
    }
    obs.rollback = rollback;
    // A rollback restores the state of the job that wrote the savepoint:
    // what changes is classified against that job's application.
    let against_manifest = obs.rollback.as_ref().map(|r| &r.manifest).or(obs.record.as_ref().map(|r| &r.manifest));
    let d = diff(against_manifest, &desired, &hints_of(&config));
    let (plan, pinned, mapping) = make_deploy_plan(&t, &config, &desired, &script.text, &obs, &d);
    let pinned = match &obs.rollback {
        // Pinned exactly when the savepoint's job was.
        Some(rb) => pinned.filter(|_| rb.pins.is_some()),
        None => pinned.filter(|_| mapping.pinned),
    };

    // The plan to apply: the one just made, or the saved one if it still holds.
    if let (Some(file), Some(saved)) = (&a.plan, &saved) {
        if let Some(why) = staleness(saved, &plan) {
            return fail(&stale(file, &name, &why));
        }
    }
    let running_text = match &obs.record {
        None => format!("nothing is recorded as applied to target `{name}`; the application starts fresh"),
        Some(r) => format!("applied {} by streamform {}, job {}, application digest {}", r.applied_at, r.streamform_version, r.jobs.join(", "), short(&r.manifest.application_digest)),
    };
    let against = format!("target `{name}`");
    let header = Header { project: &config.name, against: &against, running: &running_text, desired_digest: &desired.application_digest, decided_here: true };
    print(&text(&header, &d));
    print(&observed_lines(&t, &obs));
    print(&deploy_lines(&plan));

    if plan.action == DeployAction::NoOp {
        print(&format!("ok: target `{name}` runs this application; nothing was submitted\n"));
        return 0;
    }
    if plan.loses_state() && obs.record.is_some() && !a.allow_state_loss {
        let v = plan.verdict.map(|v| v.as_str()).unwrap_or("rebuild");
        return fail(&format!("the plan is {v}: applying it discards state, so nothing was submitted\nhelp: apply with `--allow-state-loss` to start that state empty"));
    }
    if !a.yes && std::io::stdin().is_terminal() {
        eprint(&format!("apply this plan to target `{name}`? [y/N] "));
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        if !matches!(line.trim(), "y" | "yes") {
            eprint("nothing was submitted\n");
            return 1;
        }
    }
    let how = Submission { pinned: pinned.as_ref(), ignore_unclaimed: !mapping.dropped.is_empty() && obs.rollback.is_none(), rollback: obs.rollback.is_some() };
    execute(&t, &plan, &desired, &script.text, &obs, &how)
}

/// The journaled savepoint to roll back to, refused unless the project is
/// the application whose job wrote it.
fn rollback_to(t: &Target, desired: &Manifest, artifact: &str, savepoint: &str) -> Result<crate::deploy::RollbackFrom, String> {
    let rb = savepoint_writer(t, savepoint)?;
    match rollback_refusal(desired, artifact, &rb.rollback) {
        None => Ok(rb),
        Some(why) => Err(format!("cannot roll back to it: {why}\nhelp: check out the version of the project that job ran (its journal entry names the application digest), then apply with `--from-savepoint {savepoint}` again")),
    }
}

/// How the job is submitted: from the pinned plan, or as SQL.
struct Submission<'a> {
    pinned: Option<&'a PinnedPlan>,
    /// Restore although the new job claims not all of the savepoint's state.
    ignore_unclaimed: bool,
    /// Restore the plan's savepoint (`--from-savepoint`), not the stop's.
    rollback: bool,
}

fn stale(file: &str, target: &str, why: &str) -> String {
    format!("the plan {file} is stale: {why}; nothing was submitted\nhelp: make a new one with `streamform plan --target {target} --out {file}`")
}

/// The steps, each journaled: stop, submit, wait until running, record.
fn execute(t: &Target, plan: &DeployPlan, desired: &Manifest, script: &str, obs: &crate::deploy::Observation, how: &Submission) -> u8 {
    let name = &t.name;
    let record = obs.record.as_ref();
    let operation = match plan.action {
        DeployAction::Rebuild => "rebuild",
        DeployAction::Restore => "restore",
        DeployAction::Upgrade => "upgrade",
        _ => "apply",
    };
    let mut entry = JournalEntry::begin(
        t,
        Attempt { operation, artifact_digest: plan.artifact_digest.clone(), job_name: plan.job_name.clone(), application_digest: plan.application_digest.clone(), flink_version: obs.flink_version.clone(), manifest: desired.clone() },
    );
    entry.plan = Some(plan.plan_id.clone());
    entry.replaces = plan.preconditions.running.first().map(|j| j.job_id.clone());
    entry.previous_artifact = record.and_then(|r| r.artifact_digest.clone());
    entry.savepoint = plan.preconditions.savepoint.clone();
    let failed = |entry: &mut JournalEntry, problem: String, help: &str| -> u8 {
        // What the parts answer may echo what they were sent.
        let problem = t.redact(&problem);
        entry.problem = Some(problem.clone());
        let _ = entry.step(t, "failed", None);
        eprint(&format!("error: apply to target `{name}` failed: {problem}\n{help}"));
        1
    };
    if let Err(e) = entry.step(t, "prepared", Some(format!("action {}", plan.action.as_str()))) {
        return fail(&e);
    }

    // Stop what runs; keep its state when the new job restores it.
    if let Some(job) = plan.preconditions.running.first() {
        let _ = entry.step(t, "stopping", Some(format!("job {}", job.job_id)));
        let started = Instant::now();
        let stopped = if plan.action.restores() || t.flink.savepoint_dir.is_some() {
            super::stop::stop_with_savepoint(t, &job.job_id).map(Some)
        } else {
            super::stop::cancel(t, &job.job_id).map(|()| None)
        };
        match stopped {
            Ok(sp) => {
                entry.savepoint = sp;
                let _ = entry.step(t, "stopped", Some(format!("took {:.1}s", started.elapsed().as_secs_f64())));
                // Said now: it holds whether or not the submission succeeds.
                if plan.action == DeployAction::Rebuild {
                    if let Some(sp) = &entry.savepoint {
                        print(&rollback_line(t, &format!("job {}'s", job.job_id), sp, &entry.attempt));
                    }
                }
            }
            Err(e) => return failed(&mut entry, format!("could not stop job {}: {e}", job.job_id), "help: the old job keeps running; nothing was submitted\n"),
        }
    }
    if let (DeployAction::Rebuild, None, Some(sp)) = (plan.action, plan.preconditions.running.first(), &entry.savepoint) {
        print(&rollback_line(t, "the stopped job's", sp, &entry.attempt));
    }
    let restore_from = match (plan.action.restores(), how.rollback) {
        (true, true) => plan.preconditions.savepoint.clone(),
        (true, false) => entry.savepoint.clone(),
        (false, _) => None,
    };

    // The cutover: the savepoint the new job restores, or the one a rebuild
    // leaves behind, with the source offsets it holds.
    if let Some(sp) = restore_from.as_ref().or(entry.savepoint.as_ref()) {
        let c = read_cutover(sp);
        print(&format!("cutover: savepoint {sp}; source offsets: {}\n", c.offsets_text()));
        entry.cutover = Some(c);
    }

    // Submit.
    let _ = entry.step(t, "submitting", restore_from.as_ref().map(|s| format!("restoring {s}")));
    let started = Instant::now();
    let job_id = match submit(t, plan, script, restore_from.as_deref(), how) {
        Ok(id) => id,
        Err(e) => {
            let help = match &entry.savepoint {
                Some(sp) => format!("help: the old job is stopped; its savepoint {sp} is kept, and `streamform apply` restores from it once the cause is fixed\n"),
                None => String::new(),
            };
            return failed(&mut entry, e, &help);
        }
    };
    entry.job_id = Some(job_id.clone());
    let uids = match how.pinned {
        Some(p) => format!("uids pinned to Streamform's nodes ({} operators, plan {})", p.pins.len(), p.file),
        None => "uids follow the topology".to_string(),
    };
    let _ = entry.step(t, "submitted", Some(format!("job {job_id} after {:.1}s; {uids}", started.elapsed().as_secs_f64())));

    // Running, and restored from what it was given.
    let restored;
    if let Some(jm) = &t.jobmanager {
        if let Err(e) = flink::wait_running(jm, &job_id) {
            return failed(&mut entry, e, "");
        }
        restored = flink::restored_from(jm, &job_id).ok().flatten();
        if let (Some(want), got) = (&restore_from, &restored) {
            if got.as_deref() != Some(want.as_str()) {
                return failed(&mut entry, format!("job {job_id} runs but did not restore {want} (Flink reports {})", got.as_deref().unwrap_or("no restore")), "");
            }
        }
    } else {
        restored = restore_from.clone();
    }
    entry.restored_from = restored.clone();
    let rec = AppliedRecord {
        record_version: RECORD_VERSION,
        target: name.clone(),
        applied_at: now_utc(),
        streamform_version: STREAMFORM_VERSION.to_string(),
        backend: "flink".to_string(),
        jobs: vec![job_id.clone()],
        job_name: Some(plan.job_name.clone()),
        attempt: Some(entry.attempt.clone()),
        artifact_digest: Some(plan.artifact_digest.clone()),
        restored_from: restored.clone(),
        cutover: entry.cutover.clone(),
        manifest: desired.clone(),
    };
    if let Err(e) = write_json(&t.applied_path(), &rec) {
        return failed(&mut entry, e, "");
    }
    match how.pinned {
        Some(p) => {
            let r = UidsRecord { uids_version: UIDS_VERSION, attempt: entry.attempt.clone(), job_id: job_id.clone(), plan: p.file.to_string(), pins: p.pins.clone() };
            if let Err(e) = write_pins(t, &r) {
                return failed(&mut entry, e, "");
            }
        }
        None => clear_pins(t),
    }
    let (_, problems) = prune_plans(t, how.pinned.map(|p| p.file.as_str()));
    for p in problems {
        eprint(&format!("warning: {p}\n"));
    }
    let verified = if t.jobmanager.is_some() { "running" } else { "submitted; its tasks are not checked (the target names no `flink.rest`)" };
    let _ = entry.step(t, "running", None);
    match restored {
        Some(sp) => print(&format!("ok: job {job_id} on target `{name}` is {verified}, restored from {sp}\n")),
        None => print(&format!("ok: job {job_id} on target `{name}` is {verified}\n")),
    }
    0
}

/// Where a rebuild keeps the old job's state, and the command back to it.
fn rollback_line(t: &Target, whose: &str, sp: &str, attempt: &str) -> String {
    format!(
        "rollback: {whose} state is kept in savepoint {sp} (journal {}/{attempt}.json); to return to it, check out the version of the project it ran and run `streamform apply --target {} --from-savepoint {sp}`\n",
        t.journal_dir(),
        t.name
    )
}

/// Opens a session, runs the DDL, submits the statement set with this
/// statement's configuration, reads the job id and closes the session.
fn submit(t: &Target, plan: &DeployPlan, script: &str, restore_from: Option<&str>, how: &Submission) -> Result<String, String> {
    let session = Session::open(&t.gateway, &plan.job_name, &json!({"table.local-time-zone": "UTC"})).map_err(|e| e.message().to_string())?;
    // The secrets, in memory only: in the statements sent, and in the
    // transient copy of the pinned plan (removed when this returns).
    let live = reveal(script, &t.secrets);
    let stmts = statements(&live);
    let Some((set, ddl)) = stmts.split_last() else { return Err("the script has no statements".to_string()) };
    for s in ddl {
        let first = s.lines().next().unwrap_or("");
        session.execute(s, None).map_err(|e| format!("`{first}` failed: {e}"))?;
    }
    let mut config = Map::new();
    config.insert("pipeline.name".into(), Value::from(plan.job_name.clone()));
    if let Some(sp) = restore_from {
        config.insert("execution.state-recovery.path".into(), Value::from(sp));
    }
    if let Some(i) = t.flink.checkpoint_interval {
        config.insert("execution.checkpointing.interval".into(), Value::from(format!("{}ms", i.millis())));
    }
    if how.ignore_unclaimed && restore_from.is_some() {
        config.insert("execution.state-recovery.ignore-unclaimed-state".into(), Value::from("true"));
    }
    let revealed = match how.pinned {
        Some(p) => Some(RevealedPlan::write(p, &t.secrets)?),
        None => None,
    };
    let statement = match &revealed {
        Some(r) => format!("EXECUTE PLAN 'file://{}'", r.file()),
        None => set.clone(),
    };
    let rows = session.execute(&statement, Some(&Value::Object(config)));
    drop(revealed);
    let rows = rows.map_err(|e| format!("the statement set was not submitted: {e}"))?;
    session.close();
    rows.first("job id").or(rows.job_id).ok_or_else(|| "the gateway returned no job id".to_string())
}
