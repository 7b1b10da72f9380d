//! `check`'s view of the plan hints in streamform.yml: a `nodes:` hint
//! must name a node of the model's plan, as `<kind>.<ordinal>`, and say
//! which running node it was, as `<model>::<kind>::<ordinal>`.

use super::split_id;
use crate::db::{Db, ModelName};
use crate::diagnostic::Diagnostic;
use crate::model::model_plan;
use crate::plan::node::Operator;
use crate::project::{model_entry, CONFIG_FILE};
use crate::diagnostic::Code;

/// `aggregate.0` → `("aggregate", 0)`; `None` unless a kind and a plain
/// decimal ordinal.
fn node_key(key: &str) -> Option<(&str, u32)> {
    let (kind, ordinal) = key.split_once('.')?;
    let n: u32 = ordinal.parse().ok()?;
    (Operator::parse(kind).is_some() && n.to_string() == ordinal).then_some((kind, n))
}

fn node_id_ok(id: &str) -> bool {
    split_id(id).is_some_and(|(model, kind, ordinal)| !model.is_empty() && node_key(&format!("{kind}.{ordinal}")).is_some())
}

/// The diagnostics of one model's `nodes:` hints, located from its entry
/// (`project::model_entry`). Not tracked: `check::models::model_checks`
/// makes them with the model's other checks, which read the same entry
/// and plan.
pub fn hint_diagnostics(db: &dyn Db, name: ModelName<'_>) -> Vec<Diagnostic> {
    let config = model_entry(db, name);
    if config.nodes.is_empty() {
        return Vec::new();
    }
    let n = name.text(db);
    let plan = model_plan(db, name);
    let ids: Vec<String> = plan.iter().flat_map(|p| p.nodes.iter().map(|node| node.id(n))).collect();
    let mut out = Vec::new();
    for h in &config.nodes {
        let span = Some(h.span.with_len(h.node.len()));
        match node_key(&h.node) {
            None => out.push(
                Diagnostic::error(Code::HintMalformedNode, format!("model `{n}` hints node `{}`, which is not `<kind>.<ordinal>`", h.node))
                    .at(CONFIG_FILE, span)
                    .help(format!("name the node by its kind and ordinal, as in its id: `aggregate.0` for `{n}::aggregate::0`; kinds are {}", Operator::names())),
            ),
            Some((kind, ordinal)) => {
                let id = format!("{n}::{kind}::{ordinal}");
                if plan.is_some() && !ids.contains(&id) {
                    out.push(
                        Diagnostic::error(Code::HintUnknownNode, format!("model `{n}` hints node `{}`, but its plan has no `{id}`", h.node))
                            .at(CONFIG_FILE, span)
                            .help(format!("the model's nodes are {}", ids.join(", "))),
                    );
                }
            }
        }
        if !node_id_ok(&h.was) {
            out.push(
                Diagnostic::warning(Code::HintMalformedWas, format!("model `{n}` hints that `{}` was `{}`, which is not a node id", h.node, h.was))
                    .at(CONFIG_FILE, span)
                    .help("write the running node's id as `streamform inspect-plan` printed it, `<model>::<kind>::<ordinal>`, for example `m::filter::1`"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_keys() {
        assert_eq!(node_key("aggregate.0"), Some(("aggregate", 0)));
        assert_eq!(node_key("filter.12"), Some(("filter", 12)));
        for bad in ["aggregate", "aggregate.", "agg.0", "filter.01", "filter.-1", "filter.+1", ".0", "filter.0.1"] {
            assert_eq!(node_key(bad), None, "{bad}");
        }
        assert!(node_id_ok("m::filter::1"));
        assert!(!node_id_ok("m::filter"));
        assert!(!node_id_ok("::filter::1"));
        assert!(!node_id_ok("m::widget::1"));
    }
}
