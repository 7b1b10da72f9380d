//! Static validation of one model: its configuration, what it reads, its
//! window's sources, and the warnings that need its plan.

use std::collections::BTreeMap;

use sqlparser::ast::{self as sql, Spanned};

use crate::config::project::WindowConfig;
use crate::backend::flink::script::rank_retentions;
use crate::duration::Duration;
use crate::window::{WindowShape, MAX_WINDOWS_PER_EVENT};
use crate::config::{Connector, LatePolicy, Materialized, ModelConfig};
use crate::db::{Db, ModelName, Project, SourceFile, SourceName};
use crate::diagnostic::{did_you_mean, Diagnostic, Span};
use crate::model::{located_reads, lower_model, parse_model, upstream_sources};
use crate::plan::lower::{declared_window_span, to_span, unwindowed_aggregate_keys};
use crate::plan::node::{ModelPlan, Operator, Retention};
use crate::project::{self, model_entry, source_config, CONFIG_FILE, SOURCES_FILE};
use crate::source::event_time;
use crate::diagnostic::Code;

/// One model's diagnostics, by the section of the report they belong to.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ModelChecks {
    /// Materialization, sink, retention and window configuration.
    pub config: Vec<Diagnostic>,
    /// source() and ref() that name nothing.
    pub refs: Vec<Diagnostic>,
    /// Window rules that depend on the upstream sources.
    pub window: Vec<Diagnostic>,
    /// The planning error, or warnings about the plan.
    pub planning: Vec<Diagnostic>,
    /// How the source's partitioning key meets the aggregate.
    pub key_order: Vec<Diagnostic>,
    /// The retention of each Rank node (models that rank rows must agree: E0323).
    pub rank_retentions: Vec<Retention>,
    /// The `nodes:` hints' (`upgrade::hints`).
    pub hints: Vec<Diagnostic>,
    /// What the model's sink cannot take ([`crate::sink::sink_checks`]):
    /// kept here rather than in a query of its own, one memo fewer per
    /// model for an edit that re-verifies every model to walk.
    pub sink: Vec<Diagnostic>,
}

/// What a model's checks read of a source upstream of it. Not its
/// watermark, topic, format or columns: editing those re-runs no model's
/// checks (a busy source can have hundreds of models downstream).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct UpstreamSource {
    name: String,
    span: Span,
    connector: Connector,
    key: Option<(Vec<String>, Span)>,
    /// Its event-time column, when it declares one.
    clock: Option<UpstreamClock>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct UpstreamClock {
    column: String,
    idle_timeout: bool,
    late: LatePolicy,
    late_events: Option<Span>,
    /// A `not_null` contract covers the event-time column.
    not_null: bool,
}

#[salsa::tracked(returns(ref))]
fn upstream_source<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Option<UpstreamSource> {
    let s = source_config(db, project, name).as_ref()?;
    let clock = event_time(s).map(|time| UpstreamClock {
        not_null: s.contracts.iter().any(|k| matches!(&k.rule, Some(crate::config::ContractRule::NotNull(cols)) if cols.contains(&time.column))),
        column: time.column,
        idle_timeout: time.idle_timeout.is_some(),
        late: time.late,
        late_events: s.late_events.map(|(_, span)| span.relative_to(s.span)),
    });
    Some(UpstreamSource { name: s.name.clone(), span: s.span.relative_to(s.span), connector: s.connector, key: s.key.clone().map(|(k, at)| (k, at.relative_to(s.span))), clock })
}

impl UpstreamSource {
    /// The path a model's checks locate this source's spans in: sources.yml,
    /// anchored at the source ([`place_in_sources`] makes it sources.yml).
    fn file(&self) -> String {
        format!("{SOURCES_FILE}#{}", self.name)
    }
}

/// Places the spans a model's checks locate in sources.yml: they are
/// relative to the entry of the source their path names
/// (`sources.yml#<source>`), so that an edit that moves a source's entry
/// re-runs no check of the models that read it. `starts`: where each
/// source's entry starts ([`project::source_entry_starts`]).
pub(crate) fn place_in_sources(d: &mut Diagnostic, starts: &BTreeMap<String, Span>) {
    let place = |path: &mut String, span: &mut Option<Span>| {
        let Some(source) = path.strip_prefix(SOURCES_FILE).and_then(|p| p.strip_prefix('#')) else { return };
        let base = starts.get(source).copied().unwrap_or_default();
        *span = span.map(|s| s.placed_at(base));
        *path = SOURCES_FILE.to_string();
    };
    if let Some(path) = &mut d.path {
        place(path, &mut d.span);
    }
    for l in &mut d.labels {
        place(&mut l.path, &mut l.span);
    }
}

fn upstream_configs<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Vec<&'db UpstreamSource> {
    let project = name.project(db);
    upstream_sources(db, name)
        .iter()
        .filter_map(|s| upstream_source(db, project, SourceName::new(db, s.clone())).as_ref())
        .collect()
}

#[salsa::tracked(returns(ref))]
pub fn model_checks<'db>(db: &'db dyn Db, name: ModelName<'db>) -> ModelChecks {
    let project = name.project(db);
    let n = name.text(db).clone();
    let mut out = ModelChecks { hints: crate::upgrade::hints::hint_diagnostics(db, name), sink: crate::sink::sink_checks(db, name), ..ModelChecks::default() };
    let Some(file) = project::model_source_file(db, name) else { return out };
    let c: &ModelConfig = model_entry(db, name);
    let upstream = upstream_configs(db, name);
    let has_clock = upstream.iter().any(|s| s.clock.is_some());
    config_checks(&n, c, &upstream, has_clock, &mut out.config);
    let self_ref = read_checks(db, project, &n, file, &mut out.refs);
    if let Some(w) = &c.window {
        window_source_checks(&n, (CONFIG_FILE, Some(w.span)), &upstream, &mut out.window);
    } else {
        sql_window_checks(db, &n, c, file, &upstream, &mut out.window);
    }

    // Planning.
    let lowered = lower_model(db, name);
    if let Some(e) = &lowered.error {
        // Unknown sources and models, and self references, are reported once,
        // by the reference checks above, not again as planning errors.
        if !self_ref && !matches!(e.code, Code::ReadsUnknownSource | Code::ReadsMissingModel) {
            out.planning.push(e.clone());
            out.planning.extend(lowered.more.iter().cloned());
        }
    }
    // The original still warns about the aggregate's key when only the
    // materialization failed.
    let keys = lowered.plan.as_ref().and_then(|p| unwindowed_aggregate_keys(&p.nodes)).or_else(|| lowered.aggregate_keys.clone());
    // Each source upstream (a union reads several) partitions its own events.
    if let Some(keys) = &keys {
        for root in &upstream {
            key_order_checks(&n, keys, root, &mut out.key_order);
        }
    }
    let Some(plan) = &lowered.plan else { return out };
    out.rank_retentions = rank_retentions(plan).collect();
    if let (Some(rank), Some(root)) = (plan.nodes.iter().find(|x| x.operator == Operator::Rank).and_then(|x| x.state.as_ref()), upstream.first()) {
        rank_order_checks(&n, &rank.keys, root, &mut out.key_order);
    }
    unaliased_column_warnings(db, &n, file, plan, &mut out.planning);
    unbounded_join_warnings(db, &n, file, plan, &mut out.planning);
    unused_retention_warning(&n, c, plan, &mut out.planning);
    out
}

/// W0860: a join without retention keeps every row of both inputs.
fn unbounded_join_warnings(db: &dyn Db, n: &str, file: SourceFile, plan: &ModelPlan, out: &mut Vec<Diagnostic>) {
    let unbounded = plan.nodes.iter().any(|node| node.state.as_ref().is_some_and(|s| s.join.is_some() && s.retention == Retention::Unbounded));
    if !unbounded {
        return;
    }
    let Ok(query) = parse_model(db, file) else { return };
    let mut spans = Vec::new();
    join_spans(query, &mut spans);
    for span in spans {
        out.push(
            Diagnostic::warning(Code::UnboundedJoinState, format!("model `{n}` joins two inputs and keeps every row of both in state, with no retention, so its state grows without bound"))
                .at(file.path(db).clone(), to_span(file.text(db), span))
                .help(format!("set `retention:` on `{n}` in streamform.yml (for example `retention: 1d`) so a row not updated for that long is dropped from the join's state; on Flink it is the join's STATE_TTL")),
        );
    }
}

/// W0861: retention on a model whose only state is an interval join's,
/// which keeps each row for its interval whatever the retention.
fn unused_retention_warning(n: &str, c: &ModelConfig, plan: &ModelPlan, out: &mut Vec<Diagnostic>) {
    let states: Vec<_> = plan.nodes.iter().filter_map(|node| node.state.as_ref()).collect();
    let interval = states.iter().any(|s| s.join.as_ref().is_some_and(|j| j.interval.is_some()));
    if c.retention.is_none() || !interval || states.iter().any(|s| matches!(s.retention, Retention::After(_))) {
        return;
    }
    out.push(
        Diagnostic::warning(Code::RetentionUnusedByIntervalJoin, format!("model `{n}` declares retention, but its only state is an interval join's, which keeps each row until the watermark passes its interval and takes no retention"))
            .at(CONFIG_FILE, c.retention_span)
            .help(format!("remove `retention:` from `{n}`: the interval bounds how long the join keeps rows")),
    );
}

/// Where each JOIN of a query is: the relation it joins.
fn join_spans(q: &sql::Query, out: &mut Vec<sqlparser::tokenizer::Span>) {
    for cte in q.with.iter().flat_map(|w| &w.cte_tables) {
        join_spans(&cte.query, out);
    }
    join_spans_in(&q.body, out);
}

fn join_spans_in(body: &sql::SetExpr, out: &mut Vec<sqlparser::tokenizer::Span>) {
    match body {
        sql::SetExpr::Select(sel) => {
            for from in &sel.from {
                for t in std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation)) {
                    if let sql::TableFactor::Derived { subquery, .. } = t {
                        join_spans(subquery, out);
                    }
                }
                out.extend(from.joins.iter().map(|j| j.relation.span()));
            }
        }
        sql::SetExpr::Query(q) => join_spans(q, out),
        sql::SetExpr::SetOperation { left, right, .. } => {
            join_spans_in(left, out);
            join_spans_in(right, out);
        }
        _ => {}
    }
}

/// Each source() and ref() that names nothing, once per target, in the
/// order met. Returns whether the model reads its own output.
fn read_checks(db: &dyn Db, project: Project, n: &str, file: SourceFile, out: &mut Vec<Diagnostic>) -> bool {
    let Ok(query) = parse_model(db, file) else { return false };
    let path = file.path(db);
    let sources = project::source_names(db, project);
    let mut self_ref = false;
    let mut seen: Vec<(bool, String)> = Vec::new();
    for (is_source, target, span) in located_reads(query, file.text(db)) {
        if seen.contains(&(is_source, target.clone())) {
            continue;
        }
        seen.push((is_source, target.clone()));
        if is_source {
            if !sources.contains(&target) {
                out.push(unknown_source(db, project, n, &target, sources).at(path.clone(), span));
            }
        } else if target == n {
            self_ref = true;
            out.push(
                Diagnostic::error(Code::ModelReadsItself, format!("model `{n}` reads ref('{n}'), its own output"))
                    .at(path.clone(), span)
                    .help("a model cannot read itself; read the source or the model it is computed from"),
            );
        } else if !project::model_exists(db, project, &target) {
            out.push(unknown_model(db, project, n, &target, sources).at(path.clone(), span));
        }
    }
    self_ref
}

/// E0730, without a location: `source('target')` names no declared source.
fn unknown_source(db: &dyn Db, project: Project, n: &str, target: &str, sources: &[String]) -> Diagnostic {
    let mut d = Diagnostic::error(Code::UnknownSource, format!("model `{n}` reads source('{target}'), but sources.yml declares no such source"));
    d.help = Some(match did_you_mean(target, sources.iter().map(String::as_str)) {
        Some(s) => format!("did you mean source('{s}')?"),
        None if project::model_exists(db, project, target) => format!("`{target}` is a model: read it with ref('{target}')"),
        None => format!("declare `{target}` under `sources:` in sources.yml"),
    });
    d
}

/// E0731, without a location: `ref('target')` names no model file.
fn unknown_model(db: &dyn Db, project: Project, n: &str, target: &str, sources: &[String]) -> Diagnostic {
    let mut d = Diagnostic::error(Code::UnknownModel, format!("model `{n}` reads ref('{target}'), but there is no models/{target}.sql"));
    // Existence is asked per target, not of the whole name list, so adding
    // or removing another model does not re-check this one; the list is
    // read only to suggest a name.
    d.help = Some(match did_you_mean(target, project::model_names(db, project).iter().map(String::as_str)) {
        Some(s) => format!("did you mean ref('{s}')?"),
        None if sources.contains(&target.to_string()) => format!("`{target}` is a source: read it with source('{target}')"),
        None => "ref() names another model of this project, the stem of a file under models/".into(),
    });
    d
}

/// A window declared by a window function in the model's SQL gets the
/// checks `window:` in streamform.yml gets, pointing at the function.
fn sql_window_checks(db: &dyn Db, n: &str, c: &ModelConfig, file: SourceFile, upstream: &[&UpstreamSource], out: &mut Vec<Diagnostic>) {
    let Ok(query) = parse_model(db, file) else { return };
    let Some(span) = declared_window_span(query) else { return };
    let path = file.path(db).clone();
    let at = to_span(file.text(db), span);
    if c.materialized == Materialized::Upsert {
        out.push(windowed_upsert(n, "a window").at(path.clone(), at));
    }
    window_source_checks(n, (&path, at), upstream, out);
}

/// E0718, for a window in streamform.yml or in the SQL (`what`: "a tumbling window").
fn windowed_upsert(n: &str, what: &str) -> Diagnostic {
    Diagnostic::error(Code::WindowedUpsertModel, format!("model `{n}` declares a window but is materialized as upsert; {what} emits one final row per group and window, an append changelog"))
        .help("set `materialized: append` and remove `key`")
}

/// What a window needs of each event-time source upstream: an idle
/// timeout, a `not_null` contract on its event time, and dropped late events.
fn window_source_checks(n: &str, (file, decl): (&str, Option<Span>), upstream: &[&UpstreamSource], out: &mut Vec<Diagnostic>) {
    let window_here = format!("the window of `{n}` is declared here");
    for s in upstream {
        let Some(time) = &s.clock else { continue };
        let et = &time.column;
        let sn = &s.name;
        let at = Some(s.span.with_len(sn.len()));
        let source_file = s.file();
        // Only a Kafka topic has partitions that can fall silent.
        if !time.idle_timeout && s.connector == Connector::Kafka {
            out.push(
                Diagnostic::warning(Code::WindowWithoutIdleTimeout, format!("model `{n}` declares a window, and source `{sn}` upstream of it declares no idle_timeout; while any partition of `{sn}` is silent, event time stops and no window closes"))
                    .at(source_file.clone(), at)
                    .label(file, decl, &window_here)
                    .help(format!("add `idle_timeout: 30s` to `{sn}`: a partition silent for that long stops holding event time back (its later events may then be late)")),
            );
        }
        if !time.not_null {
            out.push(
                Diagnostic::warning(Code::WindowWithoutEventTimeContract, format!("model `{n}` declares a window, and no `not_null` contract of source `{sn}` covers its event time `{et}`; on Flink a record without `{et}` fails the job at every restart"))
                    .at(source_file.clone(), at)
                    .label(file, decl, &window_here)
                    .help(format!("add a contract `{{name: has_{et}, not_null: [{et}]}}` and a `quarantine:` topic to `{sn}`, so such records are set aside")),
            );
        }
        // `keep` is never the default, so it was written and has a span.
        if let (LatePolicy::Keep, Some(span)) = (time.late, time.late_events) {
            out.push(
                Diagnostic::error(Code::WindowOverKeptLateEvents, format!("model `{n}` declares a window, but source `{sn}` upstream of it keeps late events (`late_events: keep`); a window that has closed cannot take them"))
                    .at(file, decl)
                    .label(source_file.clone(), Some(span.with_len(4)), format!("`{sn}` keeps late events here"))
                    .help(format!("set `late_events: drop` on `{sn}`, or remove the window from `{n}`")),
            );
        }
    }
}

/// W0764: an output column computed by an expression without an alias.
fn unaliased_column_warnings(db: &dyn Db, n: &str, file: SourceFile, plan: &ModelPlan, out: &mut Vec<Diagnostic>) {
    let Ok(query) = parse_model(db, file) else { return };
    let sql::SetExpr::Select(sel) = query.body.as_ref() else { return };
    let schema = &plan.sink().schema;
    let positional = !sel.projection.iter().any(|i| matches!(i, sql::SelectItem::Wildcard(_) | sql::SelectItem::QualifiedWildcard(..)));
    for (i, item) in sel.projection.iter().enumerate() {
        let sql::SelectItem::UnnamedExpr(e) = item else { continue };
        if matches!(e, sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_)) || matches!(e, sql::Expr::Nested(x) if matches!(**x, sql::Expr::Identifier(_))) {
            continue;
        }
        let named = if positional { schema.get(i).map(|c| format!(", so it is named `{}`", c.name)).unwrap_or_default() } else { String::new() };
        out.push(
            Diagnostic::warning(Code::UnaliasedColumn, format!("model `{n}`: the output column computed by `{e}` has no alias{named}"))
                .at(file.path(db).clone(), to_span(file.text(db), e.span()))
                .help(format!("name it with AS, for example `{e} AS {}`: readers, fixtures and sinks use this name", suggest_alias(e))),
        );
    }
}

/// How a keyed node groups rows, for [`source_key_checks`]: the codes and
/// the words of its two warnings.
struct KeyedBy<'a> {
    /// The columns it groups (or partitions) by.
    keys: &'a [String],
    unkeyed: Code,
    misses: Code,
    /// "aggregates", "ranks".
    verb: &'a str,
    /// "groups by", "ranks rows partitioned by".
    grouped: &'a str,
    /// What may differ from the tests when the source declares no key.
    why_unkeyed: &'a str,
    /// ... and when the keys miss a column of the source's key.
    why_misses: &'a str,
    help_misses: &'a str,
}

/// W0765/W0766: how the root Kafka source's partitioning key meets the
/// key of an unwindowed aggregate.
/// A window emits each group once, final: arrival order does not show, so
/// only an unwindowed aggregate's `keys` are checked.
fn key_order_checks(n: &str, keys: &[String], root: &UpstreamSource, out: &mut Vec<Diagnostic>) {
    let keys: Vec<String> = keys.iter().filter(|k| *k != "window_start" && *k != "window_end").cloned().collect();
    let order = "one group's updates may reach the sink in a different order than the tests show (final values are the same)";
    source_key_checks(n, root, KeyedBy {
        keys: &keys,
        unkeyed: Code::AggregateOverUnkeyedKafka,
        misses: Code::GroupByMissesSourceKey,
        verb: "aggregates",
        grouped: "groups by",
        why_unkeyed: order,
        why_misses: "one group's events can arrive on several partitions, so its updates may reach the sink in a different order than the tests show (final values are the same)",
        help_misses: "group by the source's key columns too, or make sure the sink's readers only need the latest value per key",
    }, out);
}

/// W0820/W0821: how the root Kafka source's partitioning key meets a
/// Rank's partition. Unlike an aggregate's, a Rank's result depends on the
/// order its rows arrive in (which of equal rows a Top-N keeps, which of
/// two rows at one time a deduplication keeps last).
fn rank_order_checks(n: &str, partition: &[String], root: &UpstreamSource, out: &mut Vec<Diagnostic>) {
    let why = "rows of one partition of the ranking can arrive in another order than the tests show, and which of equal rows a Top-N keeps (or a deduplication keeps last, at equal times) follows that order";
    source_key_checks(n, root, KeyedBy {
        keys: partition,
        unkeyed: Code::RankOverUnkeyedKafka,
        misses: Code::RankPartitionMissesSourceKey,
        verb: "ranks",
        grouped: "ranks rows partitioned by",
        why_unkeyed: why,
        why_misses: why,
        help_misses: "partition by the source's key columns too, or order by enough columns that no two rows tie",
    }, out);
}

/// A keyed node over a Kafka source: the source declares no key, or the
/// node's keys do not include all of it.
fn source_key_checks(n: &str, root: &UpstreamSource, k: KeyedBy, out: &mut Vec<Diagnostic>) {
    if root.connector != Connector::Kafka {
        return;
    }
    let sn = &root.name;
    match &root.key {
        None => out.push(
            Diagnostic::warning(k.unkeyed, format!("model `{n}` {} source `{sn}`, which declares no key; if its topic has several partitions, {}", k.verb, k.why_unkeyed))
                .at(root.file(), Some(root.span.with_len(sn.len())))
                .help(format!("declare `key:` on `{sn}`: the columns its producers partition messages by")),
        ),
        Some((skey, span)) if !skey.iter().all(|c| k.keys.contains(c)) => out.push(
            Diagnostic::warning(k.misses, format!("model `{n}` {} [{}], which does not include all of source `{sn}`'s key ({}); {}", k.grouped, k.keys.join(", "), skey.join(", "), k.why_misses))
                .at(root.file(), Some(*span))
                .help(k.help_misses),
        ),
        _ => {}
    }
}

fn suggest_alias(e: &sql::Expr) -> String {
    if let sql::Expr::Function(f) = e {
        let fname = f.name.to_string().to_lowercase();
        if let sql::FunctionArguments::List(l) = &f.args {
            if let [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::Identifier(id)))] = l.args.as_slice() {
                return format!("{fname}_{}", id.value);
            }
            if fname == "count" {
                return "n".into();
            }
        }
        return fname;
    }
    "value".into()
}

fn config_checks(n: &str, c: &ModelConfig, upstream: &[&UpstreamSource], has_clock: bool, out: &mut Vec<Diagnostic>) {
    let f = CONFIG_FILE;
    if let Some(sink) = &c.sink {
        let missing = match sink.connector {
            Connector::Kafka if sink.topic.is_none() => Some(("topic", format!("add `topic: {n}` to the sink"))),
            Connector::File if sink.path.is_none() => Some(("path", format!("add `path: /data/{n}` to the sink"))),
            Connector::Iceberg if sink.table.is_none() => Some(("table", format!("add `table: analytics.{n}`: the namespace and the table in the target's catalog"))),
            _ => None,
        };
        if let Some((key, help)) = missing {
            out.push(Diagnostic::error(Code::SinkWithoutDestination, format!("the sink of model `{n}` uses the {} connector but names no {key}", sink.connector.as_str())).at(f, Some(sink.span)).help(help));
        }
        if let (Connector::Iceberg, Some(t)) = (sink.connector, &sink.table) {
            let parts: Vec<&str> = t.split('.').collect();
            let ok = parts.len() == 2 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_'));
            if !ok {
                out.push(
                    Diagnostic::error(Code::BadIcebergTable, format!("the sink of model `{n}` names the iceberg table `{t}`, which is not `namespace.table`"))
                        .at(f, Some(sink.span))
                        .help(format!("write both parts with letters, digits and underscores, for example `analytics.{}`", sanitize(t))),
                );
            }
        }
        if sink.connector == Connector::File && c.materialized == Materialized::Upsert {
            out.push(
                Diagnostic::error(Code::UpsertToFileSink, format!("model `{n}` is materialized as upsert, but its sink is a file, which cannot carry updates and deletes"))
                    .at(f, Some(sink.span))
                    .help("write this model to a kafka topic, or materialize it as append"),
            );
        }
    }
    if c.materialized == Materialized::Append && c.key.as_ref().is_some_and(|k| !k.is_empty()) {
        out.push(
            Diagnostic::warning(Code::KeyOnAppendModel, format!("model `{n}` declares a key but is materialized as append, so the key is ignored"))
                .at(f, c.key_span.or(Some(c.span.with_len(n.len()))))
                .help("set `materialized: upsert`, or remove `key`"),
        );
    }
    if let Some(w) = &c.window {
        if c.materialized == Materialized::Upsert {
            out.push(windowed_upsert(n, &format!("a {} window", w.shape.kind())).at(f, Some(w.span)));
        }
        out.extend(hop_slide_check(n, w).or_else(|| hop_windows_check(n, w)));
        out.extend(zero_window_check(n, w));
        if c.retention.is_some() {
            out.push(
                Diagnostic::error(Code::WindowWithRetention, format!("model `{n}` declares both a window and retention; a window's state is dropped when the window closes, so retention has nothing to expire"))
                    .at(f, c.retention_span.or(Some(w.span)))
                    .help("remove `retention`"),
            );
        }
        if !has_clock {
            out.push(
                without_clock(upstream, Diagnostic::error(Code::WindowWithoutEventTime, format!("model `{n}` declares a window, but no source upstream of it declares event_time, so there is no clock to close windows by"))
                    .at(f, Some(w.span)))
                    .help("declare `event_time:` on the source the model reads, directly or through ref()"),
            );
        }
    } else if c.retention.is_some() && !has_clock {
        out.push(
            without_clock(upstream, Diagnostic::error(Code::RetentionWithoutEventTime, format!("model `{n}` declares retention, but no source upstream of it declares event_time, so there is no clock to expire state by"))
                .at(f, c.retention_span.or(Some(c.span.with_len(n.len())))))
                .help("declare `event_time:` on the source the model reads (directly or through ref()), or remove `retention`"),
        );
    }
}

/// A window needs a positive size, and a session a positive gap.
fn zero_window_check(n: &str, w: &WindowConfig) -> Option<Diagnostic> {
    let d = match w.shape {
        WindowShape::Session { gap } if gap.millis() == 0 => Diagnostic::error(Code::ZeroWindowSize, format!("model `{n}` declares a session window with a gap of {gap}; a session needs a positive gap"))
            .help("give `window.gap` a positive duration, for example `30m`"),
        WindowShape::Tumbling { size } | WindowShape::Hop { size, .. } if size.millis() == 0 => Diagnostic::error(Code::ZeroWindowSize, format!("model `{n}` declares a window of size {size}; a window needs a positive size"))
            .help("give `window.size` a positive duration, for example `5m`"),
        _ => return None,
    };
    Some(d.at(CONFIG_FILE, Some(w.span)))
}

/// A hop window's slide must be positive and divide its size (Flink's
/// hop windows need whole slices).
fn hop_slide_check(n: &str, w: &WindowConfig) -> Option<Diagnostic> {
    let WindowShape::Hop { size, slide } = w.shape else { return None };
    (!w.shape.slide_fits()).then(|| {
        Diagnostic::error(Code::BadHopSlide, format!("model `{n}` declares a hop window of size {size} sliding by {slide}; the slide must be positive and divide the size"))
            .at(CONFIG_FILE, Some(w.span))
            .help("pick a slide that divides the size, for example `size: 10m, slide: 5m`")
    })
}

/// A hop window must not put an event in more windows than the limit.
fn hop_windows_check(n: &str, w: &WindowConfig) -> Option<Diagnostic> {
    let WindowShape::Hop { size, slide } = w.shape else { return None };
    (!w.shape.windows_fit()).then(|| {
        Diagnostic::error(Code::TooManyHopWindows, format!("model `{n}` declares a hop window of size {size} sliding by {slide}, which puts each event in {} windows; the limit is {}", w.shape.windows_per_event(), MAX_WINDOWS_PER_EVENT))
            .at(CONFIG_FILE, Some(w.span))
            .help(format!("slide by {} or more (a slide that divides the size), so each event falls in at most {MAX_WINDOWS_PER_EVENT} windows; or use a tumbling window", Duration(size.millis().div_ceil(MAX_WINDOWS_PER_EVENT))))
    })
}

/// Labels each upstream source: none of them declares event_time.
fn without_clock(upstream: &[&UpstreamSource], d: Diagnostic) -> Diagnostic {
    upstream.iter().fold(d, |d, s| {
        d.label(s.file(), Some(s.span.with_len(s.name.len())), format!("source `{}` declares no event_time", s.name))
    })
}

fn sanitize(t: &str) -> String {
    let s: String = t.rsplit('.').next().unwrap_or(t).chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if s.is_empty() { "table".into() } else { s }
}
