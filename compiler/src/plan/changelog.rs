//! The changelog mode of every plan node: decided here, read everywhere.
//!
//! Lowering asks this module for the mode of each node it pushes, and
//! whatever reads a node's mode afterwards (the manifest, the simulator,
//! the Flink backend, a reader model through `ref()`) reads that result.
//! The rules, step by step:
//!
//! - **Source** (`source('…')`): append; a source emits inserts only.
//! - **Read a model** (`ref('…')`): the upstream model's Sink mode.
//! - **Filter, Project**: the input's mode; dropping or reshaping rows never
//!   turns an insert into an update.
//! - **Aggregate**: windowed, it reads append only (a window cannot take
//!   back a row it has emitted; Flink refuses it too) and emits append, one
//!   final row per key and window when the window closes. Otherwise it reads
//!   either mode (over upserts it retracts each replaced or deleted row
//!   first: `retracts`) and emits upsert keyed by the GROUP BY columns in
//!   order (an empty key for a global aggregate).
//! - **Union** (`UNION ALL`): append when every input is append, as in
//!   Flink. An updating input is refused (E0832): Flink's union of
//!   updating inputs carries no upsert key (two inputs may hold the same
//!   key), which an upsert changelog here cannot say.
//! - **Rank** (`ROW_NUMBER() OVER (…)` kept to a range; `rank`): reads
//!   either mode, but a deduplication on event time reads append only
//!   (Flink plans its Deduplicate, which refuses updates). A deduplication
//!   keeping the first row emits each row once, when the watermark passes
//!   it: append. Every other Rank replaces rows: upsert keyed by the
//!   partition columns, then the row number when the output has it. A
//!   Top-N of several rows without its row number is keyed by the
//!   partition columns and its updating input's unique key when it keeps
//!   that key's columns (Flink inserts and deletes whole rows then);
//!   otherwise it has no key, so it is refused.
//! - **Join** (a regular join): an INNER join of two append inputs is
//!   append, as Flink's StreamingJoinOperator emits only inserts then.
//!   LEFT, RIGHT and FULL OUTER are retract: a row emitted padded with
//!   nulls is deleted when its first match arrives (Flink's `-D`, then `+I`
//!   of the joined row). A join with an upsert input (a keyed one: a ref()
//!   to an upsert model or an aggregate) is retract whatever its type: a
//!   replaced or deleted input row deletes every row it joined (Flink's
//!   `-U`/`-D`). A retract output carries the upsert keys Flink 2.3 infers
//!   for it (`join_keys`): only when both inputs are keyed. An upsert
//!   input with an empty key (a global aggregate) and a retract input are
//!   refused (E0853).
//! - **Project**: a retract changelog's upsert keys follow the columns
//!   that pass unchanged (renamed with them); a key with a column the
//!   projection drops or computes is gone, as Flink's projection keeps it.
//! - A **retract** changelog is read by what takes deletes of whole rows:
//!   Filter, Project and an unwindowed aggregate (which retracts). A
//!   window, a Rank, a union and a join refuse it; a Sink takes it only
//!   when it is keyed by one of its upsert keys (Flink refuses to write a
//!   query whose upsert key differs from the sink's primary key).
//! - **Sink**: the input's mode, which must fit the materialization: an
//!   append model cannot write upserts, and an upsert model declares
//!   exactly its upsert key (for a retract input, one of its upsert keys,
//!   as a set of columns: its Sink is then upsert by the declared key). An
//!   upsert model may write an append changelog when it declares the key
//!   its rows are replaced by; with no key, it is refused, as the original
//!   refuses it.

use super::node::{Changelog, JoinType, RankKeep};
use crate::config::Materialized;

/// A mode a step cannot read or write; lowering turns it into an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// A windowed aggregate over an updating stream.
    UpdatingWindowInput,
    /// An append model whose output is an upsert changelog with this key.
    AppendOverUpserts { key: Vec<String> },
    /// A model whose output is a retract changelog (a join's) with no
    /// upsert key: no key to write it by.
    RetractIntoSink,
    /// An upsert model over a retract changelog (a join's) that declares
    /// none of the upsert keys Flink infers for it (`keys`, not empty).
    KeyNotInferred { declared: Vec<String>, keys: Vec<Vec<String>> },
    /// An upsert model that declares no key; its output is keyed by this.
    UndeclaredKey { key: Vec<String> },
    /// An upsert model over an append stream that declares no key: nothing
    /// says which rows replace which.
    NoKeyOverAppend,
    /// An upsert model that declares another key than its output's.
    OtherKey { declared: Vec<String>, produced: Vec<String> },
    /// A deduplication on event time over an updating stream.
    UpdatingRankInput,
    /// A Top-N of several rows whose output has no row number: no key.
    TopNWithoutNumber { rows: u64 },
}

/// A Source node's mode.
pub fn source() -> Changelog {
    Changelog::Append
}

/// What a model reading `ref()` starts from: its upstream's Sink mode.
pub fn read_model(upstream: &Changelog) -> Changelog {
    upstream.clone()
}

/// A Filter or Project node's mode, over `input`.
pub fn row_step(input: &Changelog) -> Changelog {
    input.clone()
}

/// Whether an aggregate, windowed or not, may read `input`. Checked before
/// its GROUP BY is planned, so this is the first error an aggregate reports.
pub fn aggregate_input(input: &Changelog, windowed: bool) -> Result<(), Conflict> {
    match input {
        Changelog::Upsert(_) | Changelog::Retract(_) if windowed => Err(Conflict::UpdatingWindowInput),
        _ => Ok(()),
    }
}

/// Whether an aggregate over `input` retracts: it reads updates and
/// deletes, so it takes each replaced row's contribution back.
pub fn retracts(input: &Changelog) -> bool {
    matches!(input, Changelog::Upsert(_) | Changelog::Retract(_))
}

/// A Project node's mode over `input`: a retract changelog's upsert keys
/// renamed through the projection, where `outputs(c)` names the output
/// columns that pass input column `c` unchanged (several when it is
/// selected twice: a key for each choice, as Flink's projection gives).
/// A key with a column not passed on is dropped. Any other mode is the
/// input's.
pub fn project(input: &Changelog, outputs: impl Fn(&str) -> Vec<String>) -> Changelog {
    let Changelog::Retract(keys) = input else { return input.clone() };
    let mut out: Vec<Vec<String>> = Vec::new();
    for key in keys {
        let mut choices: Vec<Vec<String>> = vec![Vec::new()];
        for col in key {
            let names = outputs(col);
            choices = choices.iter().flat_map(|c| names.iter().map(move |n| c.iter().cloned().chain([n.clone()]).collect())).collect();
        }
        for c in choices {
            if !out.iter().any(|k| same_columns(k, &c)) {
                out.push(c);
            }
        }
    }
    Changelog::Retract(out)
}

/// Whether two keys name the same columns (a key is a set: Flink compares
/// a sink's primary key with an upsert key as column sets).
pub fn same_columns(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().all(|c| b.contains(c))
}

/// A Union node's mode over `inputs`; `Err(i)`: input `i` is updating.
pub fn union(inputs: &[&Changelog]) -> Result<Changelog, usize> {
    match inputs.iter().position(|c| !matches!(c, Changelog::Append)) {
        Some(i) => Err(i),
        None => Ok(Changelog::Append),
    }
}

/// A Join node's mode over `left` and `right`, joined as `join_type`;
/// `Err(i)`: input `i` (0 left, 1 right) is updating in a way a join
/// cannot read (no key, or a retract changelog).
pub fn join(left: &Changelog, right: &Changelog, join_type: JoinType) -> Result<Changelog, usize> {
    if let Some(i) = [left, right].iter().position(|c| matches!(c, Changelog::Retract(_)) || matches!(c, Changelog::Upsert(k) if k.is_empty())) {
        return Err(i);
    }
    Ok(match (left, right, join_type) {
        (Changelog::Append, Changelog::Append, JoinType::Inner) => Changelog::Append,
        // Its keys are known once the join's keys are (`join_keys`).
        _ => Changelog::Retract(Vec::new()),
    })
}

/// The upsert keys of a regular join's output, as Flink 2.3 infers them
/// (FlinkRelMdUpsertKeys for a Join over FlinkRelMdUniqueKeys): over the
/// join's output columns, `left_key` and `right_key` are each input's
/// upsert key (empty: none, an append input), `pairs` the join's equated
/// columns (left, right).
///
/// A side's key counts only when it holds every join column of that side
/// (the input is distributed by them: Flink's filterKeys); the side is
/// unique on its join columns when its key is exactly those columns (at
/// most one row per join key). Then:
/// - both sides' keys together are a key;
/// - the left key is one when the right side is unique and the join pads
///   no left rows with nulls (INNER, LEFT): each left row joins at most one
///   right row;
/// - the right key, likewise, when the left side is unique (INNER, RIGHT).
///
/// Flink 2.3 does not substitute equated columns (a key `{l.k}` does not
/// give `{r.k}`): checked with EXPLAIN, docs/identity.md.
pub fn join_keys(join_type: JoinType, left_key: &[String], right_key: &[String], pairs: &[(String, String)]) -> Vec<Vec<String>> {
    let side = |key: &[String], join: Vec<&String>| -> (Option<Vec<String>>, bool) {
        let holds = !key.is_empty() && join.iter().all(|j| key.contains(j));
        let unique = holds && key.iter().all(|k| join.contains(&k));
        (holds.then(|| key.to_vec()), unique)
    };
    let (l, left_unique) = side(left_key, pairs.iter().map(|p| &p.0).collect());
    let (r, right_unique) = side(right_key, pairs.iter().map(|p| &p.1).collect());
    let mut keys: Vec<Vec<String>> = Vec::new();
    let mut add = |k: Vec<String>| {
        if !keys.iter().any(|x| same_columns(x, &k)) {
            keys.push(k);
        }
    };
    if let (Some(l), true) = (&l, right_unique && !join_type.outer(true)) {
        add(l.clone());
    }
    if let (Some(r), true) = (&r, left_unique && !join_type.outer(false)) {
        add(r.clone());
    }
    if let (Some(l), Some(r)) = (l, r) {
        add(l.into_iter().chain(r).collect());
    }
    keys
}

/// The unique key Flink infers for a join input with the upsert key
/// `key` (a changelog's; empty for append) whose stored columns are
/// `stored`: that key when the join keeps every column of it (Flink's
/// projection below the join drops the key with its columns), else none.
pub fn join_unique(key: &[String], stored: &[&str]) -> Vec<String> {
    if key.iter().all(|k| stored.contains(&k.as_str())) {
        key.to_vec()
    } else {
        Vec::new()
    }
}

/// An Aggregate node's mode, grouped by the columns `keys`.
pub fn aggregate(keys: &[String], windowed: bool) -> Changelog {
    if windowed {
        Changelog::Append
    } else {
        Changelog::Upsert(keys.to_vec())
    }
}

/// Whether a deduplication on event time may read `input`.
pub fn rank_input(input: &Changelog) -> Result<(), Conflict> {
    match input {
        Changelog::Upsert(_) | Changelog::Retract(_) => Err(Conflict::UpdatingRankInput),
        Changelog::Append => Ok(()),
    }
}

/// A Rank node's mode: partitioned by `partition`, keeping `keep`, with its
/// row number in the output under the name `number` (or not); `unique` is
/// its updating input's unique key when the output keeps it.
pub fn rank(partition: &[String], keep: RankKeep, number: Option<&str>, unique: Option<&[&str]>) -> Result<Changelog, Conflict> {
    match (keep, number) {
        (RankKeep::First, _) => Ok(Changelog::Append),
        (RankKeep::Top(n), None) if n > 1 => match unique {
            Some(u) => {
                let mut key = partition.to_vec();
                key.extend(u.iter().filter(|k| !partition.iter().any(|p| p == *k)).map(|k| k.to_string()));
                Ok(Changelog::Upsert(key))
            }
            None => Err(Conflict::TopNWithoutNumber { rows: n }),
        },
        (_, number) => Ok(Changelog::Upsert(partition.iter().map(String::clone).chain(number.map(str::to_string)).collect())),
    }
}

/// A Sink node's mode over `input`, for a model materialized as
/// `materialized` that declares `key`.
pub fn sink(input: &Changelog, materialized: Materialized, key: &[String]) -> Result<Changelog, Conflict> {
    match (materialized, input) {
        (Materialized::Append, Changelog::Upsert(k)) => Err(Conflict::AppendOverUpserts { key: k.clone() }),
        // Flink 2.3 refuses to upsert rows with no upsert key by a sink's
        // primary key unless told how to resolve conflicts.
        (Materialized::Append, Changelog::Retract(keys)) if !keys.is_empty() => Err(Conflict::AppendOverUpserts { key: keys[0].clone() }),
        (Materialized::Upsert, Changelog::Retract(keys)) if !keys.is_empty() => match keys.iter().find(|k| same_columns(k, key)) {
            Some(_) => Ok(Changelog::Upsert(key.to_vec())),
            None if key.is_empty() => Err(Conflict::UndeclaredKey { key: keys[0].clone() }),
            None => Err(Conflict::KeyNotInferred { declared: key.to_vec(), keys: keys.clone() }),
        },
        (_, Changelog::Retract(_)) => Err(Conflict::RetractIntoSink),
        (Materialized::Upsert, Changelog::Append) if key.is_empty() => Err(Conflict::NoKeyOverAppend),
        (Materialized::Upsert, Changelog::Upsert(k)) if k != key => {
            if key.is_empty() && !k.is_empty() {
                Err(Conflict::UndeclaredKey { key: k.clone() })
            } else {
                Err(Conflict::OtherKey { declared: key.to_vec(), produced: k.clone() })
            }
        }
        _ => Ok(input.clone()),
    }
}

/// An event-time temporal join's mode: append, as Flink's
/// TemporalRowTimeJoinOperator emits each row of its probe (left) input
/// once, joined with the version valid at its time (INNER or LEFT).
/// `Err(0)` when the probe input is updating.
pub fn temporal_join(left: &Changelog) -> Result<Changelog, usize> {
    match left {
        Changelog::Append => Ok(Changelog::Append),
        Changelog::Upsert(_) | Changelog::Retract(_) => Err(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(cols: &[&str]) -> Vec<String> {
        cols.iter().map(|c| c.to_string()).collect()
    }

    /// Each case planned with EXPLAIN on Flink 2.3 into an upsert-kafka
    /// sink keyed by the key listed (docs/identity.md): two aggregates
    /// grouped by `a` joined on `a = a0` keep these keys.
    #[test]
    fn join_keys_are_flinks() {
        let on = [("a".to_string(), "a0".to_string())];
        assert_eq!(join_keys(JoinType::Inner, &k(&["a"]), &k(&["a0"]), &on), vec![k(&["a"]), k(&["a0"]), k(&["a", "a0"])]);
        assert_eq!(join_keys(JoinType::Left, &k(&["a"]), &k(&["a0"]), &on), vec![k(&["a"]), k(&["a", "a0"])]);
        assert_eq!(join_keys(JoinType::Right, &k(&["a"]), &k(&["a0"]), &on), vec![k(&["a0"]), k(&["a", "a0"])]);
        assert_eq!(join_keys(JoinType::Full, &k(&["a"]), &k(&["a0"]), &on), vec![k(&["a", "a0"])]);
        // An append side has no key, and gives the output none.
        assert!(join_keys(JoinType::Inner, &[], &k(&["a0"]), &on).is_empty());
        // Joined on columns that hold no side's key (`n = loaned`).
        assert!(join_keys(JoinType::Inner, &k(&["a"]), &k(&["a0"]), &[("n".into(), "loaned".into())]).is_empty());
        // Joined on the key and more: a key that lacks a join column is not distributed by it.
        let more = [("a".to_string(), "a0".to_string()), ("t".to_string(), "l".to_string())];
        assert!(join_keys(JoinType::Inner, &k(&["a"]), &k(&["a0"]), &more).is_empty());
        // A right key wider than its join columns: the right side is not unique, so the
        // left key is none; the right key stays (Flink does not swap `a0` for `a`).
        assert_eq!(join_keys(JoinType::Inner, &k(&["a"]), &k(&["a0", "id"]), &on), vec![k(&["a0", "id"]), k(&["a", "a0", "id"])]);
        assert_eq!(join_keys(JoinType::Left, &k(&["a"]), &k(&["a0", "id"]), &on), vec![k(&["a", "a0", "id"])]);
    }

    #[test]
    fn a_sink_takes_a_join_by_one_of_its_keys_as_a_set() {
        let join = Changelog::Retract(vec![k(&["a"]), k(&["a", "b"])]);
        assert_eq!(sink(&join, Materialized::Upsert, &k(&["b", "a"])), Ok(Changelog::Upsert(k(&["b", "a"]))));
        assert_eq!(sink(&join, Materialized::Upsert, &k(&["b"])), Err(Conflict::KeyNotInferred { declared: k(&["b"]), keys: vec![k(&["a"]), k(&["a", "b"])] }));
        assert_eq!(sink(&join, Materialized::Upsert, &[]), Err(Conflict::UndeclaredKey { key: k(&["a"]) }));
        assert_eq!(sink(&Changelog::Retract(Vec::new()), Materialized::Upsert, &k(&["a"])), Err(Conflict::RetractIntoSink));
    }

    #[test]
    fn a_projection_renames_and_drops_keys() {
        let join = Changelog::Retract(vec![k(&["a"]), k(&["a", "a0"])]);
        let renamed = project(&join, |c| if c == "a0" { vec!["loan".into()] } else { Vec::new() });
        assert_eq!(renamed, Changelog::Retract(Vec::new()));
        let twice = project(&join, |c| if c == "a" { vec!["x".into(), "y".into()] } else { vec![c.to_string()] });
        assert_eq!(twice, Changelog::Retract(vec![k(&["x"]), k(&["y"]), k(&["x", "a0"]), k(&["y", "a0"])]));
        assert_eq!(project(&Changelog::Upsert(k(&["a"])), |_| Vec::new()), Changelog::Upsert(k(&["a"])));
    }
}
