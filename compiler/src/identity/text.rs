//! The layout of every identity text, written once: a schema, a keyed
//! node's state, a window, a changelog. A plan node (`fingerprint`) and a
//! manifest entry read back from JSON (`entry`) both supply the views
//! below, so the text `plan` recomputes from a file is the text the
//! compiler hashed.

use std::fmt::Display;

/// A column as identity texts show it: `name: type`.
pub trait ColumnView {
    fn name(&self) -> &str;
    fn ty(&self) -> &dyn Display;
}

/// A window as identity texts show it.
pub trait WindowView {
    /// `tumbling`, `hop` or `session`.
    fn kind(&self) -> &str;
    /// The event-time column windows are cut from.
    fn time(&self) -> &str;
    /// A fixed window's size.
    fn size(&self) -> Option<&dyn Display>;
    /// A hop window's slide.
    fn slide(&self) -> Option<&dyn Display>;
    /// A session window's gap.
    fn gap(&self) -> Option<&dyn Display>;
    /// `epoch`, for fixed windows.
    fn alignment(&self) -> Option<&str>;
    /// `final`.
    fn emission(&self) -> &str;
}

/// One side of a join's state.
pub trait JoinSideView {
    type Column: ColumnView;
    fn keys(&self) -> &[String];
    fn stored(&self) -> &[Self::Column];
    fn unique(&self) -> &[String];
}

/// A join's state: its type and its two sides.
pub trait JoinView {
    type Side: JoinSideView;
    /// `inner`.
    fn join_type(&self) -> &str;
    fn left(&self) -> &Self::Side;
    fn right(&self) -> &Self::Side;
    /// An interval join's bounds: each side's event-time column, and the
    /// least and greatest `right - left` in ms.
    fn interval(&self) -> Option<(&str, &str, i64, i64)>;
    /// An event-time temporal join's time attributes: the left side's
    /// (AS OF) and the right side's (its versions' time).
    fn temporal(&self) -> Option<(&str, &str)>;
}

/// What a keyed node stores: the content of its state fingerprint.
pub trait StateView {
    type Column: ColumnView;
    type Window: WindowView;
    type Join: JoinView;
    fn keys(&self) -> &[String];
    fn accumulators(&self) -> &[Self::Column];
    fn retention(&self) -> &dyn Display;
    fn window(&self) -> Option<&Self::Window>;
    /// A Rank's part; `None` for an aggregate.
    fn rank(&self) -> Option<RankView<'_, Self::Column>>;
    fn join(&self) -> Option<&Self::Join>;
}

/// What a Rank stores besides its key: the order its rows are kept by,
/// how many (`top`), or which one a deduplication keeps (`keep`), and the
/// stored row's columns.
pub struct RankView<'a, C> {
    /// Each ORDER BY column: its name, `ASC`/`DESC`, and `NULLS FIRST` /
    /// `NULLS LAST` when that is not the direction's default.
    pub order: Vec<(&'a str, &'a str, Option<&'a str>)>,
    pub top: Option<u64>,
    pub keep: Option<&'a str>,
    /// How Flink ranks an updating input (`retract`, `update-fast(key=[..])`);
    /// `None` for an append input.
    pub strategy: Option<String>,
    pub row: &'a [C],
}

/// `update-fast(key=[customer_id])`: a Rank's UpdateFast strategy over an
/// input with that unique key.
pub fn update_fast_text(key: &[String]) -> String {
    format!("update-fast(key=[{}])", key.join(", "))
}

/// `amount DESC`, `ts ASC`, `amount ASC NULLS LAST`: an ORDER BY column's
/// one text, in definitions and state fingerprints.
pub fn sort_key_text(column: &str, direction: &str, nulls: Option<&str>) -> String {
    match nulls {
        Some(n) => format!("{column} {direction} {n}"),
        None => format!("{column} {direction}"),
    }
}

/// `[a: int64, b: string]`: the schema fingerprint text, also how a list
/// of accumulators is shown.
pub fn schema_text<C: ColumnView>(columns: &[C]) -> String {
    use std::fmt::Write;
    // One string, written in place: every node of every manifest has one.
    let mut out = String::with_capacity(2 + columns.len() * 16);
    out.push('[');
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(c.name());
        out.push_str(": ");
        let _ = write!(out, "{}", c.ty());
    }
    out.push(']');
    out
}

/// `tumbling(time=ts size=5m align=epoch emit=final)`; a hop window
/// says its slide after its size; a session window has its gap and no
/// size or alignment: `session(time=ts gap=10m emit=final)`.
pub fn window_text<W: WindowView>(w: &W) -> String {
    let mut out = format!("{}(time={}", w.kind(), w.time());
    let fields = [("size", w.size()), ("slide", w.slide()), ("gap", w.gap())];
    for (name, v) in fields {
        if let Some(v) = v {
            out.push_str(&format!(" {name}={v}"));
        }
    }
    if let Some(a) = w.alignment() {
        out.push_str(&format!(" align={a}"));
    }
    out.push_str(&format!(" emit={})", w.emission()));
    out
}

/// `key=[..] accumulators=[..] retention=..`: the state fingerprint
/// without its kind and window, as `inspect-plan` shows it. A Rank's:
/// `key=[..] order=[..] top=N row=[..] retention=..`, or `keep=first` /
/// `keep=last` in place of `top=1` for a deduplication; over an updating
/// input, `strategy=..` after `top=N`.
pub fn state_fields<S: StateView>(s: &S) -> String {
    if let Some(j) = s.join() {
        return join_fields(j, s.retention());
    }
    match s.rank() {
        None => format!("key=[{}] accumulators={} retention={}", s.keys().join(", "), schema_text(s.accumulators()), s.retention()),
        Some(r) => {
            let order: Vec<String> = r.order.iter().map(|(c, d, n)| sort_key_text(c, d, *n)).collect();
            let kept = match (r.keep, r.top) {
                (Some(k), _) => format!("keep={k}"),
                (None, Some(n)) => format!("top={n}"),
                (None, None) => "top=".to_string(),
            };
            let strategy = r.strategy.as_ref().map(|t| format!(" strategy={t}")).unwrap_or_default();
            format!("key=[{}] order=[{}] {kept}{strategy} row={} retention={}", s.keys().join(", "), order.join(", "), schema_text(r.row), s.retention())
        }
    }
}

/// The state's kind as its fingerprint names it: `aggregate`, `rank`, or
/// `deduplicate` (a Rank that keeps the first or last row on event time).
pub fn state_kind<S: StateView>(s: &S) -> &'static str {
    match s.rank() {
        None => "aggregate",
        Some(r) if r.keep.is_some() => "deduplicate",
        Some(_) => "rank",
    }
}

/// `aggregate key=[..] accumulators=[..] retention=..[ window=..]`, or a
/// Rank's `rank key=[..] order=[..] top=N row=[..] retention=..` (`deduplicate
/// … keep=first …`): the state fingerprint text.
pub fn state_text<S: StateView>(s: &S) -> String {
    if let Some(j) = s.join() {
        let kind = if j.temporal().is_some() { "temporal-join" } else { "join" };
        return format!("{kind} {}", join_fields(j, s.retention()));
    }
    let mut out = format!("{} {}", state_kind(s), state_fields(s));
    if let Some(w) = s.window() {
        out.push_str(" window=");
        out.push_str(&window_text(w));
    }
    out
}

/// `type=inner left=[key=[..] stored=[..] unique=[..]] right=[..]
/// retention=..`: a join's state without its kind; an interval join's
/// has `interval=(..)` before its retention, a temporal join's
/// `as_of=(..)`.
fn join_fields<J: JoinView>(j: &J, retention: &dyn Display) -> String {
    let side = |s: &J::Side| format!("[key=[{}] stored={} unique=[{}]]", s.keys().join(", "), schema_text(s.stored()), s.unique().join(", "));
    let interval = match j.interval() {
        Some((l, r, lo, hi)) => format!(" interval=({})", interval_text(l, r, lo, hi)),
        None => String::new(),
    };
    let as_of = match j.temporal() {
        Some((l, r)) => format!(" as_of=({})", temporal_text(l, r)),
        None => String::new(),
    };
    format!("type={} left={} right={}{interval}{as_of} retention={retention}", j.join_type(), side(j.left()), side(j.right()))
}

/// `shipped_at - placed_at in [0ms, 3600000ms]`: an interval join's time
/// condition, in its definition and its state fingerprint.
pub fn interval_text(left: &str, right: &str, lower: i64, upper: i64) -> String {
    format!("{right} - {left} in [{lower}ms, {upper}ms]")
}

/// `ts versions ts0`: a temporal join's time attributes, the left side's
/// and the right side's.
pub fn temporal_text(left: &str, right: &str) -> String {
    format!("{left} versions {right}")
}

/// `INNER TEMPORAL JOIN ON currency = currency0 AS OF ts versions ts0`: a
/// temporal join's definition, over its output's column names.
pub fn temporal_definition(join_type: &str, conds: &str, left: &str, right: &str) -> String {
    format!("{join_type} TEMPORAL JOIN ON {conds} AS OF {}", temporal_text(left, right))
}

/// `append`, `upsert(a, b)`, `upsert` (an empty key).
pub fn changelog_text(mode: &str, key: &[String]) -> String {
    if key.is_empty() {
        mode.to_string()
    } else {
        format!("{mode}({})", key.join(", "))
    }
}
