//! Golden tests of `streamform check` over the projects in testdata/check/.
//! Refresh with `UPDATE_EXPECT=1 cargo test -p streamform-cli --test check`.

use std::path::Path;
use std::process::Command;

use expect_test::expect_file;

fn run(case: &str, args: &[&str]) -> (String, i32) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/check").join(case);
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("check").args(args).current_dir(&dir).output().expect("runs");
    (String::from_utf8(out.stdout).expect("utf-8"), out.status.code().unwrap_or(-1))
}

macro_rules! golden {
    ($name:ident, $case:literal, $rc:expr) => {
        #[test]
        fn $name() {
            let (text, rc) = run($case, &[]);
            expect_file![concat!("../../testdata/check/", $case, "/check.stdout")].assert_eq(&text);
            assert_eq!(rc, $rc, "exit code of check");
            let (json, rc_json) = run($case, &["--json"]);
            expect_file![concat!("../../testdata/check/", $case, "/check.json")].assert_eq(&json);
            assert_eq!(rc_json, $rc, "exit code of check --json");
        }
    };
}

golden!(clean, "clean", 0);
golden!(targets, "targets", 1);
golden!(sinks, "sinks", 1);
golden!(event_time, "event_time", 1);
golden!(contracts, "contracts", 1);
golden!(windows, "windows", 1);
golden!(upsert_keys, "upsert_keys", 1);
golden!(join_keys, "join_keys", 1); // the upsert keys a join keeps (E0858), checked with EXPLAIN on Flink 2.3
golden!(refs, "refs", 1);
// Functions of other engines: the help names what to write instead.
golden!(slips, "slips", 1);
// Forms not planned yet (lookup joins, UNNEST, OVER aggregates, DISTINCT,
// outer joins, PROCTIME()): each error names what to write instead.
golden!(refused_forms, "refused_forms", 1);
// A YAML slip: `decimal(10,2)` in a flow map is cut at its comma.
golden!(slips_yaml, "slips_yaml", 2);
// YAML slips, each located where the user acts, with what to write:
// a model's setting one indent short, a tab, an unclosed `[`.
golden!(yaml_indent, "yaml_indent", 2);
golden!(yaml_tab, "yaml_tab", 2);
golden!(yaml_bracket, "yaml_bracket", 2);
// A quarantine topic of a source no model reads needs no kafka: section.
golden!(unread_quarantine, "unread_quarantine", 0);
// An unaliased subquery column is named by its text: a typo beside it is
// still suggested, and a name too long to be a typo gets no suggestion
// (found by fuzzing: comparing each unknown name with every long name took
// seconds).
golden!(long_names, "long_names", 1);
// Items the original's planner names alike (a cast is named by its operand).
golden!(planner_names, "planner_names", 1);
golden!(cycle, "cycle", 1);
// Every independent error at once: each unknown column, function and type
// of a model; one located error per cycle; notes, after the root causes,
// for models that fail only because what they read fails. before.stdout is
// what check printed before (one error per model).
golden!(multi_errors, "multi_errors", 1);

/// What check printed before is still there: each model's first error,
/// now followed by the rest of its errors.
#[test]
fn multi_errors_keep_the_first_error_of_each_model() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/check/multi_errors");
    let before = std::fs::read_to_string(dir.join("before.stdout")).expect("before.stdout");
    let (after, _) = run("multi_errors", &[]);
    for line in before.lines().filter(|l| l.starts_with("error[E0509]") || l.starts_with("error[E0401]")) {
        assert!(after.contains(line), "lost: {line}\n{after}");
    }
}

/// Every problem of one fixture row: its undeclared column and its bad
/// timestamp (before, only the first; before.stderr).
#[test]
fn a_fixture_row_reports_every_problem() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/check/fixture_row");
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("test").current_dir(&dir).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    expect_file!["../../testdata/check/fixture_row/test.stderr"].assert_eq(&String::from_utf8(out.stderr).expect("utf-8"));
}
// Warnings allowed per project and per model, with reasons; entries that
// match nothing (W0325); `--verbose` shows what is allowed and why.
golden!(allowed_warnings, "allowed_warnings", 0);
golden!(window_keys, "window_keys", 0); // a window's bounds are never null: no W0792 for a Top-N keyed by window_start

#[test]
fn verbose_shows_each_allowed_warning_with_its_reason() {
    let (text, rc) = run("allowed_warnings", &["--verbose"]);
    expect_file!["../../testdata/check/allowed_warnings/check.verbose.stdout"].assert_eq(&text);
    assert_eq!(rc, 0);
}

/// `--strict` counts only the warnings no entry allows: the W0766 project
/// fails it until the warning is allowed, then passes.
#[test]
fn strict_passes_once_every_warning_is_allowed() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/diagnostics/W0766");
    let dir = std::env::temp_dir().join(format!("streamform-allow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models")).expect("temp dir");
    for f in ["sources.yml", "streamform.yml", "models/by_status.sql"] {
        std::fs::copy(case.join(f), dir.join(f)).expect("copy");
    }
    let strict = |dir: &Path| Command::new(env!("CARGO_BIN_EXE_streamform")).args(["check", "--strict"]).current_dir(dir).output().expect("runs");
    assert_eq!(strict(&dir).status.code(), Some(1), "W0766 fails --strict");
    let config = std::fs::read_to_string(dir.join("streamform.yml")).expect("read");
    let allowed = config.replace("    key: [status]\n", "    key: [status]\n    warnings:\n      allow: [{code: W0766, reason: readers need only the latest count}]\n");
    assert_ne!(allowed, config, "the allow entry is written under by_status");
    std::fs::write(dir.join("streamform.yml"), allowed).expect("write");
    let out = strict(&dir);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 warnings (1 allowed)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

golden!(fixtures, "fixtures", 1);
golden!(bad_fixture, "bad_fixture", 2);
// A NUL in a fixture's event line: the YAML parser refuses it, and so must
// the reader of large fixtures, which reads such lines without the parser.
golden!(fixture_control_character, "fixture_control_character", 2);
golden!(load_error, "load_error", 2);

#[test]
fn strict_fails_on_warnings() {
    let (text, rc) = run("upsert_keys", &["--strict"]);
    assert_eq!(rc, 1);
    let (text_clean, rc_clean) = run("clean", &["--strict"]);
    assert_eq!(rc_clean, 0, "{text_clean}");
    assert!(text.contains("failed:"), "{text}");
}

/// A malformed fixture file is a load error for the commands that show the
/// project (as in the original): each exits 2 and says why. Commands that
/// build or deploy read no fixture and go on, saying they left it aside.
#[test]
fn a_malformed_fixture_stops_the_commands_that_show_the_project() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/check/bad_fixture");
    let streamform = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(&dir).output().expect("runs");
    for args in [&["inspect-plan"][..], &["explain"], &["graph"], &["test"]] {
        let out = streamform(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("error: could not load project") && stderr.contains("tests/t.yml"), "{args:?}: {stderr}");
    }
    for args in [&["build", "--stdout"][..], &["plan"]] {
        let out = streamform(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("could not load project"), "{args:?}: {stderr}");
        assert!(stderr.contains("fixture errors left aside"), "{args:?}: {stderr}");
        // The project declares no target: that, not the fixture, stops them.
        assert!(stderr.contains("declares no targets"), "{args:?}: {stderr}");
    }
}

/// A source whose event_time is not a timestamp column fails check, but
/// inspect-plan still shows the declared column as its time attribute, byte
/// for byte as the original does.
#[test]
fn inspect_plan_shows_a_declared_event_time_that_is_no_timestamp() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/check/event_time_column");
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("inspect-plan").current_dir(&dir).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    expect_file!["../../testdata/check/event_time_column/inspect_plan.txt"].assert_eq(&String::from_utf8(out.stdout).expect("utf-8"));
    let (_, rc) = run("event_time_column", &[]);
    assert_eq!(rc, 1, "check reports E0743 and E0744");
}
