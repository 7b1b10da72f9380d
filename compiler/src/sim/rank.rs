//! A Rank node: `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` kept to a
//! range, executed exactly as the Flink function that runs it (docs/semantics.md,
//! "Top-N and deduplication"), over an append stream:
//!
//! - `Top(1)`: FastTop1Function. A partition's first row is inserted; a row
//!   whose sort key is strictly better replaces it (an update); any other row
//!   changes nothing.
//! - `Top(N)`, N > 1: AppendOnlyTopNFunction with its row number. Rows are
//!   kept by sort key, rows of equal keys in arrival order (TopNBuffer); a
//!   row enters when it is better than the worst kept or fewer than N are
//!   kept, and every rank from its own to N is updated.
//! - `First`: RowTimeDeduplicateKeepFirstRowFunction. A row earlier than the
//!   watermark is dropped; otherwise it waits, replaced by an earlier one,
//!   until the watermark reaches its time, when it is inserted; nothing for
//!   that partition follows.
//! - `Last`: RowTimeDeduplicateFunction keeping the last row: a row at least
//!   as late as the kept one replaces it (an update); an earlier one is
//!   ignored. No watermark is involved.
//! - Retract: RetractableTopNFunction. Every row of a partition is kept by
//!   sort key, rows of equal keys in arrival order; an update is the
//!   retraction of its old row, then the insertion of its new one. An
//!   inserted row takes the rank after its equals and moves each row below
//!   it down one rank (with the row number: an update per rank, and an
//!   insert when the top had room; without it: the delete of the row pushed
//!   out, then the insert); a retracted row moves each row below it up (an
//!   update per rank, and a delete of the last rank when fewer than N
//!   remain; without the row number: the delete, and the insert of the row
//!   that moves into the top).
//! - UpdateFast, N > 1: UpdatableTopNFunction. Rows are kept by the input's
//!   unique key, only the top N, and only the new row of an update arrives.
//!   With the row number, a new row enters as in AppendOnlyTopNFunction, a
//!   kept one moves up to its new sort key, and each rank between its new
//!   and its old one is written anew, as an update. Without it, a kept row
//!   is an update (wherever it moves), and a new one that enters is an
//!   insert after the delete of the row it pushes out.
//! - UpdateFast, N = 1: FastTop1Function, as over an append stream (a row
//!   replaces the kept one only when it sorts strictly before it).
//!
//! Flink plans a Top-1's row number as the constant 1 and ranks it without
//! the number: a Retract Top-1 writes deletes and inserts, not updates.
//! The changelog's `update` is Flink's UPDATE_AFTER; the UPDATE_BEFORE that
//! Flink writes right before it, when the sink asks for one, is left out.
//!
//! The store is shaped as the state fingerprint says: per partition key, rows
//! of the `row=` columns (compiler/tests/sim_state.rs checks it).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

use super::change::{Change, ChangeOp, Input, Row};
use super::value::Value;
use crate::plan::node::{Column, NodeKind, PlanNode, RankKeep, RankStrategy, Retention};

/// A partition's key.
pub type Key = Vec<Value>;

/// One partition's state.
#[derive(Clone, Debug, Default)]
struct Partition {
    /// Top-N: rows by sort key, best first; each key's rows in arrival
    /// order. Top-1, keep-last: the one row. Keep-first: the row waiting
    /// for the watermark.
    rows: Vec<(Key, Vec<Row>)>,
    /// Keep-first: the partition's row was emitted.
    emitted: bool,
    /// The event time of the latest row the partition stored (retention).
    last_event: i64,
}

impl Partition {
    fn count(&self) -> usize {
        self.rows.iter().map(|(_, r)| r.len()).sum()
    }
}

/// The keyed store of one Rank.
#[derive(Debug)]
pub struct RankStore {
    /// The partition columns, with their types.
    pub keys: Vec<Column>,
    /// The columns of each stored row.
    pub row: Vec<Column>,
    partitions: BTreeMap<Key, Partition>,
    /// Retention timers: (expiry, key), earliest first; stale ones skipped.
    timers: BinaryHeap<Reverse<(i64, Key)>>,
}

impl RankStore {
    /// Every partition key with its stored rows.
    pub fn partitions(&self) -> impl Iterator<Item = (&Key, Vec<&Row>)> {
        self.partitions.iter().map(|(k, p)| (k, p.rows.iter().flat_map(|(_, r)| r.iter()).collect()))
    }
}

#[derive(Debug)]
pub struct Rank {
    /// Node id, for inspection.
    pub id: String,
    /// Input positions of the partition columns, and of the stored row's.
    partition: Vec<usize>,
    row: Vec<usize>,
    /// The sort key: a position in the stored row, descending, nulls last.
    order: Vec<(usize, bool, bool)>,
    keep: RankKeep,
    /// Whether it ranks an updating input (every row kept).
    retracts: bool,
    /// UpdateFast: the unique key's positions in the stored row
    /// (UpdatableTopNFunction, or FastTop1Function for one row).
    update_key: Option<Vec<usize>>,
    /// The output carries the row number.
    number: bool,
    /// The function ranks with the row number: Flink plans a Top-1's as
    /// the constant 1, ranked without it.
    numbered: bool,
    retention_ms: Option<i64>,
    pub store: RankStore,
}

/// Compares two sort keys as the order says: the better first.
fn compare(order: &[(usize, bool, bool)], a: &[Value], b: &[Value]) -> Ordering {
    for ((_, descending, nulls_last), (x, y)) in order.iter().zip(a.iter().zip(b)) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => if *nulls_last { Ordering::Greater } else { Ordering::Less },
            (false, true) => if *nulls_last { Ordering::Less } else { Ordering::Greater },
            (false, false) => {
                let o = x.cmp(y);
                if *descending { o.reverse() } else { o }
            }
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// A timestamp value's epoch milliseconds.
fn millis(v: &Value) -> Option<i64> {
    match v {
        Value::Timestamp(t) => Some(*t),
        Value::TimestampNanos(n) => Some(n.div_euclid(1_000_000)),
        _ => None,
    }
}

impl Rank {
    /// The Rank of a plan node; `input` is the node's input schema.
    pub fn of(model: &str, node: &PlanNode, input: &[Column]) -> Option<Rank> {
        let NodeKind::Rank { partition, order, keep, row, number } = &node.kind else { return None };
        let state = node.state.as_ref()?;
        let rank = state.rank.as_ref()?;
        let retention_ms = match state.retention {
            Retention::After(d) => Some(d.millis().min(i64::MAX as u64) as i64),
            _ => None,
        };
        let order = order.iter().map(|(i, k)| (row.iter().position(|r| r == i).expect("the order is stored"), k.descending, k.nulls_last)).collect();
        let keys = partition.iter().map(|&i| input[i].clone()).collect();
        Some(Rank {
            id: node.id(model),
            partition: partition.clone(),
            row: row.clone(),
            order,
            keep: *keep,
            retracts: rank.strategy != RankStrategy::AppendFast,
            update_key: match &rank.strategy {
                RankStrategy::UpdateFast { key } => key.iter().map(|k| rank.row.iter().position(|c| c.name == *k)).collect(),
                _ => None,
            },
            number: *number,
            numbered: *number && keep.rows() > 1,
            retention_ms,
            store: RankStore { keys, row: rank.row.clone(), partitions: BTreeMap::new(), timers: BinaryHeap::new() },
        })
    }

    /// How many columns its output rows have.
    pub fn width(&self) -> usize {
        self.row.len() + usize::from(self.number)
    }

    fn sort_key(&self, row: &[Value]) -> Key {
        self.order.iter().map(|(i, _, _)| row[*i].clone()).collect()
    }

    /// The output row of a stored row at rank `rank`.
    fn output(&self, row: &[Value], rank: usize) -> Row {
        let mut out = row.to_vec();
        if self.number {
            out.push(Value::Int(rank as i64));
        }
        out
    }

    fn touch(&mut self, key: &Key, ts: i64) {
        if let Some(r) = self.retention_ms {
            if let Some(p) = self.store.partitions.get_mut(key) {
                p.last_event = ts;
            }
            self.store.timers.push(Reverse((ts.saturating_add(r), key.clone())));
        }
    }

    /// Whether it reads an update as the retraction of its old row, then
    /// the insertion of its new one.
    pub fn retracts(&self) -> bool {
        self.retracts && self.update_key.is_none()
    }

    /// Takes one record of an event at `event_time`, meeting `watermark`,
    /// and writes what it emits to `out`. Over an append input a record is
    /// an insert; over an updating one, an insert or a delete (updates are
    /// split before they arrive: `retracts`).
    pub fn apply(&mut self, input: Input<'_>, event_time: i64, watermark: Option<i64>, out: &mut Vec<Change>) {
        let key: Key = self.partition.iter().map(|&i| input.row.get(i).cloned().unwrap_or(Value::Null)).collect();
        let row: Row = self.row.iter().map(|&i| input.row.get(i).cloned().unwrap_or(Value::Null)).collect();
        if self.update_key.is_some() {
            // Only the new row of an update reaches UpdatableTopNFunction
            // (or FastTop1Function).
            if input.op != ChangeOp::Delete {
                let n = self.keep.rows() as usize;
                let stored = if n == 1 {
                    self.top1(&key, row, out)
                } else if self.numbered {
                    self.update_fast(&key, row, n, out);
                    true
                } else {
                    self.update_fast_unnumbered(&key, row, n, out)
                };
                if stored {
                    self.touch(&key, event_time);
                }
            }
            return;
        }
        if self.retracts {
            let n = self.keep.rows() as usize;
            let stored = match input.op {
                ChangeOp::Delete => self.retract(&key, &row, n, out),
                _ => self.accumulate(&key, row, n, out),
            };
            if stored {
                self.touch(&key, event_time);
            }
            return;
        }
        if input.op != ChangeOp::Insert {
            return;
        }
        let stored = match self.keep {
            RankKeep::Top(1) => self.top1(&key, row, out),
            RankKeep::Top(n) => self.top_n(&key, row, n as usize, out),
            RankKeep::First => self.keep_first(&key, row, watermark),
            RankKeep::Last => self.keep_last(&key, row, out),
        };
        if stored {
            self.touch(&key, event_time);
        }
    }

    /// FastTop1Function: the best row of the partition.
    fn top1(&mut self, key: &Key, row: Row, out: &mut Vec<Change>) -> bool {
        let sk = self.sort_key(&row);
        let order = self.order.clone();
        let p = self.store.partitions.entry(key.clone()).or_default();
        match p.rows.first_mut() {
            None => {
                p.rows.push((sk, vec![row.clone()]));
                out.push(Change::insert(self.output(&row, 1)));
                true
            }
            Some((old_key, rows)) if compare(&order, &sk, old_key) == Ordering::Less => {
                let before = std::mem::replace(&mut rows[0], row.clone());
                *old_key = sk;
                out.push(Change { op: ChangeOp::Update, row: self.output(&row, 1), before: Some(self.output(&before, 1)) });
                true
            }
            Some(_) => false,
        }
    }

    /// AppendOnlyTopNFunction with the row number (lowering requires it
    /// for N > 1): rank by rank, as Flink walks its TopNBuffer.
    fn top_n(&mut self, key: &Key, row: Row, n: usize, out: &mut Vec<Change>) -> bool {
        let sk = self.sort_key(&row);
        let order = self.order.clone();
        let p = self.store.partitions.entry(key.clone()).or_default();
        // checkSortKeyInBufferRange: better than the worst kept, or room left.
        let in_range = match p.rows.last() {
            None => true,
            Some((worst, _)) => compare(&order, &sk, worst) == Ordering::Less || p.count() < n,
        };
        if !in_range {
            if p.rows.is_empty() {
                self.store.partitions.remove(key);
            }
            return false;
        }
        let at = p.rows.partition_point(|(k, _)| compare(&order, k, &sk) == Ordering::Less);
        match p.rows.get_mut(at) {
            Some((k, rows)) if compare(&order, k, &sk) == Ordering::Equal => rows.push(row.clone()),
            _ => p.rows.insert(at, (sk.clone(), vec![row.clone()])),
        }
        // processElementWithRowNumber.
        let mut emitted = Vec::new();
        let mut rank = 0usize;
        let mut current: Option<Row> = None;
        let mut next = 0;
        while next < p.rows.len() && rank <= n {
            let (k, rows) = &p.rows[next];
            next += 1;
            if current.is_none() && compare(&order, k, &sk) == Ordering::Equal {
                rank += rows.len();
                current = Some(row.clone());
            } else if let Some(cur) = current.as_mut() {
                for prev in rows {
                    if rank > n {
                        break;
                    }
                    emitted.push((ChangeOp::Update, std::mem::replace(cur, prev.clone()), Some(prev.clone()), rank));
                    rank += 1;
                }
            } else {
                rank += rows.len();
            }
        }
        if rank <= n {
            if let Some(cur) = current {
                emitted.push((ChangeOp::Insert, cur, None, rank));
            }
        }
        // The sort keys the walk did not reach are out of the top N.
        p.rows.truncate(next);
        for (op, after, before, rank) in emitted {
            let before = before.map(|b| self.output(&b, rank));
            out.push(Change { op, row: self.output(&after, rank), before });
        }
        true
    }

    /// RetractableTopNFunction taking a row: stored after its equals, then
    /// the ranks it moves are written.
    fn accumulate(&mut self, key: &Key, row: Row, n: usize, out: &mut Vec<Change>) -> bool {
        let sk = self.sort_key(&row);
        let order = self.order.clone();
        let p = self.store.partitions.entry(key.clone()).or_default();
        let at = p.rows.partition_point(|(k, _)| compare(&order, k, &sk) == Ordering::Less);
        match p.rows.get_mut(at) {
            Some((k, rows)) if compare(&order, k, &sk) == Ordering::Equal => rows.push(row.clone()),
            _ => p.rows.insert(at, (sk.clone(), vec![row.clone()])),
        }
        // Its rank: after every row of the better sort keys and its equals.
        let own: usize = p.rows[..=at].iter().map(|(_, r)| r.len()).sum();
        let below: Vec<Row> = p.rows[at + 1..].iter().flat_map(|(_, r)| r.iter()).take((n + 1).saturating_sub(own)).cloned().collect();
        let mut emitted: Vec<Change> = Vec::new();
        if own > n {
            // Below the top: nothing shows.
        } else if self.numbered {
            // Each row below moves down one rank: the rank it held shows the row above it.
            let mut rank = own;
            let mut current = row;
            for prev in below.into_iter().take(n + 1 - own) {
                emitted.push(Change { op: ChangeOp::Update, row: self.output(&current, rank), before: Some(self.output(&prev, rank)) });
                current = prev;
                rank += 1;
            }
            if rank <= n {
                emitted.push(Change::insert(self.output(&current, rank)));
            }
        } else {
            // The row at rank N + 1 now, if any, leaves the top. (Unnumbered
            // with a row number is a Top-1: its number is 1.)
            if let Some(r) = below.get(n - own) {
                emitted.push(Change { op: ChangeOp::Delete, row: self.output(r, 1), before: None });
            }
            emitted.push(Change::insert(self.output(&row, 1)));
        }
        out.extend(emitted);
        true
    }

    /// RetractableTopNFunction taking a row back: removed from its sort
    /// key's rows (the first equal one), then the ranks it moves are
    /// written. A row it never stored changes nothing.
    fn retract(&mut self, key: &Key, row: &Row, n: usize, out: &mut Vec<Change>) -> bool {
        let sk = self.sort_key(row);
        let order = self.order.clone();
        let Some(p) = self.store.partitions.get_mut(key) else { return false };
        let Some(at) = p.rows.iter().position(|(k, _)| compare(&order, k, &sk) == Ordering::Equal) else { return false };
        let Some(j) = p.rows[at].1.iter().position(|r| r == row) else { return false };
        let rank = p.rows[..at].iter().map(|(_, r)| r.len()).sum::<usize>() + j + 1;
        let removed = p.rows[at].1.remove(j);
        if p.rows[at].1.is_empty() {
            p.rows.remove(at);
        }
        let rest: Vec<Row> = p.rows.iter().flat_map(|(_, r)| r.iter()).skip(rank - 1).take(n.saturating_sub(rank - 1)).cloned().collect();
        if p.rows.is_empty() {
            self.store.partitions.remove(key);
        }
        if rank > n {
            return true;
        }
        if self.numbered {
            // Each row below moves up into the rank above it.
            let mut prev = removed;
            let mut r = rank;
            for next in rest {
                out.push(Change { op: ChangeOp::Update, row: self.output(&next, r), before: Some(self.output(&prev, r)) });
                prev = next;
                r += 1;
            }
            if r <= n {
                out.push(Change { op: ChangeOp::Delete, row: self.output(&prev, r), before: None });
            }
        } else {
            out.push(Change { op: ChangeOp::Delete, row: self.output(&removed, 1), before: None });
            // The row that moves up to rank N enters the top.
            if let Some(entered) = rest.get(n - rank) {
                out.push(Change::insert(self.output(entered, 1)));
            }
        }
        true
    }

    /// UpdatableTopNFunction with the row number: rows by their unique key,
    /// the top N kept; a row whose key is kept moves up to its new sort key.
    fn update_fast(&mut self, key: &Key, row: Row, n: usize, out: &mut Vec<Change>) {
        let uk = self.update_key.clone().expect("UpdateFast");
        let row_key = |r: &Row| uk.iter().map(|&i| r[i].clone()).collect::<Vec<_>>();
        let sk = self.sort_key(&row);
        let order = self.order.clone();
        let sort_of = |r: &Row| -> Key { order.iter().map(|(i, _, _)| r[*i].clone()).collect() };
        let p = self.store.partitions.entry(key.clone()).or_default();
        let shown: Vec<Row> = p.rows.iter().flat_map(|(_, r)| r.iter()).take(n).cloned().collect();
        let rank_of = |rows: &[(Key, Vec<Row>)], k: &[Value]| rows.iter().flat_map(|(_, r)| r.iter()).position(|r| row_key(r) == k).map(|i| i + 1);
        let rk = row_key(&row);
        let mut raw: Vec<(ChangeOp, Row, usize)> = Vec::new();
        let old = rank_of(&p.rows, &rk).map(|r| (r, shown.get(r - 1).cloned().unwrap_or_else(|| p.rows.iter().flat_map(|(_, x)| x.iter()).nth(r - 1).cloned().expect("ranked"))));
        if let Some((old_rank, old_row)) = &old {
            let old_sk = sort_of(old_row);
            if compare(&order, &sk, &old_sk) == Ordering::Equal {
                for (_, rows) in p.rows.iter_mut() {
                    rows.iter_mut().filter(|r| row_key(r) == rk).for_each(|r| *r = row.clone());
                }
                raw.push((ChangeOp::Update, row.clone(), *old_rank));
                self.emit_raw(raw, &shown, out);
                return;
            }
            for (_, rows) in p.rows.iter_mut() {
                rows.retain(|r| row_key(r) != rk);
            }
            p.rows.retain(|(_, r)| !r.is_empty());
        } else {
            let in_range = p.count() < n || p.rows.last().is_some_and(|(worst, _)| compare(&order, &sk, worst) == Ordering::Less);
            if !in_range {
                return;
            }
        }
        let at = p.rows.partition_point(|(k, _)| compare(&order, k, &sk) == Ordering::Less);
        match p.rows.get_mut(at) {
            Some((k, rows)) if compare(&order, k, &sk) == Ordering::Equal => rows.push(row.clone()),
            _ => p.rows.insert(at, (sk.clone(), vec![row.clone()])),
        }
        // emitRecordsWithRowNumber: the ranks from the row's new one down.
        let old_sk = old.as_ref().map(|(_, r)| sort_of(r));
        let mut rank = p.rows[..=at].iter().map(|(_, r)| r.len()).sum::<usize>();
        let mut current = row;
        let mut next = at + 1;
        while next < p.rows.len() && rank <= n {
            let (k, rows) = &p.rows[next];
            next += 1;
            // A moved row shifts the ranks down to its old one; a new row, to N.
            let last = match (&old, &old_sk) {
                (Some(_), Some(osk)) if compare(&order, k, osk) == Ordering::Greater => break,
                (Some((old_rank, _)), _) => *old_rank,
                _ => n + 1,
            };
            for prev in rows.iter().take(last.saturating_sub(rank)) {
                raw.push((ChangeOp::Update, std::mem::replace(&mut current, prev.clone()), rank));
                rank += 1;
            }
        }
        if rank <= n {
            raw.push((if old.is_none() { ChangeOp::Insert } else { ChangeOp::Update }, current, rank));
        } else {
            // The sort keys past the top are dropped from state.
            p.rows.truncate(next);
        }
        self.emit_raw(raw, &shown, out);
    }

    /// UpdatableTopNFunction without the row number: rows by their unique
    /// key, the top N kept. A kept row is an update wherever its new sort
    /// key puts it (after its equals); a new row that sorts before the
    /// worst kept one, or finds room, is an insert, after the delete of the
    /// last kept row it pushes past N. Any other row changes nothing.
    fn update_fast_unnumbered(&mut self, key: &Key, row: Row, n: usize, out: &mut Vec<Change>) -> bool {
        let uk = self.update_key.clone().expect("UpdateFast");
        let row_key = |r: &Row| uk.iter().map(|&i| r[i].clone()).collect::<Vec<_>>();
        let rk = row_key(&row);
        let sk = self.sort_key(&row);
        let order = self.order.clone();
        let p = self.store.partitions.entry(key.clone()).or_default();
        let kept = p.rows.iter().enumerate().find_map(|(g, (_, rows))| rows.iter().position(|r| row_key(r) == rk).map(|i| (g, i)));
        let put = |p: &mut Partition, row: Row| {
            let at = p.rows.partition_point(|(k, _)| compare(&order, k, &sk) != Ordering::Greater);
            match at.checked_sub(1).and_then(|g| p.rows.get_mut(g)) {
                Some((k, rows)) if compare(&order, k, &sk) == Ordering::Equal => rows.push(row),
                _ => p.rows.insert(at, (sk.clone(), vec![row])),
            }
        };
        if let Some((g, i)) = kept {
            let before = if compare(&order, &p.rows[g].0, &sk) == Ordering::Equal {
                std::mem::replace(&mut p.rows[g].1[i], row.clone())
            } else {
                let old = p.rows[g].1.remove(i);
                if p.rows[g].1.is_empty() {
                    p.rows.remove(g);
                }
                put(p, row.clone());
                old
            };
            out.push(Change { op: ChangeOp::Update, row: self.output(&row, 1), before: Some(self.output(&before, 1)) });
            return true;
        }
        // checkSortKeyInBufferRange: better than the worst kept, or room left.
        let in_range = p.count() < n || p.rows.last().is_some_and(|(worst, _)| compare(&order, &sk, worst) == Ordering::Less);
        if !in_range {
            if p.rows.is_empty() {
                self.store.partitions.remove(key);
            }
            return false;
        }
        put(p, row.clone());
        let mut pushed = None;
        if p.count() > n {
            let (_, rows) = p.rows.last_mut().expect("more than N rows");
            pushed = rows.pop();
            if rows.is_empty() {
                p.rows.pop();
            }
        }
        if let Some(r) = pushed {
            out.push(Change { op: ChangeOp::Delete, row: self.output(&r, 1), before: None });
        }
        out.push(Change::insert(self.output(&row, 1)));
        true
    }

    /// Flink's records of one UpdatableTopNFunction step as a sink keyed by
    /// the rank gets them (Flink generates no UPDATE_BEFORE for it): each
    /// update replaces what its rank showed.
    fn emit_raw(&self, raw: Vec<(ChangeOp, Row, usize)>, shown: &[Row], out: &mut Vec<Change>) {
        let mut shown: BTreeMap<usize, Row> = shown.iter().cloned().enumerate().map(|(i, r)| (i + 1, r)).collect();
        for (op, row, rank) in raw {
            let before = shown.insert(rank, row.clone()).map(|b| self.output(&b, rank));
            match op {
                ChangeOp::Insert => out.push(Change::insert(self.output(&row, rank))),
                _ => out.push(Change { op: ChangeOp::Update, row: self.output(&row, rank), before }),
            }
        }
    }

    /// RowTimeDeduplicateKeepFirstRowFunction: the earliest row waits for
    /// the watermark; a late one, or any after the emitted one, is ignored.
    fn keep_first(&mut self, key: &Key, row: Row, watermark: Option<i64>) -> bool {
        let (t, _, _) = self.order[0];
        let Some(ts) = millis(&row[t]) else { return false };
        if watermark.is_some_and(|w| ts < w) {
            return false;
        }
        let p = self.store.partitions.entry(key.clone()).or_default();
        if p.emitted {
            return false;
        }
        let earlier = match p.rows.first() {
            None => true,
            Some((_, rows)) => millis(&rows[0][t]).is_some_and(|w| ts < w),
        };
        if earlier {
            p.rows = vec![(vec![row[t].clone()], vec![row])];
        }
        earlier
    }

    /// RowTimeDeduplicateFunction keeping the last row.
    fn keep_last(&mut self, key: &Key, row: Row, out: &mut Vec<Change>) -> bool {
        let (t, _, _) = self.order[0];
        let ts = millis(&row[t]);
        let p = self.store.partitions.entry(key.clone()).or_default();
        match p.rows.first_mut() {
            None => {
                p.rows.push((vec![row[t].clone()], vec![row.clone()]));
                out.push(Change::insert(self.output(&row, 1)));
                true
            }
            Some((k, rows)) if millis(&rows[0][t]) <= ts => {
                *k = vec![row[t].clone()];
                let before = std::mem::replace(&mut rows[0], row.clone());
                out.push(Change { op: ChangeOp::Update, row: self.output(&row, 1), before: Some(self.output(&before, 1)) });
                true
            }
            Some(_) => false,
        }
    }

    /// The watermark reached `watermark`: keep-first rows whose time it
    /// passed are emitted (by time, then partition key), then partitions
    /// whose retention ran out expire, silently.
    pub fn on_watermark(&mut self, watermark: i64, out: &mut Vec<Change>) {
        if self.keep == RankKeep::First {
            let (t, _, _) = self.order[0];
            let mut due: Vec<(i64, Key)> = Vec::new();
            for (k, p) in &self.store.partitions {
                if let Some((_, rows)) = p.rows.first() {
                    if let Some(ts) = millis(&rows[0][t]).filter(|ts| *ts <= watermark) {
                        due.push((ts, k.clone()));
                    }
                }
            }
            due.sort();
            for (_, k) in due {
                let p = self.store.partitions.get_mut(&k).expect("due");
                let (_, rows) = p.rows.remove(0);
                p.emitted = true;
                out.push(Change::insert(self.output(&rows[0], 1)));
                // What remains is the emitted flag, written now.
                self.touch(&k, watermark);
            }
        }
        let Some(_) = self.retention_ms else { return };
        while let Some(Reverse((expiry, _))) = self.store.timers.peek() {
            if *expiry > watermark {
                break;
            }
            let Reverse((expiry, key)) = self.store.timers.pop().expect("peeked");
            let Some(p) = self.store.partitions.get(&key) else { continue };
            let current = p.last_event.saturating_add(self.retention_ms.unwrap_or(0));
            // A keep-first row still waiting for the watermark is not expired (Flink's TTL covers only the emitted flag).
            if current == expiry && (self.keep != RankKeep::First || p.rows.is_empty()) {
                self.store.partitions.remove(&key);
            }
        }
    }
}
