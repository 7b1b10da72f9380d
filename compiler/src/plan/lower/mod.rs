//! Lowering one model's SQL into its plan: `Source → [Filter] →
//! [Aggregate] → [Filter] → Project → Sink`, one node per relational step,
//! in the order the original's (unoptimised) planner produces them.
//!
//! This file holds the entry point (`lower_model`), the query and set
//! operations, the Sink, and the shared types; `select` plans WHERE and
//! the projection, `aggregate` GROUP BY, windows and HAVING, `from` the
//! FROM item, `expr` scalar expressions, `inputs` what the model may read,
//! `names`, `literal` and `ast` small helpers, `contract` a source's
//! `check:`. Each node's changelog mode comes from [`crate::plan::changelog`].

mod aggregate;
mod ast;
mod contract;
mod expr;
mod from;
mod inputs;
mod interval;
mod join;
mod literal;
mod names;
mod rank;
mod scalar;
mod select;
mod temporal;
mod union;
mod window_tvf;

pub use window_tvf::declared_window_span;

use std::cell::RefCell;

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use self::ast::order_span;
use super::changelog::{self, Conflict};
use super::expr::{AggCall, Expr};
use super::node::{Changelog, Column, JoinType, KeyedState, ModelPlan, NodeKind, Operator, PlanNode};
use crate::diagnostic::{Diagnostic, Span};
use crate::types::DataType;

pub use self::contract::plan_check;
pub use self::inputs::{Inputs, ModelSettings, SourceInput, Upstream, UpstreamModel};
pub use self::names::ident_name;
use crate::diagnostic::Code;

/// A planning error. Most end planning of the model; an unknown column,
/// function or type is kept and planning goes on (`Lowerer::recover`).
#[derive(Clone, Debug)]
pub struct LowerError {
    pub code: Code,
    pub message: String,
    pub span: Option<SqlSpan>,
    pub help: Option<String>,
    /// When planning failed only at the Sink (the materialization does not
    /// fit the changelog): the key of the unwindowed aggregate planned
    /// before it, so the warnings about it can still be given.
    pub aggregate_keys: Option<Vec<String>>,
}

impl LowerError {
    fn new(code: Code, message: impl Into<String>, span: SqlSpan) -> LowerError {
        LowerError { code, message: message.into(), span: Some(span), help: None, aggregate_keys: None }
    }

    fn help(mut self, help: impl Into<String>) -> LowerError {
        self.help = Some(help.into());
        self
    }

    pub fn into_diagnostic(self, path: &str, text: &str) -> Diagnostic {
        let span = self.span.and_then(|s| to_span(text, s));
        // A model that fails only because what it reads fails gets a note:
        // the error is reported where it is, once.
        let mut d = match self.code {
            Code::ReadsBrokenModel | Code::ReadsBrokenSource | Code::InReferenceCycle => Diagnostic::note(self.code, self.message),
            _ => Diagnostic::error(self.code, self.message),
        }
        .at(path, span);
        d.help = self.help;
        d
    }
}

/// Converts a sqlparser span (1-based line/column in characters).
pub fn to_span(text: &str, s: SqlSpan) -> Option<Span> {
    if s.start.line == 0 {
        return None;
    }
    let len = if s.end.line == s.start.line && s.end.column > s.start.column { s.end.column - s.start.column } else { 1 };
    Some(Span::at_line_col(text, s.start.line, s.start.column, len))
}

type Result<T> = std::result::Result<T, LowerError>;

/// A column of the relation being planned.
#[derive(Clone, Debug)]
struct RelCol {
    name: String,
    ty: DataType,
    /// The type arithmetic sees when the column is an operand, as the
    /// original's planner typed it. It differs from `ty` only for a SUM
    /// over a decimal (and what passes it on unchanged): shown as the
    /// accumulator's decimal(38,s), computed with as decimal(p+10,s).
    engine: DataType,
}

impl RelCol {
    fn new(name: impl Into<String>, ty: DataType) -> RelCol {
        RelCol { name: name.into(), ty, engine: ty }
    }
}

/// The type arithmetic sees for `e` over `rel` (see `RelCol::engine`).
fn operand_type(e: &Expr, rel: &Rel) -> DataType {
    match e {
        Expr::Column { index, .. } => rel.cols.get(*index).map_or(e.ty(), |c| c.engine),
        _ => e.ty(),
    }
}

/// The relation a SELECT reads or produces.
#[derive(Clone, Debug)]
struct Rel {
    qualifier: String,
    cols: Vec<RelCol>,
    input_id: String,
    changelog: Changelog,
    bounded: bool,
    time: Option<String>,
    /// Read straight from source() or ref() in a windowed model: the
    /// aggregate over it may group by `window_start` and `window_end`.
    windowable: bool,
    /// Over a join: each column's relation (its alias) and its name
    /// there, by which a column is resolved; empty otherwise.
    sides: Vec<(String, String)>,
}

/// Above an aggregate: what its input was grouped by and computed.
struct Grouping<'r> {
    input: &'r Rel,
    keys: &'r [usize],
    calls: &'r [AggCall],
}

struct Lowerer<'a> {
    model: &'a str,
    settings: &'a ModelSettings,
    inputs: &'a dyn Inputs,
    nodes: Vec<PlanNode>,
    ordinals: [u32; Operator::ALL.len()],
    reads_models: Vec<String>,
    /// CTEs in scope, innermost last.
    ctes: Vec<(String, &'a sql::Cte)>,
    /// Where the last planned aggregate's GROUP BY (or SELECT) is, for
    /// errors about the model's key.
    key_span: Option<SqlSpan>,
    /// The window a window function in FROM declared.
    tvf_window: Option<window_tvf::TvfWindow>,
    /// The errors planning went on past (`recover`), in the order met.
    recovered: RefCell<Vec<LowerError>>,
}

/// Plans one model. Its errors, when it has some: every unknown column,
/// function and type in the order met, else the one error that ended
/// planning (after an unknown name, a later error may only follow from
/// it, so it is not reported).
pub fn lower_model(model: &str, query: &sql::Query, settings: &ModelSettings, inputs: &dyn Inputs) -> std::result::Result<ModelPlan, Vec<LowerError>> {
    let mut l = Lowerer::new(model, settings, inputs);
    let planned = l.model_plan(query);
    let recovered = l.recovered.into_inner();
    match planned {
        Ok(plan) if recovered.is_empty() => Ok(plan),
        Err(e) if recovered.is_empty() => Err(vec![e]),
        _ => Err(recovered),
    }
}

impl<'a> Lowerer<'a> {
    fn new(model: &'a str, settings: &'a ModelSettings, inputs: &'a dyn Inputs) -> Lowerer<'a> {
        Lowerer { model, settings, inputs, nodes: Vec::new(), ordinals: [0; Operator::ALL.len()], reads_models: Vec::new(), ctes: Vec::new(), key_span: None, tvf_window: None, recovered: RefCell::new(Vec::new()) }
    }

    /// Keeps `e`, an error that leaves the rest of the model plannable (an
    /// unknown column, function or type), and plans on over a NULL in its
    /// place, so one run reports every such error of the model.
    fn recover(&self, e: LowerError) -> Expr {
        let mut kept = self.recovered.borrow_mut();
        // An expression may be planned twice (an aggregate's argument).
        if !kept.iter().any(|k| k.code == e.code && k.span == e.span) {
            kept.push(e);
        }
        Expr::Literal(super::expr::Literal::Null)
    }

    /// The errors `recover` kept, first met first.
    fn take_recovered(&self) -> Vec<LowerError> {
        std::mem::take(&mut *self.recovered.borrow_mut())
    }

    // Whole: the model's query, then the window and Sink rules over it.
    fn model_plan(&mut self, query: &'a sql::Query) -> Result<ModelPlan> {
        let (model, settings) = (self.model, self.settings);
        let l = self;
        if let Some(shape) = settings.window {
            if shape.size().is_some_and(|s| s.millis() == 0) {
                return Err(LowerError { code: Code::PlannedZeroWindow, message: format!("model `{model}` declares a window of size 0s; a window needs a positive size"), span: None, help: Some("set `window: {type: tumbling, size: 5m}` with a positive size".into()), aggregate_keys: None });
            }
            if shape.gap().is_some_and(|g| g.millis() == 0) {
                return Err(LowerError { code: Code::PlannedZeroWindow, message: format!("model `{model}` declares a session window with a gap of 0s; a session needs a positive gap"), span: None, help: Some("set `window: {type: session, gap: 30m}` with a positive gap".into()), aggregate_keys: None });
            }
            if settings.retention.is_some() {
                return Err(LowerError { code: Code::PlannedWindowWithRetention, message: format!("model `{model}` declares both a window and retention; a window's state lives until the window closes, so retention has nothing to expire"), span: None, help: Some("remove `retention` from the model".into()), aggregate_keys: None });
            }
        }
        let rel = l.query(query)?;
        if (settings.window.is_some() || l.tvf_window.is_some()) && !l.nodes.iter().any(|n| n.operator == Operator::Aggregate) {
            let at = match query.body.as_ref() {
                sql::SetExpr::Select(sel) => sel.select_token.0.span,
                _ => query.span(),
            };
            return Err(LowerError::new(Code::WindowWithoutAggregate, format!("model `{model}` declares a window but has no aggregate to cut into windows"), at)
                .help(if l.tvf_window.is_some() { "group by `window_start` and `window_end` (and any key), or read the input without the window function" } else { "group by `window_start` and `window_end` (and any key), or remove `window` from the model" }));
        }
        let sink_changelog = changelog::sink(&rel.changelog, settings.materialized, &settings.key).map_err(|c| {
            // Here only: a query's span walks the whole query.
            let span = l.key_span.unwrap_or_else(|| query.span());
            let unselected = unselected_key(&c, &rel);
            let mut e = l.changelog_error(c, &rel.changelog, span);
            // A help that names a key the output lacks would lead to E0321.
            if let Some((key, missing)) = unselected {
                e.help = Some(format!(
                    "the output is updated by key [{}], but does not select {}: select {} in `{model}`, then set `materialized: upsert` and `key: [{}]`",
                    key.join(", "),
                    missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "it" } else { "them" },
                    key.join(", ")
                ));
            }
            e.aggregate_keys = unwindowed_aggregate_keys(&l.nodes);
            e
        })?;
        let sink_def = match &settings.sink {
            Some((c, target)) if !target.is_empty() => format!("{} {} {}", settings.materialized.as_str(), c.as_str(), target),
            Some((c, _)) => format!("{} {}", settings.materialized.as_str(), c.as_str()),
            None => settings.materialized.as_str().to_string(),
        };
        let schema = rel.cols.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
        l.push(Operator::Sink, &rel, sink_def, schema, sink_changelog, None, rel.time.clone(), NodeKind::Sink { materialized: settings.materialized });
        // The plan is kept for the whole run: no spare capacity.
        let mut nodes = std::mem::take(&mut l.nodes);
        nodes.shrink_to_fit();
        Ok(ModelPlan { name: model.to_string(), materialized: settings.materialized, key: settings.key.clone(), reads_models: std::mem::take(&mut l.reads_models), nodes })
    }
}

/// The key a changelog conflict's help would name, and its columns the
/// output `rel` does not select (none: `None`).
fn unselected_key(c: &Conflict, rel: &Rel) -> Option<(Vec<String>, Vec<String>)> {
    let key = match c {
        Conflict::AppendOverUpserts { key } | Conflict::UndeclaredKey { key } => key,
        Conflict::OtherKey { produced, .. } => produced,
        _ => return None,
    };
    let missing: Vec<String> = key.iter().filter(|k| !rel.cols.iter().any(|c| &c.name == *k)).cloned().collect();
    (!missing.is_empty()).then(|| (key.clone(), missing))
}

/// Whether `nodes` hold a regular join whose inputs carry event time: its
/// output has no time attribute on Flink (an interval join's and an
/// event-time temporal join's keep theirs), which E0408's help says.
/// An input read with ref() (`up::sink::0`, no node of `nodes`) has
/// event time when `timed(up)` says so.
pub fn loses_time_at_join(model: &str, nodes: &[PlanNode], timed: &dyn Fn(&str) -> bool) -> bool {
    nodes.iter().any(|n| {
        let NodeKind::Join { interval: None, temporal: None, .. } = &n.kind else { return false };
        n.inputs.iter().any(|i| match nodes.iter().find(|x| x.has_id(model, i)) {
            Some(x) => x.time.is_some(),
            None => i.strip_suffix("::sink::0").is_some_and(timed),
        })
    })
}

/// The grouped keys of the model's unwindowed aggregate, if it has one.
pub fn unwindowed_aggregate_keys(nodes: &[PlanNode]) -> Option<Vec<String>> {
    nodes.iter().find_map(|node| match (&node.kind, &node.state) {
        (NodeKind::Aggregate { window: None, .. }, Some(st)) => Some(st.keys.clone()),
        _ => None,
    })
}

fn operator_index(op: Operator) -> usize {
    Operator::ALL.iter().position(|o| *o == op).expect("every operator is in ALL")
}

fn unsupported(model: &str, what: impl std::fmt::Display, span: SqlSpan) -> LowerError {
    LowerError::new(Code::UnsupportedConstruct, format!("model `{model}` uses {what}, which is not supported yet"), span)
        .help("docs/types.md lists the SQL a model may use")
}

impl<'a> Lowerer<'a> {
    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, op: Operator, input: &Rel, definition: String, schema: Vec<Column>, changelog: Changelog, state: Option<KeyedState>, time: Option<String>, kind: NodeKind) -> String {
        let ordinal = self.ordinals[operator_index(op)];
        self.ordinals[operator_index(op)] += 1;
        let node = PlanNode {
            operator: op,
            ordinal,
            inputs: if input.input_id.is_empty() { Vec::new() } else { vec![input.input_id.clone()] },
            definition,
            schema,
            bounded: input.bounded,
            changelog,
            state: state.map(Box::new),
            time,
            kind,
        };
        let id = node.id(self.model);
        self.nodes.push(node);
        id
    }

    /// Whether the input a window reads has no event time because a
    /// regular join dropped it, here or in a model it reads.
    fn time_lost_at_join(&self) -> bool {
        let timed = |m: &str| matches!(self.inputs.model(m), Upstream::Ok(up) if up.time.is_some());
        loses_time_at_join(self.model, &self.nodes, &timed) || self.reads_models.iter().any(|m| matches!(self.inputs.model(m), Upstream::Ok(up) if up.time_lost_at_join))
    }

    /// E0408's help when a regular join dropped the event time.
    fn join_time_help(&self) -> Option<String> {
        self.time_lost_at_join().then(|| {
            "a regular join's output carries no event time (Flink keeps the time attributes through an interval join, whose ON bounds the time between the two sides, and an event-time temporal join, `FOR SYSTEM_TIME AS OF`, only): bound the join's time, e.g. `AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '1' HOUR`, or window each input before joining".to_string()
        })
    }

    /// Whether the model's output is keyed by a Rank (its last keyed node).
    fn keyed_by_rank(&self) -> bool {
        self.nodes.iter().rev().find(|n| n.state.is_some()).is_some_and(|n| n.operator == Operator::Rank)
    }

    /// Whether a join of this model reads an updating input: an inner
    /// join's output is retract only then, and an input planned in this
    /// model (a subquery) says so by its changelog.
    fn joins_updating_input(&self) -> bool {
        let updating = |id: &String| self.nodes.iter().any(|n| n.has_id(self.model, id) && n.changelog != Changelog::Append);
        // A ref() input is no node here: a keyed side says it (its unique key).
        let keyed = |j: &PlanNode| j.state.as_ref().and_then(|s| s.join.as_ref()).is_some_and(|s| !s.left.unique.is_empty() || !s.right.unique.is_empty());
        self.nodes.iter().any(|j| matches!(j.kind, NodeKind::Join { join_type: JoinType::Inner, .. }) || (matches!(j.kind, NodeKind::Join { .. }) && (j.inputs.iter().any(updating) || keyed(j))))
    }

    /// The error for a changelog `input` a step cannot take, at `span`.
    fn changelog_error(&self, c: Conflict, input: &Changelog, span: SqlSpan) -> LowerError {
        let model = self.model;
        match c {
            Conflict::UpdatingWindowInput => LowerError::new(
                Code::AggregateOverUpdatingStream,
                format!("model `{model}` uses a windowed aggregate over an updating stream (its input emits {}), which is not supported: a window emits each row once, when it closes, and cannot take it back", input.title()),
                span,
            )
            .help(format!("remove `window:` from `{model}` to aggregate the updates into an upsert result (GROUP BY without a window retracts replaced rows), or window the append-only source in the upstream model")),
            Conflict::AppendOverUpserts { key } => {
                LowerError::new(Code::AppendModelEmitsUpdates, format!("model `{model}` is materialized as append, but its output changelog is {}", input.title()), span)
                    .help(format!("set `materialized: upsert` and `key: [{}]` for `{model}` in streamform.yml", key.join(", ")))
            }
            Conflict::UndeclaredKey { key } => {
                LowerError::new(Code::UpsertWithoutKey, format!("model `{model}` is materialized as upsert over key [{}] but declares no key", key.join(", ")), span)
                    .help(format!("add `key: [{}]` to `{model}` in streamform.yml", key.join(", ")))
            }
            Conflict::RetractIntoSink if self.joins_updating_input() => LowerError::new(
                Code::RetractIntoSink,
                format!("model `{model}` writes the output of a join over a keyed (updating) input, a {} changelog with no upsert key: a replaced input row deletes the rows it joined, and Flink refuses to write a query with no upsert key by a sink's primary key", input.title()),
                span,
            )
            .help(format!("join two keyed inputs on their whole keys (e.g. two aggregates grouped by `k`, `ON a.k = b.k`), select a key the join keeps (an INNER join either side's, a LEFT join the left side's, a RIGHT join the right side's, a FULL join both together: docs/identity.md) and key `{model}` by it; or aggregate the join by the columns that identify an output row, e.g. `SELECT o.order_id, MAX(c.name) AS name … GROUP BY o.order_id`, and set `materialized: upsert` and `key: [order_id]` for `{model}`")),
            Conflict::KeyNotInferred { declared, keys } => {
                let shown: Vec<String> = keys.iter().map(|k| format!("[{}]", k.join(", "))).collect();
                LowerError::new(
                    Code::RetractIntoSink,
                    format!(
                        "model `{model}` declares key [{}], but the upsert keys of its join's output are {}: Flink refuses to write a query whose upsert key differs from the sink's primary key, since rows of different upsert keys could map to one primary key",
                        declared.join(", "),
                        shown.join(" and ")
                    ),
                    span,
                )
                .help(format!("set `key: {}` for `{model}`; a join keeps a side's key only when the other side is joined on exactly its key and the join pads no rows of the first side with nulls (docs/identity.md)", shown[0]))
            }
            Conflict::RetractIntoSink => LowerError::new(Code::RetractIntoSink, format!("model `{model}` writes the output of an outer join, a {} changelog with no key: a row padded with nulls is deleted when its match arrives, and Flink cannot write such rows by a key", input.title()), span)
                .help(format!("aggregate the join by the columns that identify an output row, e.g. `SELECT o.order_id, MAX(c.name) AS name … GROUP BY o.order_id`, and set `materialized: upsert` and `key: [order_id]` for `{model}`; or write an INNER JOIN")),
            Conflict::NoKeyOverAppend => {
                LowerError::new(Code::UpsertWithoutKey, format!("model `{model}` is materialized as upsert over an append stream but declares no key"), span)
                    .help(format!("add `key: [...]` to `{model}` in streamform.yml, naming the columns that identify a row, or materialize it as append"))
            }
            Conflict::OtherKey { declared, produced } if self.keyed_by_rank() => LowerError::new(
                Code::KeyDiffersFromGroupBy,
                format!("model `{model}` declares key [{}] but its ROW_NUMBER() produces key [{}]", declared.join(", "), produced.join(", ")),
                span,
            )
            .help(format!("the upsert key of a Top-N is its PARTITION BY columns in order, then the row number when the query selects it: set `key: [{}]`", produced.join(", "))),
            Conflict::OtherKey { declared, produced } => LowerError::new(
                Code::KeyDiffersFromGroupBy,
                format!("model `{model}` declares key [{}] but its GROUP BY produces key [{}]", declared.join(", "), produced.join(", ")),
                span,
            )
            .help(format!("the upsert key is the GROUP BY columns in order: set `key: [{}]`", produced.join(", "))),
            Conflict::UpdatingRankInput => rank::updating_input(model, input, span),
            Conflict::TopNWithoutNumber { rows } => rank::without_number(model, rows, span),
        }
    }

    fn query(&mut self, q: &'a sql::Query) -> Result<Rel> {
        let scope = self.with_scope(q)?;
        let rel = self.set_expr(&q.body);
        self.ctes.truncate(scope);
        rel
    }

    /// A query's clauses around its body: ORDER BY and LIMIT refused, its
    /// WITH queries brought into scope. Returns the scope to truncate the
    /// CTEs back to once the body is planned.
    fn with_scope(&mut self, q: &'a sql::Query) -> Result<usize> {
        if let Some(order) = &q.order_by {
            return Err(LowerError::new(
                Code::OrderByOverUnbounded,
                format!("model `{}`: ORDER BY cannot produce a final ordering over an unbounded input", self.model),
                order_span(order).unwrap_or(q.span()),
            )
            .help("remove ORDER BY, or sort downstream of a bounded materialization"));
        }
        if let Some(limit) = &q.limit_clause {
            return Err(unsupported(self.model, "LIMIT", limit.span()).help("a streaming model has no last row to stop at; remove LIMIT"));
        }
        let scope = self.ctes.len();
        if let Some(with) = &q.with {
            if with.recursive {
                return Err(unsupported(self.model, "WITH RECURSIVE", with.span()));
            }
            for (i, cte) in with.cte_tables.iter().enumerate() {
                let name = ident_name(&cte.alias.name);
                if with.cte_tables[..i].iter().any(|c| ident_name(&c.alias.name) == name) {
                    self.ctes.truncate(scope);
                    return Err(LowerError::new(Code::DuplicateCteName, format!("model `{}` defines the WITH query `{name}` twice", self.model), cte.alias.name.span)
                        .help("give each WITH query its own name"));
                }
                self.ctes.push((ident_name(&cte.alias.name), cte));
            }
        }
        Ok(scope)
    }

    fn set_expr(&mut self, body: &'a sql::SetExpr) -> Result<Rel> {
        match body {
            sql::SetExpr::Select(s) => self.select(s),
            sql::SetExpr::Query(q) => self.query(q),
            sql::SetExpr::SetOperation { op: sql::SetOperator::Union, set_quantifier: sql::SetQuantifier::All, .. } => self.union_all(body),
            sql::SetExpr::SetOperation { op, .. } => Err(union::refused_set_operation(self.model, *op, body.span())),
            sql::SetExpr::Values(v) => Err(unsupported(self.model, "VALUES", body.span().union(&v.span()))
                .help("a model reads its rows from source('…') or ref('…'); to try it on rows written by hand, list them under `given:` in a fixture (tests/<name>.yml, see `streamform test` in docs/commands.md)")),
            other => Err(unsupported(self.model, "a statement other than SELECT", other.span())),
        }
    }
}

fn rel_schema(rel: &Rel) -> Vec<Column> {
    rel.cols.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect()
}
