//! The operators of one model's plan, executed on changelog records.

use super::change::{Change, ChangeOp, Input, Row};
use super::eval::{eval, holds, EvalError};
use super::record_buf::RecordBuf;
use super::state::{KeyedStore, Taken};
use super::value::Value;
use crate::backend::flink::typing::computed;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, NodeKind, PlanNode, Retention};
use crate::types::DataType;
use crate::window::WindowShape;

/// What an operator made of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The record passes unchanged.
    Same,
    /// A new record, written into the output buffer.
    Wrote,
    /// Nothing passes.
    Dropped,
}

/// What an operator knows about the record it is given.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// The event time of the source event behind the record (the
    /// watermark for records a closing window emits); 0 on processing time.
    pub event_time: i64,
    /// The watermark the record meets: the one before its event.
    pub watermark: Option<i64>,
}

#[derive(Debug)]
pub enum Operator {
    Filter(Expr),
    Project(Vec<Expr>),
    /// A projection that lists its `n` input columns in order (`SELECT k,
    /// sum(x)` after the aggregate computing them): rows pass unchanged.
    PassThrough(usize),
    Aggregate(Aggregate),
    /// A Top-N or deduplication (rank.rs); it may write several records
    /// for one, so its model runs records through `Dataflow::run_from`.
    Rank(super::rank::Rank),
    /// A join; records reach it from its left input, or through
    /// `JoinRight` from its right input (the dataflow runs both).
    Join(super::join::Join),
    /// Marks the records of a join's right input; they pass unchanged.
    JoinRight,
    /// An event-time temporal join (temporal.rs), run like `Join`; it
    /// emits only as the watermark advances.
    Temporal(super::temporal::TemporalJoin),
}

/// How a windowed aggregate cuts windows, in milliseconds.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// Windows of `size` starting every `step` (the size when tumbling,
    /// the slide when hopping).
    Fixed { size: i64, step: i64 },
    Session { gap: i64 },
}

impl Cut {
    fn of(shape: WindowShape) -> Cut {
        let ms = |d: crate::duration::Duration| d.millis().min(i64::MAX as u64) as i64;
        match shape {
            WindowShape::Tumbling { size } => Cut::Fixed { size: ms(size), step: ms(size) },
            WindowShape::Hop { size, slide } => Cut::Fixed { size: ms(size), step: ms(slide) },
            WindowShape::Session { gap } => Cut::Session { gap: ms(gap) },
        }
    }
}

#[derive(Debug)]
pub struct Aggregate {
    /// Node id, for inspection.
    pub id: String,
    /// Data key positions in the input row.
    keys: Vec<usize>,
    /// Windows: the event-time column's position and how windows are cut.
    window: Option<(usize, Cut)>,
    pub store: KeyedStore,
    /// Reused for each record's key of several columns, to look it up
    /// without allocating, and for a windowed row with its bounds.
    scratch: Vec<Value>,
    bounded: Vec<Value>,
}

impl Operator {
    /// The executable operator of a plan node; `None` for Source and Sink.
    pub fn of(model: &str, node: &PlanNode, input: &[Column]) -> Option<Operator> {
        // Expressions are evaluated as Flink computes their rendering.
        let node = &PlanNode { kind: node.kind.map_exprs(&computed), ..node.clone() };
        match &node.kind {
            NodeKind::Source(_) | NodeKind::Sink { .. } | NodeKind::Union => None,
            NodeKind::Rank { .. } => super::rank::Rank::of(model, node, input).map(Operator::Rank),
            NodeKind::Join { temporal: Some(_), .. } => Some(Operator::Temporal(super::temporal::TemporalJoin::of(model, node))),
            NodeKind::Join { .. } => Some(Operator::Join(super::join::Join::of(model, node))),
            NodeKind::Filter { predicate } => Some(Operator::Filter(predicate.clone())),
            NodeKind::Project { items } if is_pass_through(items.iter().map(|(e, _)| e), input.len()) => Some(Operator::PassThrough(items.len())),
            NodeKind::Project { items } => Some(Operator::Project(items.iter().map(|(e, _)| e.clone()).collect())),
            NodeKind::Aggregate { keys, calls, window, retract } => {
                let n = input.len();
                let data_keys: Vec<usize> = keys.iter().copied().filter(|k| window.is_none() || *k < n).collect();
                // Named as the node's output names them (over a join, maybe not as its input does).
                let key_cols = data_keys.iter().enumerate().map(|(i, &k)| node.schema.get(i).or(input.get(k)).cloned().unwrap_or(Column { name: format!("#{k}"), ty: DataType::Int64 })).collect();
                let retention = match node.state.as_ref().map(|s| s.retention) {
                    Some(Retention::After(d)) => Some(d.millis().min(i64::MAX as u64) as i64),
                    _ => None,
                };
                // The store is shaped as the state fingerprint says.
                let accumulators = node.state.as_ref().map(|s| s.accumulators.clone()).unwrap_or_else(|| calls.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect());
                let window = window.as_ref().and_then(|w| Some((input.iter().position(|c| c.name == w.time)?, Cut::of(w.shape))));
                Some(Operator::Aggregate(Aggregate { id: node.id(model), keys: data_keys, window, store: KeyedStore::new(key_cols, calls.clone(), accumulators, retention, window.is_some(), *retract), scratch: Vec::new(), bounded: Vec::new() }))
            }
        }
    }

    /// How many columns the rows it makes have; `None` when it passes its
    /// input's rows on (a filter).
    pub fn width(&self) -> Option<usize> {
        match self {
            Operator::Filter(_) => None,
            Operator::Project(items) => Some(items.len()),
            Operator::PassThrough(n) => Some(*n),
            // Keys, window bounds, accumulators: see `Aggregate::insert` and `output_row`.
            Operator::Aggregate(a) => Some(a.keys.len() + if a.window.is_some() { 2 } else { 0 } + a.store.outputs()),
            Operator::Rank(r) => Some(r.width()),
            Operator::Join(j) => Some(j.width()),
            Operator::JoinRight => None,
            Operator::Temporal(t) => Some(t.width()),
        }
    }

    /// Applies the operator to one record. No operator makes more than
    /// one record of one (a window's rows come from the watermark), so
    /// records flow one at a time; a new one is written into `out`.
    #[inline]
    pub fn apply(&mut self, input: Input<'_>, ctx: Context, out: &mut RecordBuf) -> Result<Step, EvalError> {
        match self {
            Operator::Filter(p) => filter(p, input, out),
            Operator::Project(items) => {
                let change = out.start(input.op);
                for e in items.iter() {
                    change.row.push(eval(e, input.row)?);
                }
                if let (Some(b), Some(into)) = (input.before, &mut change.before) {
                    for e in items.iter() {
                        into.push(eval(e, b)?);
                    }
                }
                Ok(Step::Wrote)
            }
            Operator::PassThrough(n) => {
                let n = *n;
                if input.row.len() == n && input.before.is_none_or(|b| b.len() == n) {
                    return Ok(Step::Same);
                }
                // As evaluating the column list would: extra columns dropped, missing ones null.
                let change = out.start(input.op);
                let fill = |into: &mut Row, from: &[Value]| {
                    into.extend(from.iter().take(n).cloned());
                    into.resize(n, Value::Null);
                };
                fill(&mut change.row, input.row);
                if let (Some(b), Some(into)) = (input.before, &mut change.before) {
                    fill(into, b);
                }
                Ok(Step::Wrote)
            }
            Operator::Aggregate(a) if input.op == ChangeOp::Insert => a.insert(input.row, ctx, out),
            // Only a retracting aggregate reads deletes; the dataflow hands
            // it an update as the delete of its old row, then the insert of
            // its new one (Flink's -U, +U), so no update reaches it.
            Operator::Aggregate(a) if input.op == ChangeOp::Delete => a.retract(input.row, out),
            Operator::Aggregate(_) => Ok(Step::Dropped),
            Operator::Rank(_) => unreachable!("a model with a Rank runs its records through Dataflow::run_from"),
            // The dataflow runs joins itself: one record may join many.
            Operator::JoinRight => Ok(Step::Same),
            Operator::Join(_) => unreachable!("the dataflow runs a join with Join::insert"),
            Operator::Temporal(_) => unreachable!("the dataflow runs a temporal join with TemporalJoin::process"),
        }
    }
}

/// True when `items` are exactly the columns 0..n of an n-column input.
fn is_pass_through<'a>(items: impl ExactSizeIterator<Item = &'a Expr>, n: usize) -> bool {
    items.len() == n && items.enumerate().all(|(i, e)| matches!(e, Expr::Column { index, .. } if *index == i))
}

/// A filter over a changelog: an update whose old row matched and new row
/// does not is a delete of the old row; the reverse is an insert.
fn filter(p: &Expr, input: Input<'_>, out: &mut RecordBuf) -> Result<Step, EvalError> {
    let now = holds(p, input.row)?;
    Ok(match input.op {
        ChangeOp::Insert | ChangeOp::Delete => {
            if now {
                Step::Same
            } else {
                Step::Dropped
            }
        }
        ChangeOp::Update => {
            let was = match input.before {
                Some(b) => holds(p, b)?,
                None => false,
            };
            match (was, now) {
                (true, true) => Step::Same,
                (false, true) => {
                    out.copy(ChangeOp::Insert, input.row);
                    Step::Wrote
                }
                (true, false) => {
                    out.copy(ChangeOp::Delete, input.before.expect("matched"));
                    Step::Wrote
                }
                (false, false) => Step::Dropped,
            }
        }
    })
}

/// What a missing key column reads as.
static NULL: Value = Value::Null;

impl Aggregate {
    /// Folds one inserted row into its group: writes the group's insert
    /// or update, or nothing for a window (emitted when it closes).
    fn insert(&mut self, row: &[Value], ctx: Context, out: &mut RecordBuf) -> Result<Step, EvalError> {
        let Aggregate { keys, window, store, scratch, bounded, .. } = self;
        let key: &[Value] = match keys.as_slice() {
            // The usual one key column is read in place.
            [k] => std::slice::from_ref(row.get(*k).unwrap_or(&NULL)),
            many => {
                scratch.clear();
                scratch.extend(many.iter().map(|&k| row.get(k).cloned().unwrap_or(Value::Null)));
                scratch
            }
        };
        if let Some((time, cut)) = *window {
            let ts = match row.get(time) {
                Some(Value::Timestamp(t)) => *t,
                Some(Value::TimestampNanos(n)) => n.div_euclid(1_000_000),
                _ => return Ok(Step::Dropped), // no event time: no window to place it in
            };
            let (size, step) = match cut {
                Cut::Fixed { size, step } => (size, step),
                Cut::Session { gap } => {
                    // Lowering keeps aggregate arguments off a session's bounds,
                    // which move as sessions merge; these only keep the row's width.
                    bounded.clear();
                    bounded.extend_from_slice(row);
                    bounded.extend([Value::Timestamp(ts), Value::Timestamp(ts.saturating_add(gap))]);
                    store.accumulate_session(key, bounded, ts, gap)?;
                    return Ok(Step::Dropped);
                }
            };
            // Every window holding `ts`: one when tumbling (step = size),
            // size / slide of them when hopping, latest first.
            // Checked: an event time past the timestamp range (made by
            // arithmetic) has no window rather than an overflowed one.
            let Some(mut start) = ts.div_euclid(step).checked_mul(step) else { return Ok(Step::Dropped) };
            while start > ts.saturating_sub(size) {
                // Window bounds are input columns too (aggregate arguments may read them).
                bounded.clear();
                bounded.extend_from_slice(row);
                bounded.push(Value::Timestamp(start));
                bounded.push(Value::Timestamp(start.saturating_add(size)));
                store.accumulate_window(start, key, bounded, ctx.event_time)?;
                start = start.saturating_sub(step);
            }
            return Ok(Step::Dropped);
        }
        let change = out.start(ChangeOp::Update);
        let before = change.before.as_mut().expect("an update has a before-image");
        store.accumulate(key, row, ctx.event_time, before, &mut change.row)?;
        if before.is_empty() {
            out.set_op(ChangeOp::Insert);
        }
        Ok(Step::Wrote)
    }

    /// Takes a deleted row back from its group: writes the group's update,
    /// or its delete when the row was its last.
    fn retract(&mut self, row: &[Value], out: &mut RecordBuf) -> Result<Step, EvalError> {
        let Aggregate { keys, store, scratch, .. } = self;
        scratch.clear();
        scratch.extend(keys.iter().map(|&k| row.get(k).cloned().unwrap_or(Value::Null)));
        let change = out.start(ChangeOp::Update);
        let before = change.before.as_mut().expect("an update has a before-image");
        match store.retract(scratch, row, before, &mut change.row)? {
            Taken::Missing => Ok(Step::Dropped),
            Taken::Updated => Ok(Step::Wrote),
            Taken::Emptied => {
                let last = std::mem::take(before);
                out.set_op(ChangeOp::Delete);
                out.change.row = last;
                Ok(Step::Wrote)
            }
        }
    }

    /// Whether it reads an updating input (and so takes rows back).
    pub fn retracts(&self) -> bool {
        self.store.retracts()
    }

    /// Emits the windows the watermark closed and expires retained keys.
    pub fn on_watermark(&mut self, watermark: i64, out: &mut Vec<Change>) {
        self.store.expire(watermark);
        match self.window {
            Some((_, Cut::Fixed { size, .. })) => {
                for (start, groups) in self.store.close_windows(size, watermark) {
                    for (key, group) in groups {
                        out.push(Change::insert(output_row(&key, Some((start, start.saturating_add(size))), &group.accumulators)));
                    }
                }
            }
            Some((_, Cut::Session { .. })) => {
                for (key, start, end, group) in self.store.close_sessions(watermark) {
                    out.push(Change::insert(output_row(&key, Some((start, end)), &group.accumulators)));
                }
            }
            None => {}
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
