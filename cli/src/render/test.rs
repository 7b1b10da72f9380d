//! `streamform test`'s reports: the text layout and the JSON document
//! (peer-behaviour §7.5–7.6), and the value encodings `run` shares.

use streamform::plan::node::Column;
use streamform::sim::fixture::{ExpectedRow, WrittenEvent};
use streamform::sim::scalar::Scalar;
use streamform::sim::value::format_timestamp_ms;
use streamform::sim::{Change, EventRowReport, FixtureReport, RowReport, Value};

use super::json::{self, Json};

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Replays a fixture's changelog rows, each to the function it is given
/// (`streamform::sim::fixture_rows`): the rows are printed as the run makes
/// them, never held, so a report takes no more memory than the run.
pub type Rows<'a> = &'a dyn Fn(&mut dyn FnMut(RowReport));

/// Text made as it is printed: whole lines gather in a buffer that goes to
/// its sink whenever it passes 64 KiB, and at [`Out::finish`].
pub struct Out<'a> {
    buf: String,
    sink: &'a mut dyn FnMut(&str),
}

impl<'a> Out<'a> {
    pub fn new(sink: &'a mut dyn FnMut(&str)) -> Self {
        Out { buf: String::new(), sink }
    }

    pub fn push(&mut self, s: &str) {
        self.buf.push_str(s);
        if self.buf.len() >= 1 << 16 {
            (self.sink)(&self.buf);
            self.buf.clear();
        }
    }

    pub fn finish(self) {
        if !self.buf.is_empty() {
            (self.sink)(&self.buf);
        }
    }
}

/// The whole text of something written to an [`Out`].
pub fn collected(write: impl FnOnce(&mut Out)) -> String {
    let mut text = String::new();
    let mut sink = |s: &str| text.push_str(s);
    let mut out = Out::new(&mut sink);
    write(&mut out);
    out.finish();
    text
}

/// One fixture's block, without the separating blank line.
pub fn fixture_text(r: &FixtureReport, rows: Rows, out: &mut Out) {
    out.push(&format!("{}\n\n", r.model));
    if r.passed {
        out.push("PASS\n\n");
    } else {
        out.push(&format!("FAIL\n  --> {}\n\n", r.path));
    }
    fixture_detail(r, rows, out);
}

/// The counts and the expected/actual table, without the heading.
pub fn fixture_detail(r: &FixtureReport, rows: Rows, out: &mut Out) {
    out.push(&counts(r));
    if r.error.is_some() || r.passed {
        return;
    }
    if !r.changelog_matches() {
        out.push("\n");
        changelog_table(r, rows, out);
    }
    out.push(&event_tables(r));
}

/// The error of a run that stopped, or the count lines.
fn counts(r: &FixtureReport) -> String {
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
    s
}

/// The changelog's expected/actual table. Its columns align over every
/// row, so the rows are replayed twice: once for the widths, once to print.
fn changelog_table(r: &FixtureReport, rows: Rows, out: &mut Out) {
    let (mut count, mut lw) = (0usize, "expected".len());
    rows(&mut |row| {
        count += 1;
        lw = lw.max(row.expected.as_ref().map_or("(missing)".len(), |e| expected_text(&r.columns, e).chars().count()));
    });
    let iw = count.to_string().len();
    out.push(&table_head("expected", "actual", iw, lw));
    let mut i = 0;
    rows(&mut |row| {
        i += 1;
        let expected = row.expected.as_ref().map_or_else(|| "(missing)".to_string(), |e| expected_text(&r.columns, e));
        let actual = match (&row.actual, &row.expected) {
            (Some(a), Some(_)) => change_text(&r.columns, a),
            (Some(a), None) => format!("(unexpected) {}", change_text(&r.columns, a)),
            // The original printed "(unexpected)" here; the spec fixes it.
            (None, _) => "(no record)".to_string(),
        };
        out.push(&table_row(i, &expected, &actual, row.problem.as_deref(), iw, lw));
    });
}

/// The late and quarantined tables that have a problem, each after a
/// blank line.
fn event_tables(r: &FixtureReport) -> String {
    let mut s = String::new();
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
        let iw = cells.len().to_string().len();
        let lw = cells.iter().map(|c| c.0.chars().count()).chain([listed.chars().count()]).max().unwrap_or(0);
        s.push('\n');
        s.push_str(&table_head(listed, actual, iw, lw));
        for (i, (l, a, p)) in cells.iter().enumerate() {
            s.push_str(&table_row(i + 1, l, a, p.as_deref(), iw, lw));
        }
    }
    s
}

/// `  #  expected  actual` tables: the index right-aligned to `iw`, the
/// left column padded to `lw`, its widest cell.
fn table_head(left: &str, right: &str, iw: usize, lw: usize) -> String {
    format!("  {:>iw$}  {}  {right}\n", "#", pad(left, lw))
}

/// One table row, with a `^ problem` line under a mismatch.
fn table_row(i: usize, left: &str, right: &str, problem: Option<&str>, iw: usize, lw: usize) -> String {
    let mut s = format!("  {:>iw$}  {}  {right}\n", i, pad(left, lw));
    if let Some(p) = problem {
        s.push_str(&format!("  {}  ^ {p}\n", " ".repeat(iw)));
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
/// failing row (see [`failing_rows`]), then the summary. `rows_of` replays
/// a report's changelog rows; `expect_line` gives the fixture line of
/// expected row N.
pub fn compact_text(reports: &[&FixtureReport], rows_of: &dyn Fn(&FixtureReport, &mut dyn FnMut(RowReport)), expect_line: &dyn Fn(&FixtureReport, usize) -> Option<usize>, out: &mut Out) {
    let mut blank = true;
    for r in reports {
        if r.passed {
            out.push(&format!("PASS {} ({})\n", r.path, r.model));
            blank = false;
            continue;
        }
        out.push(&format!("\n{}\n\nFAIL\n  --> {}\n\n", r.model, r.path));
        let tail = if r.error.is_some() {
            counts(r)
        } else if r.changelog_matches() {
            // The counts, then the tables of late and quarantined events.
            format!("{}{}", counts(r), event_tables(r))
        } else {
            // The counts, then the rows that differ instead of the wide table.
            out.push(&format!("{}\n", counts(r).trim_end()));
            failing_rows(r, &|visit| rows_of(r, visit), expect_line, out);
            event_tables(r)
        };
        // The block ends in one blank line; the failing rows end in a newline.
        if tail.trim_end().is_empty() {
            out.push("\n");
        } else {
            out.push(&format!("{}\n\n", tail.trim_end()));
        }
        blank = true;
    }
    if !blank || reports.is_empty() {
        out.push("\n");
    }
    out.push(&summary(reports));
}

/// Each failing changelog row as a column per line, expected beside
/// actual, in one format for both (decimals at their scale, timestamps as
/// RFC 3339 text), the differing columns marked `!`, with the fixture line
/// the expected row is on.
fn failing_rows(r: &FixtureReport, rows: Rows, expect_line: &dyn Fn(&FixtureReport, usize) -> Option<usize>, out: &mut Out) {
    let mut expected_at = 0;
    let mut i = 0;
    rows(&mut |row| {
        i += 1;
        let index = row.expected.as_ref().map(|_| {
            expected_at += 1;
            expected_at - 1
        });
        let Some(problem) = &row.problem else { return };
        let mut s = String::new();
        let at = index.and_then(|n| expect_line(r, n)).map_or(String::new(), |l| format!("  --> {}:{l}", r.path));
        s.push_str(&format!("\n  record {i}{at}\n"));
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
        out.push(&s);
    });
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

/// A changelog row of the JSON report.
fn changelog_row_json(columns: &[Column], i: usize, row: &RowReport) -> Json {
    let mut o = vec![("index", Json::Int(i as i128))];
    if let Some(e) = &row.expected {
        let cols = columns
            .iter()
            .zip(&e.cells)
            .map(|(c, cell)| (c.name.clone(), cell.typed.as_ref().map_or_else(|_| scalar_json(&cell.written), value_json)))
            .collect();
        o.push(("expected", Json::obj(vec![("op", Json::Str(e.op.as_str().into())), ("columns", sorted_object(cols))])));
    }
    if let Some(a) = &row.actual {
        o.push(("actual", change_json(columns, a)));
    }
    o.push(("problem", problem_json(&row.problem)));
    Json::obj(o)
}

/// A fixture's JSON fields before its `rows` and after them.
fn fixture_fields(r: &FixtureReport) -> (Vec<(&'static str, Json)>, Vec<(&'static str, Json)>) {
    let mut f = vec![("model", Json::Str(r.model.clone())), ("path", Json::Str(r.path.clone())), ("passed", Json::Bool(r.passed))];
    if let Some(e) = &r.error {
        f.push(("error", Json::Str(e.clone())));
    }
    f.push(("events_processed", Json::Int(r.events_processed as i128)));
    f.push(("changes_emitted", Json::Int(r.changes_emitted as i128)));
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
    let mut t = Vec::new();
    if r.late_dropped > 0 {
        t.push(("late_dropped", Json::Int(r.late_dropped as i128)));
    }
    if !r.late.is_empty() {
        t.push(("late", events(&r.late)));
    }
    if r.dropped_without_time > 0 {
        t.push(("dropped_without_time", Json::Int(r.dropped_without_time as i128)));
    }
    if r.quarantined_events > 0 {
        t.push(("quarantined_events", Json::Int(r.quarantined_events as i128)));
    }
    if !r.quarantined.is_empty() {
        t.push(("quarantined", events(&r.quarantined)));
    }
    if r.sink_dropped > 0 {
        t.push(("sink_dropped", Json::Int(r.sink_dropped as i128)));
    }
    (f, t)
}

/// One `"key": value` member at `indent`.
fn member(s: &mut String, indent: usize, key: &str, value: &Json) {
    json::pad(s, indent);
    json::escape(key, s);
    s.push_str(": ");
    value.write(s, indent);
}

/// `test --json`'s document, pretty, with each fixture's changelog rows
/// written as they are replayed (a run that stopped has none). The text is
/// what one `Json` tree of the report would print.
pub fn write_report_json(reports: &[&FixtureReport], rows_of: &dyn Fn(&FixtureReport, &mut dyn FnMut(RowReport)), out: &mut Out) {
    let mut s = String::from("{\n");
    member(&mut s, 1, "report_version", &Json::Int(1));
    s.push_str(",\n");
    member(&mut s, 1, "passed", &Json::Bool(reports.iter().all(|r| r.passed)));
    s.push_str(",\n  \"fixtures\": ");
    if reports.is_empty() {
        s.push_str("[]");
    } else {
        s.push_str("[\n");
        for (k, r) in reports.iter().enumerate() {
            let (head, tail) = fixture_fields(r);
            s.push_str("    {\n");
            for (key, value) in &head {
                member(&mut s, 3, key, value);
                s.push_str(",\n");
            }
            s.push_str("      \"rows\": ");
            out.push(&std::mem::take(&mut s));
            let mut i = 0;
            if r.error.is_none() {
                rows_of(r, &mut |row| {
                    let mut t = String::from(if i == 0 { "[\n" } else { ",\n" });
                    json::pad(&mut t, 4);
                    changelog_row_json(&r.columns, i, &row).write(&mut t, 4);
                    out.push(&t);
                    i += 1;
                });
            }
            s.push_str(if i == 0 { "[]" } else { "\n      ]" });
            for (key, value) in &tail {
                s.push_str(",\n");
                member(&mut s, 3, key, value);
            }
            s.push_str(if k + 1 < reports.len() { "\n    },\n" } else { "\n    }\n" });
        }
        s.push_str("  ]");
    }
    s.push_str("\n}\n");
    out.push(&s);
}

/// `{"op", "columns", "before"?}` with columns sorted by name.
pub fn change_json(columns: &[Column], c: &Change) -> Json {
    let mut o = vec![("op", Json::Str(c.op.as_str().into())), ("columns", row_json(columns, &c.row))];
    if let Some(b) = &c.before {
        o.push(("before", row_json(columns, b)));
    }
    Json::obj(o)
}
