//! An event-time temporal join, as Flink's TemporalRowTimeJoinOperator
//! runs it, keyed by the join key with a store per side shaped as the
//! node's state fingerprint:
//!
//! - a left (probe) row is kept, in arrival order, until the watermark
//!   reaches its time; a timer at the smallest time waiting fires then;
//! - a right change is kept as the version valid from its time (a later
//!   change at the same time replaces it; a delete is kept as a version
//!   that joins nothing), and sets a timer at its time;
//! - when a key's timer fires, every left row at or before the watermark
//!   is joined, in time order, with the latest version at or before its
//!   time, if that version is not a delete and the residual condition
//!   holds (a LEFT join pads the others with nulls); then versions older
//!   than the latest one at or before the watermark are dropped, and a
//!   timer is set at the earliest left row still waiting.
//!
//! The output is append: a row is never taken back.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::change::{Change, ChangeOp, Row};
use super::eval::{holds, EvalError};
use super::value::Value;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, NodeKind, PlanNode};

/// One side's store: key and stored columns as the fingerprint names them.
#[derive(Debug)]
pub struct TemporalSide {
    pub keys: Vec<Column>,
    pub stored: Vec<Column>,
    key_at: Vec<usize>,
    take: Vec<usize>,
    time_at: usize,
}

impl TemporalSide {
    fn project(&self, input: &[Value]) -> (Vec<Value>, Row, Option<i64>) {
        let row: Row = self.take.iter().map(|&i| input.get(i).cloned().unwrap_or(Value::Null)).collect();
        let key = self.key_at.iter().map(|&i| row[i].clone()).collect();
        let time = match &row[self.time_at] {
            Value::Timestamp(t) => Some(*t),
            _ => None,
        };
        (key, row, time)
    }
}

/// One version of a right row: the row, and whether it is a delete.
#[derive(Clone, Debug)]
pub struct Version {
    pub row: Row,
    pub deleted: bool,
}

#[derive(Debug)]
pub struct TemporalJoin {
    /// Node id, for inspection.
    pub id: String,
    pub left: TemporalSide,
    pub right: TemporalSide,
    residual: Option<Expr>,
    left_outer: bool,
    /// Per key, the left rows waiting for the watermark, in arrival order
    /// (Flink's leftState, by index).
    pub waiting: FxHashMap<Vec<Value>, Vec<(i64, Row)>>,
    /// Per key, the right versions by their time (Flink's rightState).
    pub versions: FxHashMap<Vec<Value>, BTreeMap<i64, Version>>,
    /// Per key, its one registered timer and the order it was set in (the
    /// order timers of one time fire in).
    timers: FxHashMap<Vec<Value>, (i64, u64)>,
    next_seq: u64,
}

impl TemporalJoin {
    /// The temporal join of a Join node with `temporal` times.
    pub fn of(model: &str, node: &PlanNode) -> TemporalJoin {
        let NodeKind::Join { join_type, left_stored, right_stored, left_keys, right_keys, residual, temporal: Some(t), .. } = &node.kind else { unreachable!("a temporal join node") };
        let state = node.state.as_ref().and_then(|s| s.join.as_ref()).expect("a join is keyed");
        let lw = left_stored.len();
        let side = |st: &crate::plan::node::JoinSideState, take: &[usize], key_at: Vec<usize>, time_at: usize| TemporalSide {
            keys: key_at.iter().map(|&i| st.stored[i].clone()).collect(),
            stored: st.stored.clone(),
            key_at,
            take: take.to_vec(),
            time_at,
        };
        TemporalJoin {
            id: node.id(model),
            left: side(&state.left, left_stored, left_keys.clone(), t.left_time),
            right: side(&state.right, right_stored, right_keys.iter().map(|k| k - lw).collect(), t.right_time - lw),
            residual: residual.clone(),
            left_outer: join_type.outer(false),
            waiting: FxHashMap::default(),
            versions: FxHashMap::default(),
            timers: FxHashMap::default(),
            next_seq: 0,
        }
    }

    /// How wide its output rows are.
    pub fn width(&self) -> usize {
        self.left.stored.len() + self.right.stored.len()
    }

    /// Flink's registerSmallestTimer: a key keeps one timer, moved earlier
    /// when an earlier time arrives.
    fn set_timer(&mut self, key: Vec<Value>, time: i64) {
        let seq = self.next_seq;
        match self.timers.get(&key) {
            Some((t, _)) if *t <= time => {}
            _ => {
                self.next_seq += 1;
                self.timers.insert(key, (time, seq));
            }
        }
    }

    /// A record from the left (`right` false) or the right input. Nothing
    /// is emitted until the watermark passes a left row.
    pub fn process(&mut self, right: bool, change: &Change) {
        if right {
            let (key, row, time) = self.right.project(&change.row);
            let Some(time) = time else { return };
            self.versions.entry(key.clone()).or_default().insert(time, Version { row, deleted: change.op == ChangeOp::Delete });
            self.set_timer(key, time);
        } else {
            // The left input is append: only inserts reach it.
            let (key, row, time) = self.left.project(&change.row);
            let Some(time) = time else { return };
            self.waiting.entry(key.clone()).or_default().push((time, row));
            self.set_timer(key, time);
        }
    }

    /// The timers at or before `watermark` fire, earliest first.
    pub fn on_watermark(&mut self, watermark: i64, out: &mut Vec<Change>) -> Result<(), EvalError> {
        let mut due: Vec<(i64, u64, Vec<Value>)> = self.timers.iter().filter(|(_, (t, _))| *t <= watermark).map(|(k, (t, s))| (*t, *s, k.clone())).collect();
        due.sort_by_key(|(t, s, _)| (*t, *s));
        for (_, _, key) in due {
            self.timers.remove(&key);
            self.emit_and_clean(&key, watermark, out)?;
        }
        Ok(())
    }

    /// Flink's emitResultAndCleanUpState for one key.
    fn emit_and_clean(&mut self, key: &[Value], watermark: i64, out: &mut Vec<Change>) -> Result<(), EvalError> {
        let rows = self.waiting.remove(key).unwrap_or_default();
        let (mut ready, rest): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(t, _)| *t <= watermark);
        // A stable sort: rows of one time keep their arrival order.
        ready.sort_by_key(|(t, _)| *t);
        let null_key = key.iter().any(|v| matches!(v, Value::Null));
        let versions = self.versions.get(key);
        let right_width = self.right.stored.len();
        for (t, row) in ready {
            let version = if null_key { None } else { versions.and_then(|v| v.range(..=t).next_back()).map(|(_, v)| v).filter(|v| !v.deleted) };
            let joined = match version {
                Some(v) => {
                    let j: Row = row.iter().chain(&v.row).cloned().collect();
                    match &self.residual {
                        Some(r) if !holds(r, &j)? => None,
                        _ => Some(j),
                    }
                }
                None => None,
            };
            match joined {
                Some(j) => out.push(Change::insert(j)),
                None if self.left_outer => out.push(Change::insert(row.iter().cloned().chain(std::iter::repeat_n(Value::Null, right_width)).collect())),
                None => {}
            }
        }
        // Versions older than the latest one valid at the watermark can no
        // longer be found by a row the watermark has not passed.
        if let Some(v) = self.versions.get_mut(key) {
            if let Some(&keep) = v.range(..=watermark).next_back().map(|(t, _)| t) {
                *v = v.split_off(&keep);
            }
        }
        if let Some(earliest) = rest.iter().map(|(t, _)| *t).min() {
            self.waiting.insert(key.to_vec(), rest);
            self.set_timer(key.to_vec(), earliest);
        }
        Ok(())
    }
}
