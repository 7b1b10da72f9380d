//! A regular join, as Flink's StreamingJoinOperator runs it: a store per
//! side keyed by the join key, each shaped as the node's state
//! fingerprint says (Flink's JoinInputSideSpec): when the side's unique
//! key is within the join key, one row per join key; with another unique
//! key, rows by that key; without one (an append input), each distinct
//! row with a count. A row arriving on one side is stored, then joined
//! with every stored row of the other side under its key for which the
//! residual condition holds, one output per copy. A row an updating input
//! replaces or deletes is retracted first: taken out of its store, and
//! every row it joined is deleted.
//!
//! An outer side (LEFT's left, RIGHT's right, both of FULL) keeps with
//! each stored row how many rows of the other side it joined, as Flink's
//! `OuterJoinRecordStateView` does: a row that joins nothing is emitted
//! padded with nulls, and when the first row joining it arrives the
//! padded row is deleted (`-D`) before the joined rows are inserted; when
//! its last match is retracted, the padded row is inserted again.
//!
//! An interval join runs as Flink's RowTimeIntervalJoin: a row joins the
//! other side's rows under its key whose time is within the interval, and
//! each side's rows are dropped by cleanup timers once the watermark has
//! passed their interval (`Interval`).

use rustc_hash::FxHashMap;

use super::change::{Change, ChangeOp, Row};
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
    /// On an outer side, how many rows of the other side it joins
    /// (Flink's numOfAssociations); 0 elsewhere.
    pub associations: u64,
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
    /// An interval join's: where the event time is in a stored row.
    time_at: Option<usize>,
    /// Where the side's unique key is in a stored row (none: rows are
    /// kept with a count), and whether it lies within the join key (one
    /// row per join key).
    unique_at: Option<Vec<usize>>,
    one_per_key: bool,
    /// Rows by join key, in the order first stored.
    pub rows: FxHashMap<Vec<Value>, Vec<Stored>>,
}

impl SideStore {
    fn key_of(&self, row: &[Value]) -> Vec<Value> {
        self.key_at.iter().map(|&i| row[i].clone()).collect()
    }

    /// Stores one copy of `row` (already projected) under `key`, joining
    /// `associations` rows of the other side (Flink sets the count of an
    /// outer row it adds again to the new one).
    fn add(&mut self, key: Vec<Value>, row: &[Value], ts: i64, associations: u64) {
        let rows = self.rows.entry(key).or_default();
        if self.one_per_key {
            *rows = vec![Stored { row: row.to_vec(), count: 1, associations, written: ts }];
            return;
        }
        if let Some(at) = &self.unique_at {
            match rows.iter_mut().find(|s| at.iter().all(|&i| s.row[i] == row[i])) {
                Some(s) => *s = Stored { row: row.to_vec(), count: 1, associations, written: ts },
                None => rows.push(Stored { row: row.to_vec(), count: 1, associations, written: ts }),
            }
            return;
        }
        match rows.iter_mut().find(|s| s.row == row) {
            Some(s) => {
                s.count += 1;
                s.associations = associations;
                s.written = ts;
            }
            None => rows.push(Stored { row: row.to_vec(), count: 1, associations, written: ts }),
        }
    }

    /// Takes one copy of `row` out of `key`'s rows: the key's row (one row
    /// per key), the row of its unique key, or one count of the row.
    fn retract(&mut self, key: &[Value], row: &[Value]) {
        let Some(rows) = self.rows.get_mut(key) else { return };
        if self.one_per_key {
            rows.clear();
        } else if let Some(at) = &self.unique_at {
            rows.retain(|s| !at.iter().all(|&i| s.row[i] == row[i]));
        } else if let Some(p) = rows.iter().position(|s| s.row == row) {
            rows[p].count -= 1;
            if rows[p].count == 0 {
                rows.remove(p);
            }
        }
        if rows.is_empty() {
            self.rows.remove(key);
        }
    }

    /// Drops rows of `key` at or before `time`; `true` when rows remain.
    fn drop_until(&mut self, key: &[Value], time: i64) -> bool {
        let Some(rows) = self.rows.get_mut(key) else { return false };
        rows.retain(|s| s.written > time);
        if rows.is_empty() {
            self.rows.remove(key);
            return false;
        }
        true
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
    interval: Option<Interval>,
    /// Whether the left and the right side are outer.
    left_outer: bool,
    right_outer: bool,
}

/// An interval join's clock, as Flink's TimeIntervalJoin keeps it. A left
/// row at `t` joins right rows in `[t - right_rel, t + left_rel]` (Flink's
/// relative sizes: `left_rel` is the upper bound of `right - left`,
/// `right_rel` minus its lower bound). The expiration times are the
/// operator's, shared by every key, as on Flink.
#[derive(Debug)]
struct Interval {
    left_rel: i64,
    right_rel: i64,
    /// How far each side's rows have been cleaned (0 at start, as on Flink).
    left_exp: i64,
    right_exp: i64,
    /// Per key, the time of the timer that cleans each side's rows.
    left_timer: FxHashMap<Vec<Value>, i64>,
    right_timer: FxHashMap<Vec<Value>, i64>,
}

/// `row` (of the right side when `right`) joined with each of `matches`
/// for which the residual condition holds, one insert per stored copy.
fn emit_matches<'m>(residual: Option<&Expr>, right: bool, row: &Row, matches: impl Iterator<Item = &'m Stored>, out: &mut Vec<Change>) -> Result<(), EvalError> {
    for m in matches {
        let joined: Row = if right { m.row.iter().chain(row).cloned().collect() } else { row.iter().chain(&m.row).cloned().collect() };
        if let Some(r) = residual {
            if !holds(r, &joined)? {
                continue;
            }
        }
        for _ in 0..m.count {
            out.push(Change::insert(joined.clone()));
        }
    }
    Ok(())
}

/// What an inner join emits for an update of one input, as Flink's
/// StreamingJoinOperator labels it when neither side is outer: the rows
/// the old row joined (`gone`) with the input's `-U`, then the rows the new
/// one joins (`joined`) with its `+U`. In the simulator's words, as the
/// conformance harness reads Flink's changelog too: a `-U` right before a
/// `+U` is one update, any other `-U` a delete, and a `+U` with no `-U`
/// before it an update of no row.
fn relabel_update(gone: Vec<Change>, joined: Vec<Change>, out: &mut Vec<Change>) {
    let mut before = None;
    let last = gone.len();
    for (i, c) in gone.into_iter().enumerate() {
        if i + 1 == last && !joined.is_empty() {
            before = Some(c.row);
        } else {
            out.push(c);
        }
    }
    for c in joined {
        out.push(Change { op: ChangeOp::Update, row: c.row, before: before.take() });
    }
}

/// `mine` (of the right side when `right`) and `theirs`, as one output row.
fn pair(right: bool, mine: &[Value], theirs: &[Value]) -> Row {
    if right {
        theirs.iter().chain(mine).cloned().collect()
    } else {
        mine.iter().chain(theirs).cloned().collect()
    }
}

/// The rows stored in `other` under `key` that `row` (of the right side
/// when `right`) joins, each with the joined row: those for which the
/// residual condition holds; none under a null key (SQL equality).
fn joining<'o>(residual: Option<&Expr>, right: bool, row: &[Value], key: &[Value], other: &'o mut SideStore) -> Result<Vec<(&'o mut Stored, Row)>, EvalError> {
    let mut found = Vec::new();
    if key.iter().any(|v| matches!(v, Value::Null)) {
        return Ok(found);
    }
    for m in other.rows.get_mut(key).into_iter().flatten() {
        let j = pair(right, row, &m.row);
        if residual.map(|r| holds(r, &j)).transpose()?.unwrap_or(true) {
            found.push((m, j));
        }
    }
    Ok(found)
}

/// The operator time Flink's interval join reads: the watermark, or 0
/// before the first positive one.
fn operator_time(watermark: Option<i64>) -> i64 {
    watermark.filter(|w| *w > 0).unwrap_or(0)
}

/// The time up to which a side's rows can no longer join (Flink's
/// calExpirationTime, no allowed lateness).
fn expiration(operator_time: i64, other_rel: i64) -> i64 {
    operator_time.saturating_sub(other_rel).saturating_sub(1)
}

impl Join {
    /// The join of a Join node; its stores are shaped by its state.
    pub fn of(model: &str, node: &PlanNode) -> Join {
        let NodeKind::Join { join_type, left_stored, right_stored, left_keys, right_keys, residual, .. } = &node.kind else { unreachable!("a join node") };
        let state = node.state.as_ref().and_then(|s| s.join.as_ref()).expect("a join is keyed");
        let lw = left_stored.len();
        let side = |st: &crate::plan::node::JoinSideState, take: &[usize], key_at: Vec<usize>| {
            let at = |name: &String| st.stored.iter().position(|c| &c.name == name).expect("a unique key column is stored");
            let unique_at: Option<Vec<usize>> = (!st.unique.is_empty()).then(|| st.unique.iter().map(at).collect());
            SideStore {
                keys: key_at.iter().map(|&i| st.stored[i].clone()).collect(),
                stored: st.stored.clone(),
                one_per_key: unique_at.as_ref().is_some_and(|u| u.iter().all(|i| key_at.contains(i))),
                unique_at,
                key_at,
                take: take.to_vec(),
                time_at: None,
                rows: FxHashMap::default(),
            }
        };
        let retention = match node.state.as_ref().map(|s| s.retention) {
            Some(Retention::After(d)) => Some(d.millis().min(i64::MAX as u64) as i64),
            _ => None,
        };
        let interval = state.interval.as_ref().map(|i| Interval {
            left_rel: i.upper,
            right_rel: -i.lower,
            left_exp: 0,
            right_exp: 0,
            left_timer: FxHashMap::default(),
            right_timer: FxHashMap::default(),
        });
        let time_at = |st: &crate::plan::node::JoinSideState, name: Option<&String>| name.and_then(|n| st.stored.iter().position(|c| &c.name == n));
        let mut join = Join {
            id: node.id(model),
            left: side(&state.left, left_stored, left_keys.clone()),
            right: side(&state.right, right_stored, right_keys.iter().map(|k| k - lw).collect()),
            residual: residual.clone(),
            retention,
            interval,
            left_outer: join_type.outer(false),
            right_outer: join_type.outer(true),
        };
        join.left.time_at = time_at(&state.left, state.interval.as_ref().map(|i| &i.left_time));
        join.right.time_at = time_at(&state.right, state.interval.as_ref().map(|i| &i.right_time));
        join
    }

    /// How far an interval join holds its output watermark back behind its
    /// input's (Flink's getMaxOutputDelay: the larger relative size, no
    /// allowed lateness); 0 for a regular join.
    pub fn watermark_delay(&self) -> i64 {
        self.interval.as_ref().map_or(0, |i| i.left_rel.max(i.right_rel).max(0))
    }

    /// How wide its output rows are.
    pub fn width(&self) -> usize {
        self.left.stored.len() + self.right.stored.len()
    }

    /// A change on the left (`right` false) or right side; what it makes
    /// is pushed onto `out`. An update is the retraction of the row it
    /// replaces, then the insert of the new one, as Flink reads `-U`, `+U`;
    /// an inner join labels what they make as Flink does (`relabel_update`).
    /// `watermark` is the join's before this change (an interval join's).
    pub fn apply(&mut self, right: bool, change: &Change, ts: i64, watermark: Option<i64>, out: &mut Vec<Change>) -> Result<(), EvalError> {
        match (change.op, &change.before) {
            (ChangeOp::Insert, _) | (ChangeOp::Update, None) => self.insert(right, &change.row, ts, watermark, out),
            (ChangeOp::Update, Some(before)) if !self.left_outer && !self.right_outer => {
                let (mut gone, mut joined) = (Vec::new(), Vec::new());
                self.retract(right, before, &mut gone)?;
                self.insert(right, &change.row, ts, watermark, &mut joined)?;
                relabel_update(gone, joined, out);
                Ok(())
            }
            (ChangeOp::Update, Some(before)) => {
                self.retract(right, before, out)?;
                self.insert(right, &change.row, ts, watermark, out)
            }
            (ChangeOp::Delete, _) => self.retract(right, &change.row, out),
        }
    }

    /// A row of the left (`right` false) or right side taken back, as
    /// StreamingJoinOperator's processElement for a retract message: it
    /// leaves its store; every row it joined is deleted (padded with nulls
    /// when it joined nothing on an outer side); a row of an outer other
    /// side it was the last match of is inserted again padded with nulls.
    fn retract(&mut self, right: bool, input: &[Value], out: &mut Vec<Change>) -> Result<(), EvalError> {
        let (this_outer, other_outer) = if right { (self.right_outer, self.left_outer) } else { (self.left_outer, self.right_outer) };
        let (this, other) = if right { (&mut self.right, &mut self.left) } else { (&mut self.left, &mut self.right) };
        let row: Row = this.take.iter().map(|&i| input.get(i).cloned().unwrap_or(Value::Null)).collect();
        let key = this.key_of(&row);
        this.retract(&key, &row);
        let delete = |row: Row| Change { op: ChangeOp::Delete, row, before: None };
        let matches = joining(self.residual.as_ref(), right, &row, &key, other)?;
        let matched = !matches.is_empty();
        let mut padded = Vec::new();
        for (m, j) in matches {
            (0..m.count).for_each(|_| out.push(delete(j.clone())));
            if other_outer {
                if m.associations == 1 {
                    let p = pair(right, &vec![Value::Null; row.len()], &m.row);
                    (0..m.count).for_each(|_| padded.push(Change::insert(p.clone())));
                }
                m.associations = m.associations.saturating_sub(1);
            }
        }
        // Flink deletes every joined row first, then pads the other side's rows.
        out.extend(padded);
        if this_outer && !matched {
            out.push(delete(pair(right, &row, &vec![Value::Null; other.stored.len()])));
        }
        Ok(())
    }

    /// An insert on the left (`right` false) or right side: stored, then
    /// joined with the other side; the joined rows are pushed onto `out`.
    /// `watermark` is the join's before this row (an interval join's).
    fn insert(&mut self, right: bool, input: &[Value], ts: i64, watermark: Option<i64>, out: &mut Vec<Change>) -> Result<(), EvalError> {
        if self.interval.is_some() {
            return self.insert_interval(right, input, watermark, out);
        }
        if self.left_outer || self.right_outer {
            return self.insert_outer(right, input, ts, out);
        }
        let (this, other) = if right { (&mut self.right, &self.left) } else { (&mut self.left, &self.right) };
        let row: Row = this.take.iter().map(|&i| input.get(i).cloned().unwrap_or(Value::Null)).collect();
        let key = this.key_of(&row);
        // A null key is stored, as Flink does, but matches nothing (SQL equality).
        let matches = if key.iter().any(|v| matches!(v, Value::Null)) { None } else { other.rows.get(&key) };
        if let Some(matches) = matches {
            emit_matches(self.residual.as_ref(), right, &row, matches.iter(), out)?;
        }
        this.add(key, &row, ts, 0);
        Ok(())
    }

    /// An insert into an outer join, as StreamingJoinOperator's
    /// processElement for an accumulate message: the other side's rows it
    /// joins are found; on an outer other side each of them that joined
    /// nothing yet has its padded row deleted (`-D`, one per copy) and its
    /// count raised; the joined rows are inserted; with no match on an
    /// outer side, the row is inserted padded with nulls. The row is stored
    /// with the number of rows it joins.
    fn insert_outer(&mut self, right: bool, input: &[Value], ts: i64, out: &mut Vec<Change>) -> Result<(), EvalError> {
        let (this_outer, other_outer) = if right { (self.right_outer, self.left_outer) } else { (self.left_outer, self.right_outer) };
        let (this, other) = if right { (&mut self.right, &mut self.left) } else { (&mut self.left, &mut self.right) };
        let other_width = other.stored.len();
        let row: Row = this.take.iter().map(|&i| input.get(i).cloned().unwrap_or(Value::Null)).collect();
        let key = this.key_of(&row);
        let mut joined = Vec::new();
        for (m, j) in joining(self.residual.as_ref(), right, &row, &key, other)? {
            if other_outer {
                if m.associations == 0 {
                    let padded = pair(right, &vec![Value::Null; row.len()], &m.row);
                    (0..m.count).for_each(|_| out.push(Change { op: ChangeOp::Delete, row: padded.clone(), before: None }));
                }
                m.associations += 1;
            }
            (0..m.count).for_each(|_| joined.push(j.clone()));
        }
        let associations = joined.len() as u64;
        if this_outer && joined.is_empty() {
            let nulls: Row = vec![Value::Null; other_width];
            out.push(Change::insert(pair(right, &row, &nulls)));
        }
        out.extend(joined.into_iter().map(Change::insert));
        this.add(key, &row, ts, if this_outer { associations } else { 0 });
        Ok(())
    }

    /// An interval join's row, as RowTimeIntervalJoin's processElement:
    /// unless the other side is cleaned past this row's interval, it joins
    /// the other side's rows under its key within the interval, and the
    /// other side's rows of that key at or before its expiration time are
    /// dropped (the other side's expiration time is advanced first). It
    /// is stored unless the watermark has passed its interval's end, with
    /// a cleanup timer for its key and side if there is none.
    fn insert_interval(&mut self, right: bool, input: &[Value], watermark: Option<i64>, out: &mut Vec<Change>) -> Result<(), EvalError> {
        let iv = self.interval.as_mut().expect("an interval join");
        let (this, other) = if right { (&mut self.right, &mut self.left) } else { (&mut self.left, &mut self.right) };
        let row: Row = this.take.iter().map(|&i| input.get(i).cloned().unwrap_or(Value::Null)).collect();
        let Some(Value::Timestamp(t)) = this.time_at.map(|i| &row[i]) else { return Ok(()) };
        let t = *t;
        let key = this.key_of(&row);
        let (this_rel, other_rel, other_exp, timers) =
            if right { (iv.right_rel, iv.left_rel, &mut iv.left_exp, &mut iv.right_timer) } else { (iv.left_rel, iv.right_rel, &mut iv.right_exp, &mut iv.left_timer) };
        let (lo, hi) = (t.saturating_sub(other_rel), t.saturating_add(this_rel));
        let now = operator_time(watermark);
        if *other_exp < hi {
            *other_exp = expiration(now, other_rel);
            let null_key = key.iter().any(|v| matches!(v, Value::Null));
            if let (false, Some(matches)) = (null_key, other.rows.get(&key)) {
                emit_matches(self.residual.as_ref(), right, &row, matches.iter().filter(|m| (lo..=hi).contains(&m.written)), out)?;
            }
            other.drop_until(&key, *other_exp);
        }
        if now < hi {
            this.add(key.clone(), &row, t, 0);
            timers.entry(key).or_insert(t.saturating_add(this_rel).saturating_add(1));
        }
        Ok(())
    }

    /// An interval join's cleanup timers at or before the watermark fire,
    /// as RowTimeIntervalJoin's onTimer: the side's expiration time moves to
    /// the watermark less the other side's reach, its rows of that key up to
    /// it are dropped, and a timer is set for the earliest row left.
    fn fire_timers(&mut self, watermark: i64) {
        let Some(iv) = self.interval.as_mut() else { return };
        let now = operator_time(Some(watermark));
        for (store, timers, rel, exp) in [(&mut self.left, &mut iv.left_timer, iv.left_rel, &mut iv.left_exp), (&mut self.right, &mut iv.right_timer, iv.right_rel, &mut iv.right_exp)] {
            let due: Vec<Vec<Value>> = timers.iter().filter(|(_, &at)| at <= watermark).map(|(k, _)| k.clone()).collect();
            for key in due {
                *exp = expiration(now, rel);
                let earliest = store.drop_until(&key, *exp).then(|| store.rows[&key].iter().map(|s| s.written).min()).flatten();
                match earliest {
                    Some(e) if e > 0 => {
                        timers.insert(key, e.saturating_add(rel).saturating_add(1));
                    }
                    _ => {
                        timers.remove(&key);
                        store.rows.remove(&key);
                    }
                }
            }
        }
    }

    /// Retention: each side drops the rows not written for `retention`;
    /// an interval join's timers fire instead.
    pub fn on_watermark(&mut self, watermark: i64) {
        self.fire_timers(watermark);
        if let Some(r) = self.retention {
            self.left.expire(watermark, r);
            self.right.expire(watermark, r);
        }
    }
}
