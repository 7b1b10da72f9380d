//! Flink operator uids that follow Streamform's nodes, pinned in Flink's
//! compiled plan (`COMPILE PLAN`, the ExecNode JSON). Pure: the command
//! line compiles the plan through the gateway and hands the JSON in; this
//! module maps every stateful ExecNode to the Streamform node it comes
//! from and writes `table.exec.uid.format` into that node's configuration.
//!
//! Mapping: a source scan by its table (one scan per source, since its
//! read positions are the state), a sink by its table, a ChangelogNormalize
//! by the scan it reads, and an aggregate by its aggregate calls (the
//! backend names each call by its canonical text, as the manifest names
//! the accumulators) and the sinks it feeds, a Rank or Deduplicate by what
//! it keeps (N, first or last) and the sinks it feeds, a Join or IntervalJoin by
//! its type, its keys per side, its bounds and the sinks it feeds (a UNION ALL
//! keeps no state). A node whose mapping is not
//! unique, or a stateful ExecNode this module does not know, makes the
//! whole plan unpinnable: the caller falls back to topology uids.
//!
//! A pin's key is the node id where the state began: a node that
//! continues a running node (by id, `renamed_from` or a `nodes:` hint)
//! keeps the running node's key, so its uid, and so its state.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::duration::Duration;
use crate::manifest::{Manifest, NodeEntry};
use crate::upgrade::matching::match_nodes;
use crate::upgrade::ModelHints;

/// One pinned ExecNode: its key (what its state belongs to), the uid
/// prefix Flink gets, the ExecNode kind, and the Streamform nodes it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    pub key: String,
    pub uid: String,
    pub exec: String,
    pub nodes: Vec<String>,
    /// Whether Flink put an upsert materializer (state) into this sink.
    #[serde(default)]
    pub materializer: bool,
}

/// A model's sink table as the Flink SQL names it, and its sink node.
pub struct SinkTable {
    pub table: String,
    pub node: String,
}

/// ExecNode kinds that keep no state (a projection, a shuffle, ...).
const STATELESS: &[&str] = &["calc", "exchange", "union", "watermark-assigner", "values", "drop-update-before", "mini-batch-assigner", "local-group-aggregate", "expand"];
const AGGREGATES: &[&str] = &["group-aggregate", "global-group-aggregate", "window-aggregate", "global-window-aggregate", "group-window-aggregate"];

/// `stream-exec-group-aggregate_1` → `group-aggregate`.
pub fn exec_kind(t: &str) -> &str {
    let t = t.strip_prefix("stream-exec-").unwrap_or(t);
    match t.rsplit_once('_') {
        Some((k, v)) if v.chars().all(|c| c.is_ascii_digit()) => k,
        _ => t,
    }
}

/// The uid prefix of a key; Flink appends each transformation's name
/// (`<transformation>`), so one ExecNode's operators stay distinct.
pub fn uid_of(key: &str) -> String {
    format!("streamform/{key}")
}

/// `` `default_catalog`.`default_database`.`events` `` → its parts.
fn parts(identifier: &str) -> Vec<String> {
    identifier.split("`.`").map(|p| p.trim_matches('`').to_string()).collect()
}

/// Whether a table identifier names `table` (its trailing parts).
fn names(identifier: &str, table: &str) -> bool {
    let (id, t) = (parts(identifier), parts(table));
    id.len() >= t.len() && id[id.len() - t.len()..] == t[..]
}

/// The source a source node reads: its definition is `<source> (…)`.
pub fn source_name(definition: &str) -> &str {
    definition.split(" (").next().unwrap_or(definition)
}

/// The source a scanned table belongs to: the backend scans `<source>_raw`
/// when a view types or filters it (event time, contracts). The pin's key
/// stays the scanned table (what earlier pins recorded); its nodes are the
/// source's.
fn scanned_source(table: &str, desired: &Manifest) -> String {
    let is_source = |t: &str| desired.nodes.iter().any(|x| x.operator == "source" && source_name(&x.definition) == t);
    match table.strip_suffix("_raw") {
        Some(base) if !is_source(table) && is_source(base) => base.to_string(),
        _ => table.to_string(),
    }
}

/// Each desired node's key: the key of the running node it continues
/// (per the recorded pins), else its own id.
pub fn keys(desired: &Manifest, running: Option<(&Manifest, &[Pin])>, hints: &[ModelHints]) -> HashMap<String, String> {
    let mut out: HashMap<String, String> = desired.nodes.iter().map(|n| (n.id.clone(), n.id.clone())).collect();
    let Some((running, pins)) = running else { return out };
    let recorded: HashMap<&str, &str> = pins.iter().flat_map(|p| p.nodes.iter().map(move |n| (n.as_str(), p.key.as_str()))).collect();
    let m = match_nodes(running, desired, hints);
    for (d, r) in m.desired_to_running.iter().enumerate() {
        if let Some(key) = r.and_then(|r| recorded.get(running.nodes[r].id.as_str())) {
            out.insert(desired.nodes[d].id.clone(), key.to_string());
        }
    }
    out
}

/// The Streamform sinks each ExecNode feeds (through the plan's edges).
fn downstream_sinks(plan: &Value, sink_of: &HashMap<i64, String>) -> HashMap<i64, BTreeSet<String>> {
    let edges: Vec<(i64, i64)> = plan["edges"].as_array().into_iter().flatten().filter_map(|e| Some((e["source"].as_i64()?, e["target"].as_i64()?))).collect();
    let ids: Vec<i64> = plan["nodes"].as_array().into_iter().flatten().filter_map(|n| n["id"].as_i64()).collect();
    let mut out = HashMap::new();
    for &id in &ids {
        let (mut seen, mut todo, mut sinks) = (BTreeSet::new(), vec![id], BTreeSet::new());
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            if let Some(s) = sink_of.get(&x) {
                sinks.insert(s.clone());
            }
            todo.extend(edges.iter().filter(|e| e.0 == x).map(|e| e.1));
        }
        out.insert(id, sinks);
    }
    out
}

/// The Flink sinks each Streamform node feeds (a model without a sink
/// has no table in Flink, so its sink node counts only when in `flink`).
fn manifest_sinks<'a>(m: &'a Manifest, flink: &[SinkTable]) -> HashMap<&'a str, BTreeSet<String>> {
    let mut out = HashMap::new();
    for n in &m.nodes {
        let (mut seen, mut todo, mut sinks) = (BTreeSet::new(), vec![n.id.as_str()], BTreeSet::new());
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            if flink.iter().any(|s| s.node == x) && m.nodes.iter().any(|y| y.id == x && y.operator == "sink") {
                sinks.insert(x.to_string());
            }
            todo.extend(m.nodes.iter().filter(|y| y.inputs.iter().any(|i| i == x)).map(|y| y.id.as_str()));
        }
        out.insert(n.id.as_str(), sinks);
    }
    out
}

fn agg_names(node: &Value) -> Vec<String> {
    node["aggCalls"].as_array().into_iter().flatten().filter_map(|c| c["name"].as_str().map(str::to_string)).collect()
}

/// The manifest names a retracting accumulator `sum(x) WITH RETRACT`;
/// Flink names the call `sum(x)` and flags it in `aggCallNeedRetractions`.
const RETRACT: &str = " WITH RETRACT";

fn call_name(accumulator: &str) -> &str {
    accumulator.strip_suffix(RETRACT).unwrap_or(accumulator)
}

/// An ISO-8601 duration as Flink writes a window's (`PT1M`, `PT1H30M`,
/// `PT0.5S`) in milliseconds.
fn iso_millis(iso: &str) -> Option<u64> {
    let mut rest = iso.strip_prefix("PT")?;
    let mut ms = 0f64;
    while !rest.is_empty() {
        let end = rest.find(|c: char| c.is_ascii_alphabetic())?;
        let n: f64 = rest[..end].parse().ok()?;
        let unit = match &rest[end..end + 1] {
            "H" => 3_600_000.0,
            "M" => 60_000.0,
            "S" => 1_000.0,
            _ => return None,
        };
        ms += n * unit;
        rest = &rest[end + 1..];
    }
    Some(ms.round() as u64)
}

fn same_duration(streamform: Option<&String>, flink: &Value) -> bool {
    let ours = streamform.and_then(|d| Duration::parse(d)).map(Duration::millis);
    ours.is_some() && ours == flink.as_str().and_then(iso_millis)
}

/// Why Flink's aggregate `n` does not keep the state the Streamform node
/// `x` promises (its accumulators were matched by name): a retraction one
/// side has and the other lacks, or another window. COUNT keeps the same
/// accumulator with or without retraction.
fn agg_mismatch(n: &Value, x: &NodeEntry) -> Option<String> {
    let flags = n["aggCallNeedRetractions"].as_array();
    for (i, a) in x.state.accumulators.iter().flatten().enumerate() {
        let ours = a.name.ends_with(RETRACT);
        let theirs = flags.map(|f| f.get(i).and_then(Value::as_bool) == Some(true)).unwrap_or(false);
        if ours != theirs && !a.name.starts_with("count(") {
            let (has, lacks) = if theirs { ("Flink", "Streamform") } else { ("Streamform", "Flink") };
            return Some(format!("{has} retracts `{}` of `{}` and {lacks} does not, so their accumulators differ", call_name(&a.name), x.id));
        }
    }
    let Some(w) = &x.state.window else { return None };
    let fw = &n["windowing"]["window"];
    let same = match (w.kind.as_str(), fw["type"].as_str().unwrap_or("")) {
        ("tumbling", "TumblingWindow") => same_duration(w.size.as_ref(), &fw["size"]),
        ("hop", "HoppingWindow") => same_duration(w.size.as_ref(), &fw["size"]) && same_duration(w.slide.as_ref(), &fw["slide"]),
        ("session", "SessionWindow") => same_duration(w.gap.as_ref(), &fw["gap"]),
        _ => false,
    };
    (!same).then(|| format!("Flink's window for `{}` ({}) is not its {} window", x.id, fw, w.kind))
}

/// Whether Flink's Rank or Deduplicate `n` runs the Rank node `x`: a
/// deduplication on event time keeping the row the node keeps, or a Top-N
/// of the node's N from the first row; partitioned by as many columns,
/// with the node's strategy (`same_strategy`).
fn same_rank(n: &Value, x: &NodeEntry) -> bool {
    same_ranking(n, x) && same_strategy(n, x)
}

/// Flink's strategy for Rank `n` as the state fingerprint names it:
/// `None` for AppendFast (and a Deduplicate), `retract`, or UpdateFast with
/// its key's width (Flink names the key by input positions).
fn flink_strategy(n: &Value) -> Option<String> {
    let s = &n["rankStrategy"];
    match s["type"].as_str() {
        Some("Retract") => Some("retract".to_string()),
        Some("UpdateFast") => Some(format!("update-fast({} key columns)", s["primaryKeys"].as_array().map_or(0, Vec::len))),
        _ => None,
    }
}

/// Whether Flink ranks with the node's strategy: the state layouts of
/// Flink's Top-N functions differ, so another strategy is another state.
fn same_strategy(n: &Value, x: &NodeEntry) -> bool {
    let ours = x.state.strategy.as_deref().map(|s| match s.strip_prefix("update-fast(key=[").and_then(|k| k.strip_suffix("])")) {
        Some(k) => format!("update-fast({} key columns)", k.split(", ").filter(|c| !c.is_empty()).count()),
        None => s.to_string(),
    });
    ours == flink_strategy(n)
}

/// Why the one Rank node that Flink's Rank `n` would run is not it: Flink
/// chose another strategy.
fn strategy_mismatch(n: &Value, candidates: &[&NodeEntry]) -> Option<String> {
    let [x] = candidates else { return None };
    let flink = flink_strategy(n).unwrap_or_else(|| "append-fast".to_string());
    let ours = x.state.strategy.clone().unwrap_or_else(|| "append-fast".to_string());
    Some(format!("Flink ranks `{}` with its {flink} strategy and Streamform with {ours}, so their states differ", x.id))
}

/// `same_rank` but the strategy.
fn same_ranking(n: &Value, x: &NodeEntry) -> bool {
    let keys = x.state.keys.as_ref().map_or(0, Vec::len);
    match exec_kind(n["type"].as_str().unwrap_or("")) {
        "deduplicate" => {
            let kept = if n["keepLastRow"].as_bool() == Some(true) { "last" } else { "first" };
            n["isRowtime"].as_bool() == Some(true) && x.state.keep.as_deref() == Some(kept) && n["uniqueKeys"].as_array().map(Vec::len) == Some(keys)
        }
        _ => {
            let range = &n["rankRange"];
            range["start"].as_u64() == Some(1) && x.state.top.is_some() && range["end"].as_u64() == x.state.top && n["partition"]["fields"].as_array().map(Vec::len) == Some(keys)
        }
    }
}

/// Whether Flink's Join, IntervalJoin or TemporalJoin `n` runs the join
/// node `x`: the same join type and as many keys per side, an interval
/// join exactly when the node is one, over the same bounds (Flink writes
/// them as `left_time - right_time` within `[leftLowerBound,
/// leftUpperBound]`), a temporal join exactly when the node is one.
fn same_join(n: &Value, x: &NodeEntry) -> bool {
    let Some(j) = &x.state.join else { return false };
    let kind = exec_kind(n["type"].as_str().unwrap_or(""));
    if (kind == "temporal-join") != j.temporal.is_some() {
        return false;
    }
    let interval = kind == "interval-join";
    let spec = if interval { &n["intervalJoinSpec"]["joinSpec"] } else { &n["joinSpec"] };
    let count = |k: &str| spec[k].as_array().map(Vec::len);
    let same_type = spec["joinType"].as_str().is_some_and(|t| t.eq_ignore_ascii_case(&j.join_type));
    let same_keys = count("leftKeys") == Some(j.left.keys.len()) && count("rightKeys") == Some(j.right.keys.len());
    let same_bounds = match (&j.interval, interval) {
        (None, false) => true,
        (Some(b), true) => {
            let w = &n["intervalJoinSpec"]["windowBounds"];
            w["isEventTime"].as_bool() == Some(true) && w["leftLowerBound"].as_i64() == Some(-b.upper_ms) && w["leftUpperBound"].as_i64() == Some(-b.lower_ms)
        }
        _ => false,
    };
    same_type && same_keys && same_bounds
}

/// The one node of Streamform's that Flink's ExecNode `id` runs, or why not.
fn only_candidate<'a>(kind: &str, id: i64, what: &str, candidates: Vec<&'a NodeEntry>) -> Result<&'a NodeEntry, String> {
    match candidates.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("Flink's {kind} (ExecNode {id}) matches no Streamform {what}")),
        many => Err(format!("Flink's {kind} (ExecNode {id}) could be any of {}", many.iter().map(|x| x.id.as_str()).collect::<Vec<_>>().join(", "))),
    }
}

// Whole: one pass over the ExecNodes, each kind's mapping rule next to the
// others, so that every stateful kind is visibly either mapped or refused.
/// Maps every stateful ExecNode of `plan` to Streamform's nodes and returns
/// the plan with their uids pinned, and the pins; Err says which ExecNode
/// cannot be mapped (then nothing is pinned).
pub fn pin_plan(plan: &Value, desired: &Manifest, sinks: &[SinkTable], keys: &HashMap<String, String>) -> Result<(Value, Vec<Pin>), String> {
    let nodes = plan["nodes"].as_array().ok_or("the compiled plan has no `nodes`")?;
    let key_of = |id: &str| keys.get(id).cloned().unwrap_or_else(|| id.to_string());
    let mut sink_of = HashMap::new();
    let mut scan_of = HashMap::new();
    for n in nodes {
        let id = n["id"].as_i64().ok_or("an ExecNode has no id")?;
        let kind = exec_kind(n["type"].as_str().unwrap_or(""));
        if kind == "sink" {
            let ident = n["dynamicTableSink"]["table"]["identifier"].as_str().unwrap_or("");
            let s = sinks.iter().find(|s| names(ident, &s.table)).ok_or_else(|| format!("Flink's sink {ident} is no model's sink"))?;
            sink_of.insert(id, s.node.clone());
        }
        if kind == "table-source-scan" {
            let ident = n["scanTableSource"]["table"]["identifier"].as_str().unwrap_or("");
            let table = parts(ident).pop().unwrap_or_default();
            if scan_of.values().any(|t| t == &table) {
                return Err(format!("Flink scans source `{table}` more than once, so its read positions cannot be pinned to one uid"));
            }
            scan_of.insert(id, table);
        }
    }
    let fed = downstream_sinks(plan, &sink_of);
    let streamform_fed = manifest_sinks(desired, sinks);
    let inputs_of = |id: i64| -> Vec<i64> { plan["edges"].as_array().into_iter().flatten().filter(|e| e["target"].as_i64() == Some(id)).filter_map(|e| e["source"].as_i64()).collect() };
    let mut pinned = plan.clone();
    let mut pins = Vec::new();
    let mut claimed = BTreeSet::new();
    for (i, n) in nodes.iter().enumerate() {
        let id = n["id"].as_i64().unwrap_or(-1);
        let ty = n["type"].as_str().unwrap_or("");
        let kind = exec_kind(ty);
        let (key, members, materializer) = if let Some(table) = scan_of.get(&id) {
            let source = scanned_source(table, desired);
            let members = desired.nodes.iter().filter(|x| x.operator == "source" && source_name(&x.definition) == source).map(|x| x.id.clone()).collect();
            (format!("source:{table}"), members, false)
        } else if let Some(sink) = sink_of.get(&id) {
            (key_of(sink), vec![sink.clone()], n["requireUpsertMaterialize"].as_bool().unwrap_or(false))
        } else if kind == "changelog-normalize" {
            let ins = inputs_of(id);
            let table = match ins.as_slice() {
                [one] => scan_of.get(one).cloned(),
                _ => None,
            };
            let table = table.ok_or_else(|| format!("Flink's ExecNode {id} ({ty}) does not read a source directly, so it cannot be mapped"))?;
            (format!("normalize:{table}"), Vec::new(), false)
        } else if AGGREGATES.contains(&kind) {
            let calls = agg_names(n);
            let feeds = fed.get(&id).cloned().unwrap_or_default();
            let candidates: Vec<&NodeEntry> = desired
                .nodes
                .iter()
                .filter(|x| x.state.kind == "keyed" && x.state.join.is_none())
                .filter(|x| x.state.accumulators.as_ref().is_some_and(|a| a.iter().map(|c| call_name(&c.name)).eq(calls.iter().map(String::as_str))))
                .filter(|x| streamform_fed.get(x.id.as_str()) == Some(&feeds))
                .collect();
            match candidates.as_slice() {
                [one] => {
                    if let Some(why) = agg_mismatch(n, one) {
                        return Err(format!("Flink's {kind} (ExecNode {id}) cannot be pinned: {why}"));
                    }
                    (key_of(&one.id), vec![one.id.clone()], false)
                }
                [] => return Err(format!("Flink's {} (ExecNode {id}, aggregates [{}]) matches no Streamform node", kind, calls.join(", "))),
                many => return Err(format!("Flink's {} (ExecNode {id}) could be any of {}", kind, many.iter().map(|x| x.id.as_str()).collect::<Vec<_>>().join(", "))),
            }
        } else if ["rank", "deduplicate", "join", "interval-join", "temporal-join"].contains(&kind) {
            let feeds = fed.get(&id).cloned().unwrap_or_default();
            let (operator, what) = if kind.ends_with("join") { ("join", "join") } else { ("rank", "Rank") };
            let same = |x: &NodeEntry| if operator == "join" { same_join(n, x) } else { same_rank(n, x) };
            let candidates: Vec<&NodeEntry> = desired.nodes.iter().filter(|x| x.operator == operator && same(x) && streamform_fed.get(x.id.as_str()) == Some(&feeds)).collect();
            if candidates.is_empty() && operator == "rank" {
                let ranking: Vec<&NodeEntry> = desired.nodes.iter().filter(|x| x.operator == operator && same_ranking(n, x) && streamform_fed.get(x.id.as_str()) == Some(&feeds)).collect();
                if let Some(why) = strategy_mismatch(n, &ranking) {
                    return Err(format!("Flink's {kind} (ExecNode {id}) cannot be pinned: {why}"));
                }
            }
            let one = only_candidate(kind, id, what, candidates)?;
            (key_of(&one.id), vec![one.id.clone()], false)
        } else if STATELESS.contains(&kind) {
            continue;
        } else {
            return Err(format!("Flink's plan has a {ty} (ExecNode {id}) that Streamform does not map to its nodes"));
        };
        if !claimed.insert(key.clone()) {
            return Err(format!("two of Flink's operators would both continue `{key}`"));
        }
        let uid = uid_of(&key);
        let node = &mut pinned["nodes"][i];
        if !node["configuration"].is_object() {
            node["configuration"] = Value::Object(Default::default());
        }
        node["configuration"]["table.exec.uid.format"] = Value::from(format!("{uid}/<transformation>"));
        pins.push(Pin { key, uid, exec: kind.to_string(), nodes: members, materializer });
    }
    Ok((pinned, pins))
}
