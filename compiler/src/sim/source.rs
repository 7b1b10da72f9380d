//! The project as the simulator reads it: a source's spec (its columns,
//! clock, late policy and contracts) and the chain of models from a
//! source down to a model. `test` and `run` both start here.

use std::sync::Arc;

use super::dataflow::SourceSpec;
use crate::db::{Db, ModelName, Project, SourceName};
use crate::model::model_plan;
use crate::plan::node::{Column, ModelPlan, NodeKind};
use crate::project::source_config;
use crate::source::{applied_contracts, event_time};

/// The source as the simulator reads it: clock, late policy, contracts.
#[salsa::tracked(returns(ref))]
pub fn source_spec<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Option<SourceSpec> {
    let s = source_config(db, project, name).as_ref()?;
    let columns: Vec<Column> = s.columns.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
    let et = event_time(s);
    let time = et.as_ref().and_then(|e| e.clock()).and_then(|t| columns.iter().position(|c| c.name == t));
    let contracts = applied_contracts(db, project, name).rules;
    Some(SourceSpec {
        name: s.name.clone(),
        columns,
        time,
        delay_ms: et.as_ref().map(|e| e.watermark.millis().min(i64::MAX as u64) as i64).unwrap_or(0),
        late: et.as_ref().map(|e| e.late).unwrap_or_default(),
        contracts,
    })
}

/// The models from the root source down to `model` (root first), and the root source.
pub fn chain_to(db: &dyn Db, project: Project, model: &str) -> Option<(String, Vec<Arc<ModelPlan>>)> {
    let mut chain = Vec::new();
    let mut cur = model.to_string();
    loop {
        let plan = model_plan(db, project, ModelName::new(db, cur.clone())).clone()?;
        let next = plan.reads_model.clone();
        let source = plan.nodes.first().and_then(|n| match &n.kind {
            NodeKind::Source(s) => Some(s.source.clone()),
            _ => None,
        });
        chain.push(plan);
        if chain.len() > 10_000 {
            return None; // a cycle; check reports it
        }
        match (next, source) {
            (Some(m), _) => cur = m,
            (None, Some(s)) => {
                chain.reverse();
                return Some((s, chain));
            }
            (None, None) => return None,
        }
    }
}
