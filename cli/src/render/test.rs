//! `streamform test`'s reports: the text layout and the JSON document
//! (peer-behaviour §7.5–7.6), and the value encodings `run` shares.

use streamform::plan::node::Column;
use streamform::sim::fixture::{ExpectedRow, WrittenEvent};
use streamform::sim::scalar::Scalar;
use streamform::sim::value::format_timestamp_ms;
use streamform::sim::{Change, EventRowReport, FixtureReport, Value};

use super::json::Json;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One fixture's block, without the separating blank line.
pub fn fixture_text(r: &FixtureReport) -> String {
    let mut s = format!("{}\n\n", r.model);
    if r.passed {
        s.push_str("PASS\n\n");
    } else {
        s.push_str(&format!("FAIL\n  --> {}\n\n", r.path));
    }
    s.push_str(&fixture_detail(r));
    s
}

/// The counts and the expected/actual table, without the heading.
pub fn fixture_detail(r: &FixtureReport) -> String {
    let mut s = String::new();
    if let Some(e) = &r.error {
        s.push_str(&format!("error: {e}\n"));
        return s;
    }
    s.push_str(&plural(r.events_processed, "event processed\n", "events processed\n"));
    s.push_str(&plural(r.changes_emitted, "changelog record emitted\n", "changelog records emitted\n"));
    if r.late_dropped > 0 {
        s.push_str(&plural(r.late_dropped, "late event dropped\n", "late events dropped\n"));
    }
    if r.dropped_without_time > 0 {
        s.push_str(&plural(r.dropped_without_time, "event without event time dropped\n", "events without event time dropped\n"));
    }
    if r.quarantined_events > 0 {
        s.push_str(&plural(r.quarantined_events, "event quarantined\n", "events quarantined\n"));
    }
    if r.sink_dropped > 0 {
        s.push_str(&plural(r.sink_dropped, "changelog record left out of the upsert Kafka sink (null key, W0792)\n", "changelog records left out of the upsert Kafka sink (null key, W0792)\n"));
    }
    if r.passed {
        return s;
    }
    if !r.changelog_matches() {
        let rows: Vec<(String, String, Option<String>)> = r
            .rows
            .iter()
            .map(|row| {
                let expected = row.expected.as_ref().map_or_else(|| "(missing)".to_string(), |e| expected_text(&r.columns, e));
                let actual = match (&row.actual, &row.expected) {
                    (Some(a), Some(_)) => change_text(&r.columns, a),
                    (Some(a), None) => format!("(unexpected) {}", change_text(&r.columns, a)),
                    // The original printed "(unexpected)" here; the spec fixes it.
                    (None, _) => "(no record)".to_string(),
                };
                (expected, actual, row.problem.clone())
            })
            .collect();
        s.push('\n');
        s.push_str(&table("expected", "actual", &rows));
    }
    for (rows, listed, actual, not_listed, absent) in [
        (&r.late, "late: listed", "dropped", "(not listed)", "(delivered)"),
        (&r.quarantined, "quarantined: listed", "quarantined", "(not listed)", "(kept every contract)"),
    ] {
        if rows.iter().all(|row| row.problem.is_none()) {
            continue;
        }
        let cells: Vec<(String, String, Option<String>)> = rows
            .iter()
            .map(|row: &EventRowReport| {
                (
                    row.listed.as_ref().map_or_else(|| not_listed.to_string(), |w| written_text(w)),
                    row.actual.as_ref().map_or_else(|| absent.to_string(), |w| written_text(w)),
                    row.problem.clone(),
                )
            })
            .collect();
        s.push('\n');
        s.push_str(&table(listed, actual, &cells));
    }
    s
}

/// `  #  expected  actual` tables: the index right-aligned, the left
/// column padded to its widest cell, a `^ problem` line under mismatches.
fn table(left: &str, right: &str, rows: &[(String, String, Option<String>)]) -> String {
    let iw = rows.len().to_string().len().max(1);
    let lw = rows.iter().map(|r| r.0.chars().count()).chain([left.chars().count()]).max().unwrap_or(0);
    let mut s = format!("  {:>iw$}  {}  {right}\n", "#", pad(left, lw));
    for (i, (l, r, p)) in rows.iter().enumerate() {
        s.push_str(&format!("  {:>iw$}  {}  {r}\n", i + 1, pad(l, lw)));
        if let Some(p) = p {
            s.push_str(&format!("  {}  ^ {p}\n", " ".repeat(iw)));
        }
    }
    s
}

fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}

fn expected_text(columns: &[Column], e: &ExpectedRow) -> String {
    let mut s = e.op.as_str().to_string();
    for (c, cell) in columns.iter().zip(&e.cells) {
        s.push_str(&format!(" {}={}", c.name, cell.written.render()));
    }
    s
}

pub fn change_text(columns: &[Column], c: &Change) -> String {
    let mut s = c.op.as_str().to_string();
    for (col, v) in columns.iter().zip(&c.row) {
        s.push_str(&format!(" {}={}", col.name, v.render_text()));
    }
    s
}

fn written_text(w: &WrittenEvent) -> String {
    w.iter().map(|(k, v)| format!("{k}={}", v.render())).collect::<Vec<_>>().join(" ")
}

/// The report for a person at a terminal: a line per passing fixture,
/// the whole report of a failing one, its changelog as one block per
/// failing row (see [`failing_rows`]), then the summary. `expect_line`
/// gives the fixture line of expected row N.
pub fn compact_text(reports: &[&FixtureReport], expect_line: &dyn Fn(&FixtureReport, usize) -> Option<usize>) -> String {
    let mut s = String::new();
    for r in reports {
        if r.passed {
            s.push_str(&format!("PASS {} ({})\n", r.path, r.model));
            continue;
        }
        let mut block = format!("{}\n\nFAIL\n  --> {}\n\n", r.model, r.path);
        if r.error.is_some() || r.changelog_matches() {
            block.push_str(&fixture_detail(r));
        } else {
            // The counts, then the rows that differ instead of the wide table.
            let detail = fixture_detail(r);
            block.push_str(detail.split("\n\n").next().unwrap_or_default().trim_end());
            block.push('\n');
            block.push_str(&failing_rows(r, expect_line));
            if let Some(rest) = detail.find("\n  #  late").or_else(|| detail.find("\n  #  quarantined")) {
                block.push_str(&detail[rest..]);
            }
        }
        s.push_str(&format!("\n{}\n\n", block.trim_end()));
    }
    if !s.ends_with("\n\n") {
        s.push('\n');
    }
    s.push_str(&summary(reports));
    s
}

/// Each failing changelog row as a column per line, expected beside
/// actual, in one format for both (decimals at their scale, timestamps as
/// RFC 3339 text), the differing columns marked `!`, with the fixture line
/// the expected row is on.
fn failing_rows(r: &FixtureReport, expect_line: &dyn Fn(&FixtureReport, usize) -> Option<usize>) -> String {
    let mut s = String::new();
    let mut expected_at = 0;
    for (i, row) in r.rows.iter().enumerate() {
        let index = row.expected.as_ref().map(|_| {
            expected_at += 1;
            expected_at - 1
        });
        let Some(problem) = &row.problem else { continue };
        let at = index.and_then(|n| expect_line(r, n)).map_or(String::new(), |l| format!("  --> {}:{l}", r.path));
        s.push_str(&format!("\n  record {}{at}\n", i + 1));
        let mut cells: Vec<(String, String, String, bool)> = Vec::new();
        let op_e = row.expected.as_ref().map_or("(missing)".to_string(), |e| e.op.as_str().to_string());
        let op_a = row.actual.as_ref().map_or("(no record)".to_string(), |a| a.op.as_str().to_string());
        cells.push(("op".into(), op_e.clone(), op_a.clone(), op_e != op_a));
        for (c, col) in r.columns.iter().enumerate() {
            let cell = row.expected.as_ref().and_then(|e| e.cells.get(c));
            let value = row.actual.as_ref().and_then(|a| a.row.get(c));
            let e = cell.map_or(String::new(), |x| x.written.render());
            let a = value.map_or(String::new(), readable);
            let differs = match (cell, value) {
                (Some(x), Some(v)) => x.typed.as_ref().map_or(true, |t| t != v),
                (None, None) => false,
                _ => true,
            };
            cells.push((col.name.clone(), e, a, differs));
        }
        let w0 = cells.iter().map(|c| c.0.chars().count()).max().unwrap_or(0).max("column".len());
        let w1 = cells.iter().map(|c| c.1.chars().count()).max().unwrap_or(0).max("expected".len());
        s.push_str(&format!("    {}  {}  actual\n", pad("column", w0), pad("expected", w1)));
        for (name, e, a, differs) in &cells {
            let mark = if *differs { "!" } else { " " };
            s.push_str(&format!("  {mark} {}  {}  {a}\n", pad(name, w0), pad(e, w1)));
        }
        s.push_str(&format!("    ^ {problem}\n"));
    }
    s
}

/// A value as a fixture would write it: decimals at their scale and
/// timestamps as RFC 3339, both quoted; strings quoted.
fn readable(v: &Value) -> String {
    match v {
        Value::Decimal(d) => format!("\"{}\"", d.to_scaled_string()),
        Value::Timestamp(ms) => format!("\"{}\"", format_timestamp_ms(*ms).replace(".000Z", "Z")),
        Value::TimestampNanos(ns) => format!("\"{}\"", format_timestamp_ms(ns.div_euclid(1_000_000)).replace(".000Z", "Z")),
        other => other.render_text(),
    }
}

/// The summary line.
pub fn summary(reports: &[&FixtureReport]) -> String {
    let failed = reports.iter().filter(|r| !r.passed).count();
    if failed == 0 {
        format!("ok: {} passed\n", plural(reports.len(), "fixture", "fixtures"))
    } else {
        format!("failed: {failed} of {}\n", plural(reports.len(), "fixture", "fixtures"))
    }
}

/// A value in JSON: decimals as strings (exact), timestamps as ISO
/// instants with milliseconds, floats as numbers.
pub fn value_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::Int(*i as i128),
        Value::Float(f) => Json::Float(*f),
        Value::Decimal(d) => Json::Str(d.to_plain_string()),
        Value::Str(s) => Json::Str(s.to_string()),
        Value::Timestamp(ms) => Json::Str(format_timestamp_ms(*ms)),
        Value::TimestampNanos(ns) => Json::Str(format_timestamp_ms(ns.div_euclid(1_000_000))),
    }
}

pub fn scalar_json(s: &Scalar) -> Json {
    match s {
        Scalar::Null => Json::Null,
        Scalar::Bool(b) => Json::Bool(*b),
        Scalar::Int(i) => Json::Int(*i),
        Scalar::Float(f, _) => Json::Float(*f),
        Scalar::Str(s) => Json::Str(s.clone()),
    }
}

/// Columns as a JSON object, keys sorted by name.
fn sorted_object(mut pairs: Vec<(String, Json)>) -> Json {
    pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Json::Obj(pairs)
}

fn row_json(columns: &[Column], row: &[Value]) -> Json {
    sorted_object(columns.iter().zip(row).map(|(c, v)| (c.name.clone(), value_json(v))).collect())
}

fn written_json(w: &WrittenEvent) -> Json {
    event_json(w, None)
}

/// An input event as written, columns sorted, with the contract it broke
/// when it was quarantined (`run`'s late and quarantined files).
pub fn event_json(fields: &[(String, Scalar)], contract: Option<&str>) -> Json {
    let mut pairs: Vec<(String, Json)> = fields.iter().map(|(k, v)| (k.clone(), scalar_json(v))).collect();
    if let Some(c) = contract {
        pairs.push(("_contract".into(), Json::Str(c.to_string())));
    }
    sorted_object(pairs)
}

fn problem_json(p: &Option<String>) -> Json {
    p.clone().map_or(Json::Null, Json::Str)
}

pub fn fixture_json(r: &FixtureReport) -> Json {
    let mut f = vec![("model", Json::Str(r.model.clone())), ("path", Json::Str(r.path.clone())), ("passed", Json::Bool(r.passed))];
    if let Some(e) = &r.error {
        f.push(("error", Json::Str(e.clone())));
    }
    f.push(("events_processed", Json::Int(r.events_processed as i128)));
    f.push(("changes_emitted", Json::Int(r.changes_emitted as i128)));
    let rows = r
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut o = vec![("index", Json::Int(i as i128))];
            if let Some(e) = &row.expected {
                let cols = r
                    .columns
                    .iter()
                    .zip(&e.cells)
                    .map(|(c, cell)| (c.name.clone(), cell.typed.as_ref().map_or_else(|_| scalar_json(&cell.written), value_json)))
                    .collect();
                o.push(("expected", Json::obj(vec![("op", Json::Str(e.op.as_str().into())), ("columns", sorted_object(cols))])));
            }
            if let Some(a) = &row.actual {
                o.push(("actual", change_json(&r.columns, a)));
            }
            o.push(("problem", problem_json(&row.problem)));
            Json::obj(o)
        })
        .collect();
    f.push(("rows", Json::Arr(rows)));
    let events = |rows: &[EventRowReport]| {
        Json::Arr(
            rows.iter()
                .enumerate()
                .map(|(i, row)| {
                    let mut o = vec![("index", Json::Int(i as i128))];
                    if let Some(l) = &row.listed {
                        o.push(("expected", written_json(l)));
                    }
                    if let Some(a) = &row.actual {
                        o.push(("actual", written_json(a)));
                    }
                    o.push(("problem", problem_json(&row.problem)));
                    Json::obj(o)
                })
                .collect(),
        )
    };
    if r.late_dropped > 0 {
        f.push(("late_dropped", Json::Int(r.late_dropped as i128)));
    }
    if !r.late.is_empty() {
        f.push(("late", events(&r.late)));
    }
    if r.dropped_without_time > 0 {
        f.push(("dropped_without_time", Json::Int(r.dropped_without_time as i128)));
    }
    if r.quarantined_events > 0 {
        f.push(("quarantined_events", Json::Int(r.quarantined_events as i128)));
    }
    if !r.quarantined.is_empty() {
        f.push(("quarantined", events(&r.quarantined)));
    }
    if r.sink_dropped > 0 {
        f.push(("sink_dropped", Json::Int(r.sink_dropped as i128)));
    }
    Json::obj(f)
}

/// `{"op", "columns", "before"?}` with columns sorted by name.
pub fn change_json(columns: &[Column], c: &Change) -> Json {
    let mut o = vec![("op", Json::Str(c.op.as_str().into())), ("columns", row_json(columns, &c.row))];
    if let Some(b) = &c.before {
        o.push(("before", row_json(columns, b)));
    }
    Json::obj(o)
}

pub fn report_json(reports: &[&FixtureReport]) -> Json {
    Json::obj(vec![
        ("report_version", Json::Int(1)),
        ("passed", Json::Bool(reports.iter().all(|r| r.passed))),
        ("fixtures", Json::Arr(reports.iter().map(|r| fixture_json(r)).collect())),
    ])
}
