//! What a model's sink keeps of the rows its model emits. Flink's PRIMARY
//! KEY columns are NOT NULL, so an upsert Kafka sink cannot take a row
//! whose key is null (the job would fail): such rows are left out of the
//! sink, and said so. The Flink backend (the INSERT's filter, W0792) and
//! the simulator (the rows it reports left out) both ask here.

use crate::config::{Connector, Materialized};
use crate::db::{Db, ModelName, Project, SourceName};
use crate::model::model_plan;
use crate::plan::expr::{BinOp, Expr};
use crate::plan::node::{ModelPlan, NodeKind};
use crate::project::{model_config, source_config};
use crate::source::{applied_contracts, event_time};

/// The key columns of `name`'s upsert Kafka sink that may be null, in key
/// order; empty when the model writes no such sink, or when every key
/// column is proven not null (a `WHERE k IS NOT NULL` or a comparison of
/// `k` upstream, a contract that requires it, or the event time).
#[salsa::tracked(returns(ref))]
pub fn sink_nullable_key<'db>(db: &'db dyn Db, project: Project, name: ModelName<'db>) -> Vec<String> {
    let Some(plan) = model_plan(db, project, name).as_ref() else { return Vec::new() };
    let kafka = model_config(db, project, name).sink.as_ref().is_some_and(|s| s.connector == Connector::Kafka);
    if plan.materialized != Materialized::Upsert || !kafka {
        return Vec::new();
    }
    plan.key.iter().filter(|k| !never_null(db, project, plan, k, 0)).cloned().collect()
}

/// Whether output column `col` of `plan` is never null: it comes unchanged
/// from a column that a filter, a contract or the event-time rule requires.
fn never_null(db: &dyn Db, project: Project, plan: &ModelPlan, col: &str, depth: usize) -> bool {
    let mut col = col.to_string();
    for node in plan.nodes.iter().rev() {
        match &node.kind {
            // Not followed into each input: a union's or a join's column is taken as nullable.
            NodeKind::Union | NodeKind::Join { .. } => return false,
            NodeKind::Sink { .. } | NodeKind::Aggregate { .. } => {} // group keys keep their names
            NodeKind::Project { items } => match items.iter().find(|(_, n)| *n == col) {
                Some((Expr::Column { name, .. }, _)) => col = name.clone(),
                _ => return false,
            },
            NodeKind::Filter { predicate } if rejects_null(predicate, &col) => return true,
            NodeKind::Filter { .. } => {}
            // A Rank's row number counts from 1; its other columns keep their names.
            NodeKind::Rank { number: true, .. } if node.schema.last().is_some_and(|c| c.name == col) => return true,
            NodeKind::Rank { .. } => {}
            NodeKind::Source(read) => {
                let source = SourceName::new(db, read.source.clone());
                let timed = source_config(db, project, source).as_ref().and_then(event_time).is_some_and(|t| t.clock() == Some(col.as_str()));
                return timed || applied_contracts(db, project, source).rules.iter().any(|(_, e)| rejects_null(e, &col));
            }
        }
    }
    // A ref() reader: the column as the upstream model emits it. The
    // depth bound only guards against a cycle, which check reports.
    match plan.reads_models.as_slice() {
        [up] if depth < 64 => model_plan(db, project, ModelName::new(db, up.clone())).as_ref().is_some_and(|p| never_null(db, project, p, &col, depth + 1)),
        _ => false,
    }
}

/// Whether a row that `e` keeps (TRUE, never NULL) has `col` not null: a
/// conjunct `col IS NOT NULL`, or a comparison with `col` itself as an operand.
fn rejects_null(e: &Expr, col: &str) -> bool {
    let is_col = |x: &Expr| matches!(x, Expr::Column { name, .. } if name == col);
    match e {
        Expr::Binary { op: BinOp::And, left, right, .. } => rejects_null(left, col) || rejects_null(right, col),
        Expr::Binary { op: BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::LtEq | BinOp::Gt | BinOp::GtEq, left, right, .. } => is_col(left) || is_col(right),
        Expr::IsNull { expr, negated: true } => is_col(expr),
        _ => false,
    }
}
