//! Comparing what a fixture's model emitted with what the fixture expects,
//! row by row in emission order (peer-behaviour §7.4).

use super::fixture::{ExpectedRow, TypedFixture, WrittenEvent};
use super::operators::Change;
use super::value::Value;
use crate::diagnostic::Diagnostic;
use crate::plan::node::Column;

/// One changelog row of the report: expected and/or actual, and the first
/// problem found (`None` when they match).
#[derive(Clone, Debug, PartialEq)]
pub struct RowReport {
    pub expected: Option<ExpectedRow>,
    pub actual: Option<Change>,
    pub problem: Option<String>,
}

/// One row of the late or quarantined table: the listed event and the
/// one the simulator dropped or quarantined, both as written.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRowReport {
    pub listed: Option<WrittenEvent>,
    pub actual: Option<WrittenEvent>,
    pub problem: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FixtureReport {
    pub model: String,
    pub path: String,
    pub passed: bool,
    /// A run error: the fixture stopped, nothing else is reported.
    pub error: Option<String>,
    /// The located form of a typing error, for stderr.
    pub error_diagnostic: Option<Diagnostic>,
    pub events_processed: usize,
    pub changes_emitted: usize,
    /// The model's output columns.
    pub columns: Vec<Column>,
    pub rows: Vec<RowReport>,
    pub late_dropped: usize,
    pub late: Vec<EventRowReport>,
    pub quarantined_events: usize,
    pub quarantined: Vec<EventRowReport>,
    /// Values that were adjusted or exceed their column's declared precision.
    pub warnings: Vec<Diagnostic>,
}

impl FixtureReport {
    pub fn new(t: &TypedFixture) -> FixtureReport {
        FixtureReport {
            model: t.model.clone(),
            path: t.path.clone(),
            passed: true,
            error: None,
            error_diagnostic: None,
            events_processed: 0,
            changes_emitted: 0,
            columns: t.columns.clone(),
            rows: Vec::new(),
            late_dropped: 0,
            late: Vec::new(),
            quarantined_events: 0,
            quarantined: Vec::new(),
            warnings: t.warnings.clone(),
        }
    }

    pub fn fail(&mut self, message: String, located: Option<Diagnostic>) {
        self.passed = false;
        self.error = Some(message);
        self.error_diagnostic = located;
    }

    pub fn changelog_matches(&self) -> bool {
        self.rows.iter().all(|r| r.problem.is_none())
    }
}

pub const UNEXPECTED: &str = "unexpected: the fixture ends before this record";
pub const MISSING: &str = "missing: the model emitted nothing here";

pub fn compare(report: &mut FixtureReport, t: &TypedFixture, processed: usize, emitted: Vec<Change>, dropped: Vec<WrittenEvent>, quarantined: Vec<WrittenEvent>) {
    report.events_processed = processed;
    report.changes_emitted = emitted.len();
    report.late_dropped = dropped.len();
    report.quarantined_events = quarantined.len();
    let n = emitted.len().max(t.expect.len());
    let mut actual = emitted.into_iter();
    for i in 0..n {
        let expected = t.expect.get(i).cloned();
        let actual = actual.next();
        let problem = match (&expected, &actual) {
            (Some(e), Some(a)) => row_problem(&t.columns, e, a),
            (Some(_), None) => Some(MISSING.to_string()),
            (None, _) => Some(UNEXPECTED.to_string()),
        };
        report.rows.push(RowReport { expected, actual, problem });
    }
    report.late = pair(&t.late, dropped, |listed, actual| match (listed, actual) {
        (true, true) => "the dropped event differs from the one listed",
        (true, false) => "listed as late, but it was delivered",
        _ => "dropped as late but not acknowledged; list it under `late:` or set `late_events: keep` on the source",
    });
    report.quarantined = pair(&t.quarantined, quarantined, |listed, actual| match (listed, actual) {
        (true, true) => "the quarantined event, or the contract it broke, differs from the one listed",
        (true, false) => "listed as quarantined, but it kept every contract",
        _ => "quarantined but not acknowledged; list it under `quarantined:` with its `_contract`",
    });
    report.passed = report.changelog_matches() && report.late.iter().all(|r| r.problem.is_none()) && report.quarantined.iter().all(|r| r.problem.is_none());
}

fn pair(listed: &[WrittenEvent], actual: Vec<WrittenEvent>, problem: impl Fn(bool, bool) -> &'static str) -> Vec<EventRowReport> {
    let n = listed.len().max(actual.len());
    let mut actual = actual.into_iter();
    (0..n)
        .map(|i| {
            let l = listed.get(i).map(|w| sorted(w.clone()));
            let a = actual.next();
            let p = match (&l, &a) {
                (Some(l), Some(a)) if l == a => None,
                (l, a) => Some(problem(l.is_some(), a.is_some()).to_string()),
            };
            EventRowReport { listed: l, actual: a, problem: p }
        })
        .collect()
}

fn sorted(mut w: WrittenEvent) -> WrittenEvent {
    w.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    w
}

/// The op first, then each column in output order; the first difference.
fn row_problem(columns: &[Column], e: &ExpectedRow, a: &Change) -> Option<String> {
    if e.op != a.op {
        return Some(format!("op: expected {}, got {}", e.op.as_str(), a.op.as_str()));
    }
    for (i, (c, cell)) in columns.iter().zip(&e.cells).enumerate() {
        let got = a.row.get(i).cloned().unwrap_or(Value::Null);
        match &cell.typed {
            Err(message) => return Some(message.clone()),
            Ok(v) if !same(v, &got) => return Some(format!("{}: expected {}, got {}", c.name, cell.written.render(), got.render_text())),
            Ok(_) => {}
        }
    }
    None
}

/// Exact equality; decimals by value, floats by IEEE equality.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}
