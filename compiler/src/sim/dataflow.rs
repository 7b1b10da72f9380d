//! The executable application over its sources: each source's clock,
//! contracts, late policy and watermark, and every model reading them, in
//! dependency order, each a tree of operators (a union merges paths).
//! Events and watermarks are pushed in per source; each model's changelog
//! records are handed to a callback as they are emitted.

use std::sync::Arc;

use super::change::{Change, ChangeOp, Input};
use super::eval::{holds, EvalError};
use super::operators::{Context, Operator, Step};
use super::record_buf::RecordBuf;
use super::state::KeyedStore;
use super::value::Value;
use crate::config::LatePolicy;
use crate::backend::flink::typing::computed;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, ModelPlan, NodeKind};

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
    pub fn message(&self, event: Option<usize>) -> String {
        match self {
            SimError::Eval(e) => {
                let _ = event;
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

/// Where a record enters a model: a source it reads, or a model it reads
/// with ref(). A model has one entry per Source node and per input naming
/// another model's Sink, in plan order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Source(usize),
    Model(usize),
}

#[derive(Debug)]
pub struct ModelExec {
    pub plan: Arc<ModelPlan>,
    ops: Vec<Operator>,
    /// The operator each operator's output goes to; `None`: the sink. A
    /// model is a tree (a union merges paths), so each has one.
    next: Vec<Option<usize>>,
    /// Each entry and the first operator its records reach.
    entries: Vec<(Entry, Option<usize>)>,
    /// The models reading this one, each with the entry it reads through.
    readers: Vec<(usize, usize)>,
    /// The sources upstream of the model, directly or through ref().
    sources: Vec<usize>,
    /// The minimum of its inputs' watermarks, as Flink's watermark of a
    /// multi-input operator is: a source's, or a model's as it leaves it.
    watermark: Option<i64>,
    /// How far the watermark leaving the model is held back behind its
    /// own: an interval join's delay (Flink's RowTimeIntervalJoin holds its
    /// output watermark back so that no joined row is late downstream).
    out_delay: i64,
    /// It aggregates an updating input: each update reaching that
    /// aggregate runs as the delete of the old row, then the insert of the
    /// new one, as Flink's retraction pair (-U, +U) does.
    splits_updates: bool,
    /// It joins: a record may make several, so records take the path of
    /// several (`run_from`).
    joins: bool,
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

    /// The temporal joins of this model, each with its two stores.
    pub fn temporal_joins(&self) -> impl Iterator<Item = &crate::sim::temporal::TemporalJoin> {
        self.ops.iter().filter_map(|op| match op {
            Operator::Temporal(t) => Some(t),
            _ => None,
        })
    }

    /// The joins of this model, each with its two stores.
    pub fn joins(&self) -> impl Iterator<Item = &crate::sim::join::Join> {
        self.ops.iter().filter_map(|op| match op {
            Operator::Join(j) => Some(j),
            _ => None,
        })
    }
}

pub type Emit<'a> = dyn FnMut(usize, &Change) + 'a;

#[derive(Debug)]
pub struct Dataflow {
    pub sources: Vec<SourceSpec>,
    pub models: Vec<ModelExec>,
    /// For each source, the models reading it and the entry they read it by.
    roots: Vec<Vec<(usize, usize)>>,
    /// Each source's watermark.
    watermarks: Vec<Option<i64>>,
}

/// While a model's operators are built: where the records of a plan node's
/// output still have to be sent.
#[derive(Clone, Copy)]
enum Open {
    Entry(usize),
    Op(usize),
}

/// One plan node's output while the operators are built.
struct Built {
    schema: Vec<Column>,
    /// How wide its rows are, when sure.
    width: Option<usize>,
    open: Vec<Open>,
}

impl Dataflow {
    /// `plans` in dependency order; an input that is neither in `sources`
    /// nor in `plans` is never fed.
    pub fn new(mut sources: Vec<SourceSpec>, plans: Vec<Arc<ModelPlan>>) -> Dataflow {
        // A contract is evaluated as Flink computes its rendering.
        for (_, rule) in sources.iter_mut().flat_map(|s| s.contracts.iter_mut()) {
            *rule = computed(rule);
        }
        let mut models: Vec<ModelExec> = Vec::with_capacity(plans.len());
        let mut roots: Vec<Vec<(usize, usize)>> = vec![Vec::new(); sources.len()];
        for plan in plans {
            let idx = models.len();
            let exec = build_model(plan, &sources, &models);
            for (e, (entry, _)) in exec.entries.iter().enumerate() {
                match *entry {
                    Entry::Source(s) => roots[s].push((idx, e)),
                    Entry::Model(u) => models[u].readers.push((idx, e)),
                }
            }
            models.push(exec);
        }
        let watermarks = vec![None; sources.len()];
        Dataflow { sources, models, roots, watermarks }
    }

    /// Feeds one event of source `src` (in its column order): contracts,
    /// then the late check against that source's watermark before it, then
    /// the models, then the source's watermark advances (closing windows,
    /// expiring state where every upstream source's watermark has passed).
    pub fn push_event(&mut self, src: usize, row: &[Value], emit: &mut Emit<'_>) -> Result<Outcome, SimError> {
        let source = &self.sources[src];
        let broken = source.contracts.iter().map(|(name, rule)| holds(rule, row).map(|ok| (!ok).then(|| name.clone()))).find(|r| !matches!(r, Ok(None)));
        if let Some(broken) = broken {
            let name = broken?.expect("a broken contract");
            {
                // The raw stream carries the watermark, bad records included (as on Flink).
                if let Some(Value::Timestamp(ts)) = source.time.and_then(|t| row.get(t)) {
                    let wm = ts.saturating_sub(source.delay_ms);
                    self.advance(src, wm, emit)?;
                }
                return Ok(Outcome::Quarantined(name));
            }
        }
        let ts = match source.time {
            None => None,
            Some(t) => match row.get(t) {
                Some(Value::Timestamp(ts)) => Some(*ts),
                _ => return Ok(Outcome::NoTime),
            },
        };
        if let (Some(ts), Some(wm)) = (ts, self.watermarks[src]) {
            if ts < wm && source.late == LatePolicy::Drop {
                return Ok(Outcome::Late);
            }
        }
        let delay = source.delay_ms;
        let ctx = Context { event_time: ts.unwrap_or(0), watermark: None };
        for i in 0..self.roots[src].len() {
            let (m, entry) = self.roots[src][i];
            let input = Input { op: ChangeOp::Insert, row, before: None };
            self.run_one(m, entry, input, ctx, emit)?;
        }
        if let Some(ts) = ts {
            self.advance(src, ts.saturating_sub(delay), emit)?;
        }
        Ok(Outcome::Processed)
    }

    /// An explicit watermark for source `src`, or for every source when
    /// `None`; ignored on processing-time sources and when it is not ahead
    /// of the current one.
    pub fn push_watermark(&mut self, src: Option<usize>, watermark: i64, emit: &mut Emit<'_>) -> Result<(), SimError> {
        for s in 0..self.sources.len() {
            if src.is_none_or(|x| x == s) && self.sources[s].time.is_some() {
                self.advance(s, watermark, emit)?;
            }
        }
        Ok(())
    }

    fn advance(&mut self, src: usize, watermark: i64, emit: &mut Emit<'_>) -> Result<(), SimError> {
        if self.watermarks[src].is_some_and(|w| w >= watermark) {
            return Ok(());
        }
        self.watermarks[src] = Some(watermark);
        for m in 0..self.models.len() {
            if !self.models[m].sources.contains(&src) {
                continue;
            }
            // A model's watermark is its slowest input's: a source's, or a
            // model's (already advanced: models are in dependency order),
            // less what that model holds back.
            let input_wm = |e: &(Entry, Option<usize>)| match e.0 {
                Entry::Source(s) => self.watermarks[s],
                Entry::Model(u) => self.models[u].watermark.map(|w| w.saturating_sub(self.models[u].out_delay)),
            };
            let Some(wm) = self.models[m].entries.iter().map(input_wm).min().flatten() else { continue };
            if self.models[m].watermark.is_some_and(|w| w >= wm) {
                continue;
            }
            self.models[m].watermark = Some(wm);
            let ctx = Context { event_time: wm, watermark: Some(wm) };
            for k in 0..self.models[m].ops.len() {
                let mut out = Vec::new();
                match &mut self.models[m].ops[k] {
                    Operator::Aggregate(a) => a.on_watermark(wm, &mut out),
                    Operator::Rank(r) => r.on_watermark(wm, &mut out),
                    Operator::Join(j) => j.on_watermark(wm),
                    Operator::Temporal(t) => t.on_watermark(wm, &mut out)?,
                    _ => {}
                }
                if !out.is_empty() {
                    let next = self.models[m].next[k];
                    self.run_from(m, next, out, ctx, emit)?;
                }
            }
        }
        Ok(())
    }

    /// Runs one record through model `m` from `entry`, emits what reaches
    /// its sink, and feeds that to the models reading it. A model that
    /// retracts takes the path of several records: an update reaches its
    /// aggregate as two.
    fn run_one(&mut self, m: usize, entry: usize, input: Input<'_>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        let first = self.models[m].entries[entry].1;
        if self.models[m].splits_updates || self.models[m].joins {
            let change = Change { op: input.op, row: input.row.to_vec(), before: input.before.map(<[Value]>::to_vec) };
            return self.run_from(m, first, vec![change], ctx, emit);
        }
        self.run_record(m, first, input, ctx, emit)
    }

    /// One record through model `m`'s operators from `first` in the reused buffers.
    fn run_record(&mut self, m: usize, first: Option<usize>, input: Input<'_>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        let model = &mut self.models[m];
        // Each model's operators meet its own watermark (its slowest source's).
        let ctx = Context { watermark: model.watermark, ..ctx };
        let Some(i) = run_ops(&mut model.ops, &model.next, first, input, ctx, &mut model.bufs)? else { return Ok(()) };
        emit(m, &model.bufs[i].change);
        if model.readers.is_empty() {
            return Ok(());
        }
        // Lent out while the readers run: they read the record from it.
        let bufs = std::mem::take(&mut model.bufs);
        let mut result = Ok(());
        for k in 0..self.models[m].readers.len() {
            let (r, entry) = self.models[m].readers[k];
            result = self.run_one(r, entry, bufs[i].change.input(), ctx, emit);
            if result.is_err() {
                break;
            }
        }
        self.models[m].bufs = bufs;
        result
    }

    /// Runs records through model `m` from operator `start` on, each
    /// operator taking them all in turn, emits what reaches its sink, and
    /// feeds that to the models reading it.
    fn run_from(&mut self, m: usize, start: Option<usize>, mut records: Vec<Change>, ctx: Context, emit: &mut Emit<'_>) -> Result<(), SimError> {
        let ctx = Context { watermark: self.models[m].watermark, ..ctx };
        let mut next = Vec::new();
        let mut at = start;
        // The records come from a join's right input.
        let mut right = false;
        while let Some(k) = at {
            let op = &mut self.models[m].ops[k];
            if matches!(op, Operator::Aggregate(a) if a.retracts()) {
                records = records.into_iter().flat_map(halves).collect();
            }
            if let Operator::Rank(r) = op {
                if r.retracts() {
                    records = records.into_iter().flat_map(halves).collect();
                }
                for c in records.drain(..) {
                    r.apply(c.input(), ctx.event_time, ctx.watermark, &mut next);
                }
                std::mem::swap(&mut records, &mut next);
                if records.is_empty() {
                    break;
                }
                at = self.models[m].next[k];
                continue;
            }
            if let Operator::JoinRight = op {
                right = true;
                at = self.models[m].next[k];
                continue;
            }
            if let Operator::Temporal(t) = op {
                // Stored until the watermark passes them (`advance`).
                records.drain(..).for_each(|c| t.process(right, &c));
                break;
            }
            if let Operator::Join(j) = op {
                for c in records.drain(..) {
                    j.apply(right, &c, ctx.event_time, ctx.watermark, &mut next)?;
                }
                right = false;
                std::mem::swap(&mut records, &mut next);
                if records.is_empty() {
                    break;
                }
                at = self.models[m].next[k];
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
            at = self.models[m].next[k];
        }
        if !records.is_empty() {
            for c in &records {
                emit(m, c);
            }
            for i in 0..self.models[m].readers.len() {
                let (r, entry) = self.models[m].readers[i];
                let first = self.models[r].entries[entry].1;
                self.run_from(r, first, records.clone(), ctx, emit)?;
            }
        }
        Ok(())
    }
}

/// A model's operators, wired as its plan's nodes are: each node's output
/// goes to the node reading it; an identity on rows known to be as wide
/// as its input runs nothing.
fn build_model(plan: Arc<ModelPlan>, sources: &[SourceSpec], models: &[ModelExec]) -> ModelExec {
    let mut ops: Vec<Operator> = Vec::new();
    let mut next: Vec<Option<usize>> = Vec::new();
    let mut entries: Vec<(Entry, Option<usize>)> = Vec::new();
    let mut upstream: Vec<usize> = Vec::new();
    let mut built: Vec<(String, Built)> = Vec::new();
    let model_of = |id: &str| id.strip_suffix("::sink::0").and_then(|m| models.iter().position(|x| x.plan.name == m));
    for node in &plan.nodes {
        // The node's inputs: earlier nodes of this model, another model's
        // sink (an entry), or, for a Source node, its source (an entry).
        let mut ins: Vec<Built> = Vec::new();
        if let NodeKind::Source(read) = &node.kind {
            // A source that is not in the flow is never fed: no entry.
            let (columns, open) = match sources.iter().position(|s| s.name == read.source) {
                Some(s) => {
                    upstream.push(s);
                    entries.push((Entry::Source(s), None));
                    (sources[s].columns.clone(), vec![Open::Entry(entries.len() - 1)])
                }
                None => (node.schema.clone(), Vec::new()),
            };
            ins.push(Built { schema: columns, width: None, open });
        }
        for id in &node.inputs {
            if let Some(pos) = built.iter().position(|(b, _)| b == id) {
                ins.push(built.remove(pos).1);
            } else if let Some(u) = model_of(id) {
                upstream.extend(models[u].sources.iter().copied());
                entries.push((Entry::Model(u), None));
                ins.push(Built { schema: models[u].plan.sink().schema.clone(), width: None, open: vec![Open::Entry(entries.len() - 1)] });
            }
        }
        if let (NodeKind::Join { .. }, [_, _]) = (&node.kind, ins.as_slice()) {
            let right = ins.pop().expect("two inputs");
            let left = ins.pop().expect("two inputs");
            let out = wire_join(&plan.name, node, left, right, &mut ops, &mut next, &mut entries);
            built.push((node.id(&plan.name), out));
            continue;
        }
        let schema = ins.first().map(|b| b.schema.clone()).unwrap_or_default();
        let width = ins.iter().map(|b| b.width).reduce(|a, b| if a == b { a } else { None }).flatten();
        let mut open: Vec<Open> = ins.into_iter().flat_map(|b| b.open).collect();
        let mut out_width = width;
        match Operator::of(&plan.name, node, &schema) {
            Some(Operator::PassThrough(n)) if width == Some(n) => {}
            Some(op) => {
                let k = ops.len();
                out_width = op.width().or(width);
                for o in open.drain(..) {
                    match o {
                        Open::Entry(e) => entries[e].1 = Some(k),
                        Open::Op(j) => next[j] = Some(k),
                    }
                }
                open.push(Open::Op(k));
                ops.push(op);
                next.push(None);
            }
            None => {}
        }
        built.push((node.id(&plan.name), Built { schema: node.schema.clone(), width: out_width, open }));
    }
    upstream.sort_unstable();
    upstream.dedup();
    // A Rank may write several records for one: the same path.
    let splits_updates = ops.iter().any(|op| matches!(op, Operator::Aggregate(a) if a.retracts()) || matches!(op, Operator::Rank(_)));
    let joins = ops.iter().any(|op| matches!(op, Operator::Join(_) | Operator::Temporal(_)));
    let out_delay = ops.iter().map(|op| if let Operator::Join(j) = op { j.watermark_delay() } else { 0 }).max().unwrap_or(0);
    ModelExec { plan, ops, next, entries, readers: Vec::new(), sources: upstream, watermark: None, out_delay, splits_updates, joins, bufs: Default::default() }
}

/// A join's operator, its left input's records sent to it and its right
/// input's through a `JoinRight` marker before it; its output, still open.
fn wire_join(model: &str, node: &crate::plan::node::PlanNode, left: Built, right: Built, ops: &mut Vec<Operator>, next: &mut Vec<Option<usize>>, entries: &mut [(Entry, Option<usize>)]) -> Built {
    let marker = ops.len();
    ops.push(Operator::JoinRight);
    next.push(None);
    let k = ops.len();
    let Some(join) = Operator::of(model, node, &left.schema) else { unreachable!("a join operates") };
    let width = join.width();
    ops.push(join);
    next.push(None);
    next[marker] = Some(k);
    for (o, to) in left.open.into_iter().map(|o| (o, k)).chain(right.open.into_iter().map(|o| (o, marker))) {
        match o {
            Open::Entry(e) => entries[e].1 = Some(to),
            Open::Op(j) => next[j] = Some(to),
        }
    }
    Built { schema: node.schema.clone(), width, open: vec![Open::Op(k)] }
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

/// Runs one record through `ops` from `first`, each reading what the one
/// before made, writing into the buffers by turns; returns the buffer
/// holding the result, if the record got through.
#[inline]
fn run_ops(ops: &mut [Operator], next: &[Option<usize>], first: Option<usize>, input: Input<'_>, ctx: Context, bufs: &mut [RecordBuf; 2]) -> Result<Option<usize>, EvalError> {
    // The buffer holding the current record; none while it is `input`.
    let mut cur: Option<usize> = None;
    let [b0, b1] = bufs;
    let mut at = first;
    while let Some(k) = at {
        let op = &mut ops[k];
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
        at = next[k];
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
