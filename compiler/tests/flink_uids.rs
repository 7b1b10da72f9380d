//! Pinning Flink's compiled plans (recorded from Flink 2.3 under
//! testdata/flink-plans/) to Streamform's nodes, and what a pinned job's
//! savepoint restores into.

use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use streamform::deploy::flink_keeps_state_pinned;
use streamform::flink_uids::{keys, pin_plan, Pin, SinkTable};
use streamform::manifest::Manifest;
use streamform::upgrade::ModelHints;

fn case(name: &str) -> (Value, Manifest) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/flink-plans").join(name);
    let plan = serde_json::from_str(&fs::read_to_string(dir.join("compiled.json")).unwrap()).unwrap();
    let manifest = serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    (plan, manifest)
}

/// Every model's sink table, as the Flink backend names a kafka sink (a
/// model without a sink, `upsert` alone in its definition, has none).
fn sinks(m: &Manifest) -> Vec<SinkTable> {
    let has_sink = |id: &str| m.nodes.iter().any(|n| n.id == id && n.definition.contains(" kafka "));
    m.models.iter().filter(|x| has_sink(&x.output)).map(|x| SinkTable { table: format!("`sink_{}`", x.name), node: x.output.clone() }).collect()
}

fn pin(name: &str, running: Option<(&Manifest, &[Pin])>, hints: &[ModelHints]) -> Result<(Value, Vec<Pin>, Manifest), String> {
    let (plan, m) = case(name);
    let k = keys(&m, running, hints);
    pin_plan(&plan, &m, &sinks(&m), &k).map(|(p, pins)| (p, pins, m))
}

fn formats(plan: &Value) -> HashMap<String, Option<String>> {
    plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["description"].as_str().unwrap().split('(').next().unwrap().to_string() + &n["id"].to_string(), n["configuration"]["table.exec.uid.format"].as_str().map(str::to_string)))
        .collect()
}

fn summary(pins: &[Pin]) -> Vec<(String, String, Vec<String>)> {
    pins.iter().map(|p| (p.exec.clone(), p.uid.clone(), p.nodes.clone())).collect()
}

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn one_model_pins_its_source_aggregate_and_sink_and_nothing_else() {
    let (pinned, pins, _) = pin("v1-one-model", None, &[]).unwrap();
    assert_eq!(
        summary(&pins),
        vec![
            (s("table-source-scan"), s("streamform/source:events"), vec![s("totals::source::0")]),
            (s("group-aggregate"), s("streamform/totals::aggregate::0"), vec![s("totals::aggregate::0")]),
            (s("sink"), s("streamform/totals::sink::0"), vec![s("totals::sink::0")]),
        ]
    );
    let f = formats(&pinned);
    assert_eq!(f["TableSourceScan56"].as_deref(), Some("streamform/source:events/<transformation>"));
    assert_eq!(f["GroupAggregate59"].as_deref(), Some("streamform/totals::aggregate::0/<transformation>"));
    assert_eq!(f["Calc57"], None);
    assert_eq!(f["Exchange58"], None);
    // The configuration Flink wrote stays; only the uid format is added.
    let agg = pinned["nodes"].as_array().unwrap().iter().find(|n| n["id"] == 59).unwrap();
    assert_eq!(agg["configuration"]["table.exec.mini-batch.enabled"], "false");
}

#[test]
fn a_new_model_over_the_same_source_keeps_every_uid_and_drops_nothing() {
    let (_, old, v1) = pin("v1-one-model", None, &[]).unwrap();
    let (_, new, v2) = pin("v2-new-model", Some((&case("v1-one-model").1, &old)), &[]).unwrap();
    // Flink scans `events` once for both models: one source pin.
    assert_eq!(new.iter().filter(|p| p.exec == "table-source-scan").map(|p| p.nodes.clone()).collect::<Vec<_>>(), vec![vec![s("big::source::0"), s("totals::source::0")]]);
    for p in &old {
        assert!(new.iter().any(|n| n.uid == p.uid), "{} kept", p.uid);
    }
    assert_eq!(flink_keeps_state_pinned(&v1, &v2, &[], &old, &new), Ok(vec![]));
    // Back to v1: the new model's sink is dropped, said by name.
    assert_eq!(flink_keeps_state_pinned(&v2, &v1, &[], &new, &old), Ok(vec![s("big::sink::0")]));
}

#[test]
fn a_renamed_model_continues_the_uids_of_the_nodes_it_was() {
    let (_, v2pins, v2) = pin("v2-new-model", None, &[]).unwrap();
    let hints = vec![ModelHints { model: s("totals_v2"), renamed_from: Some(s("totals")), nodes: Vec::new() }];
    let (_, pins, v3) = pin("v3-renamed", Some((&v2, &v2pins)), &hints).unwrap();
    let agg = pins.iter().find(|p| p.exec == "group-aggregate").unwrap();
    assert_eq!((agg.uid.as_str(), agg.nodes.clone()), ("streamform/totals::aggregate::0", vec![s("totals_v2::aggregate::0")]));
    assert_eq!(flink_keeps_state_pinned(&v2, &v3, &hints, &v2pins, &pins), Ok(vec![]));
    // Without the hint the renamed model's nodes are new: its own ids, and
    // the old model's state is dropped.
    let (_, plain, _) = pin("v3-renamed", Some((&v2, &v2pins)), &[]).unwrap();
    assert!(plain.iter().any(|p| p.uid == "streamform/totals_v2::aggregate::0"));
    assert_eq!(flink_keeps_state_pinned(&v2, &v3, &[], &v2pins, &plain), Ok(vec![s("totals::aggregate::0"), s("totals::sink::0")]));
}

#[test]
fn an_aggregate_flink_runs_twice_cannot_be_pinned() {
    let err = pin("v4-ref-reader", None, &[]).unwrap_err();
    assert!(err.contains("group-aggregate") && err.contains("matches no Streamform node"), "{err}");
}

#[test]
fn a_changed_row_layout_or_materializer_under_the_same_uid_does_not_restore() {
    let (_, old, v1) = pin("v1-one-model", None, &[]).unwrap();
    let mut v1b = v1.clone();
    let agg = v1b.nodes.iter_mut().find(|n| n.id == "totals::aggregate::0").unwrap();
    agg.definition = "key=[user_id] aggregates=[count(*), sum(amount)]".into();
    assert_eq!(flink_keeps_state_pinned(&v1, &v1b, &[], &old, &old), Err(s("keyed node `totals::aggregate::0` stores another row layout")));
    let mut new = old.clone();
    new.iter_mut().find(|p| p.exec == "sink").unwrap().materializer = true;
    assert_eq!(flink_keeps_state_pinned(&v1, &v1, &[], &old, &new), Err(s("Flink adds an upsert materializer (state) on sink `totals::sink::0`")));
    let mut topic = v1.clone();
    topic.nodes[0].definition = "events (kafka other)".into();
    assert!(flink_keeps_state_pinned(&v1, &topic, &[], &old, &old).unwrap_err().contains("read positions"));
}

#[test]
fn an_unknown_stateful_exec_node_makes_the_plan_unpinnable() {
    let (mut plan, m) = case("v1-one-model");
    plan["nodes"][1]["type"] = Value::from("stream-exec-over-aggregate_1");
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("stream-exec-over-aggregate_1") && err.contains("does not map"), "{err}");
}

/// Each window kind runs as one WindowAggregate on Flink 2.3 (no local or
/// global phase: streamform sets no mini-batch): pinned to its node.
#[test]
fn tumbling_hop_and_session_window_aggregates_are_pinned_to_their_nodes() {
    for (case_name, model) in [("w1-tumbling", "per_minute"), ("w2-hop", "sliding"), ("w3-session", "visits")] {
        let (pinned, pins, _) = pin(case_name, None, &[]).unwrap();
        assert_eq!(
            summary(&pins),
            vec![
                (s("table-source-scan"), s("streamform/source:events_raw"), vec![format!("{model}::source::0")]),
                (s("window-aggregate"), format!("streamform/{model}::aggregate::0"), vec![format!("{model}::aggregate::0")]),
                (s("sink"), format!("streamform/{model}::sink::0"), vec![format!("{model}::sink::0")]),
            ],
            "{case_name}"
        );
        let agg = pinned["nodes"].as_array().unwrap().iter().find(|n| n["type"] == "stream-exec-window-aggregate_1").unwrap();
        assert_eq!(agg["configuration"]["table.exec.uid.format"], format!("streamform/{model}::aggregate::0/<transformation>"));
    }
}

#[test]
fn a_window_flink_runs_differently_from_the_manifest_is_refused() {
    let (plan, mut m) = case("w2-hop");
    m.nodes.iter_mut().find(|n| n.id == "sliding::aggregate::0").unwrap().state.window.as_mut().unwrap().slide = Some(s("30s"));
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("window-aggregate") && err.contains("is not its hop window"), "{err}");
    // A session window's gap is compared too.
    let (plan, mut m) = case("w3-session");
    m.nodes.iter_mut().find(|n| n.id == "visits::aggregate::0").unwrap().state.window.as_mut().unwrap().gap = Some(s("2m"));
    assert!(pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err().contains("session window"));
}

/// An aggregate over an upsert model: Flink runs the upstream GROUP BY and
/// the retracting GROUP BY (SUM_RETRACT, MAX_RETRACT) each once, so both pin.
#[test]
fn a_retracting_aggregate_over_an_upsert_model_is_pinned() {
    let (_, pins, _) = pin("w4-retract", None, &[]).unwrap();
    assert_eq!(
        summary(&pins),
        vec![
            (s("table-source-scan"), s("streamform/source:events_raw"), vec![s("latest::source::0")]),
            (s("group-aggregate"), s("streamform/latest::aggregate::0"), vec![s("latest::aggregate::0")]),
            (s("group-aggregate"), s("streamform/by_kind::aggregate::0"), vec![s("by_kind::aggregate::0")]),
            (s("sink"), s("streamform/by_kind::sink::0"), vec![s("by_kind::sink::0")]),
        ]
    );
    // Were Streamform to expect plain accumulators, Flink's retracting ones
    // would not restore them: refused, naming the call.
    let (plan, mut m) = case("w4-retract");
    let agg = m.nodes.iter_mut().find(|n| n.id == "by_kind::aggregate::0").unwrap();
    for a in agg.state.accumulators.as_mut().unwrap() {
        a.name = a.name.replace(" WITH RETRACT", "");
    }
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("Flink retracts `sum(amount)` of `by_kind::aggregate::0`"), "{err}");
}

/// The same pinned uids over a window of another size do not restore: the
/// node's state (its window) differs, so the deploy plan is a rebuild.
#[test]
fn a_resized_window_under_the_same_uid_does_not_restore() {
    let (_, old, w1) = pin("w1-tumbling", None, &[]).unwrap();
    let mut resized = w1.clone();
    resized.nodes.iter_mut().find(|n| n.id == "per_minute::aggregate::0").unwrap().state.window.as_mut().unwrap().size = Some(s("5m"));
    assert_eq!(flink_keeps_state_pinned(&w1, &resized, &[], &old, &old), Err(s("keyed node `per_minute::aggregate::0` stores another row layout")));
    assert_eq!(flink_keeps_state_pinned(&w1, &w1, &[], &old, &old), Ok(vec![]));
}

/// An aggregate over a UNION ALL of two sources: Flink scans each source
/// once (each scan pinned by its table, so swapping the union's inputs keeps
/// both read positions) and runs the union and the projections statelessly.
#[test]
fn an_aggregate_over_a_union_pins_both_scans_and_nothing_for_the_union() {
    let (pinned, pins, _) = pin("u1-union", None, &[]).unwrap();
    assert_eq!(
        summary(&pins),
        vec![
            (s("table-source-scan"), s("streamform/source:web"), vec![s("by_kind::source::0")]),
            (s("table-source-scan"), s("streamform/source:app"), vec![s("by_kind::source::1")]),
            (s("group-aggregate"), s("streamform/by_kind::aggregate::0"), vec![s("by_kind::aggregate::0")]),
            (s("sink"), s("streamform/by_kind::sink::0"), vec![s("by_kind::sink::0")]),
        ]
    );
    let f = formats(&pinned);
    let unpinned: Vec<&String> = f.iter().filter(|(_, v)| v.is_none()).map(|(k, _)| k).collect();
    assert_eq!(unpinned.len(), 4, "the union, the two projections and the exchange are not pinned: {unpinned:?}");
    assert!(unpinned.iter().any(|k| k.starts_with("Union")), "{unpinned:?}");
}

/// The `exec` pins of a case pinned from scratch: each one's Rank node id.
fn pinned_ranks(case_name: &str, exec: &str) -> Vec<String> {
    let (_, pins, _) = pin(case_name, None, &[]).unwrap();
    pins.iter().filter(|p| p.exec == exec).inspect(|p| assert_eq!(p.uid, format!("streamform/{}", p.nodes[0]))).map(|p| p.nodes.join(",")).collect()
}

/// Flink runs each deduplication as a Deduplicate and each Top-N as a Rank
/// (recorded from Flink 2.3): each is pinned to its Rank node, by what it
/// keeps and the sink it feeds; one that keeps something else is refused.
#[test]
fn deduplications_and_top_n_pin_to_their_rank_nodes() {
    assert_eq!(pinned_ranks("r1-dedup", "deduplicate"), [s("first_kind::rank::0"), s("latest_kind::rank::0")]);
    assert_eq!(pinned_ranks("r2-rank", "rank"), [s("biggest::rank::0"), s("top_amounts::rank::0")]);
    // A Top-5 where Flink runs a Top-3: no node of Streamform's is that Rank.
    let (plan, mut m) = case("r2-rank");
    m.nodes.iter_mut().find(|n| n.id == "top_amounts::rank::0").unwrap().state.top = Some(5);
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("matches no Streamform Rank"), "{err}");
}

/// Over an updating input Flink ranks with its Retract or UpdateFast
/// strategy (recorded from Flink 2.3: a Top-3 by a SUM, a Top-2 by a
/// COUNT(*)): each is pinned to its Rank node, whose state names the same
/// strategy; a node that says another strategy is refused, naming both.
#[test]
fn top_n_over_updates_pins_only_with_flinks_strategy() {
    assert_eq!(pinned_ranks("r3-rank-updates", "rank"), [s("top_counts::rank::0"), s("top_users::rank::0")]);
    let (_, m) = case("r3-rank-updates");
    let strategy = |id: &str| m.nodes.iter().find(|n| n.id == id).unwrap().state.strategy.clone();
    assert_eq!(strategy("top_counts::rank::0").as_deref(), Some("update-fast(key=[user_id])"));
    assert_eq!(strategy("top_users::rank::0").as_deref(), Some("retract"));
    // Streamform saying Retract where Flink runs UpdateFast: not the same state.
    let (plan, mut m) = case("r3-rank-updates");
    m.nodes.iter_mut().find(|n| n.id == "top_counts::rank::0").unwrap().state.strategy = Some(s("retract"));
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("with its update-fast(1 key columns) strategy and Streamform with retract"), "{err}");
}

/// Flink runs a regular join as a Join and an interval join as an
/// IntervalJoin (recorded from Flink 2.3, both reading one scan of
/// `orders`): each is pinned to its join node by its type, keys, bounds and
/// the sink it feeds; an interval of other bounds, or a join of another
/// key, is no node of Streamform's.
#[test]
fn joins_and_interval_joins_pin_to_their_join_nodes() {
    let (pinned, pins, m) = pin("j1-join", None, &[]).unwrap();
    assert_eq!(
        summary(&pins),
        vec![
            (s("table-source-scan"), s("streamform/source:orders_raw"), vec![s("enriched::source::0"), s("shipped::source::0")]),
            (s("table-source-scan"), s("streamform/source:customers"), vec![s("enriched::source::1")]),
            (s("join"), s("streamform/enriched::join::0"), vec![s("enriched::join::0")]),
            (s("sink"), s("streamform/enriched::sink::0"), vec![s("enriched::sink::0")]),
            (s("table-source-scan"), s("streamform/source:shipments_raw"), vec![s("shipped::source::1")]),
            (s("interval-join"), s("streamform/shipped::join::0"), vec![s("shipped::join::0")]),
            (s("sink"), s("streamform/shipped::sink::0"), vec![s("shipped::sink::0")]),
        ]
    );
    let f = formats(&pinned);
    assert_eq!(f.iter().filter(|(k, _)| k.starts_with("Join") || k.starts_with("IntervalJoin")).filter(|(_, v)| v.is_some()).count(), 2, "{f:?}");
    // The pinned job restores into itself; a stored column more is another layout.
    assert_eq!(flink_keeps_state_pinned(&m, &m, &[], &pins, &pins), Ok(vec![]));
    let mut wider = m.clone();
    let j = wider.nodes.iter_mut().find(|n| n.id == "enriched::join::0").unwrap();
    j.state.join.as_mut().unwrap().right.stored.push(j.schema[0].clone());
    assert_eq!(flink_keeps_state_pinned(&m, &wider, &[], &pins, &pins), Err(s("keyed node `enriched::join::0` stores another row layout")));

    let (plan, mut m) = case("j1-join");
    m.nodes.iter_mut().find(|n| n.id == "shipped::join::0").unwrap().state.join.as_mut().unwrap().interval.as_mut().unwrap().upper_ms = 7_200_000;
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("interval-join") && err.contains("matches no Streamform join"), "{err}");
    let (plan, mut m) = case("j1-join");
    m.nodes.iter_mut().find(|n| n.id == "enriched::join::0").unwrap().state.join.as_mut().unwrap().left.keys.push(s("amount"));
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.starts_with("Flink's join (ExecNode 6)"), "{err}");
}

/// An event-time temporal join: Flink's TemporalJoin runs the join node
/// whose fingerprint names its times, and the versioned view's
/// deduplication runs the upstream model's rank.
#[test]
fn a_temporal_join_pins_to_its_join_node_and_its_versions_to_their_rank() {
    let (pinned, pins, m) = pin("t1-temporal", None, &[]).unwrap();
    assert_eq!(
        summary(&pins),
        vec![
            (s("table-source-scan"), s("streamform/source:orders_raw"), vec![s("converted::source::0")]),
            (s("table-source-scan"), s("streamform/source:rate_updates_raw"), vec![s("rates::source::0")]),
            (s("deduplicate"), s("streamform/rates::rank::0"), vec![s("rates::rank::0")]),
            (s("temporal-join"), s("streamform/converted::join::0"), vec![s("converted::join::0")]),
            (s("sink"), s("streamform/converted::sink::0"), vec![s("converted::sink::0")]),
        ]
    );
    let f = formats(&pinned);
    assert_eq!(f["TemporalJoin9"].as_deref(), Some("streamform/converted::join::0/<transformation>"));
    assert_eq!(flink_keeps_state_pinned(&m, &m, &[], &pins, &pins), Ok(vec![]));
    // A regular join's node is not a temporal join's, nor the other way round.
    let (plan, mut m) = case("t1-temporal");
    m.nodes.iter_mut().find(|n| n.id == "converted::join::0").unwrap().state.join.as_mut().unwrap().temporal = None;
    let err = pin_plan(&plan, &m, &sinks(&m), &keys(&m, None, &[])).unwrap_err();
    assert!(err.contains("temporal-join") && err.contains("matches no Streamform join"), "{err}");
}
