//! Per-model queries: parsing, what a model reads, lowering, its contract;
//! and a source as lowering sees it.

use std::collections::HashSet;
use std::sync::Arc;

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use crate::db::{Db, ModelName, Project, SourceFile, SourceName};
use crate::diagnostic::{Diagnostic, Span};
use crate::plan::lower::{self, to_span, Inputs, ModelSettings, SourceInput, Upstream, UpstreamModel};
use crate::plan::node::{Column, ModelPlan};
use crate::project::{self, source_config};
use crate::source::{applied_contracts, event_time};
use crate::sql::calls::{call_args, quoted_name, window_input};
use crate::sql::parse::{parse_model_sql, ParsedQuery};
use crate::diagnostic::Code;
use crate::limits::MAX_REF_DEPTH;

/// The parsed SQL of a model file. `no_eq`: sqlparser's equality ignores
/// spans, so an equal-comparing re-parse would leave stale locations.
/// Syntax trees are large and only needed while lowering or locating a
/// diagnostic, so only the most recent ones are kept ([`TREES_KEPT`], or
/// as [`after_batch`] says).
#[salsa::tracked(returns(ref), no_eq, lru = 128)]
pub fn parse_model(db: &dyn Db, file: SourceFile) -> ParsedQuery {
    parse_model_sql(file.text(db))
}

/// The sources and models a model names, without locations.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Reads {
    pub sources: Vec<String>,
    pub models: Vec<String>,
    /// Whether these come from the parsed SQL ([`model_reads`]), or from
    /// scanning SQL that does not parse ([`named_reads`] only).
    pub parsed: bool,
}

/// Each `source('x')` / `ref('y')` in a query, with its location.
pub fn located_reads(query: &sql::Query, text: &str) -> Vec<(bool, String, Option<Span>)> {
    let mut out = Vec::new();
    walk_query(query, &mut |is_source, name, span| out.push((is_source, name, to_span(text, span))));
    out
}

fn walk_query(q: &sql::Query, f: &mut dyn FnMut(bool, String, SqlSpan)) {
    if let Some(w) = &q.with {
        for cte in &w.cte_tables {
            walk_query(&cte.query, f);
        }
    }
    walk_set(&q.body, f);
}

fn walk_set(s: &sql::SetExpr, f: &mut dyn FnMut(bool, String, SqlSpan)) {
    match s {
        sql::SetExpr::Select(sel) => {
            for t in &sel.from {
                walk_factor(&t.relation, f);
                for j in &t.joins {
                    walk_factor(&j.relation, f);
                }
            }
        }
        sql::SetExpr::Query(q) => walk_query(q, f),
        sql::SetExpr::SetOperation { left, right, .. } => {
            walk_set(left, f);
            walk_set(right, f);
        }
        _ => {}
    }
}

fn walk_factor(t: &sql::TableFactor, f: &mut dyn FnMut(bool, String, SqlSpan)) {
    match t {
        sql::TableFactor::Table { name, args: Some(args), .. } => read_call(name, &args.args, f),
        sql::TableFactor::Derived { subquery, .. } => walk_query(subquery, f),
        sql::TableFactor::TableFunction { expr: sql::Expr::Function(w), .. } => {
            if let Some(read) = window_input(w) {
                read_call(&read.name, call_args(read), f);
            }
        }
        _ => {}
    }
}

/// `source('x')` or `ref('m')`, reported; any other call is not a read.
fn read_call(name: &sql::ObjectName, args: &[sql::FunctionArg], f: &mut dyn FnMut(bool, String, SqlSpan)) {
    let kind = name.to_string().to_lowercase();
    if let (Some((target, v)), "source" | "ref") = (quoted_name(args), kind.as_str()) {
        f(kind == "source", target.to_string(), v.span());
    }
}

#[salsa::tracked(returns(ref))]
pub fn model_reads<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Reads {
    let Some(file) = project::model_source_file(db, name) else { return Reads::default() };
    let Ok(q) = parse_model(db, file) else { return Reads::default() };
    let mut r = Reads { parsed: true, ..Reads::default() };
    walk_query(q, &mut |is_source, n, _| {
        let list = if is_source { &mut r.sources } else { &mut r.models };
        if !list.contains(&n) {
            list.push(n);
        }
    });
    r
}

/// The models a model reads with ref() that exist, in the order it names
/// them (a ref() to a missing model is the checks' to report). Every walk
/// over the graph of models follows these edges.
pub(crate) fn read_models<'db>(db: &'db dyn Db, name: ModelName<'db>) -> impl DoubleEndedIterator<Item = ModelName<'db>> + 'db {
    let project = name.project(db);
    model_reads(db, name)
        .models
        .iter()
        .filter(move |r| project::model_exists(db, project, r))
        .map(move |r| ModelName::new(db, project, r.clone()))
}

/// What a model names, for the graph and the unused-source warning: its
/// reads when it parses, else the `source()` and `ref()` calls its text
/// still holds (see [`crate::sql::scan`]). Planning and plan order use
/// [`model_reads`]. Not a query of its own: a model that parses, as nearly
/// all do, has no memo more for an edit to walk.
pub fn named_reads<'db>(db: &'db dyn Db, name: ModelName<'db>) -> &'db Reads {
    let reads = model_reads(db, name);
    match project::model_source_file(db, name) {
        Some(file) if !reads.parsed => scanned_reads(db, file),
        _ => reads,
    }
}

/// The reads [`crate::sql::scan`] finds in SQL that does not parse.
#[salsa::tracked(returns(ref))]
fn scanned_reads(db: &dyn Db, file: SourceFile) -> Reads {
    let (sources, models) = crate::sql::scan::scan_reads(file.text(db));
    Reads { sources, models, parsed: false }
}

/// Runs a query body that recurses once per model of a ref() chain (a
/// model's lowering asks for its reads' contracts, each of which lowers
/// that model): past the first megabytes the chain goes on in stack
/// segments from the heap, so its depth is bounded by memory and
/// [`MAX_REF_DEPTH`], not by the worker's stack.
fn per_ref<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(1 << 20, 8 << 20, f)
}

/// Where a model stands in the graph of ref()s: whether following them
/// reaches a cycle, and the longest chain below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RefChain {
    pub reaches_cycle: bool,
    /// 0 when the model reads only sources, 1 when it reads a model that
    /// does, and so on. The models of a cycle count 0: they are refused as
    /// a cycle.
    pub depth: u32,
}

/// What a model finds by following its ref()s: its [`RefChain`], and the
/// sources upstream of it, directly or through ref(), in the order a
/// depth-first walk meets them (its own, then each read model's in turn).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RefWalk {
    pub chain: RefChain,
    pub sources: Vec<String>,
}

/// One query for both halves of [`RefWalk`], as every model asks both:
/// one memo fewer per model for an edit that re-verifies every model to
/// walk. Each model asks its reads, so a project is walked once, not once
/// per model (a chain of n models walked n times took cubic time). A model
/// on a cycle meets its own query again: salsa then gives every query of
/// the cycle [`on_the_cycle`].
#[salsa::tracked(returns(ref), cycle_result = on_the_cycle)]
pub fn ref_walk<'db>(db: &'db dyn Db, name: ModelName<'db>) -> RefWalk {
    per_ref(|| {
        let mut chain = RefChain { reaches_cycle: false, depth: 0 };
        let mut sources = model_reads(db, name).sources.clone();
        for r in read_models(db, name) {
            let below = ref_walk(db, r);
            chain.reaches_cycle |= below.chain.reaches_cycle;
            chain.depth = chain.depth.max(below.chain.depth.saturating_add(1));
            for s in &below.sources {
                if !sources.contains(s) {
                    sources.push(s.clone());
                }
            }
        }
        RefWalk { chain, sources }
    })
}

/// The models of a cycle: depth 0, and their sources by walking every
/// model upstream.
fn on_the_cycle(db: &dyn Db, _id: salsa::Id, name: ModelName<'_>) -> RefWalk {
    RefWalk { chain: RefChain { reaches_cycle: true, depth: 0 }, sources: upstream_sources_walked(db, name) }
}

/// A model's [`RefChain`].
pub fn ref_chain(db: &dyn Db, name: ModelName<'_>) -> RefChain {
    ref_walk(db, name).chain
}

/// True when following ref()s from this model reaches a cycle.
pub fn reaches_cycle(db: &dyn Db, name: ModelName<'_>) -> bool {
    ref_chain(db, name).reaches_cycle
}

/// The longest chain of ref()s below a model (see [`RefChain::depth`]).
pub fn ref_depth(db: &dyn Db, name: ModelName<'_>) -> u32 {
    ref_chain(db, name).depth
}

/// Whether following ref()s from a model leads back to it. Salsa gives the
/// models of a cycle their cycle's answer, depth 0 (see [`ref_depth`]), while
/// a model above a cycle reads a model and so is 1 or more.
fn on_cycle(db: &dyn Db, name: ModelName<'_>) -> bool {
    ref_chain(db, name) == RefChain { reaches_cycle: true, depth: 0 }
}

/// A source as lowering sees it: sorted columns, event-time column and the
/// contracts that apply to it. Its definition text is apart
/// ([`source_definition`]): lowering never reads it, so an edit of a
/// source's topic, watermark or late policy re-plans no model.
#[salsa::tracked(returns(ref))]
pub fn source_input<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Option<SourceInput> {
    let s = source_config(db, project, name).as_ref()?;
    let applied = applied_contracts(db, project, name);
    Some(SourceInput {
        connector: s.connector,
        columns: s.columns.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect(),
        // The time attribute is the declared column, as the original shows
        // it even when it is not a timestamp or not a column (E0744, E0743:
        // check errors); the simulator's clock still needs a timestamp.
        time: event_time(s).map(|t| t.column),
        contracts_ok: applied.readable,
        contracts: applied.rules.iter().map(|(n, e)| (n.clone(), e.render())).collect(),
        quarantine: applied.quarantine,
    })
}

/// The definition of every Source node that reads this source: its name,
/// connector and location, event time, watermark and late policy, and the
/// contracts that apply. The identity reads it (`manifest::model_identity`);
/// a plan's Source node leaves it empty.
#[salsa::tracked(returns(ref))]
pub fn source_definition<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Option<String> {
    let s = source_config(db, project, name).as_ref()?;
    // The contracts as lowering plans them, rendered once.
    let input = source_input(db, project, name).as_ref()?;
    let mut def = match s.location() {
        Some(loc) => format!("{} ({} {loc})", s.name, s.connector.as_str()),
        None => format!("{} ({})", s.name, s.connector.as_str()),
    };
    if let Some(t) = event_time(s) {
        def.push_str(&format!(" event_time={} watermark={} late={}", t.column, t.watermark, t.late.as_str()));
    }
    if !input.contracts.is_empty() {
        let parts: Vec<String> = input.contracts.iter().map(|(n, e)| format!("{n}: {e}")).collect();
        def.push_str(&format!(" contracts=[{}]", parts.join(", ")));
    }
    if let Some(q) = &input.quarantine {
        def.push_str(&format!(" quarantine={q}"));
    }
    Some(def)
}

/// A model's lowering result: its plan, or the planning error.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    pub plan: Option<Arc<ModelPlan>>,
    pub error: Option<Diagnostic>,
    /// The model's further errors, independent of `error` (every unknown
    /// column, function and type is reported at once).
    pub more: Vec<Diagnostic>,
    /// See [`lower::LowerError::aggregate_keys`].
    pub aggregate_keys: Option<Vec<String>>,
}

struct DbInputs<'a> {
    db: &'a dyn Db,
    project: Project,
}

impl Inputs for DbInputs<'_> {
    fn source(&self, name: &str) -> Option<SourceInput> {
        source_input(self.db, self.project, SourceName::new(self.db, name.to_string())).clone()
    }

    fn model(&self, name: &str) -> Upstream {
        if !project::model_exists(self.db, self.project, name) {
            return Upstream::Missing;
        }
        let m = ModelName::new(self.db, self.project, name.to_string());
        if reaches_cycle(self.db, m) {
            return Upstream::Cycle;
        }
        match model_contract(self.db, m) {
            Some(c) => Upstream::Ok(c.clone()),
            None => Upstream::Broken,
        }
    }

    fn source_names(&self) -> Vec<String> {
        project::source_names(self.db, self.project).clone()
    }

    fn model_names(&self) -> Vec<String> {
        project::model_names(self.db, self.project).clone()
    }
}

#[salsa::tracked(returns(ref), lru = 0)]
pub fn lower_model<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Lowered {
    per_ref(|| lower(db, name))
}

fn lower(db: &dyn Db, name: ModelName<'_>) -> Lowered {
    let project = name.project(db);
    let n = name.text(db);
    let Some(file) = project::model_source_file(db, name) else { return Lowered { plan: None, error: None, more: Vec::new(), aggregate_keys: None } };
    let path = file.path(db).clone();
    let query = match parse_model(db, file) {
        Ok(q) => q,
        Err(e) => {
            let mut d = Diagnostic::error(e.code, format!("model `{n}`: {}", e.message)).at(path, e.span);
            d.help = Some(e.help.clone().unwrap_or_else(|| "a model is one SELECT statement; check the SQL at the marked place".into()));
            return Lowered { plan: None, error: Some(d), more: Vec::new(), aggregate_keys: None };
        }
    };
    if reaches_cycle(db, name) {
        // A model on the cycle is named by the cycle's one error (E0733,
        // or E0732 for a model reading itself); one downstream of it gets
        // a note at the ref() that leads there.
        let note = (!on_cycle(db, name)).then(|| {
            let at = located_reads(query, file.text(db))
                .into_iter()
                .find(|(is_source, target, _)| !is_source && project::model_exists(db, project, target) && reaches_cycle(db, ModelName::new(db, project, target.clone())));
            let (target, span) = at.map(|(_, t, s)| (t, s)).unwrap_or_default();
            Diagnostic::note(Code::InReferenceCycle, format!("model `{n}` reads ref('{target}'), which depends on a reference cycle"))
                .at(path, span)
                .help("it is checked once the cycle is broken")
        });
        return Lowered { plan: None, error: note, more: Vec::new(), aggregate_keys: None };
    }
    let depth = ref_depth(db, name);
    if depth > MAX_REF_DEPTH {
        // Refused before lowering, which would recurse down the chain. The
        // first model past the limit gets the error, those below it a note.
        let deepest = located_reads(query, file.text(db)).into_iter().find(|(is_source, target, _)| {
            !is_source && project::model_exists(db, project, target) && ref_depth(db, ModelName::new(db, project, target.clone())) + 1 == depth
        });
        let (target, span) = deepest.map(|(_, t, s)| (t, s)).unwrap_or_default();
        let d = if depth == MAX_REF_DEPTH + 1 {
            Diagnostic::error(Code::RefChainTooDeep, format!("model `{n}` is {depth} ref()s above its sources, past the limit of {MAX_REF_DEPTH}"))
                .at(path, span)
                .help("read a model nearer the sources, or merge models of the chain: each ref() is one level of the Flink job's plan")
        } else {
            Diagnostic::note(Code::RefChainTooDeep, format!("model `{n}` reads ref('{target}'), which is past the limit of {MAX_REF_DEPTH} ref()s above its sources"))
                .at(path, span)
                .help("it is checked once the chain is shorter")
        };
        return Lowered { plan: None, error: Some(d), more: Vec::new(), aggregate_keys: None };
    }
    let settings: ModelSettings = project::settings_of(project::model_entry(db, name));
    let inputs = DbInputs { db, project };
    match lower::lower_model(n, query, &settings, &inputs) {
        Ok(plan) => Lowered { plan: Some(Arc::new(plan)), error: None, more: Vec::new(), aggregate_keys: None },
        Err(errors) => {
            let aggregate_keys = errors[0].aggregate_keys.clone();
            let mut all = errors.into_iter().map(|e| e.into_diagnostic(&path, file.text(db)));
            Lowered { plan: None, error: all.next(), more: all.collect(), aggregate_keys }
        }
    }
}

/// The syntax trees a long-lived database keeps through an LRU eviction:
/// the `lru` of [`parse_model`], which takes a literal.
pub const TREES_KEPT: usize = 128;

/// What salsa keeps of a model through an LRU eviction
/// ([`salsa::Database::trigger_lru_eviction`]) between a cold compile's
/// batches. `one_shot`: nothing of the models compiled so far (capacity 1,
/// as 0 would keep all), neither syntax tree nor lowering nor plan;
/// otherwise the last [`TREES_KEPT`] syntax trees and every plan.
pub fn after_batch(db: &mut dyn Db, one_shot: bool) {
    let (trees, plans) = if one_shot { (1, 1) } else { (TREES_KEPT, 0) };
    parse_model::set_lru_capacity(db, trees);
    lower_model::set_lru_capacity(db, plans);
}

/// The plan of a model, span-free. Not a query of its own: a model's
/// lowering compares equal after a whitespace edit unless the model has
/// diagnostics (their spans move), and a memo per model is more for an
/// edit that re-verifies every model to walk.
pub fn model_plan<'db>(db: &'db dyn Db, name: ModelName<'db>) -> &'db Option<Arc<ModelPlan>> {
    &lower_model(db, name).plan
}

/// What readers of a model see: its Sink's schema, changelog, boundedness
/// and time attribute. Readers re-lower only when this changes.
#[salsa::tracked(returns(ref))]
pub fn model_contract<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<UpstreamModel> {
    let project = name.project(db);
    let plan = model_plan(db, name).as_ref()?;
    let sink = plan.sink();
    // Flink reads a model as its view, so the monotonicity carries across.
    let upstream = |id: &str| upstream_modified(db, project, id);
    let modified = crate::plan::monotonic::of(&plan.nodes, &plan.name, &sink.id(&plan.name), &upstream);
    let timed = |up: &str| model_contract(db, ModelName::new(db, project, up.to_string())).as_ref().is_some_and(|c| c.time.is_some());
    let time_lost_at_join = sink.time.is_none() && crate::plan::lower::loses_time_at_join(&plan.name, &plan.nodes, &timed);
    Some(UpstreamModel { schema: sink.schema.clone(), changelog: sink.changelog.clone(), bounded: sink.bounded, time: sink.time.clone(), modified, time_lost_at_join })
}

/// The modified monotonicity of another model's output, named by its
/// Sink's id (`m::sink::0`), as a reader's nodes name it.
fn upstream_modified(db: &dyn Db, project: Project, id: &str) -> crate::plan::monotonic::Modified {
    let name = id.split("::").next()?;
    model_contract(db, ModelName::new(db, project, name.to_string())).as_ref()?.modified.clone()
}

/// The sources upstream of a model (see [`RefWalk::sources`]).
pub fn upstream_sources<'db>(db: &'db dyn Db, name: ModelName<'db>) -> &'db Vec<String> {
    &ref_walk(db, name).sources
}

/// [`upstream_sources`] by walking every model upstream.
fn upstream_sources_walked(db: &dyn Db, name: ModelName<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![name];
    while let Some(m) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        for s in &model_reads(db, m).sources {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        stack.extend(read_models(db, m).rev());
    }
    out
}
