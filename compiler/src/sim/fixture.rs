//! Fixtures on the simulator: typing a decoded fixture against its root
//! source and its model's output (salsa queries over the fixture file),
//! and running it into a report.

use std::sync::Arc;

use super::compare::{compare, FixtureReport};
use super::dataflow::{Dataflow, Outcome, SimError, SourceSpec};
use super::operators::{Change, ChangeOp, Row};
use super::scalar::{type_scalar, Scalar};
use super::value::{parse_rfc3339_ms, Value};
use crate::check::fixtures::{fixture, GivenItem, Row as WrittenRow};
use crate::db::{Db, ModelName, Project, SourceFile, SourceName};
use crate::diagnostic::{Diagnostic, Span};
use crate::model::model_plan;
use crate::plan::node::{Column, ModelPlan, NodeKind};
use crate::project::source_config;
use crate::source::{applied_contracts, event_time};
use crate::yaml::{Node, Value as Yaml};

/// An event as written: its columns sorted by name (how reports show and
/// compare late and quarantined events).
pub type WrittenEvent = Vec<(String, Scalar)>;

#[derive(Clone, Debug, PartialEq)]
pub enum Given {
    Event { row: Row, written: WrittenEvent },
    Watermark(i64),
}

/// One expected cell: as written, and typed against the column.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedCell {
    pub written: Scalar,
    pub typed: Result<Value, String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedRow {
    pub op: ChangeOp,
    /// In output-column order.
    pub cells: Vec<ExpectedCell>,
}

/// A fixture ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct TypedFixture {
    pub model: String,
    pub path: String,
    pub source: SourceSpec,
    /// The models from the root source to the fixture's model.
    pub chain: Vec<Arc<ModelPlan>>,
    pub columns: Vec<Column>,
    pub given: Vec<Given>,
    pub expect: Vec<ExpectedRow>,
    pub late: Vec<WrittenEvent>,
    pub quarantined: Vec<WrittenEvent>,
    pub warnings: Vec<Diagnostic>,
    /// A given value that does not type: the run stops before it starts.
    pub error: Option<Diagnostic>,
}

/// The source as the simulator reads it: clock, late policy, contracts.
#[salsa::tracked(returns(ref))]
pub fn source_spec<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Option<SourceSpec> {
    let s = source_config(db, project, name).as_ref()?;
    let columns: Vec<Column> = s.columns.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
    let et = event_time(s);
    let time = et.as_ref().and_then(|e| e.clock()).and_then(|t| columns.iter().position(|c| c.name == t));
    let contracts = applied_contracts(db, project, name).rules;
    Some(SourceSpec {
        name: s.name.clone(),
        columns,
        time,
        delay_ms: et.as_ref().map(|e| e.watermark.millis().min(i64::MAX as u64) as i64).unwrap_or(0),
        late: et.as_ref().map(|e| e.late).unwrap_or_default(),
        contracts,
    })
}

/// The models from the root source down to `model` (root first), and the root source.
pub fn chain_to(db: &dyn Db, project: Project, model: &str) -> Option<(String, Vec<Arc<ModelPlan>>)> {
    let mut chain = Vec::new();
    let mut cur = model.to_string();
    loop {
        let plan = model_plan(db, project, ModelName::new(db, cur.clone())).clone()?;
        let next = plan.reads_model.clone();
        let source = plan.nodes.first().and_then(|n| match &n.kind {
            NodeKind::Source(s) => Some(s.source.clone()),
            _ => None,
        });
        chain.push(plan);
        if chain.len() > 10_000 {
            return None; // a cycle; check reports it
        }
        match (next, source) {
            (Some(m), _) => cur = m,
            (None, Some(s)) => {
                chain.reverse();
                return Some((s, chain));
            }
            (None, None) => return None,
        }
    }
}

/// The fixture typed against its source and model; `None` when it does not
/// decode or its model does not plan (check reports both).
#[salsa::tracked(returns(ref))]
pub fn typed_fixture(db: &dyn Db, project: Project, file: SourceFile) -> Option<TypedFixture> {
    let fx = fixture(db, file).as_ref().ok()?;
    let (source_name, chain) = chain_to(db, project, &fx.model)?;
    let source = source_spec(db, project, SourceName::new(db, source_name)).clone()?;
    let columns = chain.last()?.sink().schema.clone();
    let text = file.text(db);
    let path = fx.path.clone();
    let mut t = TypedFixture {
        model: fx.model.clone(),
        path: path.clone(),
        source,
        chain,
        columns,
        given: Vec::new(),
        expect: Vec::new(),
        late: Vec::new(),
        quarantined: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    for item in &fx.given {
        match item {
            GivenItem::Watermark { value, .. } => {
                let ms = match &value.value {
                    Yaml::Int(i) => i64::try_from(*i).ok(),
                    Yaml::Str(s) => parse_rfc3339_ms(s),
                    _ => None,
                };
                // The decoder already rejected malformed watermarks.
                if let Some(ms) = ms {
                    t.given.push(Given::Watermark(ms));
                }
            }
            GivenItem::Event(row) => match type_event(&t.source, row, text, &path, &mut t.warnings) {
                Ok(g) => t.given.push(g),
                Err(d) => {
                    if t.error.is_none() {
                        t.error = Some(d);
                    }
                }
            },
        }
    }
    for e in &fx.expect {
        let op = match e.op.as_str() {
            "insert" => ChangeOp::Insert,
            "update" => ChangeOp::Update,
            _ => ChangeOp::Delete,
        };
        let cells = t
            .columns
            .iter()
            .map(|c| {
                let written = e.row.columns.iter().find(|(n, _, _)| n == &c.name).map(|(_, _, v)| scalar(v, text)).unwrap_or(Scalar::Null);
                let typed = type_scalar(&c.name, &written, c.ty).map(|(v, _)| v);
                ExpectedCell { written, typed }
            })
            .collect();
        t.expect.push(ExpectedRow { op, cells });
    }
    t.late = fx.late.iter().map(|r| written(r, text)).collect();
    t.quarantined = fx.quarantined.iter().map(|r| written(r, text)).collect();
    Some(t)
}

/// The fixture's report: run on the simulator and compared.
#[salsa::tracked(returns(ref))]
pub fn fixture_report(db: &dyn Db, project: Project, file: SourceFile) -> Option<FixtureReport> {
    typed_fixture(db, project, file).as_ref().map(run_fixture)
}

fn written(r: &WrittenRow, text: &str) -> WrittenEvent {
    let mut out: WrittenEvent = r.columns.iter().map(|(n, _, v)| (n.clone(), scalar(v, text))).collect();
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out
}

fn type_event(source: &SourceSpec, r: &WrittenRow, text: &str, path: &str, warnings: &mut Vec<Diagnostic>) -> Result<Given, Diagnostic> {
    let mut row: Row = vec![Value::Null; source.columns.len()];
    for (name, key_span, node) in &r.columns {
        let Some(i) = source.columns.iter().position(|c| &c.name == name) else {
            let cols = source.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ");
            return Err(Diagnostic::error("E0780", format!("event has column `{name}`, which source `{}` does not declare", source.name))
                .at(path, Some(key_span.with_len(name.len())))
                .help(format!("the columns of `{}` are {cols}", source.name)));
        };
        let s = scalar(node, text);
        let ty = source.columns[i].ty;
        match type_scalar(name, &s, ty) {
            Ok((v, warning)) => {
                if let Some(w) = warning {
                    warnings.push(Diagnostic::warning("W0776", w).at(path, Some(value_span(node, text))));
                }
                row[i] = v;
            }
            Err(message) => {
                return Err(Diagnostic::error("E0781", message).at(path, Some(value_span(node, text))).help(type_help(ty)));
            }
        }
    }
    Ok(Given::Event { row, written: written(r, text) })
}

fn type_help(ty: crate::types::DataType) -> String {
    use crate::types::DataType::*;
    match ty {
        Int32 | Int64 => format!("write an integer ({ty})"),
        Float64 => "write a number".into(),
        Decimal(_, s) => format!("write a number or a numeric string with at most {s} fraction digits"),
        String => "write a string (quote it if YAML would read it as something else)".into(),
        Boolean => "write true or false".into(),
        Timestamp | TimestampNanos => "write an RFC 3339 instant such as 2024-01-01T00:00:00Z (an offset such as +01:00 is converted to UTC), or epoch milliseconds".into(),
        Unsupported(_) => "this column's type holds no value".into(),
    }
}

fn value_span(node: &Node, text: &str) -> Span {
    let len = plain_token(text, node.span.offset as usize).map_or(0, str::len);
    node.span.with_len(len)
}

/// A YAML scalar as written. Floats keep their source text (YAML resolved
/// them to f64, which cannot hold a 38-digit decimal).
pub fn scalar(node: &Node, text: &str) -> Scalar {
    match &node.value {
        Yaml::Null => Scalar::Null,
        Yaml::Bool(b) => Scalar::Bool(*b),
        Yaml::Int(i) => Scalar::Int(*i),
        Yaml::Float(f) => {
            let written = plain_token(text, node.span.offset as usize).filter(|t| t.parse::<f64>().ok() == Some(*f) || (f.is_nan() && t.contains("nan")));
            Scalar::Float(*f, written.map(str::to_string).unwrap_or_else(|| super::value::render_float_text(*f)))
        }
        Yaml::Str(s) => Scalar::Str(s.clone()),
        Yaml::Seq(_) | Yaml::Map(_) => Scalar::Null,
    }
}

/// The plain scalar starting at `offset`: up to a flow indicator, a
/// comment or the end of the line.
fn plain_token(text: &str, offset: usize) -> Option<&str> {
    let rest = text.get(offset..)?;
    let end = rest.find([',', '}', ']', '\n', '\r', '#']).unwrap_or(rest.len());
    let t = rest[..end].trim_end();
    (!t.is_empty()).then_some(t)
}

/// Runs a typed fixture and compares what it emitted with what it expects.
pub fn run_fixture(t: &TypedFixture) -> FixtureReport {
    let mut report = FixtureReport::new(t);
    if let Some(e) = &t.error {
        report.fail(e.message.clone(), Some(e.clone()));
        return report;
    }
    let target = t.chain.len() - 1;
    let mut flow = Dataflow::new(t.source.clone(), t.chain.clone());
    let mut emitted: Vec<Change> = Vec::new();
    let mut dropped: Vec<WrittenEvent> = Vec::new();
    let mut quarantined: Vec<WrittenEvent> = Vec::new();
    let mut processed = 0usize;
    let mut events = 0usize;
    let mut emit = |m: usize, c: &Change| {
        if m == target {
            emitted.push(c.clone());
        }
    };
    for g in &t.given {
        let result = match g {
            Given::Watermark(w) => flow.push_watermark(*w, &mut emit).map(|_| None),
            Given::Event { row, written } => {
                events += 1;
                flow.push_event(row, &mut emit).map(|o| Some((o, written)))
            }
        };
        match result {
            Ok(Some((Outcome::Processed, _))) => processed += 1,
            Ok(Some((Outcome::Late, w))) => dropped.push(w.clone()),
            Ok(Some((Outcome::Quarantined(name), w))) => {
                let mut w = w.clone();
                w.push(("_contract".into(), Scalar::Str(name)));
                w.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                quarantined.push(w);
            }
            Ok(None) => {}
            Err(e) => {
                let message = match e {
                    SimError::MissingTime { column } => {
                        format!("event {events} has no `{column}`; source `{}` runs on event time, so every event needs one", t.source.name)
                    }
                    SimError::Eval(e) => e.to_string(),
                };
                report.fail(message, None);
                return report;
            }
        }
    }
    compare(&mut report, t, processed, emitted, dropped, quarantined);
    report
}
