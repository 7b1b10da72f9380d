//! Golden tests of `streamform plan` over pairs of project versions in
//! testdata/plan/<case>/{v1,v2}: v1's manifest (`inspect-plan --json`,
//! kept as v1/plan.json) is the running plan, and `plan --against
//! ../v1/plan.json [--json]` runs in v2 (v2/plan.txt, v2/plan.json).
//! Refresh with `UPDATE_EXPECT=1 cargo test -p streamform-cli --test plan`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect_file;
use serde_json::Value;

fn plan_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/plan")
}

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(dir).output().expect("the binary runs");
    Run { stdout: String::from_utf8(out.stdout).expect("utf-8"), stderr: String::from_utf8(out.stderr).expect("utf-8"), code: out.status.code().unwrap_or(-1) }
}

/// Records v1's manifest as v1/plan.json (checked like any golden file).
fn running_manifest(case: &str) -> PathBuf {
    let v1 = plan_dir().join(case).join("v1");
    let r = run(&v1, &["inspect-plan", "--json"]);
    assert_eq!(r.code, 0, "inspect-plan --json in {case}/v1: {}", r.stderr);
    expect_file![v1.join("plan.json")].assert_eq(&r.stdout);
    v1.join("plan.json")
}

/// The diff document has the shape of `diff.json`: its keys, in order.
fn assert_document_shape(json: &str) {
    let v: Value = serde_json::from_str(json).expect("plan --json prints JSON");
    let keys: Vec<&str> = v.as_object().expect("an object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["diff_version", "target", "running", "desired", "verdict", "models", "warnings"]);
    for m in v["models"].as_array().expect("models") {
        for n in m["nodes"].as_array().expect("nodes") {
            let keys: Vec<&str> = n.as_object().expect("a node").keys().map(String::as_str).collect();
            assert_eq!(keys, ["id", "operator", "change", "classification", "kind", "reason", "fields"]);
        }
    }
}

fn golden(case: &str, rc: i32) {
    running_manifest(case);
    let v2 = plan_dir().join(case).join("v2");
    let text = run(&v2, &["plan", "--against", "../v1/plan.json"]);
    expect_file![v2.join("plan.txt")].assert_eq(&text.stdout);
    assert_eq!(text.code, rc, "exit code of plan in {case}: {}", text.stderr);
    let json = run(&v2, &["plan", "--against", "../v1/plan.json", "--json"]);
    expect_file![v2.join("plan.json")].assert_eq(&json.stdout);
    assert_eq!(json.code, rc, "exit code of plan --json in {case}: {}", json.stderr);
    assert_document_shape(&json.stdout);
    // Deterministic.
    assert_eq!(run(&v2, &["plan", "--against", "../v1/plan.json"]).stdout, text.stdout);
}

macro_rules! golden {
    ($name:ident, $rc:expr) => {
        #[test]
        fn $name() {
            golden(stringify!($name), $rc);
        }
    };
}

// Every change kind of diff.json is in one of these (see docs/upgrades.md).
golden!(stateless, 0); //           stateless-{definition,added,removed}, output-{renamed,reshaped}, sink-{renamed,reshaped}
golden!(sinks, 1); //               sink-target (moved, added, removed), sink-key-changed; a format change is SAFE
golden!(aggregates, 1); //          key-changed, accumulator-added, accumulator-removed, keyed-compatible, retention-changed
golden!(accumulator_type, 1); //    accumulator-type-changed
golden!(windows, 1); //             window-changed (size, added, removed); a size written differently is SAFE
golden!(inputs, 1); //              input-changed: a source upstream, a model upstream, the input itself (with a hint)
golden!(contracts, 1); //           contract-changed, then input-changed below it
golden!(output_contract, 1); //     a model's output changed: its ref() readers are named
golden!(state_kind, 1); //          state-kind-changed (through a node hint)
golden!(models, 1); //              added and removed models: keyed-added, stateless-added, keyed-removed, stateless-removed
golden!(rename_hint, 1); //         renamed_from: a renamed model that changed, a partial rename, an unused hint
golden!(rename_no_hint, 1); //      a rename without renamed_from: added + removed, and the suggested hint
golden!(shift_no_hint, 1); //       an ordinal shift without a hint, and the suggested hint
golden!(shift_hint, 1); //          the same shift with the hint; an unused node hint
golden!(sink_reader, 1); //        a model's sink moved: a ref() reader's aggregate is input-changed
golden!(schemas, 0); //            a source column retyped and one added: stateless changes, no keyed node below moves
golden!(hop, 1); //                 a tumbling window became a hop window, a hop window's slide changed
golden!(session, 1); //             a tumbling window became a session window, a session gap changed, an aggregate added to a session
golden!(scalar, 1); //              SQL past the original: a CASE inside SUM changed (the accumulator), a CASE reformatted (SAFE)
golden!(retract, 1); //             an aggregate's upstream became an upsert model: its MIN/MAX turned retracting (WITH RETRACT)
golden!(union, 1); //               a UNION ALL reformatted and given an input (ordinals kept: COMPATIBLE); a union's inputs swapped (the aggregate after it: BACKFILL, and the hints)
golden!(union_hint, 0); //          the same swap with `nodes:` hints: a union's inputs compare as a set, so nothing changed (SAFE)
golden!(topn, 1); //                Top-N and deduplication: N, Top-1 → Top-N, the order, the partition, first → last, the stored row (never SAFE or COMPATIBLE); a reformat and a reader's change leave the Rank SAFE
golden!(topn_retention, 1); //      a deduplication's retention (alone: models that rank rows share the job's one TTL on Flink, E0323)
golden!(topn_restore, 1); //        a Top-N's stored row lost a column: STATE INCOMPATIBLE, and Flink refuses the savepoint (restore_probe.py topn_restore v1 v2)
golden!(topn_updates, 1); //        Top-N over updating inputs: the strategy (UpdateFast → Retract), N and Top-1 → Top-N of a retracting Rank (BACKFILL), the order, the partition
golden!(join, 1); //                joins: a key added, the stored columns grown (STATE INCOMPATIBLE), the residual condition changed (BACKFILL), retention turned on (MIGRATION), the equality swapped and reformatted (SAFE)
golden!(interval_join, 1); //       interval joins: a bound widened, the sides swapped, a regular join made an interval join (never SAFE or COMPATIBLE); the bounds reworded (SAFE)
golden!(temporal_join, 1); //       temporal joins: the versioned side's key changed, a stored column added (STATE INCOMPATIBLE); reworded, aliases renamed, the equality swapped (SAFE)
golden!(join_restore, 1); //        a join's retention turned off and on (MIGRATION), an output column renamed above it (COMPATIBLE): Flink's restores (restore_probe.py join_restore:MODEL) in docs/upgrades.md
golden!(outer_join, 1); //          outer joins: INNER made LEFT, a RIGHT join rewritten as the mirrored LEFT join (never SAFE or COMPATIBLE: Flink stores the sides under other names); LEFT OUTER reworded (SAFE)
golden!(join_unique, 1); //          a join over an upsert model whose key changes upstream (its SQL the same): the side's unique key changes, STATE INCOMPATIBLE
golden!(pruned_calls, 0); //        a reader of a model without a sink starts filtering on a column Flink had pruned from that model's aggregate: COMPATIBLE here, a rebuild on Flink (restore_probe.py pruned_calls:reader)
golden!(safe, 0); //                formatting, canonical retention, idle_timeout, source key, sink format

/// A copy of a case's v2 project in the test's scratch space.
fn scratch_copy(case: &str, name: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &target);
            } else {
                fs::copy(e.path(), target).unwrap();
            }
        }
    }
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plan").join(name);
    let _ = fs::remove_dir_all(&root);
    copy(&plan_dir().join(case).join("v2"), &root.join("v2"));
    root
}

fn record(target: &str, manifest: &Value) -> Value {
    serde_json::json!({
        "record_version": 1,
        "target": target,
        "applied_at": "2026-01-02T03:04:05Z",
        "streamform_version": "0.1.0",
        "backend": "flink",
        "jobs": ["4b1d2c"],
        "manifest": manifest,
    })
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// Commands and their outputs, for one golden file.
fn transcript(dir: &Path, commands: &[&[&str]]) -> String {
    let mut out = String::new();
    for args in commands {
        let r = run(dir, args);
        out.push_str(&format!("$ streamform {}\nexit {}\n", args.join(" "), r.code));
        if !r.stdout.is_empty() {
            out.push_str(&format!("--- stdout\n{}", r.stdout));
        }
        if !r.stderr.is_empty() {
            out.push_str(&format!("--- stderr\n{}", r.stderr));
        }
        out.push('\n');
    }
    out
}

/// Targets: no record (a first deploy), a recorded one, the choice of
/// target, and a record for the wrong target.
#[test]
fn targets() {
    let manifest: Value = serde_json::from_str(&fs::read_to_string(running_manifest("targets")).unwrap()).unwrap();
    let root = scratch_copy("targets", "targets");
    let v2 = root.join("v2");
    let applied = v2.join(".streamform/applied");
    fs::create_dir_all(&applied).unwrap();
    fs::write(applied.join("prod.json"), pretty(&record("prod", &manifest))).unwrap();
    fs::write(applied.join("dev.json"), pretty(&record("qa", &manifest))).unwrap();
    fs::write(root.join("applied.json"), pretty(&record("prod", &manifest))).unwrap();
    let out = transcript(
        &v2,
        &[
            &["plan"],
            &["plan", "--target", "qa"],
            &["plan", "--target", "prod"],
            &["plan", "--target", "prod", "--json"],
            &["plan", "--target", "dev"],
            &["plan", "--against", "../applied.json", "--json"],
            &["plan", "--target", "prod", "--against", "../applied.json"],
            &["plan", "--target", "prod", "--out", "deploy.json"],
        ],
    );
    expect_file!["../../testdata/plan/targets/v2/plan.txt"].assert_eq(&out);

    // Nothing recorded: every model is added, SAFE.
    let fresh = scratch_copy("targets", "targets-fresh");
    let out = transcript(&fresh.join("v2"), &[&["plan", "--target", "dev"], &["plan", "--target", "dev", "--json"]]);
    expect_file!["../../testdata/plan/targets/v2/fresh.txt"].assert_eq(&out);
}

/// The strict reader refuses anything it would have to guess about.
#[test]
fn refusals() {
    let text = fs::read_to_string(running_manifest("refusals")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    let root = scratch_copy("refusals", "refusals");
    let bad = root.join("running");
    fs::create_dir_all(&bad).unwrap();
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut m = manifest.clone();
        f(&mut m);
        pretty(&m)
    };
    let files: Vec<(&str, String)> = vec![
        ("ok.json", text.clone()),
        ("not_json.json", "hello\n".into()),
        ("truncated.json", text[..text.len() / 2].to_string()),
        ("neither.json", "{\"version\": 1}\n".into()),
        ("array.json", "[]\n".into()),
        ("manifest_v2.json", edit(&|m| m["manifest_version"] = 2.into())),
        ("manifest_version_text.json", edit(&|m| m["manifest_version"] = "1".into())),
        ("record_v2.json", {
            let mut r = record("dev", &manifest);
            r["record_version"] = 2.into();
            pretty(&r)
        }),
        ("record_manifest_v2.json", {
            let mut r = record("dev", &manifest);
            r["manifest"]["manifest_version"] = 2.into();
            pretty(&r)
        }),
        ("record_manifest_not_object.json", {
            let mut r = record("dev", &manifest);
            r["manifest"] = 5.into();
            pretty(&r)
        }),
        ("record_unknown_field.json", {
            let mut r = record("dev", &manifest);
            r["cluster"] = "eu-1".into();
            pretty(&r)
        }),
        ("unknown_field.json", edit(&|m| m["generator"] = "by hand".into())),
        ("node_unknown_field.json", edit(&|m| m["nodes"][1]["colour"] = "red".into())),
        ("record_node_unknown_field.json", {
            let mut r = record("dev", &manifest);
            r["manifest"]["nodes"][1]["colour"] = "red".into();
            pretty(&r)
        }),
        ("missing_field.json", edit(&|m| {
            m["nodes"][2].as_object_mut().unwrap().remove("schema_digest");
        })),
        ("wrong_type.json", edit(&|m| m["nodes"][0]["inputs"] = "none".into())),
        ("state_kind.json", edit(&|m| m["nodes"][0]["state"]["kind"] = "sharded".into())),
        ("dangling_input.json", edit(&|m| m["nodes"][1]["inputs"][0] = "m::filter::9".into())),
        ("tampered_schema.json", edit(&|m| m["nodes"][2]["schema"][0]["type"] = "int32".into())),
        ("tampered_state.json", edit(&|m| m["nodes"][1]["state"]["digest"] = "f".repeat(64).into())),
        ("tampered_application.json", edit(&|m| m["application_digest"] = "0".repeat(64).into())),
        ("tampered_definition.json", edit(&|m| m["nodes"][0]["definition"] = "orders (kafka orders-v0)".into())),
    ];
    let mut commands: Vec<Vec<String>> = Vec::new();
    for (name, content) in &files {
        fs::write(bad.join(name), content).unwrap();
        commands.push(vec!["plan".into(), "--against".into(), format!("../running/{name}")]);
    }
    commands.push(vec!["plan".into(), "--against".into(), "../running/missing.json".into()]);
    let commands: Vec<Vec<&str>> = commands.iter().map(|c| c.iter().map(String::as_str).collect()).collect();
    let commands: Vec<&[&str]> = commands.iter().map(Vec::as_slice).collect();
    let out = transcript(&root.join("v2"), &commands);
    expect_file!["../../testdata/plan/refusals/v2/plan.txt"].assert_eq(&out);
}

/// A hint naming no node of the model's plan is a check error: plan
/// refuses to run.
#[test]
fn bad_hint() {
    running_manifest("bad_hint");
    let v2 = plan_dir().join("bad_hint").join("v2");
    let out = transcript(&v2, &[&["plan", "--against", "../v1/plan.json"], &["check"]]);
    expect_file!["../../testdata/plan/bad_hint/v2/plan.txt"].assert_eq(&out);
}

/// The goldens exercise every change kind and classification of diff.json.
#[test]
fn every_change_kind_is_covered() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut classes = std::collections::BTreeSet::new();
    for e in fs::read_dir(plan_dir()).unwrap() {
        let path = e.unwrap().path().join("v2/plan.json");
        let Ok(text) = fs::read_to_string(&path) else { continue };
        let v: Value = serde_json::from_str(&text).unwrap();
        classes.insert(v["verdict"].as_str().unwrap().to_string());
        for m in v["models"].as_array().unwrap() {
            for n in m["nodes"].as_array().unwrap() {
                kinds.insert(n["kind"].as_str().unwrap().to_string());
                classes.insert(n["classification"].as_str().unwrap().to_string());
            }
        }
    }
    let all: Vec<String> = streamform::upgrade::ChangeKind::ALL.iter().map(|k| k.as_str().to_string()).collect();
    let missing: Vec<&String> = all.iter().filter(|k| !kinds.contains(*k)).collect();
    assert!(missing.is_empty(), "change kinds without a golden case: {missing:?}");
    let missing: Vec<&str> = streamform::upgrade::Classification::ALL.iter().map(|c| c.as_str()).filter(|c| !classes.contains(*c)).collect();
    assert!(missing.is_empty(), "classifications without a golden case: {missing:?}");
}
