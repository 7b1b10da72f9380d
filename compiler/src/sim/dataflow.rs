//! The executable application over one source: the source's clock,
//! contracts and late policy, and every model rooted at it, in dependency
//! order. Events and watermarks are pushed in; each model's changelog
//! records are handed to a callback as they are emitted.

use std::sync::Arc;

use super::eval::{holds, EvalError};
use super::operators::{Change, Context, Operator, Row};
use super::rows::RowPool;
use super::state::KeyedStore;
use super::value::Value;
use crate::config::LatePolicy;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, ModelPlan};

/// A source as the simulator reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSpec {
    pub name: String,
    /// Sorted by name, as the plan lists them.
    pub columns: Vec<Column>,
    /// The event-time column, when the source runs on event time.
    pub time: Option<usize>,
    /// Watermark delay in milliseconds.
    pub delay_ms: i64,
    pub late: LatePolicy,
    /// Contracts in declared order: name and the predicate good records meet.
    pub contracts: Vec<(String, Expr)>,
}

/// What became of one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Processed,
    /// Dropped as late (`late_events: drop`).
    Late,
    /// Broke the named contract; sent to quarantine, not processed.
    Quarantined(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// An event on an event-time source has no event time.
    MissingTime { column: String },
    Eval(EvalError),
}

impl From<EvalError> for SimError {
    fn from(e: EvalError) -> SimError {
        SimError::Eval(e)
    }
}

#[derive(Debug)]
enum Input {
    Source,
    Model,
}

#[derive(Debug)]
pub struct ModelExec {
    pub plan: Arc<ModelPlan>,
    input: Input,
    ops: Vec<Operator>,
    readers: Vec<usize>,
}

impl ModelExec {
    pub fn name(&self) -> &str {
        &self.plan.name
    }

    /// The keyed stores of this model's Aggregate nodes, with their node ids.
    pub fn stores(&self) -> impl Iterator<Item = (&str, &KeyedStore)> {
        self.ops.iter().filter_map(|op| match op {
            Operator::Aggregate(a) => Some((a.id.as_str(), &a.store)),
            _ => None,
        })
    }
}

pub type Emit<'a> = dyn FnMut(usize, &Change) + 'a;

#[derive(Debug)]
pub struct Dataflow {
    pub source: SourceSpec,
    pub models: Vec<ModelExec>,
    roots: Vec<usize>,
    watermark: Option<i64>,
    /// Buffers reused from one event to the next: rows, and record lists.
    rows: RowPool,
    batches: Vec<Vec<Change>>,
}

impl Dataflow {
    /// `plans` in dependency order; a plan reading a model not in the list
    /// is treated as reading the source.
    pub fn new(source: SourceSpec, plans: Vec<Arc<ModelPlan>>) -> Dataflow {
        let mut models: Vec<ModelExec> = Vec::with_capacity(plans.len());
        for plan in plans {
            let upstream = plan.reads_model.as_ref().and_then(|m| models.iter().position(|x| &x.plan.name == m));
            let mut schema: Vec<Column> = match upstream {
                Some(u) => models[u].plan.sink().schema.clone(),
                None => source.columns.clone(),
            };
            let mut ops = Vec::new();
            for node in &plan.nodes {
                if let Some(op) = Operator::of(&plan.name, node, &schema) {
                    ops.push(op);
                }
                schema = node.schema.clone();
            }
            let idx = models.len();
            if let Some(u) = upstream {
                models[u].readers.push(idx);
            }
            models.push(ModelExec { plan, input: if upstream.is_some() { Input::Model } else { Input::Source }, ops, readers: Vec::new() });
        }
        let roots = models.iter().enumerate().filter(|(_, m)| matches!(m.input, Input::Source)).map(|(i, _)| i).collect();
        Dataflow { source, models, roots, watermark: None, rows: RowPool::default(), batches: Vec::new() }
    }

    pub fn watermark(&self) -> Option<i64> {
        self.watermark
    }

    /// Feeds one event (in source column order): contracts, then the late
    /// check against the watermark before it, then the models, then the
    /// watermark advances (closing windows, expiring state).
    pub fn push_event(&mut self, row: Row, emit: &mut Emit<'_>) -> Result<Outcome, SimError> {
        let broken = self.source.contracts.iter().map(|(name, rule)| holds(rule, &row).map(|ok| (!ok).then(|| name.clone()))).find(|r| !matches!(r, Ok(None)));
        if let Some(broken) = broken {
            let name = broken?.expect("a broken contract");
            {
                // The raw stream carries the watermark, bad records included (as on Flink).
                if let Some(Value::Timestamp(ts)) = self.source.time.and_then(|t| row.get(t)) {
                    let wm = ts.saturating_sub(self.source.delay_ms);
                    self.advance(wm, emit)?;
                }
                return Ok(Outcome::Quarantined(name));
            }
        }
        let ts = match self.source.time {
            None => None,
            Some(t) => match row.get(t) {
                Some(Value::Timestamp(ts)) => Some(*ts),
                _ => return Err(SimError::MissingTime { column: self.source.columns[t].name.clone() }),
            },
        };
        if let (Some(ts), Some(wm)) = (ts, self.watermark) {
            if ts < wm && self.source.late == LatePolicy::Drop {
                return Ok(Outcome::Late);
            }
        }
        let ctx = Context { event_time: ts.unwrap_or(0) };
        let mut row = Some(row);
        let n = self.roots.len();
        for i in 0..n {
            let r = self.roots[i];
            let record = if i + 1 == n { row.take().expect("once") } else { row.clone().expect("present") };
            let mut batch = self.batch();
            batch.push(Change::insert(record));
            self.run_from(r, 0, batch, ctx, emit)?;
        }
        if let Some(ts) = ts {
            self.advance(ts.saturating_sub(self.source.delay_ms), emit)?;
        }
        Ok(Outcome::Processed)
    }

    /// An explicit watermark; ignored on processing-time sources and when
    /// it is not ahead of the current one.
    pub fn push_watermark(&mut self, watermark: i64, emit: &mut Emit<'_>) -> Result<(), SimError> {
        if self.source.time.is_some() {
            self.advance(watermark, emit)?;
        }
        Ok(())
    }

    fn advance(&mut self, watermark: i64, emit: &mut Emit<'_>) -> Result<(), SimError> {
        if self.watermark.is_some_and(|w| w >= watermark) {
            return Ok(());
        }
        self.watermark = Some(watermark);
        let ctx = Context { event_time: watermark };
        for m in 0..self.models.len() {
            for k in 0..self.models[m].ops.len() {
                let mut out = Vec::new();
                if let Operator::Aggregate(a) = &mut self.models[m].ops[k] {
                    a.on_watermark(watermark, &mut out);
                }
                if !out.is_empty() {
                    self.run_from(m, k + 1, out, ctx, emit)?;
                }
            }
        }
        Ok(())
    }

    /// Runs records through model `m` from operator `start`, emits what
    /// reaches its sink, and feeds that to the models reading it.
    fn run_from(&mut self, m: usize, start: usize, mut records: Vec<Change>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        let mut next = self.batch();
        for op in &mut self.models[m].ops[start..] {
            for c in records.drain(..) {
                op.apply(c, ctx, &mut next, &mut self.rows)?;
            }
            std::mem::swap(&mut records, &mut next);
            if records.is_empty() {
                break;
            }
        }
        if !records.is_empty() {
            for c in &records {
                emit(m, c);
            }
            for i in 0..self.models[m].readers.len() {
                let r = self.models[m].readers[i];
                let mut copy = self.batch();
                copy.extend(records.iter().cloned());
                self.run_from(r, 0, copy, ctx, emit)?;
            }
        }
        self.recycle(records);
        self.recycle(next);
        Ok(())
    }

    /// An empty record list, reused when one has been handed back.
    fn batch(&mut self) -> Vec<Change> {
        self.batches.pop().unwrap_or_default()
    }

    /// Takes back a record list once its records have been emitted.
    fn recycle(&mut self, mut batch: Vec<Change>) {
        for c in batch.drain(..) {
            self.rows.give(c.row);
            if let Some(b) = c.before {
                self.rows.give(b);
            }
        }
        if self.batches.len() < 16 {
            self.batches.push(batch);
        }
    }
}
