//! `status`: what runs on a target. The applied record, each recorded job
//! per the JobManager (or the gateway without `flink.rest`), the savepoint
//! it restored from, whether it runs the project's application, the last
//! stop's savepoint, and every journal attempt that did not settle.
//! Exit 0 when every recorded job runs, 1 when not, 2 when a part of the
//! target cannot be reached.

use serde_json::{json, Value};
use streamform::identity::digest::short;
use streamform::manifest::manifest;

use crate::deploy::uids::{read_pins, uids_path};
use crate::deploy::{observe, observe_job, read_journal, read_record, JobObservation, Target};
use crate::out::print;
use crate::render::json::to_pretty_json;

/// The status document's state of a job, from Flink's.
fn job_state(j: &JobObservation, tasks_checked: bool) -> &'static str {
    match j.flink_state.as_deref() {
        None => "missing",
        Some("RUNNING") if !tasks_checked => "running-unverified",
        Some("RUNNING") => match j.tasks {
            Some((r, n)) if r == n && n > 0 => "running",
            _ => "starting",
        },
        Some("INITIALIZING" | "CREATED" | "RECONCILING") => "starting",
        Some("RESTARTING") => "restarting",
        Some("FAILED" | "FAILING") => "failed",
        Some(_) => "stopped",
    }
}

/// How the recorded job's operator uids were assigned: pinned (the pins
/// recorded for the applied attempt), else by Flink's topology.
fn uids_line(t: &Target, attempt: Option<&str>) -> String {
    match read_pins(t, attempt) {
        Ok(Some(pins)) => {
            let operators = pins.len();
            format!("uids: pinned to Streamform's nodes ({operators} operator{}; {})\n", if operators == 1 { "" } else { "s" }, uids_path(t))
        }
        // `plan` and `apply` refuse until it is mended; `status` says why.
        Err(e) => format!("uids: unknown: {e}\n"),
        Ok(None) => "uids: by Flink's topology (no pins are recorded for the applied attempt): only an unchanged operator graph restores its state\n".to_string(),
    }
}

// Whole: the text and the JSON are one walk over the same observation,
// kept together so they cannot disagree.
/// A job's lines in the text (its state, tasks, restore, failure, and its
/// last checkpoint: text only, as status.json takes no more fields) and
/// its entry in the document.
fn job_report(j: &JobObservation, tasks_checked: bool) -> (String, Value) {
    let state = job_state(j, tasks_checked);
    let mut line = format!("job {}  {state}", j.job_id);
    if let Some((r, n)) = j.tasks {
        line.push_str(&format!("  tasks {r}/{n} running"));
    }
    if let Some(sp) = &j.restored_from {
        line.push_str(&format!("  restored from {sp}"));
    }
    if let Some(f) = &j.failure {
        line.push_str(&format!("  failure: {f}"));
    }
    line.push('\n');
    if state == "missing" {
        line.push_str("  the JobManager does not know it: a JobManager restarted without high availability forgets its jobs; `apply` can then only rebuild, or `apply --from-savepoint` a savepoint streamform took (docs/deploy.md)\n");
    }
    if let Some((id, at)) = j.last_checkpoint {
        line.push_str(&format!("  last checkpoint {id}, completed {} ago\n", age(at)));
    }
    let doc = json!({
        "job_id": j.job_id, "state": state, "recorded": true, "name": j.name, "backend_status": j.flink_state,
        "start_time": j.start_time, "tasks": j.tasks.map(|(r, n)| json!({"running": r, "total": n})), "failure": j.failure,
    });
    (line, doc)
}

/// How long ago epoch-millisecond `at` was, in whole seconds (`4s`, `2m 5s`).
fn age(at: i64) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(at);
    let s = (now - at).max(0) / 1000;
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m {}s", s / 60, s % 60),
        s => format!("{}h {}m", s / 3600, s % 3600 / 60),
    }
}

pub fn run(project: &str, target: Option<&str>, json_out: bool) -> u8 {
    let (loaded, config, t) = match super::open_target(project, target, "checking the status") {
        Ok(x) => x,
        Err(code) => return code,
    };
    let project_digest = manifest(&loaded.db, loaded.project).as_ref().ok().map(|m| m.to_manifest().application_digest);
    let tasks_checked = t.jobmanager.is_some();
    let mut text = format!("status: {} on target `{}`\n", config.name, t.name);
    text.push_str(&match &t.jobmanager {
        Some(jm) => format!("gateway {}; jobmanager {}\n", t.gateway.base, jm.base),
        None => format!("gateway {}; tasks are not checked (the target names no `flink.rest`)\n", t.gateway.base),
    });
    let (journal, unreadable) = read_journal(&t);
    let unresolved: Vec<_> = journal.iter().filter(|e| !e.settled()).collect();
    let record = read_record(&t).ok().flatten();
    match &record {
        Some(r) => text.push_str(&format!(
            "applied {} by streamform {}, job {}, application digest {}\n",
            r.applied_at,
            r.streamform_version,
            r.jobs.join(", "),
            short(&r.manifest.application_digest)
        )),
        None => text.push_str(&format!("nothing is recorded as applied to target `{}`\n", t.name)),
    }
    // Text only: status.json takes no more fields (docs/deploy.md).
    if let Some(r) = &record {
        text.push_str(&uids_line(&t, r.attempt.as_deref()));
    }
    for e in &unresolved {
        let keep = e.savepoint.as_deref().map(|s| format!("; its savepoint {s} is kept, and the next `streamform apply` restores from it")).unwrap_or_default();
        text.push_str(&format!("unresolved: attempt {} ({}) did not settle: its last step is `{}`{keep}\n", e.attempt, e.operation.as_deref().unwrap_or("apply"), e.state));
    }
    for u in &unreadable {
        text.push_str(&format!("unresolved: journal entry {u}\n"));
    }
    let mut unresolved_json: Vec<Value> = unresolved
        .iter()
        .map(|e| json!({"attempt": e.attempt, "state": e.state, "job_name": e.job_name, "matching_jobs": e.job_id.iter().collect::<Vec<_>>(), "plan": e.plan}))
        .collect();
    unresolved_json.extend(unreadable.iter().map(|u| json!({"attempt": u, "state": "unknown", "job_name": t.job_name(), "matching_jobs": [], "plan": null})));
    let applied_json = record.as_ref().map(|r| json!({"applied_at": r.applied_at, "streamform_version": r.streamform_version, "artifact_digest": r.artifact_digest, "job_name": r.job_name}));
    let doc = |target_state: &str, jobs: Vec<Value>, stopped: Value, passed: bool, problem: Option<String>| {
        json!({
            "status_version": 1, "application": config.name, "target": t.name, "target_state": target_state,
            "tasks_checked": tasks_checked, "applied": applied_json, "jobs": jobs, "stopped_with_savepoint": stopped,
            "unresolved": unresolved_json, "passed": passed, "problem": problem,
        })
    };
    let obs = match observe(&t) {
        Ok(o) => o,
        Err(e) => {
            // The gateway is down but the JobManager knows whether the job runs.
            let mut jobs = Vec::new();
            if e.target_state == "gateway-unreachable" && t.jobmanager.is_some() {
                for j in record.iter().flat_map(|r| r.jobs.iter()).filter_map(|id| observe_job(&t, id).ok()) {
                    let (line, doc_job) = job_report(&j, tasks_checked);
                    text.push_str(&format!("{}  (from the jobmanager)\n", line.trim_end()));
                    jobs.push(doc_job);
                }
            }
            text.push_str(&format!("failed: {}: {}\n", e.target_state, e.message));
            print(&if json_out { to_pretty_json(&doc(e.target_state, jobs, Value::Null, false, Some(e.message.clone()))) } else { text });
            return 2;
        }
    };
    text.push_str(&format!("flink {}\n", obs.flink_version));
    let mut jobs = Vec::new();
    let mut all_running = !obs.jobs.is_empty();
    for j in &obs.jobs {
        let (line, doc_job) = job_report(j, tasks_checked);
        all_running &= matches!(doc_job["state"].as_str(), Some("running" | "running-unverified"));
        text.push_str(&line);
        jobs.push(doc_job);
    }
    let stopped = match &obs.last_stop {
        Some(s) => {
            text.push_str(&format!("stopped with savepoint {} (attempt {})\n", s.savepoint.as_deref().unwrap_or(""), s.attempt));
            json!({"attempt": s.attempt, "savepoint": s.savepoint, "artifact_digest": s.artifact_digest, "stopped_at": s.transitions.last().map(|x| x.at.clone()), "flink_version": s.flink_version})
        }
        None => Value::Null,
    };
    if let (Some(r), Some(p)) = (&record, &project_digest) {
        let same = &r.manifest.application_digest == p;
        text.push_str(&format!(
            "application: {}\n",
            if same { format!("the recorded application is the project's ({})", short(p)) } else { format!("the project's application ({}) differs from the recorded one; `streamform plan --target {}` shows how", short(p), t.name) }
        ));
    }
    let problem = if record.is_none() {
        Some(format!("nothing is recorded as applied to target `{}`", t.name))
    } else if !all_running {
        Some("the recorded job does not run".to_string())
    } else if !unresolved.is_empty() || !unreadable.is_empty() {
        Some("an attempt in the journal did not settle".to_string())
    } else {
        None
    };
    let passed = problem.is_none();
    match &problem {
        None => text.push_str("ok: the recorded job runs\n"),
        Some(p) => text.push_str(&format!("failed: {p}\n")),
    }
    print(&if json_out { to_pretty_json(&doc("reachable", jobs, stopped, passed, problem)) } else { text });
    if passed { 0 } else { 1 }
}
