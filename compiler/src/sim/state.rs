//! The keyed store of one Aggregate node, shaped exactly as its state
//! fingerprint says: per key, one accumulator per `accumulators=` entry,
//! of the recorded type. Windowed nodes keep one group per key and window.
//! Integer-keyed sums and counts are held raw (raw_sums.rs) and reported as
//! values of those types.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use rustc_hash::{FxHashMap, FxHashSet};

use super::eval::{eval, holds, EvalError};
use super::raw_sums::{Fold, RawSums};
use super::accumulator::{add, retype};
use super::retract::Retracting;
use super::small_slice::SmallSlice;
use super::value::Value;
use crate::plan::expr::{AggCall, AggFunc, Expr};
use crate::plan::node::Column;

/// Inline for a one-column key: no allocation, no pointer to follow.
pub type Key = SmallSlice<Value>;

/// One group's accumulators and the event time of its latest event.
#[derive(Clone, Debug)]
pub struct Group {
    /// Inline when there is one, as usual.
    pub accumulators: SmallSlice<Value>,
    pub last_event: i64,
    /// The expiry its pending retention timer was set for, if any.
    timer: Option<i64>,
    /// For each DISTINCT call (by call position), the values it has
    /// folded; empty when the node has none or retracts.
    seen: Vec<FxHashSet<Value>>,
    /// Over an updating input: the row count and what each call keeps to
    /// take a row back.
    retract: Option<Box<Retracting>>,
}

/// What taking a row back did to its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// No such group (never seen, or expired): nothing to take back.
    Missing,
    /// The group still has rows: `before` and `after` are its rows.
    Updated,
    /// Its last row went: the group is gone, `before` is its last row.
    Emptied,
}

#[derive(Debug)]
pub struct KeyedStore {
    /// The data key columns (window bounds excluded) with their types.
    pub keys: Vec<Column>,
    /// The state fingerprint's accumulators: one per aggregate call (its
    /// rendering and type), and over an updating input the row count last
    /// when no call is `count(*)`.
    pub accumulators: Vec<Column>,
    calls: Vec<AggCall>,
    retention_ms: Option<i64>,
    /// Over an updating input (docs/semantics.md): groups keep what
    /// retraction needs, and are deleted when their last row goes.
    retract: bool,
    /// The groups, held raw while the node's shape and every row so far
    /// allow it (see raw_sums.rs); `groups` holds them otherwise.
    raw: Option<RawSums>,
    groups: FxHashMap<Key, Group>,
    /// Windowed state: window start → key → group, both in emission order.
    windows: BTreeMap<i64, BTreeMap<Key, Group>>,
    /// Session windows: per key, its open sessions by start (each with
    /// its end), and every open session by (end, key, start): the order
    /// they close in.
    sessions: FxHashMap<Key, BTreeMap<i64, (i64, Group)>>,
    session_ends: BTreeSet<(i64, Key, i64)>,
    /// Retention timers: (expiry, key), earliest first; stale entries are
    /// skipped when they fire.
    timers: BinaryHeap<Reverse<(i64, Key)>>,
}

impl KeyedStore {
    pub fn new(keys: Vec<Column>, calls: Vec<AggCall>, accumulators: Vec<Column>, retention_ms: Option<i64>, windowed: bool, retract: bool) -> KeyedStore {
        // The raw form keeps no event times, so no retention, no windows, and nothing to retract with.
        let raw = if retention_ms.is_none() && !windowed && !retract { RawSums::of(&keys, &calls) } else { None };
        KeyedStore { keys, accumulators, calls, retention_ms, retract, raw, groups: FxHashMap::default(), windows: BTreeMap::new(), sessions: FxHashMap::default(), session_ends: BTreeSet::new(), timers: BinaryHeap::new() }
    }

    /// Moves every raw group to the generic form, for good.
    fn unraw(&mut self) {
        let Some(raw) = self.raw.take() else { return };
        for (key, accs) in raw.into_groups() {
            // last_event only serves retention, which a raw store never has.
            self.groups.insert(SmallSlice::One(key), Group { accumulators: accs.into_iter().collect(), last_event: 0, timer: None, seen: Vec::new(), retract: None });
        }
    }

    fn fresh(&self, ts: i64) -> Group {
        let accumulators = self.calls.iter().map(|c| if c.func == AggFunc::Count { Value::Int(0) } else { Value::Null }).collect();
        let seen = if !self.retract && self.calls.iter().any(|c| c.distinct) { vec![FxHashSet::default(); self.calls.len()] } else { Vec::new() };
        let retract = self.retract.then(|| Box::new(Retracting::new(&self.calls)));
        Group { accumulators, last_event: ts, timer: None, seen, retract }
    }

    /// Folds one input row into the key's group and writes the group's
    /// output rows (keys, then accumulators): `before` is left empty for a
    /// new group. One hash lookup for an existing key.
    #[inline]
    pub fn accumulate(&mut self, key: &[Value], row: &[Value], ts: i64, before: &mut Vec<Value>, after: &mut Vec<Value>) -> Result<(), EvalError> {
        if let (Some(raw), [k]) = (&mut self.raw, key) {
            if raw.accumulate(k, row, before, after)? == Fold::Done {
                return Ok(());
            }
            self.unraw();
        }
        self.accumulate_generic(key, row, ts, before, after)
    }

    /// Out of line so that the raw path stays small where it is inlined.
    #[inline(never)]
    fn accumulate_generic(&mut self, key: &[Value], row: &[Value], ts: i64, before: &mut Vec<Value>, after: &mut Vec<Value>) -> Result<(), EvalError> {
        before.clear();
        after.clear();
        let group = match self.groups.get_mut(key) {
            Some(g) => {
                before.extend_from_slice(key);
                before.extend_from_slice(&g.accumulators);
                g
            }
            None => {
                let fresh = self.fresh(ts);
                self.groups.entry(key.into()).or_insert(fresh)
            }
        };
        match &mut group.retract {
            Some(r) => r.fold(&self.calls, &mut group.accumulators, row, 1)?,
            None => update(&self.calls, group, row)?,
        }
        group.last_event = ts;
        after.extend_from_slice(key);
        after.extend_from_slice(&group.accumulators);
        if let Some(r) = self.retention_ms {
            if group.timer.is_none() {
                let at = ts.saturating_add(r);
                group.timer = Some(at);
                self.timers.push(Reverse((at, key.into())));
            }
        }
        Ok(())
    }

    /// Takes `row` back from the key's group (a retracting store only):
    /// writes the group's rows before and after, and deletes the group when
    /// its last row goes, as Flink's retracting group aggregate does.
    pub fn retract(&mut self, key: &[Value], row: &[Value], before: &mut Vec<Value>, after: &mut Vec<Value>) -> Result<Taken, EvalError> {
        before.clear();
        after.clear();
        let Some(group) = self.groups.get_mut(key) else { return Ok(Taken::Missing) };
        let Some(r) = &mut group.retract else { return Ok(Taken::Missing) };
        before.extend_from_slice(key);
        before.extend_from_slice(&group.accumulators);
        r.fold(&self.calls, &mut group.accumulators, row, -1)?;
        if r.rows <= 0 {
            // Its retention timer, if any, finds no group and is skipped.
            self.groups.remove(key);
            return Ok(Taken::Emptied);
        }
        after.extend_from_slice(key);
        after.extend_from_slice(&group.accumulators);
        Ok(Taken::Updated)
    }

    /// Windowed accumulation: nothing is emitted until the window closes.
    pub fn accumulate_window(&mut self, window_start: i64, key: &[Value], row: &[Value], ts: i64) -> Result<(), EvalError> {
        let fresh = self.fresh(ts);
        let groups = self.windows.entry(window_start).or_default();
        if !groups.contains_key(key) {
            groups.insert(key.into(), fresh);
        }
        let group = groups.get_mut(key).expect("inserted above");
        group.last_event = ts;
        update(&self.calls, group, row)
    }

    /// Session accumulation: the event opens `[ts, ts + gap)`, which
    /// absorbs every open session of the key it touches (bounds included,
    /// as Flink merges them), their accumulators merged.
    pub fn accumulate_session(&mut self, key: &[Value], row: &[Value], ts: i64, gap: i64) -> Result<(), EvalError> {
        let (mut start, mut end) = (ts, ts.saturating_add(gap));
        let mut group = self.fresh(ts);
        update(&self.calls, &mut group, row)?;
        let open = self.sessions.entry(key.into()).or_default();
        // Sessions of one key never touch, so those that touch the new one
        // are the run starting at or before its end and ending at or after its start.
        let touching: Vec<i64> = open.range(..=end).rev().take_while(|(_, (e, _))| *e >= start).map(|(s, _)| *s).collect();
        for s in touching {
            let (e, g) = open.remove(&s).expect("listed above");
            self.session_ends.remove(&(e, key.into(), s));
            merge(&self.calls, &mut group, g)?;
            start = start.min(s);
            end = end.max(e);
        }
        group.last_event = group.last_event.max(ts);
        open.insert(start, (end, group));
        self.session_ends.insert((end, key.into(), start));
        Ok(())
    }

    /// Removes and returns every session whose end is at or before the
    /// watermark as (key, start, end, group): by end, then key.
    pub fn close_sessions(&mut self, watermark: i64) -> Vec<(Key, i64, i64, Group)> {
        let mut out = Vec::new();
        while let Some((end, _, _)) = self.session_ends.first() {
            if *end > watermark {
                break;
            }
            let (end, key, start) = self.session_ends.pop_first().expect("present");
            let open = self.sessions.get_mut(&key).expect("indexed sessions exist");
            let (_, group) = open.remove(&start).expect("indexed sessions exist");
            if open.is_empty() {
                self.sessions.remove(&key);
            }
            out.push((key, start, end, group));
        }
        out
    }

    /// Removes and returns every window whose end is at or before the
    /// watermark, in window order, groups in key order.
    pub fn close_windows(&mut self, size: i64, watermark: i64) -> Vec<(i64, BTreeMap<Key, Group>)> {
        let mut out = Vec::new();
        while let Some((&start, _)) = self.windows.first_key_value() {
            if start.saturating_add(size) > watermark {
                break;
            }
            out.push(self.windows.pop_first().expect("present"));
        }
        out
    }

    /// Drops, silently, every key whose latest event is at least the
    /// retention older than the watermark.
    pub fn expire(&mut self, watermark: i64) {
        let Some(r) = self.retention_ms else { return };
        while let Some(Reverse((at, _))) = self.timers.peek() {
            if *at > watermark {
                break;
            }
            let Reverse((_, key)) = self.timers.pop().expect("peeked");
            let Some(g) = self.groups.get_mut(&key) else { continue };
            let due = g.last_event.saturating_add(r);
            if due <= watermark {
                self.groups.remove(&key);
            } else {
                // A later event moved the expiry: re-arm for it.
                g.timer = Some(due);
                self.timers.push(Reverse((due, key)));
            }
        }
    }

    /// Every stored group (key, accumulators) as values, for tests and
    /// inspection.
    pub fn groups(&self) -> impl Iterator<Item = (Vec<Value>, Vec<Value>)> + '_ {
        let raw = self.raw.iter().flat_map(|r| r.groups()).map(|(k, accs)| (vec![k], accs));
        raw.chain(
            self.groups
                .iter()
                .chain(self.windows.values().flatten())
                .map(|(k, g)| {
                    let mut accs = g.accumulators.to_vec();
                    // The row count a retracting group keeps past its calls.
                    if let (Some(r), true) = (&g.retract, self.accumulators.len() > self.calls.len()) {
                        accs.push(Value::Int(r.rows));
                    }
                    (k.to_vec(), accs)
                })
                .chain(self.sessions.iter().flat_map(|(k, open)| open.values().map(move |(_, g)| (k.to_vec(), g.accumulators.to_vec())))),
        )
    }

    /// How many accumulator columns an output row has: one per call.
    pub fn outputs(&self) -> usize {
        self.calls.len()
    }

    /// Whether it reads an updating input.
    pub fn retracts(&self) -> bool {
        self.retract
    }

    pub fn len(&self) -> usize {
        self.raw.as_ref().map_or(0, RawSums::len) + self.groups.len() + self.windows.values().map(BTreeMap::len).sum::<usize>() + self.session_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn update(calls: &[AggCall], group: &mut Group, row: &[Value]) -> Result<(), EvalError> {
    let Group { accumulators, seen, .. } = group;
    for (i, (call, acc)) in calls.iter().zip(accumulators.iter_mut()).enumerate() {
        if let Some(f) = &call.filter {
            if !holds(f, row)? {
                continue;
            }
        }
        let evaluated;
        let v = match &call.arg {
            None => {
                if let Value::Int(n) = acc {
                    *n += 1;
                }
                continue;
            }
            // The usual argument, a plain column, is read in place rather than copied out.
            Some(Expr::Column { index, .. }) => row.get(*index).unwrap_or(&Value::Null),
            Some(arg) => {
                evaluated = eval(arg, row)?;
                &evaluated
            }
        };
        if v.is_null() {
            continue; // every aggregate ignores nulls
        }
        if call.distinct && !seen[i].insert(v.clone()) {
            continue; // DISTINCT folds each value once
        }
        fold(call, acc, v)?;
    }
    Ok(())
}

/// Folds one non-null value into a call's accumulator.
#[inline]
fn fold(call: &AggCall, acc: &mut Value, v: &Value) -> Result<(), EvalError> {
    match call.func {
        AggFunc::Count => {
            if let Value::Int(n) = acc {
                *n += 1;
            }
        }
        AggFunc::Sum => *acc = add(acc, v, call.ty)?,
        AggFunc::Min => {
            if acc.is_null() || v < acc {
                *acc = retype(v.clone(), call.ty);
            }
        }
        AggFunc::Max => {
            if acc.is_null() || v > acc {
                *acc = retype(v.clone(), call.ty);
            }
        }
    }
    Ok(())
}

/// Folds the group `from` into `into`, as if `into` had seen its rows
/// too: counts and sums add, extremes compare, and a DISTINCT call folds
/// only the values `into` has not seen.
fn merge(calls: &[AggCall], into: &mut Group, from: Group) -> Result<(), EvalError> {
    let Group { accumulators, seen, last_event, .. } = from;
    into.last_event = into.last_event.max(last_event);
    for (i, (call, theirs)) in calls.iter().zip(accumulators.iter()).enumerate() {
        let ours = &mut into.accumulators[i];
        if call.distinct {
            for v in seen[i].iter() {
                if into.seen[i].insert(v.clone()) {
                    fold(call, ours, v)?;
                }
            }
            continue;
        }
        match (call.func, &*ours, theirs) {
            (_, _, Value::Null) => {}
            (AggFunc::Count, Value::Int(a), Value::Int(b)) => *ours = Value::Int(a + b),
            (AggFunc::Sum, _, _) => *ours = add(ours, theirs, call.ty)?,
            (AggFunc::Min, _, _) if ours.is_null() || theirs < ours => *ours = theirs.clone(),
            (AggFunc::Max, _, _) if ours.is_null() || theirs > ours => *ours = theirs.clone(),
            _ => {}
        }
    }
    Ok(())
}
