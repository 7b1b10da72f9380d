//! What a model's sink keeps of the rows its model emits. Flink's PRIMARY
//! KEY columns are NOT NULL, so an upsert Kafka sink cannot take a row
//! whose key is null (the job would fail): such rows are left out of the
//! sink, and said so. The Flink backend (the INSERT's filter, W0792) and
//! the simulator (the rows it reports left out) both ask here.
//!
//! It also owns what a sink cannot take at all (`sink_checks`): `check`
//! reports it and the Flink backend refuses on it, so a project `check`
//! passes is one `build` can write.

use sqlparser::ast::{self as sql, Spanned};

use crate::config::{Connector, Format, Materialized};
use crate::db::{Db, ModelName, Project, SourceName};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::{model_plan, parse_model};
use crate::plan::expr::{BinOp, Expr};
use crate::plan::lower::to_span;
use crate::plan::node::{ModelPlan, NodeKind};
use crate::project::{model_entry, model_file, source_config, CONFIG_FILE};
use crate::source::{applied_contracts, event_time};
use crate::types::DataType;

/// What a model's sink cannot take, and W0792: E0321 (a key column the
/// output lacks, at the `key:` entry), E0320 (a column type
/// with no Flink SQL type, at the expression that makes it), E0322 (a
/// keyless upsert written to Kafka in a format other than json). Errors
/// first, in that order. Memoized as part of the model's checks
/// ([`crate::check::models::ModelChecks::sink`]), which `check` reads;
/// `build` asks it again for the models it writes (the Flink backend sits
/// below `check`).
pub(crate) fn sink_checks<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Vec<Diagnostic> {
    let project = name.project(db);
    let Some(plan) = model_plan(db, name).as_ref() else { return Vec::new() };
    let n = &plan.name;
    let cfg = model_entry(db, name);
    let schema = &plan.sink().schema;
    let mut out = Vec::new();
    // Only a sink's table needs its key among its columns: a model without
    // one is a view, as the original planned it.
    let Some(sc) = &cfg.sink else { return out };
    if plan.materialized == Materialized::Upsert {
        let cols: Vec<&str> = schema.iter().map(|c| c.name.as_str()).collect();
        for (i, k) in plan.key.iter().enumerate().filter(|(_, k)| !cols.contains(&k.as_str())) {
            out.push(
                Diagnostic::error(Code::KeyNotInOutput, format!("model `{n}` declares key column `{k}`, but its output has no column `{k}` (it has {})", cols.join(", ")))
                    .at(CONFIG_FILE, cfg.key_entry_spans.get(i).copied().or(cfg.key_span))
                    .help(format!("select `{k}` in model `{n}`: an upsert key is a column of the output (Flink's PRIMARY KEY of the sink), or key by columns the model selects")),
            );
        }
    }
    for (i, c) in schema.iter().enumerate() {
        let DataType::Unsupported(u) = c.ty else { continue };
        let (path, at) = output_expr_span(db, project, n, i, &c.name);
        out.push(
            Diagnostic::error(Code::SinkColumnTypeUnsupported, format!("model `{n}` writes column `{}` of type {} to its sink, which is not a type Streamform can write", c.name, u.sql_name()))
                .at(path, at)
                .help(format!("{}; the types a sink takes are in docs/types.md", u.instead())),
        );
    }
    if plan.materialized == Materialized::Upsert && plan.key.is_empty() && sc.connector == Connector::Kafka && sc.format != Format::Json {
        out.push(
            Diagnostic::error(Code::KeylessUpsertSinkFormat, format!("model `{n}` is an upsert model without key, written to Kafka as a debezium-json changelog, which has no {} form", sc.format.as_str()))
                .at(CONFIG_FILE, Some(sc.span))
                .help("set the sink's `format: json`, or declare the key that identifies a row"),
        );
    }
    // A key column the output lacks has its error (E0321) already.
    for k in sink_nullable_key(db, name).iter().filter(|k| schema.iter().any(|c| &c.name == *k)) {
        out.push(
            Diagnostic::warning(Code::SinkNullKeyDropped, format!("model `{n}` writes key column `{k}`, which may be null, to an upsert Kafka sink; Flink's primary key is NOT NULL, so rows whose `{k}` is null are left out of the sink"))
                .at(CONFIG_FILE, cfg.key_span)
                .help(format!("add `WHERE {k} IS NOT NULL` to model `{n}`, or a `not_null` contract on the source column `{k}` comes from; `test` counts the rows left out")),
        );
    }
    out
}

/// Where output column `index` (named `col`) of model `n` is computed: the
/// expression of its SELECT item (of the first SELECT of a UNION ALL), or
/// the model file when a `*` hides it.
fn output_expr_span(db: &dyn Db, project: Project, n: &str, index: usize, col: &str) -> (String, Option<Span>) {
    let Some(file) = model_file(db, project, n) else { return (format!("models/{n}.sql"), None) };
    let path = file.path(db).clone();
    let Ok(query) = parse_model(db, file) else { return (path, None) };
    let mut body = query.body.as_ref();
    let sel = loop {
        match body {
            sql::SetExpr::Select(sel) => break sel,
            sql::SetExpr::Query(q) => body = q.body.as_ref(),
            sql::SetExpr::SetOperation { left, .. } => body = left.as_ref(),
            _ => return (path, None),
        }
    };
    let named = |item: &sql::SelectItem| match item {
        sql::SelectItem::ExprWithAlias { alias, .. } => alias.value == col,
        sql::SelectItem::UnnamedExpr(sql::Expr::Identifier(id)) => id.value == col,
        sql::SelectItem::UnnamedExpr(sql::Expr::CompoundIdentifier(ids)) => ids.last().is_some_and(|id| id.value == col),
        _ => false,
    };
    let wildcard = sel.projection.iter().any(|i| matches!(i, sql::SelectItem::Wildcard(_) | sql::SelectItem::QualifiedWildcard(..)));
    let item = if wildcard { sel.projection.iter().find(|i| named(i)) } else { sel.projection.get(index) };
    let text = file.text(db);
    let span = match item {
        Some(sql::SelectItem::ExprWithAlias { expr, .. } | sql::SelectItem::UnnamedExpr(expr)) => to_span(text, expr.span()).map(|at| with_cast_keyword(text, expr, at)),
        _ => None,
    };
    (path, span)
}

/// sqlparser's span of a CAST starts at its operand: widen it to `CAST(`,
/// on the same line, so the mark covers the whole expression.
fn with_cast_keyword(text: &str, expr: &sql::Expr, at: Span) -> Span {
    if !matches!(expr, sql::Expr::Cast { .. }) {
        return at;
    }
    let start = at.offset as usize;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    match text[line_start..start].to_ascii_lowercase().rfind("cast") {
        Some(i) => {
            let from = line_start + i;
            let close = text[start..].find(')').map_or(start + at.len as usize, |j| start + j + 1);
            Span::at_offset(text, from, close - from)
        }
        None => at,
    }
}

/// The key columns of `name`'s upsert Kafka sink that may be null, in key
/// order; empty when the model writes no such sink, or when every key
/// column is proven not null (a `WHERE k IS NOT NULL` or a comparison of
/// `k` upstream, a contract that requires it, or the event time).
///
/// Not a query of its own: the model's checks hold what it finds (its sink
/// warning), and a memo more per such model is more for an edit that
/// re-verifies every model to walk; `build` and `test` ask it again for the
/// models they write.
pub fn sink_nullable_key<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Vec<String> {
    let project = name.project(db);
    let Some(plan) = model_plan(db, name).as_ref() else { return Vec::new() };
    let kafka = model_entry(db, name).sink.as_ref().is_some_and(|s| s.connector == Connector::Kafka);
    if plan.materialized != Materialized::Upsert || !kafka {
        return Vec::new();
    }
    plan.key.iter().filter(|k| !never_null(db, project, plan, k, 0)).cloned().collect()
}

/// What [`never_null`] reads of a source: the column its clock reads and
/// the predicates of the contracts that apply to it. Without the source's
/// spans, so that an edit that moves its entry in sources.yml re-runs no
/// model's [`sink_nullable_key`].
#[salsa::tracked(returns(ref))]
fn source_non_null<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> (Option<String>, Vec<Expr>) {
    let clock = source_config(db, project, name).as_ref().and_then(event_time).and_then(|t| t.clock().map(str::to_string));
    (clock, applied_contracts(db, project, name).rules.into_iter().map(|(_, e)| e).collect())
}

/// Whether output column `col` of `plan` is never null: it comes unchanged
/// from a column that a filter, a contract or the event-time rule requires.
fn never_null(db: &dyn Db, project: Project, plan: &ModelPlan, col: &str, depth: usize) -> bool {
    let mut col = col.to_string();
    for node in plan.nodes.iter().rev() {
        match &node.kind {
            // Not followed into each input: a union's or a join's column is taken as nullable.
            NodeKind::Union | NodeKind::Join { .. } => return false,
            // A window's bounds are never null (a window function's in FROM or `window:`'s).
            NodeKind::Aggregate { window: Some(_), .. } if col == "window_start" || col == "window_end" => return true,
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
                let (clock, rules) = source_non_null(db, project, SourceName::new(db, read.source.clone()));
                return clock.as_deref() == Some(col.as_str()) || rules.iter().any(|e| rejects_null(e, &col));
            }
        }
    }
    // A ref() reader: the column as the upstream model emits it. The
    // depth bound only guards against a cycle, which check reports.
    match plan.reads_models.as_slice() {
        [up] if depth < 64 => model_plan(db, ModelName::new(db, project, up.clone())).as_ref().is_some_and(|p| never_null(db, project, p, &col, depth + 1)),
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
