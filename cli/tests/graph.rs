//! Golden tests of `streamform graph` (text, DOT, JSON) over the projects in
//! testdata/graph/. Refresh with `UPDATE_EXPECT=1 cargo test -p streamform-cli --test graph`.

use std::path::Path;
use std::process::Command;

use expect_test::expect_file;

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn run(case: &str, args: &[&str]) -> Run {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/graph").join(case);
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("graph").args(args).current_dir(&dir).output().expect("runs");
    Run {
        stdout: String::from_utf8(out.stdout).expect("utf-8"),
        stderr: String::from_utf8(out.stderr).expect("utf-8"),
        code: out.status.code().unwrap_or(-1),
    }
}

macro_rules! golden {
    ($name:ident, $case:literal) => {
        #[test]
        fn $name() {
            let text = run($case, &[]);
            expect_file![concat!("../../testdata/graph/", $case, "/graph.txt")].assert_eq(&text.stdout);
            assert_eq!((text.code, text.stderr.as_str()), (0, ""), "graph");
            let dot = run($case, &["--format", "dot"]);
            expect_file![concat!("../../testdata/graph/", $case, "/graph.dot")].assert_eq(&dot.stdout);
            assert_eq!((dot.code, dot.stderr.as_str()), (0, ""), "graph --format dot");
            let json = run($case, &["--json"]);
            expect_file![concat!("../../testdata/graph/", $case, "/graph.json")].assert_eq(&json.stdout);
            assert_eq!((json.code, json.stderr.as_str()), (0, ""), "graph --json");
        }
    };
}

golden!(ref_chain, "ref_chain");
golden!(missing_ref, "missing_ref");
golden!(iceberg_sink, "iceberg_sink");
// A global aggregate (empty key) is `upsert`, not `upsert()`, and the kind
// column is only as wide as the kinds shown.
golden!(global_aggregate, "global_aggregate");
// After the sources, every model not drawn yet is a root, in name order,
// even one whose upstream model is drawn later.
golden!(unreached, "unreached");

#[test]
fn cycle_fails_text_and_dot_but_prints_the_json_document() {
    let msg = "error: models form a reference cycle: a \u{2192} b \u{2192} a; run `streamform check`\n";
    for args in [&[][..], &["--format", "dot"][..]] {
        let r = run("cycle", args);
        assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (2, "", msg), "graph {args:?}");
    }
    let json = run("cycle", &["--json"]);
    expect_file!["../../testdata/graph/cycle/graph.json"].assert_eq(&json.stdout);
    assert_eq!((json.code, json.stderr.as_str()), (1, ""), "graph --json");
}

#[test]
fn json_document_has_the_graph_schemas_required_keys_in_order() {
    let json = run("ref_chain", &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    let keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["graph_version", "project", "sources", "models", "edges", "order", "cycles"]);
}

#[test]
fn load_errors_exit_2() {
    let dir = std::env::temp_dir().join(format!("streamform-graph-missing-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_streamform"))
        .args(["graph", "--project"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: could not load project at "));
}
