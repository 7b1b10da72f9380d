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
//!   of the joined row), and the output has no key. A join with an upsert
//!   input (a keyed one: a ref() to an upsert model or an aggregate) is
//!   retract whatever its type: a replaced or deleted input row deletes
//!   every row it joined (Flink's `-U`/`-D`), and the output carries no
//!   key, since Flink infers one only when both inputs have one and a join
//!   key covers one of them, which a key-less Sink cannot use anyway. An
//!   upsert input with an empty key (a global aggregate) and a retract
//!   input are refused (E0853).
//! - A **retract** changelog is read by what takes deletes of whole rows:
//!   Filter, Project and an unwindowed aggregate (which retracts). A
//!   window, a Rank, a union, a join and a Sink refuse it: it has no key to
//!   be written by (Flink refuses it into a sink with a primary key).
//! - **Sink**: the input's mode, which must fit the materialization: an
//!   append model cannot write upserts, and an upsert model declares
//!   exactly its upsert key. An upsert model may write an append changelog
//!   when it declares the key its rows are replaced by; with no key, it is
//!   refused, as the original refuses it.

use super::node::{Changelog, JoinType, RankKeep};
use crate::config::Materialized;

/// A mode a step cannot read or write; lowering turns it into an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// A windowed aggregate over an updating stream.
    UpdatingWindowInput,
    /// An append model whose output is an upsert changelog with this key.
    AppendOverUpserts { key: Vec<String> },
    /// A model whose output is a retract changelog (an outer join's): no
    /// key to write it by.
    RetractIntoSink,
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
        Changelog::Upsert(_) | Changelog::Retract if windowed => Err(Conflict::UpdatingWindowInput),
        _ => Ok(()),
    }
}

/// Whether an aggregate over `input` retracts: it reads updates and
/// deletes, so it takes each replaced row's contribution back.
pub fn retracts(input: &Changelog) -> bool {
    matches!(input, Changelog::Upsert(_) | Changelog::Retract)
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
    if let Some(i) = [left, right].iter().position(|c| matches!(c, Changelog::Retract) || matches!(c, Changelog::Upsert(k) if k.is_empty())) {
        return Err(i);
    }
    Ok(match (left, right, join_type) {
        (Changelog::Append, Changelog::Append, JoinType::Inner) => Changelog::Append,
        _ => Changelog::Retract,
    })
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
        Changelog::Upsert(_) | Changelog::Retract => Err(Conflict::UpdatingRankInput),
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
        (_, Changelog::Retract) => Err(Conflict::RetractIntoSink),
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
        Changelog::Upsert(_) | Changelog::Retract => Err(0),
    }
}
