//! `streamform schema`: the listing, one document, and the errors.
//! Refresh goldens with `UPDATE_EXPECT=1 cargo test -p streamform-cli --test schema`.

use std::process::Command;

use expect_test::{expect, expect_file};

fn run(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("schema").args(args).output().expect("runs");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn list() {
    let (out, err, code) = run(&["--list"]);
    expect![[r#"
        project         1  streamform.yml
        sources         1  sources.yml
        fixture         1  tests/*.yml
        plan-manifest   1  inspect-plan --json, explain --json, build/plan.json
        applied-record  1  .streamform/applied/<target>.json
        journal-entry   1  .streamform/journal/<target>/<attempt>.json
        diff            1  plan --json
        deploy-plan     1  plan --out <file>
        check-report    1  check --json
        test-report     1  test --json
        graph           1  graph --json
        status          1  status --json
    "#]]
    .assert_eq(&out);
    assert_eq!((err.as_str(), code), ("", 0));
    assert_eq!(run(&[]).0, out, "bare `schema` lists too");
}

#[test]
fn graph_document() {
    let (out, err, code) = run(&["graph"]);
    expect_file!["../../testdata/graph/schema.json"].assert_eq(&out);
    assert_eq!((err.as_str(), code), ("", 0));
    assert_eq!(run(&["graph", "--version", "1"]).0, out);
}

#[test]
fn every_document_is_json_schema_2020_12() {
    let (list, _, _) = run(&["--list"]);
    for name in list.lines().map(|l| l.split_whitespace().next().expect("name")) {
        let (out, _, code) = run(&[name]);
        assert_eq!(code, 0, "{name}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
        assert!(out.ends_with("}\n"), "{name}");
    }
}

#[test]
fn unknown_document() {
    let (out, err, code) = run(&["nope"]);
    assert_eq!((out.as_str(), code), ("", 2));
    expect![[r#"
        error: no document named `nope`; the documents are: project, sources, fixture, plan-manifest, applied-record, journal-entry, diff, deploy-plan, check-report, test-report, graph, status
    "#]]
    .assert_eq(&err);
}

#[test]
fn other_version() {
    let (out, err, code) = run(&["fixture", "--version", "2"]);
    assert_eq!((out.as_str(), err.as_str(), code), ("", "error: this streamform speaks `fixture` version 1, not 2\n", 2));
}
