//! Which of Flink's Top-N functions ranks a Rank's input: decided here
//! only, by Flink's rule (its RankProcessStrategy), and read by the
//! Rank's state fingerprint, the simulator and the pinned uids.
//!
//! - An append input: AppendFast (lowering also plans a deduplication on
//!   event time over it).
//! - An updating input with a unique key that contains the partition
//!   columns, whose every ORDER BY column only moves towards the top (a
//!   `COUNT(*)` or `MAX` ordered DESC, a `MIN` ordered ASC, a grouping
//!   key; `plan::monotonic`): UpdateFast, keyed by that unique key.
//! - Any other updating input: Retract. When this module cannot tell
//!   what Flink infers (see `plan::monotonic`), it answers Retract, which
//!   ranks every input correctly; a pin then refuses a plan whose
//!   strategy differs (`flink_uids`).

use super::monotonic::{Modified, Mono};
use super::node::{Changelog, Column, RankStrategy, SortKey};

/// The strategy of a Rank over `input` (the columns `columns`, emitting
/// `changelog`, monotonic as `modified`), partitioned by `partition` and
/// ordered by `order` (indices into `columns`).
pub fn strategy(changelog: &Changelog, columns: &[Column], modified: &Modified, partition: &[usize], order: &[(usize, SortKey)]) -> RankStrategy {
    let key = match changelog {
        Changelog::Append => return RankStrategy::AppendFast,
        Changelog::Retract(_) => return RankStrategy::Retract,
        Changelog::Upsert(key) => key,
    };
    let named = |n: &String| columns.iter().any(|c| c.name == *n);
    let covers_partition = partition.iter().all(|&p| key.contains(&columns[p].name));
    let Some(m) = modified.as_ref().filter(|_| key.iter().all(named) && covers_partition) else { return RankStrategy::Retract };
    let towards_top = |(i, k): &(usize, SortKey)| matches!((m[*i], k.descending), (Mono::Constant, _) | (Mono::Increasing, true) | (Mono::Decreasing, false));
    if !order.is_empty() && order.iter().all(towards_top) {
        RankStrategy::UpdateFast { key: key.clone() }
    } else {
        RankStrategy::Retract
    }
}
