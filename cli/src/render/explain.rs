//! `explain` text: the plan operator by operator.

use std::fmt::Write;

use streamform::identity::digest::{sha256_hex, short};
use streamform::identity::fingerprint::state_fingerprint;
use streamform::plan::node::{ModelPlan, NodeKind};

/// What explain shows of a source.
pub struct SourceFacts {
    pub connector: String,
    /// `processing` or `event(ts) watermark=5s late=drop`.
    pub time: String,
    pub contracts: Vec<(String, String)>,
    pub quarantine: Option<String>,
}

pub fn model_explain(plan: &ModelPlan, sink_target: Option<(&str, &str)>, source: &dyn Fn(&str) -> Option<SourceFacts>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", plan.name);
    s.push('\n');
    for (i, n) in plan.nodes.iter().enumerate() {
        if i > 0 {
            s.push_str("     \u{2193}\n");
        }
        let _ = writeln!(s, "{}", n.operator.title());
        // A node reading another model's output names that model.
        for up in n.inputs.iter().filter_map(|id| id.strip_suffix("::sink::0")).filter(|m| plan.reads_models.iter().any(|r| r == m)) {
            let _ = writeln!(s, "  from={up}");
        }
        match &n.kind {
            NodeKind::Source(read) => {
                let _ = writeln!(s, "  name={}", read.source);
                if let Some(f) = source(&read.source) {
                    let _ = writeln!(s, "  connector={}", f.connector);
                    let _ = writeln!(s, "  time={}", f.time);
                    for (name, expr) in &f.contracts {
                        let _ = writeln!(s, "  contract={name}: {expr}");
                    }
                    if let Some(q) = &f.quarantine {
                        let _ = writeln!(s, "  quarantine={q}");
                    }
                }
            }
            NodeKind::Filter { .. } => {
                let _ = writeln!(s, "  predicate={}", n.definition);
            }
            NodeKind::Project { .. } => {
                let _ = writeln!(s, "  columns={}", n.definition);
            }
            NodeKind::Aggregate { calls, .. } => {
                let st = n.state.as_ref().expect("aggregates are keyed");
                let _ = writeln!(s, "  key={}", st.keys.join(", "));
                let _ = writeln!(s, "  aggregates={}", calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "));
            }
            NodeKind::Union => {
                let _ = writeln!(s, "  inputs={}", n.inputs.join(", "));
            }
            NodeKind::Rank { number, .. } => {
                let st = n.state.as_ref().expect("ranks are keyed");
                let rank = st.rank.as_ref().expect("a Rank's state has its rank part");
                let _ = writeln!(s, "  partition={}", st.keys.join(", "));
                let _ = writeln!(s, "  order={}", rank.order.iter().map(|k| k.text()).collect::<Vec<_>>().join(", "));
                match rank.keep.kept() {
                    Some(k) => {
                        let _ = writeln!(s, "  keep={k}");
                    }
                    None => {
                        let _ = writeln!(s, "  top={}", rank.keep.rows());
                    }
                }
                if *number {
                    let _ = writeln!(s, "  number={}", n.schema.last().map_or("", |c| c.name.as_str()));
                }
            }
            NodeKind::Join { .. } => {
                let _ = writeln!(s, "  inputs={}", n.inputs.join(", "));
                let _ = writeln!(s, "  condition={}", n.definition);
            }
            NodeKind::Sink { materialized } => {
                let _ = writeln!(s, "  model={}", plan.name);
                let _ = writeln!(s, "  materialized={}", materialized.as_str());
                if let Some((connector, target)) = sink_target {
                    let _ = writeln!(s, "  connector={connector}");
                    let _ = writeln!(s, "  target={target}");
                }
            }
        }
        if !matches!(n.kind, NodeKind::Source(_)) {
            if let Some(t) = &n.time {
                let _ = writeln!(s, "  time attribute={t}");
            }
        }
        let _ = writeln!(s, "  boundedness={}", if n.bounded { "Bounded" } else { "Unbounded" });
        let _ = writeln!(s, "  changelog={}", n.changelog.title());
        match &n.state {
            Some(st) => {
                let fp = state_fingerprint(st);
                let _ = writeln!(s, "  state=Keyed");
                let _ = writeln!(s, "  fingerprint={fp}");
                let _ = writeln!(s, "  digest={}", short(&sha256_hex(&fp)));
            }
            None => {
                let _ = writeln!(s, "  state=Stateless");
            }
        }
    }
    s
}
