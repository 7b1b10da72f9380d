//! Each node's fields, change kind, classification and reason; the model
//! and application verdicts.
//!
//! A matched node lists the fields that differ, in a fixed order (inputs,
//! definition, schema, changelog, materialized, key, accumulators, order,
//! kept, strategy, row, retention, window, state, state digest). Its change kind is chosen from
//! the kinds that apply, the most severe first; among kinds of one
//! severity, the earlier in each operator's list below wins:
//!
//! - keyed → keyed: key-changed, accumulator-type-changed, window-changed
//!   (STATE INCOMPATIBLE); accumulator-added, input-changed (BACKFILL);
//!   accumulator-removed, retention-changed (MIGRATION); keyed-compatible.
//! - Rank → Rank: key-changed, rank-order-changed, rank-strategy-changed,
//!   rank-range-changed between a Top-1 or a deduplication and anything
//!   else over an append input (or an UpdateFast one), rank-row-changed in
//!   its types (STATE INCOMPATIBLE); rank-range-changed of a Top-N's N, or
//!   of any N of a retracting Rank, input-changed (BACKFILL); rank-row-changed in names only, retention-changed
//!   (MIGRATION); keyed-compatible. An aggregate ↔ a Rank is state-kind-changed.
//! - a change of the kind of state: state-kind-changed (INCOMPATIBLE).
//! - Sink: sink-key-changed (BACKFILL), then sink-target, sink-renamed,
//!   sink-reshaped, stateless-definition (COMPATIBLE).
//! - Source, Filter, Project: contract-changed, output-renamed,
//!   output-reshaped, stateless-definition (COMPATIBLE).
//!
//! A keyed node also changes when something upstream of it changed (its
//! definition or inputs, or it was added; a Sink's definition too, as in
//! the original: a reader of a model whose sink moved reads another
//! stream): input-changed, naming the nearest such node. A schema change alone (a
//! source column added, removed or retyped) does not move what is
//! downstream, as in the original: what it does to a keyed node shows in
//! that node's own fields (an accumulator's type, say).

use std::collections::HashMap;

use super::matching::Matching;
use super::{Change, ChangeKind, Classification, FieldChange, ModelDiff, NodeDiff, PlanDiff};
use crate::identity::entry::KeyedEntry;
use crate::identity::text::{changelog_text, schema_text, sort_key_text, state_fields, window_text, StateView};
use crate::manifest::{ColumnEntry, JoinEntry, Manifest, ModelEntry, NodeEntry, StateEntry, WindowEntry};

/// Every model added, nothing to compare: the first deploy.
pub(crate) fn fresh(desired: &Manifest) -> PlanDiff {
    PlanDiff {
        models: desired
            .models
            .iter()
            .map(|m| ModelDiff { name: m.name.clone(), change: Some(Change::Added), verdict: Classification::Safe, nodes: Vec::new() })
            .collect(),
        verdict: Classification::Safe,
        notices: Vec::new(),
    }
}

// ---- renderings of manifest fields, as the fields of a change show them

/// `[a, b]`.
pub fn list_text(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

/// `tumbling(time=ts size=5m align=epoch emit=final)`, or `none`.
fn window_or_none(w: Option<&WindowEntry>) -> String {
    w.map_or_else(|| "none".into(), window_text)
}

pub fn is_keyed(n: &NodeEntry) -> bool {
    KeyedEntry::of(&n.state).is_some()
}

/// Where a Sink's definition says it writes: `` `out` ``, or `the append
/// sink` when no sink is configured.
fn sink_place(definition: &str) -> String {
    let mut parts = definition.splitn(3, ' ');
    let materialized = parts.next().unwrap_or("");
    let _connector = parts.next();
    match parts.next() {
        Some(target) => format!("`{target}`"),
        None => format!("the {materialized} sink"),
    }
}

/// The connector and target of a Sink's definition (`kafka out`).
fn sink_target(definition: &str) -> &str {
    definition.split_once(' ').map(|(_, rest)| rest).unwrap_or("")
}

/// The contract part of a Source's definition (` contracts=[…] quarantine=…`).
fn contract_part(definition: &str) -> &str {
    [" contracts=", " quarantine="].iter().filter_map(|p| definition.find(p)).min().map(|i| &definition[i..]).unwrap_or("")
}

fn same_types(a: &[ColumnEntry], b: &[ColumnEntry]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.ty == y.ty)
}

fn key_types<'a>(n: &'a NodeEntry, keys: &[String]) -> Vec<Option<&'a str>> {
    keys.iter().map(|k| n.schema.iter().find(|c| &c.name == k).map(|c| c.ty.as_str())).collect()
}

/// One kind that applies to a node, with its class and reason.
type Verdict = (Classification, ChangeKind, String);

/// The most severe of `candidates`; the first among equals.
fn worst(candidates: Vec<Verdict>) -> Option<Verdict> {
    let mut best: Option<Verdict> = None;
    for c in candidates {
        if best.as_ref().is_none_or(|b| c.0 > b.0) {
            best = Some(c);
        }
    }
    best
}

struct Ctx<'a> {
    running: &'a Manifest,
    desired: &'a Manifest,
    m: &'a Matching,
    desired_index: HashMap<&'a str, usize>,
    running_models: HashMap<&'a str, &'a ModelEntry>,
    desired_models: HashMap<&'a str, &'a ModelEntry>,
}

impl<'a> Ctx<'a> {
    fn new(running: &'a Manifest, desired: &'a Manifest, m: &'a Matching) -> Ctx<'a> {
        Ctx {
            running,
            desired,
            m,
            desired_index: desired.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect(),
            running_models: running.models.iter().map(|e| (e.name.as_str(), e)).collect(),
            desired_models: desired.models.iter().map(|e| (e.name.as_str(), e)).collect(),
        }
    }

    /// Whether the desired node's inputs continue other running nodes than
    /// the running node's inputs.
    /// A union's rows do not depend on the order of its inputs, so its
    /// inputs compare as a set.
    fn inputs_changed(&self, d: usize, r: usize) -> bool {
        let (dn, rn) = (&self.desired.nodes[d], &self.running.nodes[r]);
        let continued = |di: &String| self.desired_index.get(di.as_str()).and_then(|&i| self.m.desired_to_running[i]).map(|r2| self.running.nodes[r2].id.as_str());
        let mut now: Vec<Option<&str>> = dn.inputs.iter().map(continued).collect();
        let mut was: Vec<Option<&str>> = rn.inputs.iter().map(|ri| Some(ri.as_str())).collect();
        if dn.operator == "union" && rn.operator == "union" {
            now.sort_unstable();
            was.sort_unstable();
        }
        now != was
    }

    fn fields(&self, d: usize, r: usize) -> Vec<FieldChange> {
        let (dn, rn) = (&self.desired.nodes[d], &self.running.nodes[r]);
        let mut f = Vec::new();
        let mut push = |field: &'static str, old: String, new: String| {
            if old != new {
                f.push(FieldChange { field, old, new });
            }
        };
        if self.inputs_changed(d, r) {
            let (old, mut new) = (list_text(&rn.inputs), list_text(&dn.inputs));
            if old == new {
                // The same ids, continuing other running nodes (hints).
                new = list_text(&dn.inputs.iter().map(|i| self.annotated(i)).collect::<Vec<_>>());
            }
            push("inputs", old, new);
        }
        push("definition", rn.definition.clone(), dn.definition.clone());
        push("schema", schema_text(&rn.schema), schema_text(&dn.schema));
        push("changelog", changelog_text(&rn.changelog.mode, &rn.changelog.key), changelog_text(&dn.changelog.mode, &dn.changelog.key));
        if rn.operator == "sink" && dn.operator == "sink" {
            if let (Some(rm), Some(dm)) = (self.running_models.get(rn.model.as_str()), self.desired_models.get(dn.model.as_str())) {
                push("materialized", rm.materialized.clone(), dm.materialized.clone());
                push("key", list_text(&rm.key), list_text(&dm.key));
            }
        }
        let (rs, ds) = (&rn.state, &dn.state);
        let both_keyed = is_keyed(rn) && is_keyed(dn);
        if both_keyed {
            push("key", list_text(rs.keys.as_deref().unwrap_or(&[])), list_text(ds.keys.as_deref().unwrap_or(&[])));
            push("accumulators", schema_text(rs.accumulators.as_deref().unwrap_or(&[])), schema_text(ds.accumulators.as_deref().unwrap_or(&[])));
            push("order", order_text(rs), order_text(ds));
            push("kept", kept_text(rs), kept_text(ds));
            push("strategy", strategy_text(rs), strategy_text(ds));
            push("row", rs.row.as_deref().map(schema_text).unwrap_or_default(), ds.row.as_deref().map(schema_text).unwrap_or_default());
            push("retention", rs.retention.clone().unwrap_or_default(), ds.retention.clone().unwrap_or_default());
            push("window", window_or_none(rs.window.as_deref()), window_or_none(ds.window.as_deref()));
            push("join", join_or_none(rn), join_or_none(dn));
        }
        push("state", rs.kind.clone(), ds.kind.clone());
        if both_keyed {
            push("state digest", rs.digest.clone().unwrap_or_default(), ds.digest.clone().unwrap_or_default());
        }
        f
    }

    /// `m::filter::0 (was m::filter::1)` when the node continues a running
    /// node of another id.
    fn annotated(&self, id: &str) -> String {
        match self.desired_index.get(id).and_then(|&i| self.m.desired_to_running[i]) {
            Some(r) if self.running.nodes[r].id != id => format!("{id} (was {})", self.running.nodes[r].id),
            Some(_) => id.to_string(),
            None => format!("{id} (new)"),
        }
    }

    /// Whether a node counts as changed for the keyed nodes downstream.
    fn moves_downstream(&self, d: usize) -> bool {
        let Some(r) = self.m.desired_to_running[d] else { return true };
        let (dn, rn) = (&self.desired.nodes[d], &self.running.nodes[r]);
        if self.inputs_changed(d, r) {
            return true;
        }
        dn.definition != rn.definition
    }

    /// For each desired node, the nearest node upstream of it that changed
    /// (inputs first, depth first). Manifests list inputs before readers.
    fn changed_upstream(&self) -> Vec<Option<usize>> {
        let n = self.desired.nodes.len();
        let moved: Vec<bool> = (0..n).map(|d| self.moves_downstream(d)).collect();
        let mut up: Vec<Option<usize>> = vec![None; n];
        for d in 0..n {
            for inp in &self.desired.nodes[d].inputs {
                let Some(&i) = self.desired_index.get(inp.as_str()) else { continue };
                if i >= d {
                    continue;
                }
                if moved[i] {
                    up[d] = Some(i);
                    break;
                }
                if up[i].is_some() {
                    up[d] = up[i];
                    break;
                }
            }
        }
        up
    }

    /// The kind of a matched node's change, or `None` when it did not
    /// change.
    fn classify(&self, d: usize, r: usize, fields: &[FieldChange], upstream: Option<usize>) -> Option<Verdict> {
        let (dn, rn) = (&self.desired.nodes[d], &self.running.nodes[r]);
        if is_keyed(rn) != is_keyed(dn) {
            return Some((Classification::StateIncompatible, ChangeKind::StateKindChanged, "the node's kind of state changed; existing state cannot be reused".into()));
        }
        if is_keyed(dn) {
            return self.keyed(dn, rn, fields, upstream);
        }
        if fields.is_empty() {
            return None;
        }
        Some(if dn.operator == "sink" { sink(dn, rn, fields) } else { stateless(dn, rn, fields) })
    }

    /// Every kind that applies to a keyed node, the worst chosen.
    fn keyed(&self, dn: &NodeEntry, rn: &NodeEntry, fields: &[FieldChange], upstream: Option<usize>) -> Option<Verdict> {
        use ChangeKind as K;
        use Classification as C;
        let (rs, ds) = (&rn.state, &dn.state);
        let (rk, dk) = (rs.keys.as_deref().unwrap_or(&[]), ds.keys.as_deref().unwrap_or(&[]));
        let (ra, da) = (rs.accumulators.as_deref().unwrap_or(&[]), ds.accumulators.as_deref().unwrap_or(&[]));
        let mut c: Vec<Verdict> = Vec::new();
        if rs.row.is_some() != ds.row.is_some() {
            c.push((C::StateIncompatible, K::StateKindChanged, "the node's kind of state changed between an aggregate's and a Top-N's; existing state cannot be reused".into()));
        }
        let ranked = ds.row.is_some();
        if rk != dk || key_types(rn, rk) != key_types(dn, dk) {
            let what = if ranked { "partition key" } else { "grouping key" };
            c.push((C::StateIncompatible, K::KeyChanged, format!("the {what} changed; existing state cannot be reused")));
        }
        if ranked && rs.row.is_some() {
            c.extend(rank_changes(rs, ds));
        }
        if let Some((old, new)) = da.iter().find_map(|n| ra.iter().find(|o| o.name == n.name && o.ty != n.ty).map(|o| (o, n))) {
            c.push((
                C::StateIncompatible,
                K::AccumulatorTypeChanged,
                format!("accumulator `{}` changed type from {} to {}; existing values cannot be reused", new.name, old.ty, new.ty),
            ));
        }
        c.extend(window_change(rs.window.as_deref(), ds.window.as_deref()));
        if let Some(n) = da.iter().find(|n| !ra.iter().any(|o| o.name == n.name)) {
            c.push((
                C::BackfillRequired,
                K::AccumulatorAdded,
                format!("accumulator `{}` added; it starts empty for every existing key, replay history to fill it", n.name),
            ));
        }
        if let Some(u) = upstream {
            c.push((
                C::BackfillRequired,
                K::InputChanged,
                format!("input definition changed upstream at `{}`; existing state was accumulated under the previous definition", self.desired.nodes[u].id),
            ));
        } else if fields.iter().any(|x| x.field == "inputs") {
            c.push((C::BackfillRequired, K::InputChanged, "its input changed; existing state was accumulated from the previous input".into()));
        }
        if let Some(o) = ra.iter().find(|o| !da.iter().any(|n| n.name == o.name)) {
            c.push((C::StateMigrationRequired, K::AccumulatorRemoved, format!("accumulator `{}` removed; drop it from existing state", o.name)));
        }
        c.extend(join_change(rn, dn));
        if rs.retention != ds.retention {
            c.push((C::StateMigrationRequired, K::RetentionChanged, "retention changed; timers change, stored values do not".into()));
        }
        if !fields.is_empty() {
            c.push((C::Compatible, K::KeyedCompatible, "no stored value is affected".into()));
        }
        worst(c)
    }
}

/// `[amount DESC, ts ASC]`, the order a Rank keeps its rows by; empty for
/// an aggregate.
fn order_text(s: &StateEntry) -> String {
    match &s.order {
        Some(o) => list_text(&o.iter().map(|k| sort_key_text(&k.column, &k.direction, k.nulls.as_deref())).collect::<Vec<_>>()),
        None => String::new(),
    }
}

/// `top 3`, or a deduplication's `first` or `last`; empty for an aggregate.
fn kept_text(s: &StateEntry) -> String {
    match (&s.keep, s.top) {
        (Some(k), _) => k.clone(),
        (None, Some(n)) => format!("top {n}"),
        (None, None) => String::new(),
    }
}

/// A Rank's strategy over an updating input (`retract`,
/// `update-fast(key=[..])`); empty over an append input and for an aggregate.
fn strategy_text(s: &StateEntry) -> String {
    s.strategy.clone().unwrap_or_default()
}

/// Whether a Rank keeps one row per partition in one value (Flink's
/// FastTop1Function and its deduplications) rather than sorted rows.
fn one_row(s: &StateEntry) -> bool {
    s.keep.is_some() || s.top == Some(1)
}

/// What changed in two Ranks' order, range and stored row.
fn rank_changes(rs: &StateEntry, ds: &StateEntry) -> Vec<Verdict> {
    use ChangeKind as K;
    use Classification as C;
    let mut c = Vec::new();
    if rs.order != ds.order {
        c.push((C::StateIncompatible, K::RankOrderChanged, format!("the order changed from {} to {}; the stored rows were chosen by the old order", order_text(rs), order_text(ds))));
    }
    if rs.strategy != ds.strategy {
        let name = |s: &StateEntry| s.strategy.clone().unwrap_or_else(|| "append-fast".to_string());
        c.push((
            C::StateIncompatible,
            K::RankStrategyChanged,
            format!("Flink ranks the input with its {} strategy instead of {}; their states are laid out differently, so existing state cannot be reused", name(ds), name(rs)),
        ));
    }
    let (old, new) = (kept_text(rs), kept_text(ds));
    // A retracting Rank stores every row whatever its N (RetractableTopNFunction).
    let retracting = rs.strategy.as_deref() == Some("retract") && rs.strategy == ds.strategy;
    if old != new && retracting {
        c.push((
            C::BackfillRequired,
            K::RankRangeChanged,
            format!("the Top-N keeps {new} instead of {old}; its state keeps every row, but ranks it newly shows are written only when their partition next changes, and ranks it no longer shows are never taken back: rebuild the sink"),
        ));
    } else if old != new {
        let (class, reason) = match (rs.top, ds.top) {
            (Some(a), Some(b)) if a > 1 && b > 1 && a < b => (C::BackfillRequired, format!("the Top-N keeps {b} rows instead of {a}; rows that ranked below {a} were not kept, replay history to fill ranks {} to {b}", a + 1)),
            (Some(a), Some(b)) if a > 1 && b > 1 => (C::BackfillRequired, format!("the Top-N keeps {b} rows instead of {a}; rows already written for ranks {} to {a} are never taken back, rebuild the sink", b + 1)),
            _ if one_row(rs) != one_row(ds) || rs.keep != ds.keep => (C::StateIncompatible, format!("the Rank keeps {new} instead of {old}; Flink stores those differently (one row per key, or sorted rows), so existing state cannot be reused")),
            _ => (C::StateIncompatible, format!("the Rank keeps {new} instead of {old}; existing state cannot be reused")),
        };
        c.push((class, K::RankRangeChanged, reason));
    }
    let (ro, dw) = (rs.row.as_deref().unwrap_or(&[]), ds.row.as_deref().unwrap_or(&[]));
    if ro != dw {
        if same_types(ro, dw) {
            c.push((C::StateMigrationRequired, K::RankRowChanged, format!("the stored row's columns were renamed from {} to {}; Flink restores its values by position, migrate them if the columns moved", schema_text(ro), schema_text(dw))));
        } else {
            c.push((C::StateIncompatible, K::RankRowChanged, format!("the stored row changed from {} to {}; rows already stored have the old layout", schema_text(ro), schema_text(dw))));
        }
    }
    c
}

/// A keyed node's window that appeared, went or was re-cut.
fn window_change(old: Option<&WindowEntry>, new: Option<&WindowEntry>) -> Option<Verdict> {
    let reason = match (old, new) {
        (None, Some(_)) => "the aggregate became windowed; state kept per key cannot become state per key and window".to_string(),
        (Some(_), None) => "the aggregate is no longer windowed; state kept per key and window cannot become state per key".to_string(),
        (Some(a), Some(b)) if a != b => match (&a.size, &b.size, &a.gap, &b.gap) {
            (Some(x), Some(y), _, _) if x != y => format!("the window's size changed from {x} to {y}; existing windows cannot be re-cut"),
            (_, _, Some(x), Some(y)) if x != y => format!("the session gap changed from {x} to {y}; existing sessions cannot be re-cut"),
            _ if a.time != b.time => format!("the window's time column changed from `{}` to `{}`; existing windows cannot be re-cut", a.time, b.time),
            _ => format!("the window changed from {} to {}; existing windows cannot be re-cut", window_text(a), window_text(b)),
        },
        _ => return None,
    };
    Some((Classification::StateIncompatible, ChangeKind::WindowChanged, reason))
}

/// A changed Sink: its key, then its target, then its columns.
fn sink(dn: &NodeEntry, rn: &NodeEntry, fields: &[FieldChange]) -> Verdict {
    use ChangeKind as K;
    use Classification as C;
    let has = |f: &str| fields.iter().any(|x| x.field == f);
    if has("materialized") || has("key") {
        return (C::BackfillRequired, K::SinkKeyChanged, format!("rows already written to {} are keyed the old way; rebuild the sink", sink_place(&rn.definition)));
    }
    if sink_target(&rn.definition) != sink_target(&dn.definition) {
        return (C::Compatible, K::SinkTarget, format!("output moves to {}; {} is left as it is", sink_place(&dn.definition), sink_place(&rn.definition)));
    }
    if has("schema") {
        let kind = if same_types(&rn.schema, &dn.schema) { K::SinkRenamed } else { K::SinkReshaped };
        return (C::Compatible, kind, format!("readers of {} see the new columns; rows already written keep the old shape", sink_place(&dn.definition)));
    }
    (C::Compatible, K::StatelessDefinition, "stateless; no stored value is affected".into())
}

/// A changed Source, Filter or Project.
fn stateless(dn: &NodeEntry, rn: &NodeEntry, fields: &[FieldChange]) -> Verdict {
    use ChangeKind as K;
    use Classification as C;
    if dn.operator == "source" && contract_part(&rn.definition) != contract_part(&dn.definition) {
        return (C::Compatible, K::ContractChanged, "records are checked against other contracts from now on; records already read are not checked again".into());
    }
    if fields.iter().any(|x| x.field == "schema") {
        let kind = if same_types(&rn.schema, &dn.schema) { K::OutputRenamed } else { K::OutputReshaped };
        return (C::Compatible, kind, "stateless; no stored value is affected".into());
    }
    (C::Compatible, K::StatelessDefinition, "stateless; no stored value is affected".into())
}

fn added(n: &NodeEntry) -> NodeDiff {
    let (classification, kind, reason) = if is_keyed(n) {
        (Classification::BackfillRequired, ChangeKind::KeyedAdded, "new keyed state starts empty; history is in it only if the source replays it")
    } else {
        (Classification::Compatible, ChangeKind::StatelessAdded, "added; stateless")
    };
    NodeDiff { id: n.id.clone(), operator: n.operator.clone(), change: Change::Added, classification, kind, reason: reason.into(), fields: Vec::new() }
}

fn removed(n: &NodeEntry) -> NodeDiff {
    let (kind, reason) = if is_keyed(n) {
        (ChangeKind::KeyedRemoved, "removed; its state is discarded when the old job stops")
    } else {
        (ChangeKind::StatelessRemoved, "removed; stateless")
    };
    NodeDiff {
        id: n.id.clone(),
        operator: n.operator.clone(),
        change: Change::Removed,
        classification: Classification::Compatible,
        kind,
        reason: reason.into(),
        fields: Vec::new(),
    }
}

fn verdict_of(nodes: &[NodeDiff]) -> Classification {
    nodes.iter().map(|n| n.classification).max().unwrap_or(Classification::Safe)
}

/// Node indices grouped by model, models in first-appearance order.
fn by_model(nodes: &[NodeEntry]) -> HashMap<&str, Vec<usize>> {
    let mut out: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        out.entry(n.model.as_str()).or_default().push(i);
    }
    out
}

pub(crate) fn classify(running: &Manifest, desired: &Manifest, m: &Matching) -> PlanDiff {
    let ctx = Ctx::new(running, desired, m);
    let upstream = ctx.changed_upstream();
    let desired_nodes = by_model(&desired.nodes);
    let running_nodes = by_model(&running.nodes);
    let mut owned: HashMap<&str, Vec<&str>> = HashMap::new();
    for rm in &running.models {
        if let Some(o) = m.owner.get(&rm.name) {
            owned.entry(o.as_str()).or_default().push(rm.name.as_str());
        }
    }

    let removed_of = |model: &str| -> Vec<NodeDiff> {
        running_nodes.get(model).into_iter().flatten().filter(|&&r| m.running_to_desired[r].is_none()).map(|&r| removed(&running.nodes[r])).collect()
    };

    let mut models = Vec::with_capacity(desired.models.len());
    for dm in &desired.models {
        let mut nodes = Vec::new();
        let mut any_matched = false;
        for &d in desired_nodes.get(dm.name.as_str()).into_iter().flatten() {
            match m.desired_to_running[d] {
                None => nodes.push(added(&desired.nodes[d])),
                Some(r) => {
                    any_matched = true;
                    let fields = ctx.fields(d, r);
                    if let Some((classification, kind, reason)) = ctx.classify(d, r, &fields, upstream[d]) {
                        let n = &desired.nodes[d];
                        nodes.push(NodeDiff { id: n.id.clone(), operator: n.operator.clone(), change: Change::Changed, classification, kind, reason, fields });
                    }
                }
            }
        }
        let owns = owned.get(dm.name.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        for rm in owns {
            nodes.extend(removed_of(rm));
        }
        let change = if owns.is_empty() && !any_matched {
            Some(Change::Added)
        } else if nodes.is_empty() {
            None
        } else {
            Some(Change::Changed)
        };
        models.push(ModelDiff { name: dm.name.clone(), change, verdict: verdict_of(&nodes), nodes });
    }
    for rm in &running.models {
        if m.owner.contains_key(&rm.name) {
            continue;
        }
        let nodes = removed_of(&rm.name);
        if nodes.is_empty() {
            continue; // every node continues in other models, through hints
        }
        models.push(ModelDiff { name: rm.name.clone(), change: Some(Change::Removed), verdict: verdict_of(&nodes), nodes });
    }
    let verdict = models.iter().map(|m| m.verdict).max().unwrap_or(Classification::Safe);
    PlanDiff { models, verdict, notices: m.warnings.clone() }
}

/// A join's state as `plan` shows it, or `none`.
fn join_or_none(n: &NodeEntry) -> String {
    match KeyedEntry::of(&n.state).filter(|s| s.join().is_some()) {
        Some(s) => state_fields(&s),
        None => "none".into(),
    }
}

/// What differs between two joins' stores, in the words of the fingerprint.
fn stores_changed(r: &JoinEntry, d: &JoinEntry) -> String {
    let mut what = Vec::new();
    if r.join_type != d.join_type {
        what.push(format!("its type: {} → {}", r.join_type, d.join_type));
    }
    for (side, a, b) in [("left", &r.left, &d.left), ("right", &r.right, &d.right)] {
        if a.keys != b.keys {
            what.push(format!("the {side} side's key"));
        }
        if a.stored != b.stored {
            what.push(format!("the {side} side's stored columns"));
        }
        if a.unique != b.unique {
            what.push(format!("the unique key of the {side} input"));
        }
    }
    if r.interval.is_some() != d.interval.is_some() {
        what.push("whether it is an interval join".to_string());
    }
    match (&r.temporal, &d.temporal) {
        (Some(_), Some(_)) if r.temporal != d.temporal => what.push("its time attributes".to_string()),
        (Some(_), None) | (None, Some(_)) => what.push("whether it is a temporal join".to_string()),
        _ => {}
    }
    what.join(", ")
}

/// What a change to a join costs: its stores' layout (a key, the stored
/// columns or an input's unique key) cannot be read by the new join; a
/// changed condition keeps the stores, but the rows already emitted were
/// matched under the old one.
fn join_change(rn: &NodeEntry, dn: &NodeEntry) -> Option<Verdict> {
    let (rj, dj) = (rn.state.join.as_ref(), dn.state.join.as_ref());
    if rj.is_none() && dj.is_none() {
        return None;
    }
    // Only an interval join's bounds moved: the stores keep their layout, but
    // rows dropped under the old bounds are gone and emitted rows were matched under them.
    let bounds_only = match (rj, dj) {
        (Some(r), Some(d)) => r.interval.is_some() && d.interval.is_some() && r.interval != d.interval && (&r.join_type, &r.left, &r.right) == (&d.join_type, &d.left, &d.right),
        _ => false,
    };
    if bounds_only {
        return Some((Classification::BackfillRequired, ChangeKind::JoinChanged, "the interval join's bounds changed; the rows it stored and dropped, and those it emitted, follow the previous bounds".into()));
    }
    if rj != dj {
        let what = match (rj, dj) {
            (Some(r), Some(d)) => stores_changed(r, d),
            _ => "whether it is a join".to_string(),
        };
        return Some((Classification::StateIncompatible, ChangeKind::JoinChanged, format!("the join's stores changed ({what}); existing state cannot be reused")));
    }
    (rn.definition != dn.definition).then(|| (Classification::BackfillRequired, ChangeKind::JoinChanged, "the join condition changed; the rows it emitted were matched under the previous condition".into()))
}
