//! The deployment stage's I/O: the target's parts (`http`, `flink`), the
//! files in `.streamform/` (the applied record, the journal, the lock), and
//! observing what runs on a target. The decisions are the compiler's
//! (`streamform::deploy`); this module only gathers facts and writes them.

pub mod cutover;
pub mod flink;
pub mod http;
pub mod uids;

use std::fs;
use std::time::{SystemTime, UNIX_EPOCH};

use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;
use serde_json::Value;
use streamform::config::project::FlinkTarget;
use streamform::deploy::journal::{self, decode_journal_entry, JOURNAL_VERSION};
pub use streamform::deploy::journal::{JournalEntry, Transition};
use streamform::deploy::{Observed, Recorded, Rollback, RunningJob};
use streamform::target::Secret;
use streamform::upgrade::reader::{read_running, AppliedRecord, RunningDoc};

use crate::atomic::write_all_atomically;
use crate::render::json::to_pretty_json;
use http::{Endpoint, HttpError};

pub const STREAMFORM_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A target's files and parts, for one command.
pub struct Target {
    pub root: Utf8PathBuf,
    pub name: String,
    pub application: String,
    pub flink: FlinkTarget,
    pub gateway: Endpoint,
    pub jobmanager: Option<Endpoint>,
    /// The target's secrets, sent only to the gateway (`apply`).
    pub secrets: Vec<Secret>,
}

impl Target {
    pub fn new(root: &str, application: &str, name: &str, flink: &FlinkTarget) -> Target {
        Target {
            root: Utf8PathBuf::from(root),
            name: name.to_string(),
            application: application.to_string(),
            flink: flink.clone(),
            gateway: Endpoint::new("gateway", &flink.gateway),
            jobmanager: flink.rest.as_deref().map(|r| Endpoint::new("jobmanager", r)),
            secrets: Vec::new(),
        }
    }

    pub fn applied_path(&self) -> Utf8PathBuf {
        self.root.join(".streamform/applied").join(format!("{}.json", self.name))
    }

    pub fn journal_dir(&self) -> Utf8PathBuf {
        self.root.join(".streamform/journal").join(&self.name)
    }

    /// `text` with each secret value replaced by its placeholder: for what
    /// the parts answer, which may echo what they were sent.
    pub fn redact(&self, text: &str) -> String {
        streamform::target::redact(text, &self.secrets)
    }

    pub fn job_name(&self) -> String {
        format!("streamform-{}-{}", self.application, self.name)
    }
}

/// Now, as `2026-01-02T03:04:05Z` (UTC), and the epoch seconds.
pub fn now_utc() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0) as i64;
    rfc3339(secs)
}

pub fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// A new attempt's id, `20261201T130516.123Z-<pid>`: sortable by time to
/// the millisecond (the journal's order, and "since the last apply"), and
/// unique per process.
pub fn new_attempt() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = rfc3339(now.as_secs() as i64).replace([':', '-'], "");
    format!("{}.{:03}Z-{:x}", secs.trim_end_matches('Z'), now.subsec_millis(), std::process::id())
}

/// The statements of a script: each ends with `;` at the end of a line
/// followed by a blank line (or the end); `--` comment lines are dropped.
pub fn statements(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let lines: Vec<&str> = script.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if cur.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with("--")) {
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
        let next_blank = lines.get(i + 1).is_none_or(|l| l.trim().is_empty());
        if line.trim_end().ends_with(';') && next_blank {
            let s = cur.trim_end().trim_end_matches(';').to_string();
            out.push(s);
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim_end().to_string());
    }
    out
}

/// Writes one file atomically (temp + rename), creating its directory.
pub fn write_json<T: Serialize>(path: &Utf8Path, value: &T) -> Result<(), String> {
    let text = to_pretty_json(value);
    write_all_atomically(&[(path.to_path_buf(), text.as_bytes())]).map_err(|e| format!("could not write {path}: {e}"))
}

/// What every attempt's first entry names: the operation and what it
/// deploys or stops.
pub struct Attempt<'a> {
    pub operation: &'a str,
    pub artifact_digest: String,
    pub job_name: String,
    pub application_digest: String,
    pub flink_version: String,
    pub manifest: streamform::manifest::Manifest,
}

/// Writing the journal: each attempt this process makes.
pub trait Journaled {
    /// A new attempt on `t`, in no state yet; the operation fills the rest.
    fn begin(t: &Target, a: Attempt<'_>) -> Self;
    /// Moves the attempt to `state` and writes it.
    fn step(&mut self, t: &Target, state: &str, note: Option<String>) -> Result<(), String>;
}

impl Journaled for JournalEntry {
    fn begin(t: &Target, a: Attempt<'_>) -> JournalEntry {
        JournalEntry {
            journal_version: JOURNAL_VERSION,
            attempt: new_attempt(),
            application: t.application.clone(),
            target: t.name.clone(),
            streamform_version: STREAMFORM_VERSION.to_string(),
            backend: "flink".to_string(),
            operation: Some(a.operation.to_string()),
            artifact_digest: a.artifact_digest,
            job_name: a.job_name,
            application_digest: a.application_digest,
            state: String::new(),
            plan: None,
            job_id: None,
            flink_version: Some(a.flink_version),
            replaces: None,
            previous_artifact: None,
            savepoint: None,
            restored_from: None,
            problem: None,
            cutover: None,
            transitions: Vec::new(),
            manifest: a.manifest,
        }
    }

    fn step(&mut self, t: &Target, state: &str, note: Option<String>) -> Result<(), String> {
        self.state = state.to_string();
        self.transitions.push(Transition { state: state.to_string(), at: now_utc(), note });
        write_json(&t.journal_dir().join(format!("{}.json", self.attempt)), self)
    }
}

/// The journal of a target, oldest first, and what could not be read
/// (a file left by a crash, or edited).
pub fn read_journal(t: &Target) -> (Vec<JournalEntry>, Vec<String>) {
    let mut entries = Vec::new();
    let mut bad = Vec::new();
    let Ok(dir) = fs::read_dir(t.journal_dir()) else { return (entries, bad) };
    let mut names: Vec<String> = dir.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    for name in names {
        let path = t.journal_dir().join(&name);
        if name.starts_with('.') {
            bad.push(format!("{path}: a temporary file left by an interrupted write; remove it"));
            continue;
        }
        match fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|s| decode_journal_entry(&s)) {
            Ok(e) => entries.push(e),
            Err(e) => bad.push(format!("{path}: {e}")),
        }
    }
    (entries, bad)
}

/// The applied record of a target, if any (a bad one is an error).
pub fn read_record(t: &Target) -> Result<Option<AppliedRecord>, String> {
    let path = t.applied_path();
    if !path.is_file() {
        return Ok(None);
    }
    let text = fs::read_to_string(&path).map_err(|e| format!("could not use {path}: {e}"))?;
    match read_running(&text).map_err(|e| format!("could not use {path}: {e}"))? {
        RunningDoc::Record(r) if r.target == t.name => Ok(Some(*r)),
        RunningDoc::Record(r) => Err(format!("could not use {path}: it records target `{}`, not `{}`", r.target, t.name)),
        RunningDoc::Manifest(_) => Err(format!("could not use {path}: it is a plan manifest, not an applied record")),
    }
}

/// The lock of a target (`.streamform/lock/<target>.lock`): one apply or
/// stop at a time. Released on drop.
pub struct Lock {
    path: Utf8PathBuf,
}

impl Lock {
    pub fn take(t: &Target) -> Result<Lock, String> {
        let dir = t.root.join(".streamform/lock");
        fs::create_dir_all(&dir).map_err(|e| format!("could not create {dir}: {e}"))?;
        let path = dir.join(format!("{}.lock", t.name));
        for _ in 0..2 {
            match fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    use std::io::Write;
                    let _ = writeln!(f, "{}", std::process::id());
                    return Ok(Lock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let pid = fs::read_to_string(&path).unwrap_or_default().trim().to_string();
                    let alive = !pid.is_empty() && Utf8Path::new("/proc").join(&pid).exists();
                    if alive {
                        return Err(format!("another streamform (pid {pid}) is applying to or stopping target `{}`; wait for it, or remove {path} if it is gone", t.name));
                    }
                    // Left by a process that died: take it over.
                    let _ = fs::remove_file(&path);
                }
                Err(e) => return Err(format!("could not create {path}: {e}")),
            }
        }
        Err(format!("could not take {path}"))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// A recorded job as observed.
pub struct JobObservation {
    pub job_id: String,
    /// Flink's state (`RUNNING`, `FINISHED`, …), or None when unknown to it.
    pub flink_state: Option<String>,
    pub name: Option<String>,
    pub start_time: Option<String>,
    pub tasks: Option<(u32, u32)>,
    pub restored_from: Option<String>,
    /// The last completed checkpoint: its id and completion time (epoch ms).
    pub last_checkpoint: Option<(u64, i64)>,
    pub failure: Option<String>,
}

/// Everything observed on a target.
pub struct Observation {
    pub flink_version: String,
    pub record: Option<AppliedRecord>,
    pub jobs: Vec<JobObservation>,
    /// The newest attempt since the record's apply that took a savepoint
    /// (a `stop`, or an apply interrupted after its stop).
    pub last_stop: Option<JournalEntry>,
    /// The uids the recorded job was submitted with (None: topology uids;
    /// Err: its uids record cannot be read, and `plan` and `apply` refuse).
    pub pins: Result<Option<Vec<streamform::flink_uids::Pin>>, String>,
    /// `apply --from-savepoint`: the savepoint, and the job that wrote it.
    pub rollback: Option<RollbackFrom>,
}

/// The job a journaled savepoint came from, as the journal recorded it.
pub struct RollbackFrom {
    pub rollback: Rollback,
    /// The application the job ran (its submitting attempt's manifest).
    pub manifest: streamform::manifest::Manifest,
    /// The uids it was submitted with (None: topology uids).
    pub pins: Option<Vec<streamform::flink_uids::Pin>>,
}

/// The job that wrote `savepoint`: the attempt that stopped it into that
/// savepoint names the job (a `stop` its own, an apply the one it
/// replaced), and the attempt that submitted that job names its
/// application. Err when the journal does not record both.
pub fn savepoint_writer(t: &Target, savepoint: &str) -> Result<RollbackFrom, String> {
    let (journal, _) = read_journal(t);
    let help = format!("help: a rollback restores a savepoint streamform took on this target; each is the `savepoint` of an entry in {}", t.journal_dir());
    let w = journal::savepoint_writer(&journal, &t.name, savepoint).map_err(|e| format!("{e}\n{help}"))?;
    Ok(RollbackFrom { rollback: w.rollback(savepoint), manifest: w.ran.manifest.clone(), pins: uids::pins_of_job(t, &w.job_id)? })
}

impl Observation {
    /// The compiler's view: the record, the job if it runs, the savepoint.
    pub fn facts(&self) -> Observed {
        let recorded = self.record.as_ref().map(|r| Recorded { manifest: r.manifest.clone(), artifact_digest: r.artifact_digest.clone(), attempt: r.attempt.clone(), pins: self.pins.clone().ok().flatten() });
        let running = self.jobs.iter().find(|j| j.flink_state.as_deref() == Some("RUNNING")).map(|j| RunningJob {
            job_id: j.job_id.clone(),
            job_name: self.record.as_ref().and_then(|r| r.job_name.clone()).unwrap_or_default(),
            artifact_digest: self.record.as_ref().and_then(|r| r.artifact_digest.clone()),
        });
        let stop = if running.is_none() { self.last_stop.as_ref() } else { None };
        let rollback = self.rollback.as_ref().map(|r| r.rollback.clone());
        Observed { recorded, running, savepoint: stop.and_then(|s| s.savepoint.clone()), stop_attempt: stop.map(|s| s.attempt.clone()), rollback }
    }
}

/// Why a target could not be observed: which part, and the state name of
/// the status document.
pub struct Unobservable {
    pub target_state: &'static str,
    pub message: String,
}

fn unreachable(part: &'static str, e: HttpError) -> Unobservable {
    let state = if part == "gateway" { "gateway-unreachable" } else { "jobmanager-unreachable" };
    Unobservable { target_state: state, message: e.message().to_string() }
}

/// Observes a target: the gateway answers, the record, and each recorded
/// job per the JobManager (or, without `flink.rest`, the gateway).
pub fn observe(t: &Target) -> Result<Observation, Unobservable> {
    let record = read_record(t).map_err(|m| Unobservable { target_state: "gateway-unreachable", message: m })?;
    let flink_version = flink::gateway_version(&t.gateway).map_err(|e| unreachable("gateway", e))?;
    let mut jobs = Vec::new();
    for id in record.iter().flat_map(|r| r.jobs.iter()) {
        jobs.push(observe_job(t, id)?);
    }
    let (journal, _) = read_journal(t);
    let applied_attempt = record.as_ref().and_then(|r| r.attempt.clone()).unwrap_or_default();
    let last_stop = journal::last_stop(&journal, &applied_attempt).cloned();
    let pins = record.as_ref().map_or(Ok(None), |r| uids::read_pins(t, r.attempt.as_deref()));
    Ok(Observation { flink_version, record, jobs, last_stop, pins, rollback: None })
}

/// One recorded job, from the JobManager when the target names it (the
/// gateway is then not asked), else from the gateway's `SHOW JOBS`.
pub fn observe_job(t: &Target, id: &str) -> Result<JobObservation, Unobservable> {
    let mut o = JobObservation { job_id: id.to_string(), flink_state: None, name: None, start_time: None, tasks: None, restored_from: None, last_checkpoint: None, failure: None };
    if let Some(jm) = &t.jobmanager {
        if let Some(j) = flink::job(jm, id).map_err(|e| unreachable("jobmanager", e))? {
            o.tasks = Some(j.tasks);
            o.name = j.name;
            o.start_time = j.start_time.map(|ms| rfc3339(ms / 1000));
            if j.state == "FAILED" {
                o.failure = flink::failure(jm, id);
            }
            o.flink_state = Some(j.state);
            if let Ok(c) = flink::checkpoints(jm, id) {
                o.restored_from = c.restored_from;
                o.last_checkpoint = c.last_completed;
            }
        }
        return Ok(o);
    }
    let session = flink::Session::open(&t.gateway, "streamform-observe", &serde_json::json!({})).map_err(|e| unreachable("gateway", e))?;
    if let Ok(rows) = session.execute("SHOW JOBS", None) {
        let col = |name: &str| rows.columns.iter().position(|c| c == name);
        if let (Some(i), Some(s)) = (col("job id"), col("status")) {
            if let Some(row) = rows.rows.iter().find(|r| r.get(i).and_then(Value::as_str) == Some(id)) {
                o.flink_state = row.get(s).and_then(Value::as_str).map(str::to_string);
                o.name = col("job name").and_then(|n| row.get(n)).and_then(Value::as_str).map(str::to_string);
                o.start_time = col("start time").and_then(|n| row.get(n)).and_then(Value::as_str).map(str::to_string);
            }
        }
    }
    session.close();
    Ok(o)
}

/// A `file:` savepoint location as a local path, to check it exists.
pub fn local_path(location: &str) -> Option<Utf8PathBuf> {
    let rest = location.strip_prefix("file://").or_else(|| location.strip_prefix("file:"))?;
    Some(Utf8PathBuf::from(if rest.starts_with('/') { rest.to_string() } else { format!("/{rest}") }))
}

/// Checks that a savepoint exists (its `_metadata`): a failed savepoint
/// can also be reported COMPLETED. Locations other than `file:` cannot be
/// checked from here and are taken as reported.
pub fn verify_savepoint(location: &str) -> Result<(), String> {
    match local_path(location) {
        Some(p) if p.join("_metadata").is_file() => Ok(()),
        Some(p) => Err(format!("Flink reported savepoint {location}, but {p}/_metadata does not exist")),
        None => Ok(()),
    }
}
