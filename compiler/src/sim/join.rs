//! A regular INNER join, as Flink's StreamingJoinOperator runs it: a store
//! per side keyed by the join key, each shaped as the node's state
//! fingerprint says. An input without a unique key (every input here: the
//! join reads append inputs) keeps each distinct row with a count, as
//! Flink's `InputSideHasNoUniqueKey` view does. A row arriving on one side
//! is stored, then joined with every stored row of the other side under
//! its key for which the residual condition holds, one output per copy.

use rustc_hash::FxHashMap;

use super::change::{Change, Row};
use super::eval::{holds, EvalError};
use super::value::Value;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, NodeKind, PlanNode, Retention};

/// One stored row: the row, how many copies, and the event time it was
/// last written at (for retention).
#[derive(Clone, Debug)]
pub struct Stored {
    pub row: Row,
    pub count: u64,
    written: i64,
}

/// One side's store.
#[derive(Debug)]
pub struct SideStore {
    /// The join key columns, in key order (named and typed as stored).
    pub keys: Vec<Column>,
    /// The columns each stored row has.
    pub stored: Vec<Column>,
    /// Where each key column is in a stored row.
    key_at: Vec<usize>,
    /// Where each stored column is in an input row.
    take: Vec<usize>,
    /// Rows by join key, in the order first stored.
    pub rows: FxHashMap<Vec<Value>, Vec<Stored>>,
}

impl SideStore {
    fn key_of(&self, row: &[Value]) -> Vec<Value> {
        self.key_at.iter().map(|&i| row[i].clone()).collect()
    }

    /// Stores one copy of `row` (already projected) under `key`.
    fn add(&mut self, key: Vec<Value>, row: &[Value], ts: i64) {
        let rows = self.rows.entry(key).or_default();
        match rows.iter_mut().find(|s| s.row == row) {
            Some(s) => {
                s.count += 1;
                s.written = ts;
            }
            None => rows.push(Stored { row: row.to_vec(), count: 1, written: ts }),
        }
    }

    /// Drops rows last written `retention` or longer before `watermark`.
    fn expire(&mut self, watermark: i64, retention: i64) {
        self.rows.retain(|_, rows| {
            rows.retain(|s| s.written.saturating_add(retention) > watermark);
            !rows.is_empty()
        });
    }

    /// Every stored row, with its key.
    pub fn entries(&self) -> impl Iterator<Item = (&Vec<Value>, &Stored)> {
        self.rows.iter().flat_map(|(k, rows)| rows.iter().map(move |s| (k, s)))
    }
}

#[derive(Debug)]
pub struct Join {
    /// Node id, for inspection.
    pub id: String,
    pub left: SideStore,
    pub right: SideStore,
    residual: Option<Expr>,
    retention: Option<i64>,
}

impl Join {
    /// The join of a Join node; its stores are shaped by its state.
    pub fn of(model: &str, node: &PlanNode) -> Join {
        let NodeKind::Join { left_stored, right_stored, left_keys, right_keys, residual, .. } = &node.kind else { unreachable!("a join node") };
        let state = node.state.as_ref().and_then(|s| s.join.as_ref()).expect("a join is keyed");
        let lw = left_stored.len();
        let side = |st: &crate::plan::node::JoinSideState, take: &[usize], key_at: Vec<usize>| SideStore {
            keys: key_at.iter().map(|&i| st.stored[i].clone()).collect(),
            stored: st.stored.clone(),
            key_at,
            take: take.to_vec(),
            rows: FxHashMap::default(),
        };
        let retention = match node.state.as_ref().map(|s| s.retention) {
            Some(Retention::After(d)) => Some(d.millis().min(i64::MAX as u64) as i64),
            _ => None,
        };
        Join {
            id: node.id(model),
            left: side(&state.left, left_stored, left_keys.clone()),
            right: side(&state.right, right_stored, right_keys.iter().map(|k| k - lw).collect()),
            residual: residual.clone(),
            retention,
        }
    }

    /// How wide its output rows are.
    pub fn width(&self) -> usize {
        self.left.stored.len() + self.right.stored.len()
    }

    /// An insert on the left (`right` false) or right side: stored, then
    /// joined with the other side; the joined rows are pushed onto `out`.
    pub fn insert(&mut self, right: bool, input: &[Value], ts: i64, out: &mut Vec<Change>) -> Result<(), EvalError> {
        let (this, other) = if right { (&mut self.right, &self.left) } else { (&mut self.left, &self.right) };
        let row: Row = this.take.iter().map(|&i| input.get(i).cloned().unwrap_or(Value::Null)).collect();
        let key = this.key_of(&row);
        // A null key is stored, as Flink does, but matches nothing (SQL equality).
        let matches = if key.iter().any(|v| matches!(v, Value::Null)) { None } else { other.rows.get(&key) };
        if let Some(matches) = matches {
            for m in matches {
                let joined: Row = if right { m.row.iter().chain(&row).cloned().collect() } else { row.iter().chain(&m.row).cloned().collect() };
                if let Some(r) = &self.residual {
                    if !holds(r, &joined)? {
                        continue;
                    }
                }
                for _ in 0..m.count {
                    out.push(Change::insert(joined.clone()));
                }
            }
        }
        this.add(key, &row, ts);
        Ok(())
    }

    /// Retention: each side drops the rows not written for `retention`.
    pub fn on_watermark(&mut self, watermark: i64) {
        if let Some(r) = self.retention {
            self.left.expire(watermark, r);
            self.right.expire(watermark, r);
        }
    }
}
