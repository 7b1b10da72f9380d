//! The executable application over one source: the source's clock,
//! contracts and late policy, and every model rooted at it, in dependency
//! order. Events and watermarks are pushed in; each model's changelog
//! records are handed to a callback as they are emitted.

use std::sync::Arc;

use super::change::{Change, ChangeOp, Input};
use super::eval::{holds, EvalError};
use super::operators::{Context, Operator, Step};
use super::record_buf::RecordBuf;
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
    /// Dropped: its event time is null (or omitted) and no contract caught
    /// it. Counted, never processed; Flink's generated SQL drops it too.
    NoTime,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    Eval(EvalError),
}

impl SimError {
    /// The error's text. `event` numbers the event in its input when the
    /// text is not located otherwise (a fixture's report), as in "event 3
    /// has no `ts`"; `run` puts the file and line before it instead.
    pub fn message(&self, source: &str, event: Option<usize>) -> String {
        match self {
            SimError::Eval(e) => {
                let _ = (source, event);
                e.to_string()
            }
        }
    }
}

impl From<EvalError> for SimError {
    fn from(e: EvalError) -> SimError {
        SimError::Eval(e)
    }
}

#[derive(Debug)]
enum Reads {
    Source,
    Model,
}

#[derive(Debug)]
pub struct ModelExec {
    pub plan: Arc<ModelPlan>,
    input: Reads,
    ops: Vec<Operator>,
    readers: Vec<usize>,
    /// It aggregates an updating input: each update reaching that
    /// aggregate runs as the delete of the old row, then the insert of the
    /// new one, as Flink's retraction pair (-U, +U) does.
    splits_updates: bool,
    /// Where the operators write the record of an event, by turns.
    bufs: [RecordBuf; 2],
}

impl ModelExec {
    pub fn name(&self) -> &str {
        &self.plan.name
    }

    /// The keyed stores of this model's Rank nodes, with their node ids.
    pub fn rank_stores(&self) -> impl Iterator<Item = (&str, &super::rank::RankStore)> {
        self.ops.iter().filter_map(|op| match op {
            Operator::Rank(r) => Some((r.id.as_str(), &r.store)),
            _ => None,
        })
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
            // How wide the rows reaching the next operator are, when sure.
            let mut width: Option<usize> = None;
            for node in &plan.nodes {
                match Operator::of(&plan.name, node, &schema) {
                    // The identity on rows known to be as wide: nothing to run.
                    Some(Operator::PassThrough(n)) if width == Some(n) => {}
                    Some(op) => {
                        width = op.width().or(width);
                        ops.push(op);
                    }
                    None => {}
                }
                schema = node.schema.clone();
            }
            let idx = models.len();
            if let Some(u) = upstream {
                models[u].readers.push(idx);
            }
            // A Rank may write several records for one: the same path.
            let splits_updates = ops.iter().any(|op| matches!(op, Operator::Aggregate(a) if a.retracts()) || matches!(op, Operator::Rank(_)));
            models.push(ModelExec { plan, input: if upstream.is_some() { Reads::Model } else { Reads::Source }, ops, readers: Vec::new(), splits_updates, bufs: Default::default() });
        }
        let roots = models.iter().enumerate().filter(|(_, m)| matches!(m.input, Reads::Source)).map(|(i, _)| i).collect();
        Dataflow { source, models, roots, watermark: None }
    }

    pub fn watermark(&self) -> Option<i64> {
        self.watermark
    }

    /// Feeds one event (in source column order): contracts, then the late
    /// check against the watermark before it, then the models, then the
    /// watermark advances (closing windows, expiring state).
    pub fn push_event(&mut self, row: &[Value], emit: &mut Emit<'_>) -> Result<Outcome, SimError> {
        let broken = self.source.contracts.iter().map(|(name, rule)| holds(rule, row).map(|ok| (!ok).then(|| name.clone()))).find(|r| !matches!(r, Ok(None)));
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
                _ => return Ok(Outcome::NoTime),
            },
        };
        if let (Some(ts), Some(wm)) = (ts, self.watermark) {
            if ts < wm && self.source.late == LatePolicy::Drop {
                return Ok(Outcome::Late);
            }
        }
        let ctx = Context { event_time: ts.unwrap_or(0), watermark: self.watermark };
        for i in 0..self.roots.len() {
            let input = Input { op: ChangeOp::Insert, row, before: None };
            self.run_one(self.roots[i], input, ctx, emit)?;
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
        let ctx = Context { event_time: watermark, watermark: Some(watermark) };
        for m in 0..self.models.len() {
            for k in 0..self.models[m].ops.len() {
                let mut out = Vec::new();
                match &mut self.models[m].ops[k] {
                    Operator::Aggregate(a) => a.on_watermark(watermark, &mut out),
                    Operator::Rank(r) => r.on_watermark(watermark, &mut out),
                    _ => {}
                }
                if !out.is_empty() {
                    self.run_from(m, k + 1, out, ctx, emit)?;
                }
            }
        }
        Ok(())
    }

    /// Runs one record through model `m`, emits what reaches its sink, and
    /// feeds that to the models reading it. A model that retracts takes the
    /// path of several records: an update reaches its aggregate as two.
    fn run_one(&mut self, m: usize, input: Input<'_>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        if self.models[m].splits_updates {
            let change = Change { op: input.op, row: input.row.to_vec(), before: input.before.map(<[Value]>::to_vec) };
            return self.run_from(m, 0, vec![change], ctx, emit);
        }
        self.run_record(m, input, ctx, emit)
    }

    /// One record through model `m`'s operators in the reused buffers.
    fn run_record(&mut self, m: usize, input: Input<'_>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        let model = &mut self.models[m];
        let Some(i) = run_ops(&mut model.ops, input, ctx, &mut model.bufs)? else { return Ok(()) };
        emit(m, &model.bufs[i].change);
        if model.readers.is_empty() {
            return Ok(());
        }
        // Lent out while the readers run: they read the record from it.
        let bufs = std::mem::take(&mut model.bufs);
        let mut result = Ok(());
        for k in 0..self.models[m].readers.len() {
            result = self.run_one(self.models[m].readers[k], bufs[i].change.input(), ctx, emit);
            if result.is_err() {
                break;
            }
        }
        self.models[m].bufs = bufs;
        result
    }

    /// Runs records through model `m` from operator `start`, each operator
    /// taking them all in turn, emits what reaches its sink, and feeds that
    /// to the models reading it.
    fn run_from(&mut self, m: usize, start: usize, mut records: Vec<Change>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        let mut next = Vec::new();
        for op in &mut self.models[m].ops[start..] {
            if matches!(op, Operator::Aggregate(a) if a.retracts()) {
                records = records.into_iter().flat_map(halves).collect();
            }
            if let Operator::Rank(r) = op {
                for c in records.drain(..) {
                    r.apply(c.input(), ctx.event_time, ctx.watermark, &mut next);
                }
                std::mem::swap(&mut records, &mut next);
                if records.is_empty() {
                    break;
                }
                continue;
            }
            for c in records.drain(..) {
                let mut out = RecordBuf::default();
                match op.apply(c.input(), ctx, &mut out)? {
                    Step::Same => next.push(c),
                    Step::Wrote => next.push(out.change),
                    Step::Dropped => {}
                }
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
                self.run_from(r, 0, records.clone(), ctx, emit)?;
            }
        }
        Ok(())
    }
}

/// An update as the delete of its old row and the insert of its new one;
/// any other record as itself.
fn halves(c: Change) -> Vec<Change> {
    match (c.op, c.before) {
        (ChangeOp::Update, Some(b)) => vec![Change { op: ChangeOp::Delete, row: b, before: None }, Change::insert(c.row)],
        (ChangeOp::Update, None) => vec![Change::insert(c.row)],
        (op, before) => vec![Change { op, row: c.row, before }],
    }
}

/// Runs one record through `ops`, each reading what the one before made,
/// writing into the buffers by turns; returns the buffer holding the
/// result, if the record got through.
#[inline]
fn run_ops(ops: &mut [Operator], input: Input<'_>, ctx: Context, bufs: &mut [RecordBuf; 2]) -> Result<Option<usize>, EvalError> {
    // The buffer holding the current record; none while it is `input`.
    let mut cur: Option<usize> = None;
    let [b0, b1] = bufs;
    for op in ops {
        let step = match cur {
            None => op.apply(input, ctx, b0)?,
            Some(0) => op.apply(b0.change.input(), ctx, b1)?,
            Some(_) => op.apply(b1.change.input(), ctx, b0)?,
        };
        match step {
            Step::Same => {}
            Step::Wrote => cur = Some(cur.map_or(0, |i| 1 - i)),
            Step::Dropped => return Ok(None),
        }
    }
    if cur.is_none() {
        // Passed through untouched: emitted as a record of its own.
        let change = b0.copy(input.op, input.row);
        if let (Some(b), Some(into)) = (input.before, &mut change.before) {
            into.extend_from_slice(b);
        }
    }
    Ok(Some(cur.unwrap_or(0)))
}
