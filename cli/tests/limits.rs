//! The limits of docs/limits.md, through the commands a user runs: at the
//! limit every command works; one past it, each refuses with the located
//! error instead of overflowing its stack or taking all the memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use streamform::sql::limits::{MAX_EXPR_DEPTH, MAX_SET_OPERATIONS};
use streamform::window::MAX_WINDOWS_PER_EVENT;
use streamform::limits::{MAX_FIXTURE_BYTES, MAX_REF_DEPTH, MAX_VALUE_BYTES};
use streamform::yaml::MAX_YAML_DEPTH;

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

/// What a command printed, stdout then stderr.
fn printed(dir: &Path, args: &[&str]) -> String {
    let out = streamform(dir, args);
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
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

/// `levels` of YAML nesting in `streamform.yml`: its top-level map, then
/// lists under an unknown key.
fn nested_config(dir: &Path, levels: usize) {
    let lists = levels - 1;
    std::fs::write(dir.join("streamform.yml"), format!("name: limits\nversion: 1\nx: {}1{}\n", "[".repeat(lists), "]".repeat(lists))).unwrap();
}

#[test]
fn yaml_nesting_at_and_past_the_limit() {
    let sql = "SELECT id FROM source('orders')\n";
    let dir = project("yaml-at", sql, None);
    nested_config(&dir, MAX_YAML_DEPTH);
    let text = printed(&dir, &["check"]);
    assert!(text.contains("error[E0103]") && !text.contains("E0893"), "read to the unknown key: {}", tail(&text));
    nested_config(&dir, MAX_YAML_DEPTH + 1);
    refused_everywhere(&dir, &["error[E0893]", &format!("--> streamform.yml:3:{}", 4 + MAX_YAML_DEPTH - 1)]);
    // Three million nested block lists overflowed the stack of `check`.
    let dir = project("yaml-block", sql, None);
    std::fs::write(dir.join("streamform.yml"), format!("name: limits\nversion: 1\nx:\n  {}a\n", "- ".repeat(3_000_000))).unwrap();
    refused_everywhere(&dir, &["error[E0893]"]);
    // Nesting in a fixture stops `test` the same way.
    let dir = project("yaml-fixture", sql, None);
    let lists = MAX_YAML_DEPTH - 2;
    std::fs::write(dir.join("tests/m.yml"), format!("model: m\ngiven:\n  - {{id: {}1{}}}\nexpect: []\n", "[".repeat(lists), "]".repeat(lists))).unwrap();
    let text = printed(&dir, &["test"]);
    assert!(text.contains("error[E0893]"), "{}", tail(&text));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn yaml_aliases_past_the_limit_are_refused_everywhere() {
    // Nine lines, each aliasing the line above ten times, once took all the
    // memory: over a billion nodes.
    let dir = project("yaml-laughs", "SELECT id FROM source('orders')\n", None);
    let mut text = "name: limits\nversion: 1\nl0: &l0 [a, a, a, a, a, a, a, a, a, a]\n".to_string();
    for i in 1..9 {
        text.push_str(&format!("l{i}: &l{i} [{}]\n", vec![format!("*l{}", i - 1); 10].join(", ")));
    }
    std::fs::write(dir.join("streamform.yml"), text).unwrap();
    refused_everywhere(&dir, &["error[E0894]", "--> streamform.yml:7:"]);
}

#[test]
fn durations_at_and_past_the_limit() {
    let sql = "SELECT window_start, window_end, COUNT(*) AS n FROM source('orders') GROUP BY window_start, window_end\n";
    let dir = project("duration-at", sql, Some("{type: tumbling, size: 999999d}"));
    let out = streamform(&dir, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
    // One millisecond past, and past 64 bits of milliseconds.
    for size in ["86400000000000ms", "99999999999999999999ms"] {
        let dir = project("duration-past", sql, Some(&format!("{{type: tumbling, size: {size}}}")));
        refused_everywhere(&dir, &["error[E0895]", "--> streamform.yml:5:"]);
    }
}

/// A daily count, whose windows a timestamp or watermark at an edge reaches.
const DAILY: &str = "SELECT window_start, window_end, COUNT(*) AS n FROM source('orders') GROUP BY window_start, window_end\n";

/// The first and last instants a timestamp holds, each written both ways,
/// and the millisecond past each: whether it fits.
const EDGES: [(&str, bool); 6] = [
    ("\"0000-01-01T00:00:00Z\"", true),
    ("-62167219200000", true),
    ("\"9999-12-31T23:59:59.999Z\"", true),
    ("253402300799999", true),
    ("-62167219200001", false),
    ("253402300800000", false),
];

#[test]
fn timestamps_at_and_past_the_edges_of_their_range() {
    let fixture = |ts: &str| format!("model: m\ngiven:\n  - {{id: 1, amount: 1, ts: {ts}}}\nexpect: []\n");
    // Once a hang: the first window start overflowed.
    for (ts, fits) in EDGES.into_iter().chain([("-9223372036854775807", false)]) {
        let dir = project("ts", DAILY, Some("{type: tumbling, size: 1d}"));
        std::fs::write(dir.join("tests/m.yml"), fixture(ts)).unwrap();
        std::fs::write(dir.join("input/orders.jsonl"), format!("{{\"id\": 1, \"amount\": 1, \"ts\": {ts}}}\n")).unwrap();
        for (args, code, text) in run_all(&dir) {
            let refused = text.contains("outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z");
            if args == "test" {
                assert_eq!(refused, !fits, "{ts}: {}", tail(&text));
                assert!(refused == text.contains("error[E0778]"), "{ts}: {}", tail(&text));
            } else if args.starts_with("run") {
                assert_eq!(refused, !fits, "{ts}: {}", tail(&text));
                assert_eq!(code, Some(if fits { 0 } else { 1 }), "{ts}: {}", tail(&text));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A watermark holds to a timestamp's range: past it, a fixture is refused
/// at load (E0775) and `run` names the line, where one once passed and was
/// silently skipped.
#[test]
fn watermarks_at_and_past_the_edges_of_their_range() {
    let fixture = |w: &str| format!("model: m\ngiven:\n  - {{id: 1, amount: 1, ts: 1}}\n  - {{watermark: {w}}}\nexpect: []\n");
    for (w, fits) in EDGES.into_iter().chain([("9223372036854775807", false), ("99999999999999999999", false)]) {
        let dir = project("wm", DAILY, Some("{type: tumbling, size: 1d}"));
        std::fs::write(dir.join("tests/m.yml"), fixture(w)).unwrap();
        std::fs::write(dir.join("input/orders.jsonl"), format!("{{\"id\": 1, \"amount\": 1, \"ts\": 1}}\n{{\"watermark\": {w}}}\n")).unwrap();
        let out = streamform(&dir, &["check"]);
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(if fits { 0 } else { 2 }), "{w}: {}", tail(&text));
        if !fits {
            assert!(text.contains("error[E0775]") && text.contains("is outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z\n  --> tests/m.yml:4:17"), "{w}: {}", tail(&text));
        }
        std::fs::remove_file(dir.join("tests/m.yml")).unwrap();
        let run = streamform(&dir, &["run", "--input", "input", "--output", "out"]);
        let text = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(if fits { 0 } else { 1 }), "{w}: {}", tail(&text));
        assert_eq!(text.contains("input/orders.jsonl:2: watermark"), !fits, "{w}: {}", tail(&text));
        let _ = std::fs::remove_dir_all(&dir);
    }
    // A date that does not exist was also skipped; it is not an instant.
    let dir = project("wm-date", DAILY, Some("{type: tumbling, size: 1d}"));
    std::fs::write(dir.join("tests/m.yml"), fixture("\"2024-02-30T00:00:00Z\"")).unwrap();
    let text = printed(&dir, &["test"]);
    assert!(text.contains("error[E0775]: malformed fixture tests/m.yml: given[1]: watermark `2024-02-30T00:00:00Z` is neither an RFC 3339 instant in UTC nor epoch milliseconds"), "{}", tail(&text));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn values_at_and_past_the_size_limit() {
    let literal = |n: usize| format!("SELECT id, '{}' AS note FROM source('orders')\n", "x".repeat(n));
    let dir = project("value-at", &literal(MAX_VALUE_BYTES), None);
    let out = streamform(&dir, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", tail(&String::from_utf8_lossy(&out.stdout)));
    let _ = std::fs::remove_dir_all(&dir);
    let dir = project("value-past", &literal(MAX_VALUE_BYTES + 1), None);
    refused_everywhere(&dir, &["error[E0897]", "--> models/m.sql:1:12"]);
    // A YAML scalar of a fixture, and a value of `run`'s input.
    let sql = "SELECT id FROM source('orders')\n";
    for (n, refused) in [(MAX_VALUE_BYTES, false), (MAX_VALUE_BYTES + 1, true)] {
        let dir = project("value-yaml", sql, None);
        std::fs::write(dir.join("tests/m.yml"), format!("model: m\ngiven:\n  - {{id: 1, amount: 1, ts: {}}}\nexpect: []\n", "1".repeat(n))).unwrap();
        let text = printed(&dir, &["check"]);
        assert_eq!(text.contains("error[E0897]") && text.contains("--> tests/m.yml:3:28"), refused, "{}", tail(&text));
        // A value of `run`'s input, the fixture set aside.
        std::fs::remove_file(dir.join("tests/m.yml")).unwrap();
        std::fs::write(dir.join("input/orders.jsonl"), format!("{{\"id\": 1, \"amount\": {}, \"ts\": 0}}\n", "1".repeat(n))).unwrap();
        let text = printed(&dir, &["run", "--input", "input", "--output", "out"]);
        assert_eq!(text.contains("more than the limit of 1048576 (1 MiB)"), refused, "{}", tail(&text));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A fixture of exactly `n` bytes: one event and its row, then comment
/// lines.
fn fixture_of(n: usize) -> String {
    let head = "model: m\ngiven:\n  - {id: 1, amount: 1, ts: 1}\nexpect:\n  - {op: insert, id: 1}\n";
    let line = format!("#{}\n", "x".repeat(98));
    let (k, r) = ((n - head.len()) / line.len(), (n - head.len()) % line.len());
    let last = match r {
        0 => String::new(),
        1 => "\n".to_string(),
        r => format!("#{}\n", "x".repeat(r - 2)),
    };
    let text = format!("{head}{}{last}", line.repeat(k));
    assert_eq!(text.len(), n);
    text
}

#[test]
fn fixtures_at_and_past_the_size_limit() {
    let sql = "SELECT id FROM source('orders')\n";
    let dir = project("fixture-size", sql, None);
    std::fs::write(dir.join("tests/m.yml"), fixture_of(MAX_FIXTURE_BYTES)).unwrap();
    let out = streamform(&dir, &["test"]);
    assert_eq!(out.status.code(), Some(0), "{}", tail(&String::from_utf8_lossy(&out.stdout)));
    // One byte past: refused at load, by `test` and `check` alike, and as a
    // fixture named on the command line.
    std::fs::write(dir.join("tests/m.yml"), fixture_of(MAX_FIXTURE_BYTES + 1)).unwrap();
    for args in [&["test"][..], &["check"], &["inspect-plan"]] {
        let out = streamform(&dir, args);
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", tail(&text));
        assert!(text.contains("error[E0898]: fixture tests/m.yml is larger than the limit of 268435456 bytes (256 MiB)\n  --> tests/m.yml:1:1\n"), "{args:?}: {}", tail(&text));
    }
    std::fs::rename(dir.join("tests/m.yml"), dir.join("big.yml")).unwrap();
    let text = printed(&dir, &["test", "--fixture", "big.yml"]);
    assert!(text.contains("error[E0898]: fixture big.yml is larger than"), "{}", tail(&text));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A project of `n` models in one ref() chain: `m00000` reads the source and
/// each next one the one before, or, `reversed`, the other way round, so
/// that the model met first in name order is the deepest.
fn ref_chain(tag: &str, n: usize, reversed: bool) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("streamform-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("streamform.yml"), "name: limits\nversion: 1\n").unwrap();
    std::fs::write(dir.join("sources.yml"), SOURCES).unwrap();
    let name = |i: usize| format!("m{:05}", if reversed { n - 1 - i } else { i });
    for i in 0..n {
        let from = if i == 0 { "source('orders')".to_string() } else { format!("ref('{}')", name(i - 1)) };
        std::fs::write(dir.join(format!("models/{}.sql", name(i))), format!("SELECT id, amount FROM {from}\n")).unwrap();
    }
    dir
}

#[test]
fn ref_chains_at_and_past_the_depth_limit() {
    let depth = MAX_REF_DEPTH as usize;
    let dir = ref_chain("refs-at", depth + 1, false);
    for args in [&["check"][..], &["inspect-plan"], &["explain", &format!("m{depth:05}")], &["build", "--stdout"], &["graph"]] {
        let out = streamform(&dir, args);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", tail(&text));
    }
    let _ = std::fs::remove_dir_all(&dir);
    // One past: the first model past the limit is the error, at its ref();
    // each model below it gets a note.
    let dir = ref_chain("refs-past", depth + 3, false);
    let text = printed(&dir, &["check"]);
    let past = depth + 1;
    assert!(text.contains(&format!("error[E0899]: model `m{past:05}` is {past} ref()s above its sources, past the limit of {depth}")), "{}", tail(&text));
    assert!(text.contains(&format!("--> models/m{past:05}.sql:1:28")), "{}", tail(&text));
    assert!(text.contains(&format!("note[E0899]: model `m{:05}` reads ref('m{past:05}')", past + 1)), "{}", tail(&text));
    assert!(text.contains("1 error"), "{}", tail(&text));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ref_chain_far_past_the_limit_is_refused_without_recursing_down_it() {
    // Walked from its deepest model first, the chain once overflowed the
    // stack (each model's lowering asked for the next one's); before that,
    // finding cycles walked it once per model and took cubic time.
    let n = 5 * MAX_REF_DEPTH as usize;
    let dir = ref_chain("refs-far", n, true);
    for args in [&["check"][..], &["inspect-plan"]] {
        let out = streamform(&dir, args);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        // `check` reports (1); commands that plan refuse to (2).
        assert_eq!(out.status.code(), Some(if args[0] == "check" { 1 } else { 2 }), "{args:?}: {}", tail(&text));
        // Reversed: model i of the chain is named m{n-1-i}.
        let past = n - 1 - (MAX_REF_DEPTH as usize + 1);
        assert!(text.contains(&format!("error[E0899]: model `m{past:05}`")), "{args:?}: {}", tail(&text));
        assert_eq!(text.matches("error[E0899]").count(), 1, "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 3 MB line with an error in its middle is quoted as a window around the
/// error, with the caret under it, not echoed whole.
#[test]
fn a_long_line_is_quoted_as_a_window_around_the_error() {
    let pad = "x".repeat(3_000_000);
    let dir = project("long-line", &format!("SELECT id, /*{pad}*/ amount + nope AS x, /*{pad}*/ amount FROM source('orders')\n"), None);
    let out = printed(&dir, &["check"]);
    assert!(out.len() < 100_000, "printed {} bytes", out.len());
    let quoted = out.lines().find(|l| l.starts_with(" 1 | ")).expect("the line around the error is quoted");
    assert!(quoted.contains("…xxx") && quoted.contains("*/ amount + nope AS x, /*xxx") && quoted.ends_with("xxx…"), "{quoted}");
    let caret = out.lines().skip_while(|l| !l.starts_with(" 1 | ")).nth(1).expect("a caret line");
    let at = |l: &str, pat: &str| l.chars().count() - l[l.find(pat).unwrap()..].chars().count();
    assert_eq!(at(caret, "^"), at(quoted, "nope"), "the caret is under the error:\n{quoted}\n{caret}");
    let _ = std::fs::remove_dir_all(dir);
}
