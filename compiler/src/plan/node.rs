//! The lowered plan of one model: typed operators in plan order.

use std::fmt;

use super::expr::{AggCall, Expr};
use crate::config::{Connector, Materialized};
use crate::duration::Duration;
use crate::types::DataType;
use crate::window::WindowShape;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    Source,
    Filter,
    Project,
    Aggregate,
    /// `ROW_NUMBER() OVER (…)` kept to a range: a Top-N, or a deduplication.
    Rank,
    Sink,
    /// `UNION ALL`: the rows of every input, unchanged; no state.
    Union,
    /// A regular join of two inputs; both sides are kept in state.
    Join,
}

impl Operator {
    /// In plan order: the names a manifest, an id and a `nodes:` hint use.
    pub const ALL: [Operator; 8] = [Operator::Source, Operator::Filter, Operator::Project, Operator::Aggregate, Operator::Rank, Operator::Sink, Operator::Union, Operator::Join];

    /// The manifest's lowercase name, also used in node ids.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Source => "source",
            Operator::Filter => "filter",
            Operator::Project => "project",
            Operator::Aggregate => "aggregate",
            Operator::Rank => "rank",
            Operator::Sink => "sink",
            Operator::Union => "union",
            Operator::Join => "join",
        }
    }

    /// The capitalised name text outputs use.
    pub fn title(self) -> &'static str {
        match self {
            Operator::Source => "Source",
            Operator::Filter => "Filter",
            Operator::Project => "Project",
            Operator::Aggregate => "Aggregate",
            Operator::Rank => "Rank",
            Operator::Sink => "Sink",
            Operator::Union => "Union",
            Operator::Join => "Join",
        }
    }

    pub fn parse(s: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// `source, filter, project, aggregate, rank, sink, union, join`, for messages.
    pub fn names() -> String {
        Operator::ALL.map(Operator::as_str).join(", ")
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Changelog {
    Append,
    Upsert(Vec<String>),
    /// Inserts and deletes of whole rows: a join's output over an updating
    /// input or an outer join's (Flink's retract changelog, `+I` and `-D`),
    /// with the upsert keys Flink infers for it (`plan::changelog::join_keys`):
    /// each a set of columns, in output order; none when no column set is
    /// unique. A sink keyed by one of them writes it as upserts.
    Retract(Vec<Vec<String>>),
}

impl Changelog {
    pub fn mode(&self) -> &'static str {
        match self {
            Changelog::Append => "append",
            Changelog::Upsert(_) => "upsert",
            Changelog::Retract(_) => "retract",
        }
    }

    pub fn key(&self) -> &[String] {
        match self {
            Changelog::Append | Changelog::Retract(_) => &[],
            Changelog::Upsert(k) => k,
        }
    }

    /// `Upsert(customer_id)` as explain and some messages print it.
    pub fn title(&self) -> String {
        match self {
            Changelog::Append => "Append".into(),
            Changelog::Upsert(k) => format!("Upsert({})", k.join(", ")),
            Changelog::Retract(_) => "Retract".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Retention {
    Unbounded,
    After(Duration),
    UntilClose,
}

impl fmt::Display for Retention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Retention::Unbounded => f.write_str("unbounded"),
            Retention::After(d) => write!(f, "{d}"),
            Retention::UntilClose => f.write_str("until-close"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimeWindow {
    /// The event-time column windows are cut from.
    pub time: String,
    pub shape: WindowShape,
}

impl TimeWindow {
    /// The manifest's window `type`: `tumbling`, `hop` or `session`.
    pub fn kind(&self) -> &'static str {
        self.shape.kind()
    }

    /// Fixed windows start at multiples of their size (or slide) since
    /// the epoch; a session starts at its first event.
    pub fn alignment(&self) -> Option<&'static str> {
        self.shape.size().map(|_| "epoch")
    }
    /// A window emits once, when it closes.
    pub const EMISSION: &'static str = "final";
}

/// What a keyed node stores: the state fingerprint's content.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyedState {
    pub keys: Vec<String>,
    /// An Aggregate's accumulators; empty for a Rank.
    pub accumulators: Vec<Column>,
    pub retention: Retention,
    pub window: Option<TimeWindow>,
    /// A Rank's order, the rows it keeps and their layout.
    pub rank: Option<RankState>,
    /// A join's two stores; `keys` and `accumulators` are then empty.
    pub join: Option<JoinState>,
}

/// One column of a Rank's ORDER BY.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SortKey {
    pub column: String,
    pub descending: bool,
    /// Where NULLs sort. As on Flink, NULL is the smallest value unless the
    /// query says otherwise: first ascending, last descending.
    pub nulls_last: bool,
}

impl SortKey {
    /// The default NULL placement for a direction (NULL is the smallest value).
    pub fn default_nulls_last(descending: bool) -> bool {
        descending
    }

    /// `ASC` or `DESC`.
    pub fn direction(&self) -> &'static str {
        if self.descending {
            "DESC"
        } else {
            "ASC"
        }
    }

    /// `NULLS FIRST` or `NULLS LAST` when the query asks for the other
    /// placement than the default; `None` otherwise.
    pub fn nulls(&self) -> Option<&'static str> {
        (self.nulls_last != SortKey::default_nulls_last(self.descending)).then_some(if self.nulls_last { "NULLS LAST" } else { "NULLS FIRST" })
    }

    /// `amount DESC`, `ts ASC`, `amount ASC NULLS LAST`: its one text, in
    /// definitions and state fingerprints.
    pub fn text(&self) -> String {
        crate::identity::text::sort_key_text(&self.column, self.direction(), self.nulls())
    }
}

/// Which rows a Rank keeps in each partition, and so which of Flink's
/// operators runs it (docs/identity.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RankKeep {
    /// The first N rows by the order: Flink's Rank (FastTop1Function for
    /// N = 1, AppendOnlyTopNFunction above).
    Top(u64),
    /// `ORDER BY <event time> ASC`, one row: Flink's Deduplicate keeping the
    /// first row (RowTimeDeduplicateKeepFirstRowFunction), emitted when the
    /// watermark passes it.
    First,
    /// `ORDER BY <event time> DESC`, one row: Flink's Deduplicate keeping
    /// the last row (RowTimeDeduplicateFunction).
    Last,
}

impl RankKeep {
    /// How many rows a partition shows.
    pub fn rows(self) -> u64 {
        match self {
            RankKeep::Top(n) => n,
            RankKeep::First | RankKeep::Last => 1,
        }
    }

    /// A deduplication's `first` or `last`.
    pub fn kept(self) -> Option<&'static str> {
        match self {
            RankKeep::Top(_) => None,
            RankKeep::First => Some("first"),
            RankKeep::Last => Some("last"),
        }
    }
}

/// What a Rank stores besides its key: the rank part of its state
/// fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RankState {
    pub order: Vec<SortKey>,
    pub keep: RankKeep,
    /// How Flink ranks the input (`plan::rank_strategy` decides it).
    pub strategy: RankStrategy,
    /// The columns of each stored row: the Rank's input as Flink keeps it,
    /// pruned to what the partition, the order and the model's output read.
    pub row: Vec<Column>,
}

/// Which of Flink's Top-N functions ranks a Rank's input, and so how its
/// state is laid out (Flink's RankProcessStrategy).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RankStrategy {
    /// An append input: AppendOnlyTopNFunction, FastTop1Function or a
    /// Deduplicate, which keep only the rows still in the top.
    AppendFast,
    /// An updating input: RetractableTopNFunction, which keeps every input
    /// row of a partition by sort key, and how many rows each sort key has.
    Retract,
    /// An updating input with this unique key whose sort key only moves
    /// towards the top: UpdatableTopNFunction, which keeps the rows by
    /// that key.
    UpdateFast { key: Vec<String> },
}

impl RankStrategy {
    /// `retract`, `update-fast(key=[k])`; `None` for an append input, whose
    /// fingerprint predates the other strategies and says none.
    pub fn text(&self) -> Option<String> {
        match self {
            RankStrategy::AppendFast => None,
            RankStrategy::Retract => Some("retract".to_string()),
            RankStrategy::UpdateFast { key } => Some(crate::identity::text::update_fast_text(key)),
        }
    }
}

/// A regular join's type, as Flink names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JoinType {
    Inner,
    Left,
    Right,
    Full,
}

impl JoinType {
    pub fn as_str(self) -> &'static str {
        match self {
            JoinType::Inner => "inner",
            JoinType::Left => "left",
            JoinType::Right => "right",
            JoinType::Full => "full",
        }
    }

    /// Whether the left (`right` false) or right input is outer: its rows
    /// without a match are emitted padded with nulls.
    pub fn outer(self, right: bool) -> bool {
        matches!((self, right), (JoinType::Full, _) | (JoinType::Left, false) | (JoinType::Right, true))
    }

    /// `LEFT OUTER JOIN` as Flink SQL writes it.
    pub fn sql(self) -> &'static str {
        match self {
            JoinType::Inner => "JOIN",
            JoinType::Left => "LEFT OUTER JOIN",
            JoinType::Right => "RIGHT OUTER JOIN",
            JoinType::Full => "FULL OUTER JOIN",
        }
    }
}

/// What a join keeps for one input, as Flink's JoinRecordStateViews
/// lays it out: rows by join key, and the input's unique key (empty when
/// Flink infers none: each distinct row is kept with a count).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JoinSideState {
    pub keys: Vec<String>,
    pub stored: Vec<Column>,
    pub unique: Vec<String>,
}

/// A join's state: its type and each side's store, and for an interval
/// join its time bounds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JoinState {
    pub join_type: JoinType,
    pub left: JoinSideState,
    pub right: JoinSideState,
    pub interval: Option<JoinInterval>,
    /// An event-time temporal join's time attributes (`FOR SYSTEM_TIME AS OF`).
    pub temporal: Option<JoinTemporal>,
}

/// An event-time temporal join's clocks, by column: each left row joins
/// the right version valid at its `left_time`; versions are ordered by
/// `right_time`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JoinTemporal {
    pub left_time: String,
    pub right_time: String,
}

/// A temporal join's time attributes over the join's output columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemporalTimes {
    pub left_time: usize,
    pub right_time: usize,
}

/// An interval join's time condition, by the event-time column of each
/// side: `right_time - left_time` lies within `[lower, upper]`
/// milliseconds, both inclusive (a strict comparison is one millisecond
/// tighter, as Flink takes it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JoinInterval {
    pub left_time: String,
    pub right_time: String,
    pub lower: i64,
    pub upper: i64,
}

/// An interval join's time condition over the join's output columns:
/// `left_time` and `right_time` index it, bounds as in `JoinInterval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBounds {
    pub left_time: usize,
    pub right_time: usize,
    pub lower: i64,
    pub upper: i64,
}

/// Where a Source node reads from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceRead {
    pub source: String,
    pub connector: Connector,
}

/// The operator-specific, executable part of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Source(SourceRead),
    Filter { predicate: Expr },
    Project { items: Vec<(Expr, String)> },
    /// `keys` index the input schema; the output is keys, then window
    /// bounds when windowed, then one column per call. `retract`: the
    /// input is updating, so replaced and deleted rows are taken back.
    Aggregate { keys: Vec<usize>, calls: Vec<AggCall>, window: Option<TimeWindow>, retract: bool },
    /// `partition`, `order` and `row` index the input; the output is the
    /// `row` columns, then the row number (int64, from 1) when `number`.
    /// `order` says how each of its columns sorts (`SortKey::column` names it).
    Rank { partition: Vec<usize>, order: Vec<(usize, SortKey)>, keep: RankKeep, row: Vec<usize>, number: bool },
    Sink { materialized: Materialized },
    /// `UNION ALL` of its inputs (two or more), which have the same columns
    /// in the same order.
    Union,
    /// A join of `inputs[0]` (left) and `inputs[1]` (right). The output
    /// is the left's `left_stored` columns, then the right's
    /// `right_stored` (indices into each input); `left_keys[i]` equals
    /// `right_keys[i]` (indices into the output); `residual` is over the
    /// output; `interval` makes it an interval join, `temporal` an
    /// event-time temporal join against the right input's versions.
    Join { join_type: JoinType, left_stored: Vec<usize>, right_stored: Vec<usize>, left_keys: Vec<usize>, right_keys: Vec<usize>, residual: Option<Expr>, interval: Option<TimeBounds>, temporal: Option<TemporalTimes> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlanNode {
    pub operator: Operator,
    pub ordinal: u32,
    /// Ids of the input nodes (a ref() reader's first node names the
    /// upstream model's Sink).
    pub inputs: Vec<String>,
    /// Empty for a Source node, whose definition is its source's
    /// (`model::source_definition`), written by the identity: an edit of
    /// a source's watermark then re-plans none of its readers.
    pub definition: String,
    pub schema: Vec<Column>,
    pub bounded: bool,
    pub changelog: Changelog,
    /// Boxed: most nodes keep no state, and every plan is kept for the run.
    pub state: Option<Box<KeyedState>>,
    /// The event-time column this node carries, if any.
    pub time: Option<String>,
    pub kind: NodeKind,
}

impl NodeKind {
    /// A copy with every expression (predicates, projected items, aggregate
    /// arguments and filters, a join's residual) replaced by what `f` makes
    /// of it.
    pub fn map_exprs(&self, f: &dyn Fn(&Expr) -> Expr) -> NodeKind {
        let mut kind = self.clone();
        match &mut kind {
            NodeKind::Filter { predicate } => *predicate = f(predicate),
            NodeKind::Project { items } => items.iter_mut().for_each(|(e, _)| *e = f(e)),
            NodeKind::Aggregate { calls, .. } => {
                for c in calls {
                    c.arg = c.arg.as_ref().map(f);
                    c.filter = c.filter.as_ref().map(f);
                }
            }
            NodeKind::Join { residual, .. } => *residual = residual.as_ref().map(f),
            NodeKind::Source(_) | NodeKind::Rank { .. } | NodeKind::Sink { .. } | NodeKind::Union => {}
        }
        kind
    }
}

impl PlanNode {
    /// `model::operator::ordinal`. Written in place rather than with
    /// `format!`, which cost several times as much: every planned node
    /// makes one.
    pub fn id(&self, model: &str) -> String {
        let (op, mut digits) = (self.operator.as_str(), [0u8; 10]);
        let ordinal = decimal(self.ordinal, &mut digits);
        let mut id = String::with_capacity(model.len() + op.len() + ordinal.len() + 4);
        for part in [model, "::", op, "::", ordinal] {
            id.push_str(part);
        }
        id
    }

    /// Whether `id` is this node's [`id`](Self::id), without building it:
    /// lookups by id compare every node of a plan.
    pub fn has_id(&self, model: &str, id: &str) -> bool {
        let ordinal = id
            .strip_prefix(model)
            .and_then(|r| r.strip_prefix("::"))
            .and_then(|r| r.strip_prefix(self.operator.as_str()))
            .and_then(|r| r.strip_prefix("::"));
        ordinal.is_some_and(|o| o == decimal(self.ordinal, &mut [0u8; 10]))
    }
}

/// `n` in decimal, written into `digits`.
fn decimal(mut n: u32, digits: &mut [u8; 10]) -> &str {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&digits[at..]).expect("ASCII digits")
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelPlan {
    pub name: String,
    pub materialized: Materialized,
    pub key: Vec<String>,
    /// The upstream models the model reads with `ref()`, in the order
    /// the FROM clauses name them (each once).
    pub reads_models: Vec<String>,
    pub nodes: Vec<PlanNode>,
}

impl ModelPlan {
    pub fn output_id(&self) -> String {
        format!("{}::sink::0", self.name)
    }

    pub fn sink(&self) -> &PlanNode {
        self.nodes.last().expect("every plan ends in a Sink")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_id_is_comparing_with_id() {
        let node = |operator, ordinal| PlanNode {
            operator,
            ordinal,
            inputs: Vec::new(),
            definition: String::new(),
            schema: Vec::new(),
            bounded: false,
            changelog: Changelog::Append,
            state: None,
            time: None,
            kind: NodeKind::Union,
        };
        let models = ["m", "a::b", "m_1", ""];
        let ordinals = [0, 1, 9, 10, 12, 99, 100, 4_000_000_000, u32::MAX];
        let mut ids: Vec<String> = vec!["".into(), "m".into(), "m::".into(), "m::sink".into(), "m::sink::".into(), "m::sink::01".into(), "m::sink::1x".into(), "m::sink::-1".into()];
        for m in models {
            for op in Operator::ALL {
                for o in ordinals {
                    ids.push(node(op, o).id(m));
                }
            }
        }
        for m in models {
            for op in Operator::ALL {
                for o in ordinals {
                    let n = node(op, o);
                    for id in &ids {
                        assert_eq!(n.has_id(m, id), n.id(m) == *id, "{m} {op:?} {o} {id}");
                        assert_eq!(n.id(m), format!("{m}::{}::{o}", op.as_str()));
                    }
                }
            }
        }
    }
}
