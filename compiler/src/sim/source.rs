//! The project as the simulator reads it: a source's spec (its columns,
//! clock, late policy and contracts) and the models and sources a model
//! runs on. `test` and `run` both start here.

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

/// What a model runs on: the sources upstream of it (in the order its
/// plans read them, upstream models first) and the models from them down
/// to `model`, in dependency order (`model` last). `None` when a model on
/// the way does not plan.
pub fn inputs_to(db: &dyn Db, project: Project, model: &str) -> Option<(Vec<String>, Vec<Arc<ModelPlan>>)> {
    let mut plans: Vec<Arc<ModelPlan>> = Vec::new();
    visit(db, project, model, &mut plans, &mut Vec::new())?;
    let mut sources: Vec<String> = Vec::new();
    for p in &plans {
        for n in &p.nodes {
            if let NodeKind::Source(s) = &n.kind {
                if !sources.contains(&s.source) {
                    sources.push(s.source.clone());
                }
            }
        }
    }
    Some((sources, plans))
}

/// Adds `model`'s upstream models, then `model`, to `out` (each once);
/// `path` holds the models being visited, to stop at a cycle (check
/// reports it).
fn visit(db: &dyn Db, project: Project, model: &str, out: &mut Vec<Arc<ModelPlan>>, path: &mut Vec<String>) -> Option<()> {
    if out.iter().any(|p| p.name == model) {
        return Some(());
    }
    if path.iter().any(|m| m == model) {
        return None;
    }
    let plan = model_plan(db, ModelName::new(db, project, model.to_string())).clone()?;
    path.push(model.to_string());
    for up in &plan.reads_models {
        visit(db, project, up, out, path)?;
    }
    path.pop();
    out.push(plan);
    Some(())
}
