//! The operators of one model's plan, executed on changelog records.

use super::eval::{eval, holds, EvalError};
use super::rows::RowPool;
use super::state::KeyedStore;
use super::value::Value;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, NodeKind, PlanNode, Retention};
use crate::types::DataType;

pub type Row = Vec<Value>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeOp {
    Insert,
    Update,
    Delete,
}

impl ChangeOp {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeOp::Insert => "insert",
            ChangeOp::Update => "update",
            ChangeOp::Delete => "delete",
        }
    }
}

/// One changelog record: the after-image (the deleted row for a delete)
/// and, for an update, the row it replaces.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub op: ChangeOp,
    pub row: Row,
    pub before: Option<Row>,
}

impl Change {
    pub fn insert(row: Row) -> Change {
        Change { op: ChangeOp::Insert, row, before: None }
    }
}

/// What an operator knows about the record it is given.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// The event time of the source event behind the record (the
    /// watermark for records a closing window emits); 0 on processing time.
    pub event_time: i64,
}

#[derive(Debug)]
pub enum Operator {
    Filter(Expr),
    Project(Vec<Expr>),
    /// A projection that lists its `n` input columns in order (`SELECT k,
    /// sum(x)` after the aggregate computing them): rows pass unchanged.
    PassThrough(usize),
    Aggregate(Aggregate),
}

#[derive(Debug)]
pub struct Aggregate {
    /// Node id, for inspection.
    pub id: String,
    /// Data key positions in the input row.
    keys: Vec<usize>,
    /// Tumbling windows: the event-time column's position and the size.
    window: Option<(usize, i64)>,
    pub store: KeyedStore,
    /// Reused for each record's key, to look it up without allocating.
    scratch: Vec<Value>,
}

impl Operator {
    /// The executable operator of a plan node; `None` for Source and Sink.
    pub fn of(model: &str, node: &PlanNode, input: &[Column]) -> Option<Operator> {
        match &node.kind {
            NodeKind::Source(_) | NodeKind::Sink { .. } => None,
            NodeKind::Filter { predicate } => Some(Operator::Filter(predicate.clone())),
            NodeKind::Project { items } if is_pass_through(items.iter().map(|(e, _)| e), input.len()) => Some(Operator::PassThrough(items.len())),
            NodeKind::Project { items } => Some(Operator::Project(items.iter().map(|(e, _)| e.clone()).collect())),
            NodeKind::Aggregate { keys, calls, window } => {
                let n = input.len();
                let data_keys: Vec<usize> = keys.iter().copied().filter(|k| window.is_none() || *k < n).collect();
                let key_cols = data_keys.iter().map(|&k| input.get(k).cloned().unwrap_or(Column { name: format!("#{k}"), ty: DataType::Int64 })).collect();
                let retention = match node.state.as_ref().map(|s| s.retention) {
                    Some(Retention::After(d)) => Some(d.millis().min(i64::MAX as u64) as i64),
                    _ => None,
                };
                let window = window.as_ref().and_then(|w| Some((input.iter().position(|c| c.name == w.time)?, w.size.millis().min(i64::MAX as u64) as i64)));
                Some(Operator::Aggregate(Aggregate { id: node.id(model), keys: data_keys, window, store: KeyedStore::new(key_cols, calls.clone(), retention, window.is_some()), scratch: Vec::new() }))
            }
        }
    }

    /// Applies the operator to one record, pushing what it emits; rows
    /// it consumes go back to `rows`, rows it builds come from there.
    pub fn apply(&mut self, change: Change, ctx: Context, out: &mut Vec<Change>, rows: &mut RowPool) -> Result<(), EvalError> {
        match self {
            Operator::Filter(p) => filter(p, change, out),
            Operator::Project(items) => {
                let row = project(items, &change.row, rows)?;
                let before = match &change.before {
                    Some(b) => Some(project(items, b, rows)?),
                    None => None,
                };
                rows.give(change.row);
                if let Some(b) = change.before {
                    rows.give(b);
                }
                out.push(Change { op: change.op, row, before });
                Ok(())
            }
            Operator::PassThrough(n) => {
                let mut change = change;
                // As evaluating the column list would: extra columns dropped, missing ones null.
                change.row.resize(*n, Value::Null);
                if let Some(b) = &mut change.before {
                    b.resize(*n, Value::Null);
                }
                out.push(change);
                Ok(())
            }
            Operator::Aggregate(a) => a.apply(change, ctx, out, rows),
        }
    }
}

/// True when `items` are exactly the columns 0..n of an n-column input.
fn is_pass_through<'a>(items: impl ExactSizeIterator<Item = &'a Expr>, n: usize) -> bool {
    items.len() == n && items.enumerate().all(|(i, e)| matches!(e, Expr::Column { index, .. } if *index == i))
}

fn project(items: &[Expr], input: &[Value], rows: &mut RowPool) -> Result<Row, EvalError> {
    let mut row = rows.take();
    for e in items {
        row.push(eval(e, input)?);
    }
    Ok(row)
}

/// A filter over a changelog: an update whose old row matched and new row
/// does not is a delete of the old row; the reverse is an insert.
fn filter(p: &Expr, change: Change, out: &mut Vec<Change>) -> Result<(), EvalError> {
    let now = holds(p, &change.row)?;
    match change.op {
        ChangeOp::Insert | ChangeOp::Delete => {
            if now {
                out.push(change);
            }
        }
        ChangeOp::Update => {
            let was = match &change.before {
                Some(b) => holds(p, b)?,
                None => false,
            };
            match (was, now) {
                (true, true) => out.push(change),
                (false, true) => out.push(Change { op: ChangeOp::Insert, row: change.row, before: None }),
                (true, false) => out.push(Change { op: ChangeOp::Delete, row: change.before.expect("matched"), before: None }),
                (false, false) => {}
            }
        }
    }
    Ok(())
}

impl Aggregate {
    fn apply(&mut self, change: Change, ctx: Context, out: &mut Vec<Change>, rows: &mut RowPool) -> Result<(), EvalError> {
        // Planning rejects aggregates over updating inputs, so only inserts arrive.
        if change.op != ChangeOp::Insert {
            return Ok(());
        }
        let mut key = std::mem::take(&mut self.scratch);
        key.clear();
        key.extend(self.keys.iter().map(|&k| change.row.get(k).cloned().unwrap_or(Value::Null)));
        let result = self.accumulate(&key, change, ctx, out, rows);
        self.scratch = key;
        result
    }

    fn accumulate(&mut self, key: &[Value], change: Change, ctx: Context, out: &mut Vec<Change>, rows: &mut RowPool) -> Result<(), EvalError> {
        if let Some((time, size)) = self.window {
            let ts = match change.row.get(time) {
                Some(Value::Timestamp(t)) => *t,
                Some(Value::TimestampNanos(n)) => n.div_euclid(1_000_000),
                _ => return Ok(()), // no event time: no window to place it in
            };
            let start = ts.div_euclid(size) * size;
            // Window bounds are input columns too (aggregate arguments may read them).
            let mut row = change.row;
            row.push(Value::Timestamp(start));
            row.push(Value::Timestamp(start.saturating_add(size)));
            return self.store.accumulate_window(start, key, &row, ctx.event_time);
        }
        let (mut before, mut row) = (rows.take(), rows.take());
        self.store.accumulate(key, &change.row, ctx.event_time, &mut before, &mut row)?;
        rows.give(change.row);
        out.push(if before.is_empty() {
            rows.give(before);
            Change { op: ChangeOp::Insert, row, before: None }
        } else {
            Change { op: ChangeOp::Update, row, before: Some(before) }
        });
        Ok(())
    }

    /// Emits the windows the watermark closed and expires retained keys.
    pub fn on_watermark(&mut self, watermark: i64, out: &mut Vec<Change>) {
        self.store.expire(watermark);
        if let Some((_, size)) = self.window {
            for (start, groups) in self.store.close_windows(size, watermark) {
                for (key, group) in groups {
                    out.push(Change::insert(output_row(&key, Some((start, start.saturating_add(size))), &group.accumulators)));
                }
            }
        }
    }

    pub fn is_windowed(&self) -> bool {
        self.window.is_some()
    }
}

/// Keys, then window bounds when windowed, then accumulators: the
/// Aggregate node's schema.
fn output_row(key: &[Value], window: Option<(i64, i64)>, accs: &[Value]) -> Row {
    let mut row = Vec::with_capacity(key.len() + 2 + accs.len());
    row.extend_from_slice(key);
    if let Some((s, e)) = window {
        row.push(Value::Timestamp(s));
        row.push(Value::Timestamp(e));
    }
    row.extend_from_slice(accs);
    row
}
