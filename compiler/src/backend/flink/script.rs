//! The whole script: SET statements, source DDL in order of first use,
//! the Iceberg catalog, a view and sink table per model, one
//! EXECUTE STATEMENT SET.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::ddl::{self, iceberg_catalog, sink_ddl, sink_table_name, source_ddl, SourceDdl};
use super::expr::{ident, string_literal};
use super::query::{model_query, ModelQuery};
use crate::config::{Connector, ModelConfig, Target};
use crate::db::{Db, Environment, ModelName, Project, SourceName};
use crate::delivery;
use crate::diagnostic::Diagnostic;
use crate::duration::Duration;
use crate::graph::dependency_graph;
use crate::model::{model_contract, model_plan, model_reads};
use crate::plan::node::{Column, ModelPlan, NodeKind, Retention};
use crate::project::{model_config, model_entry, model_entry_start, project_config, source_config, CONFIG_FILE};
use crate::sink::sink_nullable_key;
use crate::source::{applied_contracts, event_time};
use crate::target::{resolved_target, Secret, TargetName};
use crate::diagnostic::Code;

/// The generated application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlinkScript {
    pub text: String,
    pub statements: usize,
    /// What Flink runs differently from the plan, and models nothing runs.
    pub warnings: Vec<Diagnostic>,
}

/// Why the backend cannot express the application (each a message such as
/// ``model `m`: column `s` has type unsupported(Float32), which has no Flink SQL type``).
pub type BuildErrors = Vec<String>;

/// A model's view (and window input view), from its plan and the
/// columns of the models it reads.
#[salsa::tracked(returns(ref))]
pub fn flink_model_query<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<ModelQuery> {
    let project = name.project(db);
    let plan = model_plan(db, name).as_ref()?;
    Some(model_query(plan, &upstream_schema(db, project), false))
}

/// The model's view in a job whose `table.exec.state.ttl` is set (see
/// `job_ttl`): rendered again, not kept, as few jobs have one.
fn model_query_under_job_ttl(db: &dyn Db, project: Project, plan: &ModelPlan) -> ModelQuery {
    model_query(plan, &upstream_schema(db, project), true)
}

/// The columns of a model a view reads: its output contract.
fn upstream_schema(db: &dyn Db, project: Project) -> impl Fn(&str) -> Vec<Column> + '_ {
    move |m: &str| model_contract(db, ModelName::new(db, project, m.to_string())).as_ref().map(|c| c.schema.clone()).unwrap_or_default()
}

/// The retention of each Rank node of `plan`.
pub(crate) fn rank_retentions(plan: &ModelPlan) -> impl Iterator<Item = Retention> + '_ {
    plan.nodes.iter().filter(|n| matches!(n.kind, NodeKind::Rank { .. })).filter_map(|n| Some(n.state.as_ref()?.retention))
}

/// The job's `table.exec.state.ttl`: Flink's STATE_TTL hint does not reach
/// a Top-N or a deduplication, so their retention is the job's. Every model
/// that ranks rows (`ranks`: each model and a retention of its) must then
/// agree on it; `Err` is E0323, which `check` reports.
pub(crate) fn job_ttl(db: &dyn Db, project: Project, ranks: &[(String, Retention)]) -> Result<Option<Duration>, Diagnostic> {
    let Some((first, retention)) = ranks.iter().find(|(_, r)| matches!(r, Retention::After(_))) else { return Ok(None) };
    match ranks.iter().find(|(_, r)| r != retention) {
        Some((other, r)) => {
            let span_of = |m: &str| model_config(db, ModelName::new(db, project, m.to_string())).retention_span;
            let at = span_of(other).or_else(|| Some(model_config(db, ModelName::new(db, project, other.clone())).span.with_len(other.len())));
            Err(Diagnostic::error(
                Code::RankRetentionsDiffer,
                format!("models `{first}` and `{other}` rank rows with retention {retention} and {r}; on Flink a Top-N or deduplication takes its retention from the job's one `table.exec.state.ttl`, so every model that ranks rows must declare the same retention (or none)"),
            )
            .at(CONFIG_FILE, at)
            .label(CONFIG_FILE, span_of(first), format!("`{first}` declares retention {retention} here"))
            .help(format!("give `{other}` the retention of `{first}` ({retention}), or run one of them in another project")))
        }
        None => Ok(match retention {
            Retention::After(d) => Some(*d),
            _ => None,
        }),
    }
}
/// A source's DDL for a target, as it resolves in `env`.
#[salsa::tracked(returns(ref))]
pub fn flink_source_ddl<'db>(db: &'db dyn Db, project: Project, source: SourceName<'db>, env: Environment, target: TargetName<'db>) -> Option<SourceDdl> {
    let t = &resolved_target(db, project, env, target).as_ref().ok()?.target;
    let s = source_config(db, project, source).as_ref()?;
    let committed = s.connector == Connector::Kafka && t.source_topic(&s.name, s.topic.as_deref()).is_some_and(|topic| delivery::reads_committed(delivery::exactly_once_topics(db, project, env, target), t, topic));
    Some(source_ddl(s, event_time(s).as_ref(), &applied_contracts(db, project, source), t, committed))
}

/// The whole script for a target as it resolves in `env` (its secrets as
/// placeholders; [`reveal`] makes what `apply` sends). The project must
/// check cleanly and the target resolve (the commands refuse otherwise),
/// so every model has a plan.
#[salsa::tracked(returns(ref))]
pub fn flink_script<'db>(db: &'db dyn Db, project: Project, env: Environment, target: TargetName<'db>) -> Result<FlinkScript, BuildErrors> {
    assemble(db, project, env, target, None)
}

/// The script of a selection of models (`build --select`): the views of
/// the selected models and of every model they read, and the INSERTs of
/// the selected ones alone. Not tracked: a selection is asked for once.
pub fn flink_script_selected<'db>(db: &'db dyn Db, project: Project, env: Environment, target: TargetName<'db>, selected: &[String]) -> Result<FlinkScript, BuildErrors> {
    assemble(db, project, env, target, Some(selected))
}

fn assemble<'db>(db: &'db dyn Db, project: Project, env: Environment, target: TargetName<'db>, selected: Option<&[String]>) -> Result<FlinkScript, BuildErrors> {
    if project_config(db, project).is_err() {
        return Err(vec!["the project does not load".into()]);
    }
    let Ok(resolved) = resolved_target(db, project, env, target) else {
        return Err(vec![format!("target `{}` does not resolve", target.text(db))]);
    };
    let t = &resolved.target;
    let order = &dependency_graph(db, project).order;
    let needed = selected.map(|sel| upstream_closure(db, project, sel));
    let plans: Vec<Arc<ModelPlan>> = order
        .iter()
        .filter(|m| needed.as_ref().is_none_or(|n| n.contains(*m)))
        .filter_map(|m| model_plan(db, ModelName::new(db, project, m.clone())).clone())
        .collect();
    let read_models: BTreeSet<String> = order.iter().flat_map(|m| model_reads(db, ModelName::new(db, project, m.clone())).models.clone()).collect();
    let iceberg_used = plans.iter().any(|p| sink_of(db, project, &p.name).is_some_and(|s| s.connector == Connector::Iceberg));

    let ranks: Vec<(String, Retention)> = plans.iter().flat_map(|p| rank_retentions(p).map(|r| (p.name.clone(), r))).collect();
    let ttl = job_ttl(db, project, &ranks).map_err(|e| vec![e.message])?;
    // Iceberg and exactly-once Kafka sinks commit at checkpoints.
    let checkpointed = iceberg_used || project_config(db, project).as_ref().is_ok_and(delivery::any_exactly_once);
    let mut script = Parts { body: set_statements(&plans, t, checkpointed), job_ttl: ttl.is_some(), ..Parts::default() };
    if let Some(d) = ttl {
        script.body.push(format!("SET 'table.exec.state.ttl' = '{d}';"));
    }
    script.sources(db, project, &plans, env, target);
    if iceberg_used {
        script.iceberg(db, project, &plans, t);
    }
    for p in &plans {
        let written = selected.is_none_or(|sel| sel.contains(&p.name));
        script.model(db, project, p, t, read_models.contains(&p.name), written);
    }
    script.finish()
}

/// The selected models and every model upstream of them.
fn upstream_closure(db: &dyn Db, project: Project, selected: &[String]) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<String> = selected.to_vec();
    while let Some(m) = stack.pop() {
        if seen.insert(m.clone()) {
            stack.extend(model_reads(db, ModelName::new(db, project, m)).models.iter().cloned());
        }
    }
    seen
}

/// The warnings only `build` gives (`check` cannot see them, so it does
/// not judge allow entries for them: `warnings::unmatched`).
pub const BUILD_ONLY_WARNINGS: &[Code] = &[Code::RetentionAsProcessingTimeTtl, Code::ModelNeverRuns];

/// The script as it is assembled: statements in order, the INSERTs of the
/// statement set, and what the models say about it.
#[derive(Default)]
struct Parts {
    body: Vec<String>,
    inserts: Vec<String>,
    quarantine_inserts: Vec<String>,
    warnings: Vec<Diagnostic>,
    errors: BuildErrors,
    /// The job sets `table.exec.state.ttl` (`job_ttl`).
    job_ttl: bool,
}

/// The SET statements the application needs: checkpoints when it writes
/// Iceberg, one-phase aggregation when it has windows.
fn set_statements(plans: &[Arc<ModelPlan>], t: &Target, checkpointed: bool) -> Vec<String> {
    let mut head: Vec<String> = Vec::new();
    if checkpointed {
        head.push(format!("SET 'execution.checkpointing.interval' = '{}';", delivery::checkpoint_interval_text(t)));
    }
    if plans.iter().any(|p| p.nodes.iter().any(|n| matches!(n.kind, NodeKind::Aggregate { window: Some(_), .. }))) {
        head.push("SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';".into());
    }
    head
}

impl Parts {
    /// A model's warning, unless streamform.yml allows it.
    fn warn(&mut self, db: &dyn Db, project: Project, model: &ModelConfig, d: Diagnostic) {
        let project_allow = project_config(db, project).as_ref().map(|c| c.allow.as_slice()).unwrap_or(&[]);
        if crate::warnings::allowing(project_allow, Some(model), &d).is_none() {
            self.warnings.push(d);
        }
    }

    /// Each source's DDL, in order of first use.
    fn sources<'db>(&mut self, db: &'db dyn Db, project: Project, plans: &[Arc<ModelPlan>], env: Environment, target: TargetName<'db>) {
        let mut sources: Vec<String> = Vec::new();
        for p in plans {
            for n in &p.nodes {
                if let NodeKind::Source(read) = &n.kind {
                    if !sources.contains(&read.source) {
                        sources.push(read.source.clone());
                    }
                }
            }
        }
        for s in &sources {
            if let Some(ddl) = flink_source_ddl(db, project, SourceName::new(db, s.clone()), env, target) {
                self.body.extend(ddl.statements.iter().cloned());
                self.quarantine_inserts.extend(ddl.quarantine_insert.clone());
            }
        }
    }

    /// The Iceberg catalog, and each namespace the sinks write, in order of first use.
    fn iceberg(&mut self, db: &dyn Db, project: Project, plans: &[Arc<ModelPlan>], t: &Target) {
        if let Some(ice) = &t.iceberg {
            self.body.push(iceberg_catalog(ice));
        }
        let mut namespaces: Vec<String> = Vec::new();
        for p in plans {
            let sink = sink_of(db, project, &p.name).filter(|s| s.connector == Connector::Iceberg);
            if let Some((ns, _)) = sink.as_ref().and_then(|s| s.table.as_deref()).and_then(|t| t.split_once('.')) {
                if !namespaces.iter().any(|n| n == ns) {
                    namespaces.push(ns.to_string());
                }
            }
        }
        for ns in namespaces {
            self.body.push(format!("CREATE DATABASE IF NOT EXISTS {}.{};", ident(ddl::ICEBERG_CATALOG), ident(&ns)));
        }
    }

    /// A model's views, then its sink table and INSERT; or why Flink runs
    /// it differently (W0790) or not at all (W0791).
    /// A model's views and, when `written`, its sink and INSERT.
    fn model(&mut self, db: &dyn Db, project: Project, p: &ModelPlan, t: &Target, has_reader: bool, written: bool) {
        let name = ModelName::new(db, project, p.name.clone());
        let under_ttl;
        let q = if self.job_ttl {
            under_ttl = model_query_under_job_ttl(db, project, p);
            &under_ttl
        } else {
            let Some(q) = flink_model_query(db, name) else { return };
            q
        };
        if let Some(w) = &q.window_input {
            self.body.push(format!("CREATE TEMPORARY VIEW {} AS\n{w};", ident(&format!("{}__window_input", p.name))));
        }
        self.body.push(format!("CREATE TEMPORARY VIEW {} AS\n{};", ident(&p.name), q.view));
        if !written {
            return;
        }
        let sink = p.sink();
        let cfg = &*model_config(db, name);
        if let Some(n) = p.nodes.iter().find(|n| n.state.is_some()) {
            if let Some(Retention::After(d)) = n.state.as_ref().map(|s| s.retention) {
                let how = if matches!(n.kind, NodeKind::Rank { .. }) { "the job's table.exec.state.ttl" } else { "a STATE_TTL hint" };
                self.warn(
                    db,
                    project,
                    cfg,
                    Diagnostic::warning(Code::RetentionAsProcessingTimeTtl, format!("model `{}` declares retention {d}; on Flink it is {how}, enforced in processing time, so it is approximate — and under replay it may keep state a fresh run would have dropped", p.name))
                        .at(CONFIG_FILE, cfg.retention_span)
                        .help("the simulator expires state by event time; docs/flink.md lists the differences"),
                );
            }
        }
        match &cfg.sink {
            Some(sc) => {
                // The refusals are `check`'s too (crate::sink), so a project
                // that checks never meets them here.
                let at = model_entry_start(db, name);
                let checks: Vec<Diagnostic> = crate::sink::sink_checks(db, name).iter().map(|d| d.clone().placed(CONFIG_FILE, at)).collect();
                self.errors.extend(checks.iter().filter(|d| d.is_error()).map(|d| d.message.clone()));
                let eo = project_config(db, project).as_ref().ok().and_then(|c| delivery::exactly_once(c, t, &p.name, sc));
                self.body.push(sink_ddl(&p.name, sc, p.materialized, &p.key, &sink.schema, t, eo.as_ref()));
                let nullable = sink_nullable_key(db, name);
                self.inserts.push(format!("INSERT INTO {} SELECT * FROM {}{};", sink_table_name(&p.name, sc), ident(&p.name), not_null_filter(&nullable)));
                for w in checks.iter().filter(|d| !d.is_error()) {
                    self.warn(db, project, cfg, w.clone());
                }
            }
            None if !has_reader => self.warn(
                db,
                project,
                cfg,
                Diagnostic::warning(Code::ModelNeverRuns, format!("model `{}` has no sink and no reader, so nothing on Flink runs it", p.name))
                    .at(CONFIG_FILE, None)
                    .help(format!("add a `sink:` to `{}` in streamform.yml, or read it with ref('{}')", p.name, p.name)),
            ),
            None => {}
        }
    }
}

/// ` WHERE k IS NOT NULL AND …` for the key columns that may be null (crate::sink).
fn not_null_filter(nullable: &[String]) -> String {
    if nullable.is_empty() {
        return String::new();
    }
    let conds: Vec<String> = nullable.iter().map(|k| format!("{} IS NOT NULL", ident(k))).collect();
    format!(" WHERE {}", conds.join(" AND "))
}

impl Parts {
    /// The statements joined, then one EXECUTE STATEMENT SET of every INSERT.
    fn finish(self) -> Result<FlinkScript, BuildErrors> {
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let mut inserts = self.inserts;
        inserts.extend(self.quarantine_inserts);
        let mut statements = self.body.len();
        let mut text = self.body.join("\n\n");
        if !inserts.is_empty() {
            statements += 1;
            let lines: Vec<String> = inserts.iter().map(|i| format!("  {i}")).collect();
            text.push_str(&format!("\n\nEXECUTE STATEMENT SET\nBEGIN\n{}\nEND;", lines.join("\n")));
        }
        text.push('\n');
        Ok(FlinkScript { text, statements, warnings: self.warnings })
    }
}

/// The script as `apply` sends it: each secret's placeholder, where it
/// stands as a connector option's value, replaced by the secret. Only in
/// memory, never written.
pub fn reveal(script: &str, secrets: &[Secret]) -> String {
    let mut out = script.to_string();
    for s in secrets {
        out = out.replace(&format!(" = {}", string_literal(&s.placeholder)), &format!(" = {}", string_literal(&s.value)));
    }
    out
}

/// A model's sink, for its connector and destination (its spans are
/// relative to the model's entry).
fn sink_of(db: &dyn Db, project: Project, model: &str) -> Option<crate::config::SinkConfig> {
    model_entry(db, ModelName::new(db, project, model.to_string())).sink.clone()
}

