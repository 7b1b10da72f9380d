//! `check` is the whole truth: on every project under testdata/, `check`
//! passing means `build` succeeds (for each target the project declares);
//! and `check`'s machine-readable reports (`--json`, `--format github`,
//! `--format sarif`) locate every diagnostic, SARIF valid against the
//! standard's schema (testdata/sarif/).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use expect_test::expect_file;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn streamform(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("the binary runs")
}

/// Every directory under testdata/ with a streamform.yml, sorted.
fn projects() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = entries.map(|e| e.expect("readable entry").path()).collect();
        entries.sort();
        if entries.iter().any(|p| p.file_name().is_some_and(|n| n == "streamform.yml")) {
            out.push(dir.to_path_buf());
        }
        for e in entries.into_iter().filter(|p| p.is_dir() && !p.ends_with("build")) {
            walk(&e, out);
        }
    }
    let mut out = Vec::new();
    walk(&repo().join("testdata"), &mut out);
    out
}

/// The targets a project declares: asked of `build` itself, which names them
/// when there are several.
fn targets(dir: &Path) -> Vec<Option<String>> {
    let out = streamform(dir, &["build", "--backend", "flink", "--stdout"]);
    let err = String::from_utf8_lossy(&out.stderr);
    match err.split_once("declares several targets (").and_then(|(_, rest)| rest.split_once(')')) {
        Some((names, _)) => names.split(", ").map(|n| Some(n.to_string())).collect(),
        None => vec![None],
    }
}

#[test]
fn check_passing_means_build_succeeds_on_every_testdata_project() {
    let (mut checked, mut built) = (0, 0);
    let mut problems = Vec::new();
    for dir in projects() {
        checked += 1;
        if !streamform(&dir, &["check"]).status.success() {
            continue;
        }
        for t in targets(&dir) {
            let mut args = vec!["build", "--backend", "flink", "--stdout"];
            if let Some(t) = &t {
                args.extend(["--target", t.as_str()]);
            }
            let out = streamform(&dir, &args);
            // A target's `${VAR}` unset here is the environment's, not the
            // project's: `check` reads no environment (E0882 is the deploy
            // commands' own refusal).
            let unresolved = String::from_utf8_lossy(&out.stderr).contains("does not resolve in this environment");
            if out.status.success() {
                built += 1;
            } else if !unresolved {
                problems.push(format!("{}: check passes, `{}` fails:\n{}{}", dir.display(), args.join(" "), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)));
            }
        }
    }
    eprintln!("check => build: {checked} projects, {built} builds of projects that check");
    assert!(built > 100, "only {built} builds; did testdata move?");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Each diagnostic of `check --json` on a case has its code and, when it
/// is in a file, where it starts and ends.
#[test]
fn check_json_locates_every_diagnostic() {
    for case in ["E0320", "E0321", "E0101", "E0323"] {
        let dir = repo().join("testdata/diagnostics").join(case);
        let out = streamform(&dir, &["check", "--json"]);
        let doc: Value = serde_json::from_slice(&out.stdout).expect("check --json prints JSON");
        let diags = doc["diagnostics"].as_array().expect("diagnostics");
        let d = diags.iter().find(|d| d["code"] == case).unwrap_or_else(|| panic!("{case}: no diagnostic with its code in {doc}"));
        for key in ["line", "column", "end_line", "end_column"] {
            assert!(d[key].as_u64().is_some_and(|n| n >= 1), "{case}: `{key}` missing in {d}");
        }
        assert!((d["end_line"].as_u64(), d["end_column"].as_u64()) >= (d["line"].as_u64(), d["column"].as_u64()), "{case}: the end is before the start in {d}");
    }
    // A load error names its file apart from the message.
    let dir = repo().join("testdata/diagnostics/E0101");
    let doc: Value = serde_json::from_slice(&streamform(&dir, &["check", "--json"]).stdout).expect("JSON");
    assert!(doc["diagnostics"][0]["file"].as_str().is_some_and(|f| f.ends_with(".yml")), "{doc}");
}

#[test]
fn check_format_github_prints_annotations() {
    let dir = repo().join("testdata/diagnostics/E0321");
    let out = streamform(&dir, &["check", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    expect_file!["../../testdata/sarif/E0321.github.txt"].assert_eq(&String::from_utf8(out.stdout).expect("UTF-8"));
}

/// `check --json` of every project under testdata/ is valid against the
/// schema `streamform schema check-report` prints, by a real validator.
#[test]
fn check_json_follows_its_schema_on_every_testdata_project() {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(["schema", "check-report"]).output().expect("runs");
    let schema: Value = serde_json::from_slice(&out.stdout).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let mut checked = 0;
    let mut allowed = 0;
    for dir in projects() {
        let out = streamform(&dir, &["check", "--json"]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: not JSON: {e}", dir.display()));
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {}", dir.display(), errors.join("; "));
        checked += 1;
        allowed += doc.get("allowed").and_then(Value::as_array).map_or(0, Vec::len);
    }
    assert!(checked > 100 && allowed > 0, "{checked} reports, {allowed} allowed warnings");
}

#[test]
fn check_format_sarif_is_valid_sarif_2_1_0() {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(repo().join("testdata/sarif/sarif-2.1.0-subset.json")).expect("the schema")).expect("JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let mut results = 0;
    for case in ["E0320", "E0321", "E0323", "E0101", "W0766", "E0509"] {
        let dir = repo().join("testdata/diagnostics").join(case);
        let out = streamform(&dir, &["check", "--format", "sarif"]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{case}: not JSON: {e}"));
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{case}: {}", errors.join("; "));
        let run = &doc["runs"][0];
        for r in run["results"].as_array().expect("results") {
            results += 1;
            let rule = &run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().expect("ruleIndex") as usize];
            assert_eq!(rule["id"], r["ruleId"], "{case}: ruleIndex points at another rule");
        }
        assert!(run["results"].as_array().is_some_and(|r| r.iter().any(|r| r["ruleId"] == case)), "{case}: its code is not a result");
    }
    // A warning streamform.yml allows is a result marked suppressed, with
    // the entry's reason as its justification.
    let out = streamform(&repo().join("testdata/check/allowed_warnings"), &["check", "--format", "sarif"]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "allowed_warnings: {}", errors.join("; "));
    let suppressed: Vec<&Value> = doc["runs"][0]["results"].as_array().expect("results").iter().filter(|r| r.get("suppressions").is_some()).collect();
    assert_eq!(suppressed.len(), 3, "one suppressed result per allowed warning");
    assert!(suppressed.iter().any(|r| r["ruleId"] == "W0766" && r["suppressions"][0]["justification"] == "the dashboard reads only the latest count per status"));
    // The schema refuses what SARIF refuses.
    let bad = serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}]});
    assert!(!validator.is_valid(&bad), "the schema accepts a level SARIF does not have");
    assert!(results >= 6);
}
