//! Golden tests of `apply`, `stop`, `status` and `plan --target/--out`
//! where no part of a target answers (testdata/deploy/project: every
//! target's gateway is 127.0.0.1:1, which refuses connections): the
//! refusals and located errors, and that each changes nothing. The real
//! parts are exercised by tools/deploy-e2e/run.sh.
//! Refresh with `UPDATE_EXPECT=1 cargo test -p streamform-cli --test deploy`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use expect_test::expect_file;
use serde_json::{json, Value};
use streamform::deploy::DeployPlan;

fn source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/deploy/project")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("deploy").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("models")).unwrap();
    for f in ["streamform.yml", "sources.yml", "models/totals.sql"] {
        fs::copy(source().join(f), dir.join(f)).unwrap();
    }
    dir
}

fn transcript(dir: &Path, commands: &[&[&str]]) -> String {
    let mut out = String::new();
    for args in commands {
        let r = Command::new(env!("CARGO_BIN_EXE_streamform")).args(*args).current_dir(dir).stdin(Stdio::null()).output().expect("the binary runs");
        out.push_str(&format!("$ streamform {}\nexit {}\n", args.join(" "), r.status.code().unwrap_or(-1)));
        let (so, se) = (String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
        if !so.is_empty() {
            out.push_str(&format!("--- stdout\n{so}"));
        }
        if !se.is_empty() {
            out.push_str(&format!("--- stderr\n{se}"));
        }
        out.push('\n');
    }
    out
}

/// The files under `.streamform/`, to show what a command left.
fn state_files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            out.push(p.strip_prefix(base).unwrap().display().to_string());
            if p.is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &dir.join(".streamform"), &mut out);
    out
}

fn manifest(dir: &Path) -> Value {
    let r = Command::new(env!("CARGO_BIN_EXE_streamform")).args(["inspect-plan", "--json"]).current_dir(dir).output().unwrap();
    serde_json::from_slice(&r.stdout).unwrap()
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// Nothing applied, nothing reachable: each command says which part at
/// which address, exits 2, and writes no record, journal entry or lock.
#[test]
fn unreachable_target() {
    let dir = scratch("unreachable");
    let out = transcript(
        &dir,
        &[
            &["status", "--target", "dev"],
            &["status", "--target", "withrest", "--json"],
            &["apply", "--target", "dev", "--yes"],
            &["plan", "--target", "dev", "--out", "deploy.json"],
            &["plan", "--target", "withrest"],
            &["stop", "--target", "nosp"],
            &["stop", "--target", "dev"],
            &["apply", "--target", "qa"],
            &["apply"],
        ],
    );
    let out = format!("{out}files left: {:?}\n", state_files(&dir));
    expect_file!["../../testdata/deploy/unreachable.txt"].assert_eq(&out);
    assert!(!dir.join("deploy.json").exists());
}

/// A recorded apply, a stop whose attempt did not settle, and a temporary
/// file a crash left in the journal: `status` shows them before it finds
/// the gateway unreachable; a saved plan made from another project or
/// edited by hand, and a journal entry that cannot be read, are refused
/// before anything is observed.
#[test]
fn recorded_target_and_saved_plans() {
    let dir = scratch("recorded");
    let m = manifest(&dir);
    let applied = dir.join(".streamform/applied");
    fs::create_dir_all(&applied).unwrap();
    let record = json!({
        "record_version": 1, "target": "dev", "applied_at": "2026-01-02T03:04:05Z", "streamform_version": "0.1.0",
        "backend": "flink", "jobs": ["4b1d2c0000000000000000000000beef"], "job_name": "streamform-shop-dev",
        "attempt": "20260102T030400Z-1", "artifact_digest": "00", "manifest": m,
    });
    fs::write(applied.join("dev.json"), pretty(&record)).unwrap();
    let journal = dir.join(".streamform/journal/dev");
    fs::create_dir_all(&journal).unwrap();
    let entry = json!({
        "journal_version": 1, "attempt": "20260102T040000Z-2", "application": "shop", "target": "dev", "streamform_version": "0.1.0",
        "backend": "flink", "operation": "upgrade", "artifact_digest": "00", "job_name": "streamform-shop-dev",
        "application_digest": m["application_digest"], "state": "stopped", "job_id": null,
        "savepoint": "file:/tmp/streamform-test-savepoints/savepoint-4b1d2c-000000000000",
        "transitions": [{"state": "prepared", "at": "2026-01-02T04:00:00Z"}, {"state": "stopping", "at": "2026-01-02T04:00:01Z"}, {"state": "stopped", "at": "2026-01-02T04:00:04Z"}],
        "manifest": m,
    });
    fs::write(journal.join("20260102T040000Z-2.json"), pretty(&entry)).unwrap();
    fs::write(journal.join(".20260102T050000Z-3.json.tmp-999"), "{\"journal_ver").unwrap();

    // A well-formed plan, made from another version of the project.
    let mut plan = DeployPlan {
        deploy_plan_version: 1,
        plan_id: String::new(),
        created_at: "2026-01-02T04:59:00Z".into(),
        streamform_version: "0.1.0".into(),
        application: "shop".into(),
        target: "dev".into(),
        backend: "flink".into(),
        action: streamform::deploy::DeployAction::Upgrade,
        verdict: None,
        fresh: Some(false),
        artifact_digest: "00".into(),
        job_name: "streamform-shop-dev".into(),
        application_digest: "11".repeat(32),
        preconditions: streamform::deploy::Preconditions { running: Vec::new(), savepoint: None, recorded_attempt: None, stop_attempt: None },
        changes: Vec::new(),
        consequences: Vec::new(),
        notes: Vec::new(),
        sinks: Vec::new(),
        cutover: None,
    };
    plan.plan_id = plan.digest();
    fs::write(dir.join("old.json"), serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    plan.target = "withrest".into();
    fs::write(dir.join("tampered.json"), serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    fs::write(dir.join("nonsense.json"), "{\"plan\": 1}\n").unwrap();

    let out = transcript(
        &dir,
        &[
            &["status", "--target", "dev"],
            &["status", "--target", "dev", "--json"],
            &["apply", "--target", "dev", "--plan", "old.json"],
            &["apply", "--target", "dev", "--plan", "tampered.json"],
            &["apply", "--target", "dev", "--plan", "nonsense.json"],
            &["apply", "--target", "dev", "--plan", "missing.json"],
        ],
    );
    // The pins recorded for the applied attempt: status says the uids are
    // pinned, and how many (above, without them: by topology).
    let uids = dir.join(".streamform/uids");
    fs::create_dir_all(&uids).unwrap();
    let pin = |exec: &str, key: &str| json!({"key": key, "uid": format!("streamform/{key}"), "exec": exec, "nodes": [key], "materializer": false});
    let pins = json!({
        "uids_version": 1, "attempt": "20260102T030400Z-1", "job_id": "4b1d2c0000000000000000000000beef", "plan": "/tmp/plans/20260102T030400Z-1.pinned.json",
        "pins": [pin("table-source-scan", "source:orders"), pin("group-aggregate", "totals::aggregate::0"), pin("sink", "totals::sink::0")],
    });
    fs::write(uids.join("dev.json"), pretty(&pins)).unwrap();
    // An entry that is not a journal entry at all: apply refuses to guess.
    fs::write(journal.join("20260102T060000Z-4.json"), "{\"journal_version\": 1}\n").unwrap();
    let out = out + &transcript(&dir, &[&["status", "--target", "dev"], &["apply", "--target", "dev", "--yes"]]);
    // The uids record cut short: status says it cannot be read, where, and
    // what to do (plan and apply refuse it once the target is observed:
    // tools/deploy-e2e).
    let text = pretty(&pins);
    fs::write(uids.join("dev.json"), &text[..text.len() / 2]).unwrap();
    let out = out + &transcript(&dir, &[&["status", "--target", "dev"]]);
    let out = format!("{out}files left: {:?}\n", state_files(&dir));
    expect_file!["../../testdata/deploy/recorded.txt"].assert_eq(&out);
}

/// `apply --from-savepoint` is refused before anything is observed when
/// the journal did not take that savepoint, or when the project is not the
/// application whose job wrote it (here the Flink SQL differs: the journal
/// says "00"); `--plan` cannot go with it. Nothing is left behind.
#[test]
fn rollback_refusals() {
    let dir = scratch("rollback");
    let m = manifest(&dir);
    let journal = dir.join(".streamform/journal/dev");
    fs::create_dir_all(&journal).unwrap();
    let step = |s: &str| json!({"state": s, "at": "2026-01-02T03:04:05Z"});
    let entry = |attempt: &str, op: &str, extra: Value, steps: &[&str]| {
        let mut e = json!({
            "journal_version": 1, "attempt": attempt, "application": "shop", "target": "dev", "streamform_version": "0.1.0",
            "backend": "flink", "operation": op, "artifact_digest": "00", "job_name": "streamform-shop-dev",
            "application_digest": m["application_digest"], "state": steps[steps.len() - 1],
            "transitions": steps.iter().map(|s| step(s)).collect::<Vec<_>>(), "manifest": m,
        });
        e.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        fs::write(journal.join(format!("{attempt}.json")), pretty(&e)).unwrap();
    };
    let sp = "file:/tmp/streamform-test-savepoints/savepoint-4b1d2c-000000000000";
    entry("20260102T030400Z-1", "apply", json!({"job_id": "4b1d2c0000000000000000000000beef"}), &["prepared", "submitting", "submitted", "running"]);
    entry("20260102T040000Z-2", "rebuild", json!({"replaces": "4b1d2c0000000000000000000000beef", "savepoint": sp, "job_id": "5c2e3d0000000000000000000000beef"}), &["prepared", "stopping", "stopped", "submitting", "submitted", "running"]);
    let before = state_files(&dir);
    let mut out = transcript(
        &dir,
        &[
            &["apply", "--target", "dev", "--yes", "--from-savepoint", "file:/tmp/elsewhere/savepoint-1"],
            &["apply", "--target", "dev", "--yes", "--from-savepoint", sp],
            &["apply", "--target", "dev", "--plan", "deploy.json", "--from-savepoint", sp],
        ],
    );
    assert_eq!(state_files(&dir), before, "a refused rollback takes no lock and journals nothing");
    // The uids the job was submitted with, cut short: the rollback cannot
    // know how its state maps, so it is refused before any digest check.
    let copies = dir.join(".streamform/uids/dev.jobs");
    fs::create_dir_all(&copies).unwrap();
    fs::write(copies.join("4b1d2c0000000000000000000000beef.json"), "{\"uids_version\": 1, \"job_id\": \"4b1d2c00").unwrap();
    let before = state_files(&dir);
    out += &transcript(&dir, &[&["apply", "--target", "dev", "--yes", "--from-savepoint", sp]]);
    assert_eq!(state_files(&dir), before, "a refused rollback takes no lock and journals nothing");
    expect_file!["../../testdata/deploy/rollback.txt"].assert_eq(&out);
}
