//! The state of the commonest aggregate, `SUM`s and `COUNT`s of columns
//! grouped by one integer column, held raw: the key as an i64 and each
//! accumulator as an i128 in the hash slot itself (32 bytes for one sum,
//! as a hand-written map would hold it), their types known from the plan
//! rather than carried by every value. The per-event cost of the
//! simulator is mostly the cache miss on that slot, so its size matters:
//! a lone accumulator is even kept in an i64 (a 16-byte slot) until a
//! value needs more.
//!
//! A row the plan's types do not describe (a key that is not an integer,
//! a sum argument of another kind or scale) is refused before anything
//! changes ([`Fold::Unfit`]); the keyed store above (state.rs) then moves
//! every group to its generic form and carries on there.

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use super::decimal::Decimal;
use super::eval::EvalError;
use super::value::Value;
use crate::plan::expr::{AggCall, AggFunc, Expr};
use crate::plan::node::Column;
use crate::types::DataType;

/// How one accumulator folds a row, decided once from the plan.
#[derive(Clone, Copy, Debug)]
enum Acc {
    /// `count(*)`: every row.
    CountAll,
    /// `count(col)`: rows where the column is not null.
    Count(usize),
    /// `sum(col)` as int64.
    SumInt(usize),
    /// `sum(col)` as decimal(precision, scale), of values at that scale.
    SumDecimal { col: usize, precision: u8, scale: u8 },
}

/// A sum that has seen no non-null value (SQL NULL). No sum can reach it:
/// int64 sums stay within i64 and decimal sums within 38 digits.
const NULL: i128 = i128::MIN;

/// Whether the row was folded, or refused untouched.
#[derive(Debug, PartialEq, Eq)]
pub enum Fold {
    Done,
    /// The plan's types do not describe this row; nothing changed.
    Unfit,
}

#[derive(Debug)]
enum Groups {
    /// One accumulator whose values have all fit an i64 (see `narrow`).
    Narrow(FxHashMap<i64, i64>),
    /// One accumulator: the slot is (key, value) and nothing else.
    One(FxHashMap<i64, i128>),
    Many(FxHashMap<i64, Box<[i128]>>),
}

#[derive(Debug)]
pub struct RawSums {
    accs: Vec<Acc>,
    groups: Groups,
    /// The NULL key's group, a group of its own.
    null_key: Option<Box<[i128]>>,
}

impl RawSums {
    /// The raw store for a node keyed by `keys` computing `calls`, when
    /// its shape allows one.
    pub fn of(keys: &[Column], calls: &[AggCall]) -> Option<RawSums> {
        if !matches!(keys, [Column { ty: DataType::Int32 | DataType::Int64, .. }]) {
            return None;
        }
        let accs = calls
            .iter()
            // A filtered call needs its condition evaluated: the generic store's.
            .map(|c| match (c.func, &c.arg, c.ty) {
                _ if c.filter.is_some() || c.distinct => None,
                (AggFunc::Count, None, _) => Some(Acc::CountAll),
                (AggFunc::Count, Some(Expr::Column { index, .. }), _) => Some(Acc::Count(*index)),
                (AggFunc::Sum, Some(Expr::Column { index, .. }), DataType::Int64) => Some(Acc::SumInt(*index)),
                (AggFunc::Sum, Some(Expr::Column { index, .. }), DataType::Decimal(precision, scale)) => Some(Acc::SumDecimal { col: *index, precision, scale }),
                _ => None,
            })
            .collect::<Option<Vec<Acc>>>()?;
        let groups = if accs.len() == 1 { Groups::Narrow(FxHashMap::default()) } else { Groups::Many(FxHashMap::default()) };
        Some(RawSums { accs, groups, null_key: None })
    }

    /// Folds one row into the key's group and writes the group's output
    /// rows as the generic store would: `before` left empty for a new group.
    #[inline]
    pub fn accumulate(&mut self, key: &Value, row: &[Value], before: &mut Vec<Value>, after: &mut Vec<Value>) -> Result<Fold, EvalError> {
        let (m, k, a) = match (&mut self.groups, key, &self.accs[..]) {
            (Groups::Narrow(m), Value::Int(k), &[a]) => (m, *k, a),
            (Groups::One(m), Value::Int(k), &[a]) => return accumulate_one(m, *k, a, row, before, after),
            _ => return self.accumulate_any(key, row, before, after),
        };
        if !fits(a, row) {
            return Ok(Fold::Unfit);
        }
        before.clear();
        after.clear();
        let slot = match m.get_mut(&k) {
            Some(n) => {
                before.push(Value::Int(k));
                before.push(value(a, wide(a, *n)));
                n
            }
            None => m.entry(k).or_insert(narrow(a, fresh(a)).expect("a fresh accumulator fits")),
        };
        let mut raw = wide(a, *slot);
        fold(a, &mut raw, row)?;
        after.push(Value::Int(k));
        after.push(value(a, raw));
        match narrow(a, raw) {
            Some(n) => *slot = n,
            None => {
                // Past an i64: every group moves to the full width, for good.
                self.widen();
                if let Groups::One(m) = &mut self.groups {
                    m.insert(k, raw);
                }
            }
        }
        Ok(Fold::Done)
    }

    fn widen(&mut self) {
        if let (Groups::Narrow(m), &[a]) = (&mut self.groups, &self.accs[..]) {
            self.groups = Groups::One(m.drain().map(|(k, n)| (k, wide(a, n))).collect());
        }
    }

    /// Every other shape, and the NULL key; out of line so that the usual
    /// path stays small where it is inlined.
    #[inline(never)]
    fn accumulate_any(&mut self, key: &Value, row: &[Value], before: &mut Vec<Value>, after: &mut Vec<Value>) -> Result<Fold, EvalError> {
        let k = match key {
            Value::Int(k) => Some(*k),
            Value::Null => None,
            _ => return Ok(Fold::Unfit),
        };
        if !self.accs.iter().all(|&a| fits(a, row)) {
            return Ok(Fold::Unfit);
        }
        before.clear();
        after.clear();
        let accs = &self.accs;
        let write = |out: &mut Vec<Value>, raws: &[i128]| {
            out.push(k.map_or(Value::Null, Value::Int));
            out.extend(accs.iter().zip(raws).map(|(&a, &raw)| value(a, raw)));
        };
        let slot: &mut [i128] = match (&mut self.groups, k) {
            (Groups::Narrow(_), Some(_)) => unreachable!("an integer key of a narrow store is folded by accumulate"),
            (Groups::One(m), Some(k)) => match m.entry(k) {
                Entry::Occupied(e) => {
                    write(before, std::slice::from_ref(e.get()));
                    std::slice::from_mut(e.into_mut())
                }
                Entry::Vacant(e) => std::slice::from_mut(e.insert(fresh(accs[0]))),
            },
            (Groups::Many(m), Some(k)) => match m.entry(k) {
                Entry::Occupied(e) => {
                    write(before, e.get());
                    e.into_mut()
                }
                Entry::Vacant(e) => e.insert(accs.iter().map(|&a| fresh(a)).collect()),
            },
            (_, None) => match &mut self.null_key {
                Some(raws) => {
                    write(before, raws);
                    raws
                }
                None => self.null_key.insert(accs.iter().map(|&a| fresh(a)).collect()),
            },
        };
        for (&a, raw) in accs.iter().zip(slot.iter_mut()) {
            fold(a, raw, row)?;
        }
        write(after, slot);
        Ok(Fold::Done)
    }

    /// Every group as values (key, accumulators), giving up the raw form.
    pub fn into_groups(mut self) -> impl Iterator<Item = (Value, Vec<Value>)> {
        self.widen();
        let accs = self.accs;
        let values = move |raws: &[i128]| accs.iter().zip(raws).map(|(&a, &raw)| value(a, raw)).collect::<Vec<Value>>();
        let groups: Vec<(Value, Box<[i128]>)> = match self.groups {
            Groups::Narrow(_) => unreachable!("widened above"),
            Groups::One(m) => m.into_iter().map(|(k, raw)| (Value::Int(k), Box::from([raw]))).collect(),
            Groups::Many(m) => m.into_iter().map(|(k, raws)| (Value::Int(k), raws)).collect(),
        };
        groups.into_iter().chain(self.null_key.map(|raws| (Value::Null, raws))).map(move |(k, raws)| (k, values(&raws)))
    }

    /// Every group as values, for tests and inspection.
    pub fn groups(&self) -> Vec<(Value, Vec<Value>)> {
        let values = |raws: &[i128]| self.accs.iter().zip(raws).map(|(&a, &raw)| value(a, raw)).collect::<Vec<Value>>();
        let mut out: Vec<(Value, Vec<Value>)> = match &self.groups {
            Groups::Narrow(m) => m.iter().map(|(k, n)| (Value::Int(*k), values(&[wide(self.accs[0], *n)]))).collect(),
            Groups::One(m) => m.iter().map(|(k, raw)| (Value::Int(*k), values(std::slice::from_ref(raw)))).collect(),
            Groups::Many(m) => m.iter().map(|(k, raws)| (Value::Int(*k), values(raws))).collect(),
        };
        out.extend(self.null_key.as_ref().map(|raws| (Value::Null, values(raws))));
        out
    }

    pub fn len(&self) -> usize {
        let n = match &self.groups {
            Groups::Narrow(m) => m.len(),
            Groups::One(m) => m.len(),
            Groups::Many(m) => m.len(),
        };
        n + usize::from(self.null_key.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The usual shape, one accumulator and an integer key, as a straight line.
#[inline]
fn accumulate_one(m: &mut FxHashMap<i64, i128>, k: i64, a: Acc, row: &[Value], before: &mut Vec<Value>, after: &mut Vec<Value>) -> Result<Fold, EvalError> {
    if !fits(a, row) {
        return Ok(Fold::Unfit);
    }
    before.clear();
    after.clear();
    // get_mut, not entry: it inlines, and new keys are the rare case.
    let raw = match m.get_mut(&k) {
        Some(raw) => {
            before.push(Value::Int(k));
            before.push(value(a, *raw));
            raw
        }
        None => m.entry(k).or_insert(fresh(a)),
    };
    fold(a, raw, row)?;
    after.push(Value::Int(k));
    after.push(value(a, *raw));
    Ok(Fold::Done)
}

fn arg(row: &[Value], col: usize) -> &Value {
    row.get(col).unwrap_or(&Value::Null)
}

/// True when the row's argument is null or of the kind the raw form holds.
fn fits(a: Acc, row: &[Value]) -> bool {
    match a {
        Acc::CountAll | Acc::Count(_) => true,
        Acc::SumInt(c) => matches!(arg(row, c), Value::Null | Value::Int(_)),
        Acc::SumDecimal { col, scale, .. } => match arg(row, col) {
            Value::Null => true,
            Value::Decimal(d) => d.scale == scale && d.mantissa != NULL,
            _ => false,
        },
    }
}

/// A new group's accumulator: counts start at 0, sums at NULL.
fn fresh(a: Acc) -> i128 {
    match a {
        Acc::CountAll | Acc::Count(_) => 0,
        Acc::SumInt(_) | Acc::SumDecimal { .. } => NULL,
    }
}

/// The accumulator in an i64, when it fits: a count as it is, a sum with
/// NULL as i64::MIN (so a sum of exactly i64::MIN does not fit).
fn narrow(a: Acc, raw: i128) -> Option<i64> {
    match a {
        Acc::CountAll | Acc::Count(_) => Some(raw as i64),
        _ if raw == NULL => Some(i64::MIN),
        _ => i64::try_from(raw).ok().filter(|&n| n != i64::MIN),
    }
}

/// The accumulator an i64 holds (see `narrow`).
fn wide(a: Acc, n: i64) -> i128 {
    match a {
        Acc::SumInt(_) | Acc::SumDecimal { .. } if n == i64::MIN => NULL,
        _ => n as i128,
    }
}

/// The accumulator as the generic store holds it.
fn value(a: Acc, raw: i128) -> Value {
    match a {
        Acc::CountAll | Acc::Count(_) => Value::Int(raw as i64),
        _ if raw == NULL => Value::Null,
        Acc::SumInt(_) => Value::Int(raw as i64),
        Acc::SumDecimal { scale, .. } => Value::Decimal(Decimal::new(raw, scale)),
    }
}

/// One accumulator's step, with the generic store's nulls, overflow
/// checks and messages (state.rs `update` and `add`).
#[inline(always)]
fn fold(a: Acc, raw: &mut i128, row: &[Value]) -> Result<(), EvalError> {
    let v = match a {
        Acc::CountAll => {
            count(raw);
            return Ok(());
        }
        Acc::Count(c) | Acc::SumInt(c) | Acc::SumDecimal { col: c, .. } => arg(row, c),
    };
    match (a, v) {
        (_, Value::Null) => {} // every aggregate ignores nulls
        (Acc::Count(_), _) => count(raw),
        (Acc::SumInt(_), Value::Int(b)) => {
            let sum = if *raw == NULL { Some(*b) } else { (*raw as i64).checked_add(*b) };
            *raw = sum.ok_or_else(|| overflow(a, *raw, v))? as i128;
        }
        (Acc::SumDecimal { precision, scale, .. }, Value::Decimal(d)) => {
            let sum = if *raw == NULL { Some(d.mantissa) } else { raw.checked_add(d.mantissa).filter(|&m| Decimal::new(m, scale).fits(precision)) };
            *raw = sum.ok_or_else(|| overflow(a, *raw, v))?;
        }
        _ => unreachable!("refused by fits()"),
    }
    Ok(())
}

#[cold]
fn overflow(a: Acc, raw: i128, v: &Value) -> EvalError {
    EvalError::Overflow(format!("{} + {}", value(a, raw).render_text(), v.render_text()))
}

/// As the generic store counts: an int64 `+= 1`.
fn count(raw: &mut i128) {
    let mut n = *raw as i64;
    n += 1;
    *raw = n as i128;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(m: i128) -> Value {
        Value::Decimal(Decimal::new(m, 2))
    }

    #[test]
    fn folds_as_the_generic_store_and_refuses_other_kinds() {
        let keys = [Column { name: "k".into(), ty: DataType::Int64 }];
        let col = |index| Some(Expr::Column { index, name: "x".into(), ty: DataType::Decimal(10, 2) });
        let call = |func, arg, ty| AggCall { func, arg, filter: None, distinct: false, name: String::new(), ty, identity: String::new() };
        let calls = [call(AggFunc::Sum, col(1), DataType::Decimal(38, 2)), call(AggFunc::Count, None, DataType::Int64)];
        let mut s = RawSums::of(&keys, &calls).expect("raw-shaped");
        let (mut before, mut after) = (Vec::new(), Vec::new());
        assert_eq!(s.accumulate(&Value::Int(1), &[Value::Null, Value::Null], &mut before, &mut after), Ok(Fold::Done));
        assert!(before.is_empty());
        assert_eq!(after, [Value::Int(1), Value::Null, Value::Int(1)]);
        assert_eq!(s.accumulate(&Value::Int(1), &[Value::Null, dec(150)], &mut before, &mut after), Ok(Fold::Done));
        assert_eq!(before, [Value::Int(1), Value::Null, Value::Int(1)]);
        assert_eq!(after, [Value::Int(1), dec(150), Value::Int(2)]);
        let big = 10i128.pow(38) - 1;
        assert!(matches!(s.accumulate(&Value::Null, &[Value::Null, dec(big)], &mut before, &mut after), Ok(Fold::Done)));
        let e = s.accumulate(&Value::Null, &[Value::Null, dec(1)], &mut before, &mut after).unwrap_err();
        assert_eq!(e, EvalError::Overflow(format!("{} + 0.01", Value::Decimal(Decimal::new(big, 2)).render_text())));
        // Another scale, or a key that is not an integer: refused, untouched.
        assert_eq!(s.accumulate(&Value::Int(1), &[Value::Null, Value::Decimal(Decimal::new(1, 3))], &mut before, &mut after), Ok(Fold::Unfit));
        assert_eq!(s.accumulate(&Value::Str("1".into()), &[Value::Null, Value::Null], &mut before, &mut after), Ok(Fold::Unfit));
        assert_eq!(s.len(), 2);
        let mut groups = s.groups();
        groups.sort();
        assert_eq!(groups, [(Value::Null, vec![dec(big), Value::Int(1)]), (Value::Int(1), vec![dec(150), Value::Int(2)])]);
    }

    #[test]
    fn a_lone_sum_widens_past_an_i64_without_losing_a_group() {
        let keys = [Column { name: "k".into(), ty: DataType::Int64 }];
        let call = |ty| AggCall { func: AggFunc::Sum, arg: Some(Expr::Column { index: 0, name: "x".into(), ty }), filter: None, distinct: false, name: String::new(), ty, identity: String::new() };
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let mut s = RawSums::of(&keys, &[call(DataType::Decimal(38, 2))]).expect("raw-shaped");
        let half = i64::MAX as i128 / 2 + 1;
        for k in [1, 2] {
            s.accumulate(&Value::Int(k), &[dec(half)], &mut before, &mut after).unwrap();
        }
        s.accumulate(&Value::Null, &[Value::Null], &mut before, &mut after).unwrap();
        assert!(matches!(s.groups, Groups::Narrow(_)));
        assert_eq!(s.accumulate(&Value::Int(1), &[dec(half)], &mut before, &mut after), Ok(Fold::Done));
        assert!(matches!(s.groups, Groups::One(_)));
        assert_eq!(before, [Value::Int(1), dec(half)]);
        assert_eq!(after, [Value::Int(1), dec(2 * half)]);
        let mut groups = s.groups();
        groups.sort();
        assert_eq!(groups, [(Value::Null, vec![Value::Null]), (Value::Int(1), vec![dec(2 * half)]), (Value::Int(2), vec![dec(half)])]);
        // A sum of exactly i64::MIN is a value, not the narrow form's NULL.
        let mut s = RawSums::of(&keys, &[call(DataType::Int64)]).expect("raw-shaped");
        s.accumulate(&Value::Int(1), &[Value::Int(i64::MIN)], &mut before, &mut after).unwrap();
        assert_eq!(after, [Value::Int(1), Value::Int(i64::MIN)]);
        s.accumulate(&Value::Int(1), &[Value::Int(0)], &mut before, &mut after).unwrap();
        assert_eq!(before, [Value::Int(1), Value::Int(i64::MIN)]);
        let e = s.accumulate(&Value::Int(1), &[Value::Int(-1)], &mut before, &mut after).unwrap_err();
        assert_eq!(e, EvalError::Overflow(format!("{} + -1", i64::MIN)));
        assert_eq!(s.groups(), [(Value::Int(1), vec![Value::Int(i64::MIN)])]);
    }
}
