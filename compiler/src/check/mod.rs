//! `check`: every diagnostic of a loaded project, as data, in report order:
//! targets; model configuration; source()/ref() references and cycles;
//! source declarations; fixtures' targets; unused sources; window rules;
//! then per model (by name) its planning errors and plan warnings, and the
//! notes on models that fail only because what they read fails; then the
//! fixtures' expectations; then the source-key ordering warnings.
//!
//! Each part is its own query (per model, per source, per fixture file), so
//! an edit re-validates only what it touches.

pub mod fixtures;
pub mod models;
pub mod sources;

use std::collections::HashMap;

use crate::config::{Connector, ProjectConfig};
use crate::db::{Db, ModelName, Project, SourceFile, SourceName};
use crate::diagnostic::{did_you_mean, Diagnostic, Severity, Span};
use crate::backend::flink::script::job_ttl;
use crate::graph::dependency_graph;
use crate::plan::node::Retention;
use crate::model::{model_plan, upstream_sources};
use crate::project::{self, model_file, project_config, sources_config, CONFIG_FILE, SOURCES_FILE};

pub use fixtures::{fixture, Fixture};
pub use models::{model_checks, ModelChecks};
pub use sources::source_diagnostics;
use crate::diagnostic::Code;
use crate::warnings::{self, AllowedWarning};

/// A fixture as listed by `check`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FixtureSummary {
    pub model: String,
    pub path: String,
    pub given: usize,
    pub expect: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CheckReport {
    pub diagnostics: Vec<Diagnostic>,
    pub fixtures: Vec<FixtureSummary>,
    /// Warnings a `warnings: {allow: [...]}` entry accepts, in report order
    /// of the models', then the project's.
    pub allowed: Vec<AllowedWarning>,
}

impl CheckReport {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }

    pub fn warnings(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count()
    }
}

/// Load errors of the fixture files (malformed fixtures stop the project
/// from loading, like malformed configuration).
#[salsa::tracked(returns(ref))]
pub fn fixture_load_errors(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &f in project.fixture_files(db) {
        if let Err(e) = fixture(db, f) {
            out.extend(e.iter().cloned());
        }
    }
    out
}

/// Everything that stops the project from loading: configuration, models
/// and fixtures.
pub fn all_load_errors(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let mut out = project::load_errors(db, project).clone();
    out.extend(fixture_load_errors(db, project).iter().cloned());
    out
}

/// One segment of models' diagnostics (see [`crate::segments`]), each
/// section in name order, with what the segment reads for the unused-source
/// warning.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct SegmentChecks {
    config: Vec<Diagnostic>,
    refs: Vec<Diagnostic>,
    window: Vec<Diagnostic>,
    /// Per model: its planning diagnostics, then its hints' diagnostics.
    planning: Vec<Diagnostic>,
    key_order: Vec<Diagnostic>,
    /// Each model that ranks rows, and a retention of its (E0323).
    ranks: Vec<(String, Retention)>,
    /// Sources the segment's models name, sorted and deduplicated.
    sources_read: Vec<String>,
    /// The warnings each model's own allow list accepts.
    allowed: Vec<AllowedWarning>,
}

/// A segment's checks as its models' queries locate them: in
/// streamform.yml from each model's entry, in sources.yml from each
/// source's entry (`sources.yml#<source>`). `owners` holds how many of each
/// list's diagnostics each model added, in the segment's order.
/// [`segment_checks`] places them: an edit that only moves entries re-runs
/// that placing, not this.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct UnplacedChecks {
    checks: SegmentChecks,
    owners: Vec<[u32; 6]>,
}

#[salsa::tracked(returns(ref))]
fn segment_checks_unplaced(db: &dyn Db, project: Project, segment: u32) -> UnplacedChecks {
    let mut out = SegmentChecks::default();
    let mut owners = Vec::new();
    for &key in project::segment_keys(db, project, segment) {
        let c = model_checks(db, key);
        let cfg = project::model_entry(db, key);
        let before = out.counts();
        // The model's own allow list here; the project's in `check_report`.
        // An entry allows by code, so it is applied before the placing.
        let mut own = |to: &mut Vec<Diagnostic>, diags: &[Diagnostic]| {
            let start = to.len();
            to.extend(diags.iter().cloned());
            if !cfg.allow.is_empty() {
                let mut added = to.split_off(start);
                warnings::set_aside(&[], Some(cfg), &mut added, &mut out.allowed);
                to.extend(added);
            }
        };
        own(&mut out.config, &c.config);
        own(&mut out.refs, &c.refs);
        own(&mut out.window, &c.window);
        own(&mut out.planning, &c.planning);
        own(&mut out.planning, &c.hints);
        own(&mut out.planning, &c.sink);
        own(&mut out.key_order, &c.key_order);
        let after = out.counts();
        owners.push(std::array::from_fn(|i| after[i] - before[i]));
        out.ranks.extend(c.rank_retentions.iter().map(|r| (key.text(db).clone(), *r)));
        out.sources_read.extend(crate::model::named_reads(db, key).sources.iter().cloned());
    }
    out.sources_read.sort();
    out.sources_read.dedup();
    UnplacedChecks { checks: out, owners }
}

impl SegmentChecks {
    /// The lists of diagnostics located from a model's entry, in the order
    /// [`UnplacedChecks::owners`] counts them (`allowed` is the sixth).
    fn located(&mut self) -> [&mut Vec<Diagnostic>; 5] {
        [&mut self.config, &mut self.refs, &mut self.window, &mut self.planning, &mut self.key_order]
    }

    /// The lengths of [`SegmentChecks::located`] and of `allowed`.
    fn counts(&mut self) -> [u32; 6] {
        let [a, b, c, d, e] = self.located().map(|l| l.len() as u32);
        [a, b, c, d, e, self.allowed.len() as u32]
    }
}

/// A segment's checks, placed: each diagnostic at its model's entry in
/// streamform.yml and its source's in sources.yml.
#[salsa::tracked(returns(ref))]
pub(crate) fn segment_checks(db: &dyn Db, project: Project, segment: u32) -> SegmentChecks {
    let UnplacedChecks { checks, owners } = segment_checks_unplaced(db, project, segment);
    let starts = project::segment_entry_starts(db, project, segment);
    let sources = project::source_entry_starts(db, project);
    let mut out = checks.clone();
    let place = |d: &mut Diagnostic, at: Span| {
        d.place(CONFIG_FILE, at);
        models::place_in_sources(d, sources);
    };
    let mut next = [0usize; 6];
    for (counts, &at) in owners.iter().zip(starts) {
        for (i, list) in out.located().into_iter().enumerate() {
            let n = counts[i] as usize;
            list[next[i]..next[i] + n].iter_mut().for_each(|d| place(d, at));
            next[i] += n;
        }
        let n = counts[5] as usize;
        for a in &mut out.allowed[next[5]..next[5] + n] {
            place(&mut a.diagnostic, at);
            a.entry.span = a.entry.span.placed_at(at);
        }
        next[5] += n;
    }
    out
}

/// The check report of a project that loads (empty otherwise).
#[salsa::tracked(returns(ref))]
pub fn check_report(db: &dyn Db, project: Project) -> CheckReport {
    let mut report = CheckReport::default();
    if !all_load_errors(db, project).is_empty() {
        return report;
    }
    if project_config(db, project).is_err() {
        return report;
    }
    let names = project::model_names(db, project);
    let segments = all_segments(db, project);
    let d = &mut report.diagnostics;

    d.extend(target_diagnostics(db, project).iter().cloned());
    d.extend(project_model_diagnostics(db, project).iter().cloned());
    for r in &segments {
        d.extend(r.config.iter().cloned());
    }
    for r in &segments {
        d.extend(r.refs.iter().cloned());
    }
    d.extend(cycle_diagnostics(db, project));
    for s in project::source_names(db, project) {
        d.extend(source_diagnostics(db, project, SourceName::new(db, s.clone())).iter().cloned());
    }
    if names.is_empty() {
        d.push(Diagnostic::warning(Code::NoModels, "the project defines no models").help("add a SQL file under models/, for example models/customer_metrics.sql"));
    }
    d.extend(unused_sources(db, project).iter().cloned());
    for r in &segments {
        d.extend(r.window.iter().cloned());
    }
    // Root causes first: a note about a model that fails only because
    // what it reads fails comes after every model's own diagnostics.
    let planning = segments.iter().flat_map(|r| r.planning.iter());
    let (notes, own): (Vec<&Diagnostic>, Vec<&Diagnostic>) = planning.partition(|x| x.severity == Severity::Note);
    d.extend(own.into_iter().chain(notes).cloned());
    let ranks: Vec<(String, Retention)> = segments.iter().flat_map(|r| r.ranks.iter().cloned()).collect();
    d.extend(job_ttl(db, project, &ranks).err());
    for &f in project.fixture_files(db) {
        let (summary, diags) = fixture_checks(db, project, f);
        report.fixtures.extend(summary.clone());
        report.diagnostics.extend(diags.iter().cloned());
    }
    for r in &segments {
        report.diagnostics.extend(r.key_order.iter().cloned());
    }
    allow_warnings(db, project, &segments, &mut report);
    report
}

/// The check report's parts over the whole project rather than a segment,
/// in the reverse of the order the report reads them: a helper thread of
/// the driver computes them from the last while the report's thread comes
/// to them from the first.
pub(crate) fn whole_project_checks(db: &dyn Db, project: Project) {
    if all_load_errors(db, project).is_empty() && project_config(db, project).is_ok() {
        let _ = unused_sources(db, project);
        let _ = project_model_diagnostics(db, project);
        let _ = target_diagnostics(db, project);
    }
}

/// Sets aside the warnings the project's allow list accepts (the models'
/// own lists were applied per segment), then, when nothing is an error,
/// reports the entries that accept nothing (W0325).
fn allow_warnings(db: &dyn Db, project: Project, segments: &[&SegmentChecks], report: &mut CheckReport) {
    let Ok(config) = project_config(db, project) else { return };
    report.allowed.extend(segments.iter().flat_map(|r| r.allowed.iter().cloned()));
    if config.allow.is_empty() && config.models.iter().all(|m| m.allow.is_empty()) {
        return;
    }
    warnings::set_aside(&config.allow, None, &mut report.diagnostics, &mut report.allowed);
    // An error can hide the warning an entry is for: judge entries once
    // the project has none.
    if report.errors() > 0 {
        return;
    }
    let names = project::model_names(db, project);
    let has_file = |m: &str| names.binary_search_by(|n| n.as_str().cmp(m)).is_ok();
    report.diagnostics.extend(warnings::unmatched(config, has_file, &report.allowed, crate::backend::flink::script::BUILD_ONLY_WARNINGS));
}

/// Targets: each needs a flink section, and the sections for the systems
/// the project reads and writes.
#[salsa::tracked(returns(ref))]
pub fn target_diagnostics(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let Ok(config) = project_config(db, project) else { return Vec::new() };
    let sources = sources_config(db, project).as_ref().map(|s| s.as_slice()).unwrap_or(&[]);
    let sinks = configured_sinks(db, project);
    // A quarantine topic is written only when some model reads its source.
    let quarantined = || {
        let segments = all_segments(db, project);
        sources.iter().any(|s| s.quarantine.is_some() && is_read(&segments, &s.name))
    };
    let kafka_used = sources.iter().any(|s| s.connector == Connector::Kafka) || sinks.kafka_used || quarantined();
    let iceberg_used = sinks.iceberg_used;
    let mut out = Vec::new();
    for t in &config.targets {
        let n = &t.name;
        if t.flink.is_none() {
            out.push(
                Diagnostic::error(Code::TargetWithoutFlink, format!("target `{n}` uses the flink backend but has no `flink:` section"))
                    .at(CONFIG_FILE, Some(t.span.with_len(n.len())))
                    .help("add `flink: {gateway: http://localhost:8083}`, the SQL Gateway of the cluster"),
            );
        }
        if kafka_used && t.kafka.is_none() {
            out.push(
                Diagnostic::error(Code::TargetWithoutKafka, format!("target `{n}` has no `kafka:` section, but the project reads or writes Kafka topics"))
                    .at(CONFIG_FILE, Some(t.span.with_len(n.len())))
                    .help("add `kafka: {bootstrap_servers: localhost:9092}`, the brokers as Flink reaches them"),
            );
        }
        out.extend(topic_override_diagnostics(t, sources, &sinks.kafka));
        if iceberg_used && t.iceberg.is_none() {
            out.push(
                Diagnostic::error(Code::TargetWithoutIceberg, format!("target `{n}` has no `iceberg:` section, but a model writes an Iceberg table"))
                    .at(CONFIG_FILE, Some(t.span.with_len(n.len())))
                    .help("add `iceberg: {catalog: http://iceberg-rest:8181}`, the REST catalog as Flink reaches it"),
            );
        }
    }
    out.extend(crate::delivery::timeout_diagnostics(config));
    out
}

/// What the targets' checks read of the models' sinks: apart from
/// [`target_diagnostics`], which re-runs on every `sources.yml` edit, so that
/// such an edit does not look at every configured model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfiguredSinks {
    /// The configured models with a Kafka sink, in the file's order (with
    /// or without a SQL file: a topic override may name any of them).
    pub kafka: Vec<String>,
    /// Whether a model of the project writes Kafka, or Iceberg.
    pub kafka_used: bool,
    pub iceberg_used: bool,
}

#[salsa::tracked(returns(ref))]
pub fn configured_sinks(db: &dyn Db, project: Project) -> ConfiguredSinks {
    let Ok(config) = project_config(db, project) else { return ConfiguredSinks::default() };
    let exists = project::configured_models_exist(db, project);
    let sinks = || config.models.iter().zip(exists).filter(|(_, e)| **e).filter_map(|(m, _)| m.sink.as_ref());
    ConfiguredSinks {
        kafka: config.models.iter().filter(|m| m.sink.as_ref().is_some_and(|s| s.connector == Connector::Kafka)).map(|m| m.name.clone()).collect(),
        kafka_used: sinks().any(|s| s.connector == Connector::Kafka),
        iceberg_used: sinks().any(|s| s.connector == Connector::Iceberg),
    }
}

/// A target's `topics:` may name only what has such a Kafka topic (E0884).
fn topic_override_diagnostics(t: &crate::config::Target, sources: &[crate::config::SourceConfig], kafka_sinks: &[String]) -> Vec<Diagnostic> {
    let kafka_sources: Vec<&str> = sources.iter().filter(|s| s.connector == Connector::Kafka).map(|s| s.name.as_str()).collect();
    let quarantined: Vec<&str> = sources.iter().filter(|s| s.quarantine.is_some()).map(|s| s.name.as_str()).collect();
    let kafka_sinks: Vec<&str> = kafka_sinks.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for (key, list, known, what) in [
        ("sources", &t.topics.sources, &kafka_sources, "a Kafka source"),
        ("sinks", &t.topics.sinks, &kafka_sinks, "a model with a Kafka sink"),
        ("quarantine", &t.topics.quarantine, &quarantined, "a source with a `quarantine:`"),
    ] {
        for o in list.iter().filter(|o| !known.contains(&o.name.as_str())) {
            let listed = if known.is_empty() { "there is none".to_string() } else { format!("these are: {}", known.join(", ")) };
            let help = match crate::diagnostic::did_you_mean(&o.name, known.iter().copied()) {
                Some(s) => format!("did you mean `{s}`? {listed}"),
                None => listed,
            };
            out.push(
                Diagnostic::error(Code::UnknownTopicOverride, format!("`targets.{}.topics.{key}` names `{}`, which is not {what}", t.name, o.name))
                    .at(CONFIG_FILE, Some(o.name_span.with_len(o.name.len())))
                    .help(help),
            );
        }
    }
    out
}

/// Rules across models: configuration without a SQL file, a model named
/// like a source, sink tables that collide, two sinks writing one place.
#[salsa::tracked(returns(ref))]
pub fn project_model_diagnostics(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let Ok(config) = project_config(db, project) else { return Vec::new() };
    let names = project::model_names(db, project);
    let sources = project::source_names(db, project);
    let mut out = Vec::new();
    let is_model = |n: &str| names.binary_search_by(|m| m.as_str().cmp(n)).is_ok();
    let configured = project::configured_models_exist(db, project);
    let mut sorted_sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    sorted_sources.sort_unstable();
    sorted_sources.dedup();
    let is_source = |n: &str| sorted_sources.binary_search(&n).is_ok();
    for ((m, start), _) in config.models_placed().zip(configured).filter(|(_, e)| !**e) {
        let mut d = Diagnostic::error(Code::ConfiguredModelWithoutSql, format!("streamform.yml configures model `{}`, but there is no models/{}.sql", m.name, m.name)).at(CONFIG_FILE, Some(start.with_len(m.name.len())));
        d.help = Some(match did_you_mean(&m.name, names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`? configuration applies to the model whose file stem matches"),
            None => format!("create models/{}.sql, or remove the entry", m.name),
        });
        out.push(d);
    }
    // In name order, as the sources are (sorted above).
    for n in sorted_sources.iter().filter(|s| is_model(s)) {
        let path = model_file(db, project, n).map(|f| f.path(db).clone()).unwrap_or_default();
        out.push(
            Diagnostic::error(Code::ModelNamedLikeSource, format!("`{n}` is both a source in sources.yml and a model ({path})"))
                .at(path, None)
                .help("rename one of them: source() and ref() share one namespace"),
        );
    }
    // The models a sink's table name (`sink_<model>`) can collide with:
    // the names from `sink_` up to `sink` and a backquote, the byte after `_`.
    let sink_named = &names[names.partition_point(|n| n.as_str() < "sink_")..names.partition_point(|n| n.as_str() < "sink`")];
    let is_sink_named_model = |n: &str| sink_named.binary_search_by(|m| m.as_str().cmp(n)).is_ok();
    sink_collisions(config, configured, &is_sink_named_model, &is_source, &mut out);
    out.extend(crate::delivery::sink_delivery_diagnostics(config));
    out
}

/// `configured`: whether each configured model exists; `is_model`, whether
/// a model of a name that starts with `sink_` exists.
fn sink_collisions(config: &ProjectConfig, configured: &[bool], is_model: &dyn Fn(&str) -> bool, is_source: &dyn Fn(&str) -> bool, out: &mut Vec<Diagnostic>) {
    // Looked up, never iterated: hashing thousands of sinks' destinations
    // costs less than a tree's comparisons (this re-runs when a model comes
    // or goes).
    let mut written: HashMap<(Connector, &str), &str> = HashMap::new();
    let mut table = String::new();
    for ((m, start), _) in config.models_placed().zip(configured).filter(|(_, e)| **e) {
        let Some(sink) = &m.sink else { continue };
        let at = Some(sink.span.placed_at(start));
        table.clear();
        table.push_str("sink_");
        table.push_str(&m.name);
        let clash = if is_model(table.as_str()) {
            Some(format!("the model `{table}`"))
        } else if is_source(table.as_str()) {
            Some(format!("the source `{table}`"))
        } else {
            None
        };
        if let Some(other) = clash {
            out.push(
                Diagnostic::error(Code::SinkTableNameTaken, format!("the sink of model `{}` becomes the Flink table `{table}`, which {other} also names", m.name))
                    .at(CONFIG_FILE, at)
                    .help(format!("rename the model `{}` or {other}, so every Flink table and view has its own name", m.name)),
            );
        }
        if let Some(target) = sink.target() {
            let key = (sink.connector, target);
            if let Some(first) = written.get(&key) {
                out.push(
                    Diagnostic::warning(Code::SharedSinkDestination, format!("models `{first}` and `{}` both write to the {} {} `{target}`", m.name, sink.connector.as_str(), match sink.connector {
                        Connector::Kafka => "topic",
                        Connector::File => "path",
                        Connector::Iceberg => "table",
                    }))
                    .at(CONFIG_FILE, at)
                    .help("give each model's sink its own destination, unless its readers expect both changelogs in one stream: they cannot tell the two apart"),
                );
            } else {
                written.insert(key, &m.name);
            }
        }
    }
}

/// E0733: each cycle once, at the ref() of each model that reads the one
/// before it (`a → b` is `ref('a')` in `b`); the primary span is in the
/// cycle's first model, as the original's one location was.
fn cycle_diagnostics(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for cyc in &dependency_graph(db, project).cycles {
        if cyc.len() <= 2 {
            continue; // a model reading itself has its own error
        }
        let mut refs: Vec<_> = cyc.windows(2).map(|pair| {
            let (read, reader) = (&pair[0], &pair[1]);
            let file = model_file(db, project, reader);
            let path = file.map(|f| f.path(db).clone()).unwrap_or_else(|| format!("models/{reader}.sql"));
            let span = file.and_then(|f| {
                let query = crate::model::parse_model(db, f).as_ref().ok()?;
                crate::model::located_reads(query, f.text(db)).into_iter().find(|(is_source, t, _)| !is_source && t == read)?.2
            });
            (path, span, format!("`{reader}` reads `{read}` here"))
        }).collect();
        refs.rotate_right(1);
        let mut refs = refs.into_iter();
        let (path, span, _) = refs.next().expect("a cycle has two models");
        let mut d = Diagnostic::error(Code::ReferenceCycle, format!("models form a reference cycle: {}", cyc.join(" → "))).at(path, span);
        for (path, span, what) in refs {
            d = d.label(path, span, what);
        }
        out.push(d.help("a model cannot depend on its own output, even through other models; remove one of the ref()s"));
    }
    out
}

/// Every segment's checks, in order.
fn all_segments(db: &dyn Db, project: Project) -> Vec<&SegmentChecks> {
    (0..project::model_segments(db, project)).map(|s| segment_checks(db, project, s)).collect()
}

/// Whether some model names source `name` (see `model::named_reads`).
fn is_read(segments: &[&SegmentChecks], name: &str) -> bool {
    segments.iter().any(|r| r.sources_read.binary_search_by(|s| s.as_str().cmp(name)).is_ok())
}

/// The warnings for the sources no model reads (W0761). Tracked so that a
/// `sources.yml` edit that keeps them leaves [`check_report`] as it was.
#[salsa::tracked(returns(ref))]
fn unused_sources(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let segments = all_segments(db, project);
    let read = |name: &String| is_read(&segments, name);
    let Ok(sources) = sources_config(db, project) else { return Vec::new() };
    sources
        .iter()
        .filter(|s| !read(&s.name))
        .map(|s| {
            Diagnostic::warning(Code::UnreadSource, format!("source `{}` is declared but no model reads it", s.name))
                .at(SOURCES_FILE, Some(s.span.with_len(s.name.len())))
                .help(format!("read it with source('{}') in a model, or remove it", s.name))
        })
        .collect()
}

/// The sources a fixture's `given` items name must be ones its model
/// reads, and a model over several sources needs every event to name one.
fn fixture_source_checks(db: &dyn Db, project: Project, fx: &Fixture) -> Vec<Diagnostic> {
    let read = upstream_sources(db, ModelName::new(db, project, fx.model.clone()));
    let mut out: Vec<Diagnostic> = fx.given_sources.iter().filter(|(name, _)| !read.contains(name)).map(|(name, span)| fixtures::unread_source(fx, name, *span, read)).collect();
    if let (Some(span), [_, _, ..]) = (fx.untagged_event, read.as_slice()) {
        out.push(fixtures::event_without_source(fx, span, read));
    }
    out
}

/// One fixture file: its summary row and its diagnostics (its model must
/// exist; its expectations must name exactly the model's output columns).
#[salsa::tracked(returns(ref))]
pub fn fixture_checks(db: &dyn Db, project: Project, file: SourceFile) -> (Option<FixtureSummary>, Vec<Diagnostic>) {
    let Ok(fx) = fixture(db, file) else { return (None, Vec::new()) };
    let summary = FixtureSummary { model: fx.model.clone(), path: fx.path.clone(), given: fx.given_events, expect: fx.expect_rows };
    let names = project::model_names(db, project);
    let mut out = Vec::new();
    if names.binary_search(&fx.model).is_err() {
        let mut d = Diagnostic::error(Code::FixtureUnknownModel, format!("fixture {} targets model `{}`, which does not exist", fx.path, fx.model)).at(fx.path.clone(), Some(fx.model_span));
        d.help = Some(match did_you_mean(&fx.model, names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`?"),
            None if names.is_empty() => "the project defines no models yet".into(),
            None => format!("the models are {}", names.join(", ")),
        });
        out.push(d);
        return (Some(summary), out);
    }
    let Some(plan) = model_plan(db, ModelName::new(db, project, fx.model.clone())) else { return (Some(summary), out) };
    out.extend(fixture_source_checks(db, project, fx));
    let cols: Vec<&str> = plan.sink().schema.iter().map(|c| c.name.as_str()).collect();
    // Rows are read again, for their spans, only when a shape is wrong.
    let fits = |shape: &Vec<String>| shape.len() == cols.len() && cols.iter().all(|c| shape.iter().any(|n| n == c));
    if fx.expect_shapes.iter().all(fits) {
        return (Some(summary), out);
    }
    let help = format!("each expected row names `op` and exactly the output columns of `{}`: {}", fx.model, cols.join(", "));
    for (i, e) in fixtures::expect_items(file.text(db), fx).enumerate() {
        for (c, span, _) in &e.row.columns {
            if !cols.contains(&c.as_str()) {
                let h = match did_you_mean(c, cols.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`? {help}"),
                    None => help.clone(),
                };
                out.push(
                    Diagnostic::error(Code::FixtureUnknownColumn, format!("fixture for model `{}`: expect[{i}] names the column `{c}`, which the model does not produce", fx.model))
                        .at(fx.path.clone(), Some(span.with_len(c.len())))
                        .help(h),
                );
            }
        }
        for c in cols.iter().filter(|c| !e.row.columns.iter().any(|(n, _, _)| n == *c)) {
            out.push(
                Diagnostic::error(Code::FixtureMissingColumn, format!("fixture for model `{}`: expect[{i}] has no value for the column `{c}`", fx.model))
                    .at(fx.path.clone(), Some(e.row.span))
                    .help(format!("{help} (write `{c}: null` to expect a null)")),
            );
        }
    }
    (Some(summary), out)
}
