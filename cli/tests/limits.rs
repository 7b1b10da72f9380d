//! The limits of docs/limits.md, through the commands a user runs: at the
//! limit every command works; one past it, each refuses with the located
//! error instead of overflowing its stack or taking all the memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use streamform::sql::limits::{MAX_EXPR_DEPTH, MAX_SET_OPERATIONS};
use streamform::window::MAX_WINDOWS_PER_EVENT;

const SOURCES: &str = "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    event_time: ts\n    schema: {id: int64, amount: int64, ts: timestamp}\n";

/// A project of one model `m` (with its window, if any) and a fixture of
/// four events, in a fresh directory.
fn project(tag: &str, sql: &str, window: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("streamform-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::create_dir_all(dir.join("input")).unwrap();
    let models = window.map(|w| format!("models:\n  m:\n    window: {w}\n")).unwrap_or_default();
    std::fs::write(dir.join("streamform.yml"), format!("name: limits\nversion: 1\n{models}")).unwrap();
    std::fs::write(dir.join("sources.yml"), SOURCES).unwrap();
    std::fs::write(dir.join("models/m.sql"), sql).unwrap();
    let events: Vec<String> = (0..4).map(|i| format!("{{id: {i}, amount: {i}, ts: \"2024-01-01T00:00:0{i}Z\"}}")).collect();
    std::fs::write(dir.join("tests/m.yml"), format!("model: m\ngiven:\n  - {}\nexpect: []\n", events.join("\n  - "))).unwrap();
    let lines: Vec<String> = (0..4).map(|i| format!("{{\"id\": {i}, \"amount\": {i}, \"ts\": \"2024-01-01T00:00:0{i}Z\"}}")).collect();
    std::fs::write(dir.join("input/orders.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}

fn streamform(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("the binary runs")
}

/// Every command that reads the model SQL.
const COMMANDS: &[&[&str]] = &[&["check"], &["inspect-plan"], &["explain"], &["build", "--stdout"], &["test"], &["run", "--input", "input", "--output", "out"]];

/// Each command ends with an exit code (not a signal) and no panic; returns
/// stdout and stderr of each, joined.
fn run_all(dir: &Path) -> Vec<(String, Option<i32>, String)> {
    COMMANDS
        .iter()
        .map(|args| {
            let out = streamform(dir, args);
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.code().is_some() && !text.contains("panicked") && !text.contains("overflow"), "{args:?} crashed: {:?}\n{}", out.status, tail(&text));
            (args.join(" "), out.status.code(), text)
        })
        .collect()
}

/// Every command refuses the project with output holding each of `wants`.
fn refused_everywhere(dir: &Path, wants: &[&str]) {
    for (args, code, text) in run_all(dir) {
        assert!(wants.iter().all(|w| text.contains(w)), "{args}: want {wants:?}, got {}", tail(&text));
        assert!(code.is_some_and(|c| c != 0), "{args}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

fn tail(text: &str) -> &str {
    &text[text.len().saturating_sub(2000)..]
}

fn chain(terms: usize) -> String {
    vec!["amount"; terms].join(" + ")
}

#[test]
fn an_expression_at_the_depth_limit_runs_everywhere() {
    let dir = project("expr-at", &format!("SELECT id, {} AS x FROM source('orders')\n", chain(MAX_EXPR_DEPTH)), None);
    for (args, code, text) in run_all(&dir) {
        assert!(!text.contains("E0890"), "{args}: {}", tail(&text));
        // `test` fails its empty expectation; everything else succeeds.
        let want = if args == "test" { 1 } else { 0 };
        assert_eq!(code, Some(want), "{args}: {}", tail(&text));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_expression_past_the_depth_limit_is_a_located_error_everywhere() {
    // 2,000 terms was the reported crash; far past the limit too.
    for terms in [MAX_EXPR_DEPTH + 1, 2_000, 100_000] {
        let dir = project("expr-past", &format!("SELECT id,\n  {} AS x FROM source('orders')\n", chain(terms)), None);
        refused_everywhere(&dir, &["error[E0890]", "--> models/m.sql:2:3"]);
    }
}

#[test]
fn a_refused_set_operation_over_a_deep_expression_is_located() {
    // Building UNION's "not supported" error took the span of the whole
    // query, once per operator of the chain in it.
    let deep = chain(MAX_EXPR_DEPTH);
    let dir = project("union", &format!("SELECT {deep} AS x FROM source('orders')\nUNION\nSELECT {deep} AS x FROM source('orders')\n"), None);
    refused_everywhere(&dir, &["UNION (without ALL)"]);
}

#[test]
fn set_operations_at_and_past_the_limit() {
    let union = |n: usize| vec!["SELECT id FROM source('orders')"; n + 1].join("\nUNION ALL ") + "\n";
    let dir = project("sets-at", &union(MAX_SET_OPERATIONS), None);
    let out = streamform(&dir, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = project("sets-past", &union(MAX_SET_OPERATIONS + 1), None);
    refused_everywhere(&dir, &["error[E0891]", "--> models/m.sql:1:1"]);
}

#[test]
fn hop_windows_per_event_at_and_past_the_limit() {
    let sql = "SELECT window_start, window_end, COUNT(*) AS n FROM source('orders') GROUP BY window_start, window_end\n";
    let at = format!("{{type: hop, size: {}s, slide: 1s}}", MAX_WINDOWS_PER_EVENT);
    let dir = project("hop-at", sql, Some(&at));
    let out = streamform(&dir, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
    // The reported case: 10,000,000 windows per event took 21.8 GB for four events.
    for window in [format!("{{type: hop, size: {}s, slide: 1s}}", MAX_WINDOWS_PER_EVENT + 1), "{type: hop, size: 10000000ms, slide: 1ms}".to_string()] {
        let dir = project("hop-past", sql, Some(&window));
        for (args, code, text) in run_all(&dir) {
            // inspect-plan and explain show the plan without checking the
            // configuration, and run nothing.
            if args == "inspect-plan" || args == "explain" {
                assert_eq!(code, Some(0), "{args}: {}", tail(&text));
                continue;
            }
            assert!(text.contains("error[E0892]") && text.contains("--> streamform.yml:5:13"), "{args}: {}", tail(&text));
            assert!(code.is_some_and(|c| c != 0), "{args}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The same window written as HOP in FROM.
    let tvf = "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(HOP(TABLE source('orders'), DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '10001' SECOND)) GROUP BY window_start, window_end\n";
    let dir = project("hop-tvf", tvf, None);
    refused_everywhere(&dir, &["error[E0892]", "--> models/m.sql:1:"]);
}
