//! Pinned uids on the target: Flink's compiled plan (`COMPILE PLAN` through
//! the gateway, into a directory both the gateway and streamform read),
//! mapped and pinned by `streamform::flink_uids`, and the record of the
//! pins a job was submitted with (`.streamform/uids/<target>.json`; the
//! applied record's schema takes no more fields).

use std::fs;

use camino::Utf8PathBuf;
use serde_json::{json, Value};
use streamform::config::project::ProjectConfig;
pub use streamform::deploy::uids::{UidsRecord, UIDS_VERSION};
use streamform::deploy::uids::decode_uids_record;
use streamform::flink_uids::{keys, pin_plan, Pin, SinkTable};
use streamform::manifest::Manifest;
use streamform::target::Secret;
use streamform::upgrade::hints_of;

use super::flink::Session;
use super::{local_path, new_attempt, write_json, Target};
use crate::atomic::write_all_atomically;

pub fn uids_path(t: &Target) -> Utf8PathBuf {
    t.root.join(".streamform/uids").join(format!("{}.json", t.name))
}

/// The recorded pins of `attempt` (the applied record's), if that attempt
/// was submitted pinned. A record of another attempt is not this job's. A
/// file that cannot be read is an error: its job's state maps by its pins,
/// and guessing "no pins" would misjudge what a savepoint keeps.
pub fn read_pins(t: &Target, attempt: Option<&str>) -> Result<Option<Vec<Pin>>, String> {
    let record = read_uids_record(&uids_path(t)).map_err(|e| {
        let copies = jobs_dir(t);
        format!("{e}\nhelp: this file records the uids the applied job was submitted with; {copies} holds a copy per job, named by the job's id: copy the running job's over it. Removing it instead makes streamform treat the job as unpinned, so its state restores only into an unchanged operator graph")
    })?;
    Ok(record.and_then(|r| r.of_attempt(attempt)))
}

/// A uids record file: Ok(None) when there is none; Err, with where and
/// what to do, when it is not one.
fn read_uids_record(path: &Utf8PathBuf) -> Result<Option<UidsRecord>, String> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("could not read {path}: {e}")),
    };
    decode_uids_record(&text).map(Some).map_err(|e| format!("{path}: {e}"))
}

/// Writes the applied job's pins, and a copy under the job's id that
/// outlives the next apply: a rollback to this job's savepoint submits
/// with the same uids.
pub fn write_pins(t: &Target, r: &UidsRecord) -> Result<(), String> {
    write_json(&job_pins_path(t, &r.job_id), r)?;
    write_json(&uids_path(t), r)
}

/// Where the copy per job is kept.
fn jobs_dir(t: &Target) -> Utf8PathBuf {
    t.root.join(".streamform/uids").join(format!("{}.jobs", t.name))
}

fn job_pins_path(t: &Target, job_id: &str) -> Utf8PathBuf {
    jobs_dir(t).join(format!("{job_id}.json"))
}

/// The pins a job was submitted with, if it was submitted pinned.
pub fn pins_of_job(t: &Target, job_id: &str) -> Result<Option<Vec<Pin>>, String> {
    let record = read_uids_record(&job_pins_path(t, job_id)).map_err(|e| {
        format!("{e}\nhelp: this file records the uids job {job_id} was submitted with, and a rollback to its savepoint submits with them again: restore it, or remove it to roll back with uids by Flink's topology, so its state restores only into an unchanged operator graph")
    })?;
    Ok(record.and_then(|r| r.of_job(job_id)))
}

/// Forgets the pins once a job runs without them.
pub fn clear_pins(t: &Target) {
    let _ = fs::remove_file(uids_path(t));
}

/// Where compiled plans go: `<savepoint_dir>/streamform-plans/<target>`,
/// when the savepoint directory is a local path (streamform must read
/// what the gateway writes).
pub fn plan_dir(t: &Target) -> Result<Utf8PathBuf, String> {
    let sp = t.flink.savepoint_dir.as_deref().ok_or_else(|| format!("target `{}` names no `flink.savepoint_dir` to hold the compiled plan", t.name))?;
    let dir = if sp.starts_with('/') { Utf8PathBuf::from(sp) } else { local_path(sp).ok_or_else(|| format!("`flink.savepoint_dir` {sp} is not a local path, so streamform cannot read the plan Flink compiles there"))? };
    Ok(dir.join("streamform-plans").join(&t.name))
}

/// A pinned plan, ready for `EXECUTE PLAN`.
pub struct PinnedPlan {
    pub file: Utf8PathBuf,
    pub pins: Vec<Pin>,
}

/// Compiles the script's statement set through the gateway, maps and pins
/// it, and writes the pinned copy atomically; Err says why the job cannot
/// be pinned (the caller falls back to topology uids and says so).
pub fn compile_pinned(t: &Target, config: &ProjectConfig, desired: &Manifest, ddl: &[String], set: &str, running: Option<(&Manifest, &[Pin])>) -> Result<PinnedPlan, String> {
    let dir = plan_dir(t)?;
    fs::create_dir_all(&dir).map_err(|e| format!("could not create {dir}: {e}"))?;
    let attempt = new_attempt();
    let compiled = dir.join(format!("{attempt}.compiled.json"));
    let session = Session::open(&t.gateway, "streamform-compile", &json!({"table.local-time-zone": "UTC"})).map_err(|e| e.message().to_string())?;
    for s in ddl {
        session.execute(s, None).map_err(|e| format!("`{}` failed: {e}", s.lines().next().unwrap_or("")))?;
    }
    let body = set.trim_start().strip_prefix("EXECUTE ").unwrap_or(set);
    let compile = session.execute(&format!("COMPILE PLAN 'file://{compiled}' FOR {body}"), None);
    session.close();
    compile.map_err(|e| format!("Flink could not compile the plan: {e}"))?;
    let text = fs::read_to_string(&compiled).map_err(|e| format!("could not read the compiled plan {compiled}: {e}"))?;
    let _ = fs::remove_file(&compiled);
    let plan: Value = serde_json::from_str(&text).map_err(|e| format!("the compiled plan {compiled} is not JSON: {e}"))?;
    let sinks: Vec<SinkTable> = config
        .models
        .iter()
        .filter_map(|m| {
            let sc = m.sink.as_ref()?;
            let node = desired.models.iter().find(|x| x.name == m.name)?.output.clone();
            Some(SinkTable { table: streamform::backend::flink::ddl::sink_table_name(&m.name, sc), node })
        })
        .collect();
    let (pinned, pins) = pin_plan(&plan, desired, &sinks, &keys(desired, running, &hints_of(config)))?;
    let file = dir.join(format!("{attempt}.pinned.json"));
    let text = serde_json::to_string_pretty(&pinned).unwrap_or_default();
    write_all_atomically(&[(file.clone(), text.as_bytes())]).map_err(|e| format!("could not write {file}: {e}"))?;
    Ok(PinnedPlan { file, pins })
}

/// The pinned plan with its secrets in place of their placeholders, for
/// one `EXECUTE PLAN`: Flink compiled the plan from the script with
/// placeholders, so the plan on disk holds none of the secrets, and the
/// job must get them. Written owner-only beside the pinned plan and
/// removed when dropped (right after the statement returns); `prune_plans`
/// removes one a crash left. Without secrets it is the pinned plan itself.
pub struct RevealedPlan {
    file: Utf8PathBuf,
    transient: bool,
}

impl RevealedPlan {
    pub fn write(p: &PinnedPlan, secrets: &[Secret]) -> Result<RevealedPlan, String> {
        if secrets.is_empty() {
            return Ok(RevealedPlan { file: p.file.clone(), transient: false });
        }
        let text = fs::read_to_string(&p.file).map_err(|e| format!("could not read the pinned plan {}: {e}", p.file))?;
        let mut plan: Value = serde_json::from_str(&text).map_err(|e| format!("the pinned plan {} is not JSON: {e}", p.file))?;
        reveal_strings(&mut plan, secrets);
        let file = Utf8PathBuf::from(p.file.as_str().replace(".pinned.json", ".run.json"));
        let r = RevealedPlan { file, transient: true };
        write_owner_only(&r.file, serde_json::to_string(&plan).unwrap_or_default().as_bytes()).map_err(|e| format!("could not write {}: {e}", r.file))?;
        Ok(r)
    }

    pub fn file(&self) -> &Utf8PathBuf {
        &self.file
    }
}

impl Drop for RevealedPlan {
    fn drop(&mut self) {
        if self.transient {
            let _ = fs::remove_file(&self.file);
        }
    }
}

/// Every string of the plan that is a secret's placeholder (a table
/// option's value) becomes the secret.
fn reveal_strings(v: &mut Value, secrets: &[Secret]) {
    match v {
        Value::String(s) => {
            if let Some(x) = secrets.iter().find(|x| &x.placeholder == s) {
                *s = x.value.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| reveal_strings(i, secrets)),
        Value::Object(m) => m.values_mut().for_each(|i| reveal_strings(i, secrets)),
        _ => {}
    }
}

fn write_owner_only(path: &Utf8PathBuf, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut o = fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// How many of the newest plan files a target keeps besides the one the
/// recorded pins name: recent attempts stay readable after the fact.
pub const KEEP_PLANS: usize = 5;

/// Whether a file in the plan directory is one streamform wrote there.
fn is_plan_file(name: &str) -> bool {
    name.ends_with(".pinned.json") || name.ends_with(".compiled.json") || name.ends_with(".run.json")
}

/// After a successful apply (under the target's lock, once the uids record
/// is written, so it never names a removed file): removes the plan files
/// of older attempts, keeping the one the record names (`keep`) and the
/// newest `KEEP_PLANS`. Attempt names sort by time. Returns what it
/// removed and what it could not (a file that cannot be removed is
/// reported and the rest still go; the apply has succeeded either way).
pub fn prune_plans(t: &Target, keep: Option<&str>) -> (Vec<Utf8PathBuf>, Vec<String>) {
    let Ok(dir) = plan_dir(t) else { return (Vec::new(), Vec::new()) };
    let Ok(rd) = fs::read_dir(&dir) else { return (Vec::new(), Vec::new()) };
    let mut names: Vec<String> = rd.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| is_plan_file(n)).collect();
    names.sort();
    let (mut removed, mut problems) = (Vec::new(), Vec::new());
    // A revealed plan holds secrets: one left by a crash goes, whatever its age.
    for n in names.iter().filter(|n| n.ends_with(".run.json")) {
        match fs::remove_file(dir.join(n)) {
            Ok(()) => removed.push(dir.join(n)),
            Err(e) => problems.push(format!("could not remove {}: {e}", dir.join(n))),
        }
    }
    names.retain(|n| !n.ends_with(".run.json"));
    let old = names.len().saturating_sub(KEEP_PLANS);
    for n in &names[..old] {
        let file = dir.join(n);
        if Some(file.as_str()) == keep {
            continue;
        }
        match fs::remove_file(&file) {
            Ok(()) => removed.push(file),
            Err(e) => problems.push(format!("could not remove the old plan {file}: {e}")),
        }
    }
    (removed, problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamform::config::project::FlinkTarget;

    /// The revealed copy holds the secret, the pinned plan never does, and
    /// the copy is gone once dropped.
    #[test]
    fn a_revealed_plan_is_transient() {
        let dir = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/tmp")).join(format!("revealed-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.pinned.json");
        let plan = r#"{"nodes":[{"options":{"properties.sasl.jaas.config":"${JAAS}","topic":"t"}}]}"#;
        fs::write(&file, plan).unwrap();
        let secrets = vec![Secret { placeholder: "${JAAS}".into(), value: "s3cr3t".into() }];
        let p = PinnedPlan { file: file.clone(), pins: Vec::new() };
        let r = RevealedPlan::write(&p, &secrets).unwrap();
        let copy = r.file().clone();
        assert_ne!(copy, file);
        assert!(fs::read_to_string(&copy).unwrap().contains(r#""properties.sasl.jaas.config":"s3cr3t""#));
        #[cfg(unix)]
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&copy).unwrap().permissions()) & 0o777, 0o600);
        drop(r);
        assert!(!copy.exists());
        assert_eq!(fs::read_to_string(&file).unwrap(), plan);
        // Without secrets the pinned plan itself is executed, and kept.
        let r = RevealedPlan::write(&p, &[]).unwrap();
        assert_eq!(r.file(), &file);
        drop(r);
        assert!(file.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    /// Eight attempts' plan files, the running job's the oldest: pruning
    /// keeps it and the newest five, and touches nothing else in the dir.
    #[test]
    fn prune_keeps_the_recorded_plan_and_the_newest_few() {
        let root = Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/tmp")).join(format!("prune-plans-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let flink = FlinkTarget { gateway: "http://127.0.0.1:1".into(), rest: None, savepoint_dir: Some(root.join("sp").to_string()), checkpoint_interval: None };
        let t = Target::new(root.as_str(), "shop", "dev", &flink);
        let dir = plan_dir(&t).unwrap();
        fs::create_dir_all(&dir).unwrap();
        let names: Vec<String> = (0..8).map(|i| format!("2026010{i}T000000.000Z-1{}", if i == 3 { ".compiled.json" } else { ".pinned.json" })).collect();
        for n in names.iter().chain(["notes.txt".to_string()].iter()) {
            fs::write(dir.join(n), "{}").unwrap();
        }
        let keep = dir.join(&names[0]);
        let (removed, problems) = prune_plans(&t, Some(keep.as_str()));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(removed, vec![dir.join(&names[1]), dir.join(&names[2])]);
        let mut left: Vec<String> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        let mut want: Vec<String> = [&names[0]].into_iter().chain(&names[3..]).cloned().chain(["notes.txt".to_string()]).collect();
        want.sort();
        assert_eq!(left, want);
        // Pruning again removes nothing: the newest five and the kept one stay.
        assert_eq!(prune_plans(&t, Some(keep.as_str())).0, Vec::<Utf8PathBuf>::new());
        // Without a recorded plan the oldest goes too.
        assert_eq!(prune_plans(&t, None).0, vec![keep]);
        let _ = fs::remove_dir_all(&root);
    }
}
