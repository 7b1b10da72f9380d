//! `stop`: stop the recorded job of a target with a savepoint into
//! `flink.savepoint_dir` (the JobManager's `POST /jobs/<id>/stop` when the
//! target names `flink.rest`, else the gateway's `STOP JOB … WITH
//! SAVEPOINT`), check that the savepoint exists, and journal it. With
//! `--discard-state` the job is cancelled and nothing is kept.

use serde_json::json;

use crate::deploy::flink::{self, Session};
use crate::deploy::{observe, read_record, verify_savepoint, Attempt, JournalEntry, Journaled, Lock, Target};
use crate::out::{eprint, print};

/// A directory as Flink takes it: a bare absolute path becomes `file://`.
pub fn dir_uri(dir: &str) -> String {
    if dir.starts_with('/') { format!("file://{dir}") } else { dir.to_string() }
}

pub fn run(project: &str, target: Option<&str>, discard_state: bool) -> u8 {
    let (_loaded, _config, t) = match super::open_target(project, target, "stopping") {
        Ok(x) => x,
        Err(code) => return code,
    };
    let name = &t.name;
    if t.flink.savepoint_dir.is_none() && !discard_state {
        eprint(&format!("error: target `{name}` names no `flink.savepoint_dir`, so the state could not be kept; add one, or stop with `--discard-state`\n"));
        return 2;
    }
    let _lock = match Lock::take(&t) {
        Ok(l) => l,
        Err(e) => {
            eprint(&format!("error: {e}\n"));
            return 2;
        }
    };
    let record = match read_record(&t) {
        Ok(Some(r)) => r,
        Ok(None) => {
            eprint(&format!("error: nothing is recorded as applied to target `{name}`, so there is no job to stop\n"));
            return 2;
        }
        Err(e) => {
            eprint(&format!("error: {e}\n"));
            return 2;
        }
    };
    let obs = match observe(&t) {
        Ok(o) => o,
        Err(e) => {
            eprint(&format!("error: could not observe target `{name}`, so nothing was stopped: {}\n", e.message));
            return 2;
        }
    };
    let Some(job) = obs.jobs.iter().find(|j| j.flink_state.as_deref() == Some("RUNNING")) else {
        let states: Vec<String> = obs.jobs.iter().map(|j| format!("{} is {}", j.job_id, j.flink_state.as_deref().unwrap_or("unknown to Flink"))).collect();
        print(&format!("ok: no recorded job runs on target `{name}` ({}); nothing to stop\n", states.join(", ")));
        return 0;
    };
    let id = job.job_id.clone();
    let mut entry = JournalEntry::begin(
        &t,
        Attempt {
            operation: "stop",
            artifact_digest: record.artifact_digest.clone().unwrap_or_default(),
            job_name: record.job_name.clone().unwrap_or_else(|| t.job_name()),
            application_digest: record.manifest.application_digest.clone(),
            flink_version: obs.flink_version.clone(),
            manifest: record.manifest.clone(),
        },
    );
    entry.job_id = Some(id.clone());
    if let Err(e) = entry.step(&t, "stopping", None) {
        eprint(&format!("error: {e}\n"));
        return 2;
    }
    let started = std::time::Instant::now();
    let result = if discard_state { cancel(&t, &id).map(|()| None) } else { stop_with_savepoint(&t, &id).map(Some) };
    match result {
        Ok(savepoint) => {
            entry.savepoint = savepoint.clone();
            let note = Some(format!("took {:.1}s", started.elapsed().as_secs_f64()));
            if let Err(e) = entry.step(&t, "stopped", note) {
                eprint(&format!("error: {e}\n"));
                return 2;
            }
            match savepoint {
                Some(sp) => print(&format!("ok: stopped job {id} on target `{name}` with savepoint {sp}\n")),
                None => print(&format!("ok: cancelled job {id} on target `{name}`; its state is discarded\n")),
            }
            0
        }
        Err(problem) => {
            entry.problem = Some(problem.clone());
            let _ = entry.step(&t, "failed", None);
            eprint(&format!("error: could not stop job {id} on target `{name}`: {problem}\nhelp: the job keeps running; check that Flink can write to `flink.savepoint_dir` ({})\n", t.flink.savepoint_dir.as_deref().unwrap_or("")));
            1
        }
    }
}

/// Stops with a savepoint and checks it exists; Err with why.
pub fn stop_with_savepoint(t: &Target, id: &str) -> Result<String, String> {
    let dir = dir_uri(t.flink.savepoint_dir.as_deref().unwrap_or_default());
    let location = match &t.jobmanager {
        Some(jm) => {
            let loc = flink::stop_with_savepoint(jm, id, &dir)?;
            flink::wait_ended(jm, id)?;
            loc
        }
        None => {
            let s = Session::open(&t.gateway, "streamform-stop", &json!({"execution.checkpointing.savepoint-dir": dir})).map_err(|e| e.message().to_string())?;
            let rows = s.execute(&format!("STOP JOB '{id}' WITH SAVEPOINT"), None);
            s.close();
            rows?.first("savepoint path").ok_or("the gateway reported no savepoint path")?
        }
    };
    verify_savepoint(&location)?;
    Ok(location)
}

/// Cancels a job without a savepoint (the gateway's `STOP JOB`).
pub fn cancel(t: &Target, id: &str) -> Result<(), String> {
    let s = Session::open(&t.gateway, "streamform-stop", &json!({})).map_err(|e| e.message().to_string())?;
    let r = s.execute(&format!("STOP JOB '{id}'"), None);
    s.close();
    r?;
    if let Some(jm) = &t.jobmanager {
        flink::wait_ended(jm, id)?;
    }
    Ok(())
}
