//! Lowering one model's SQL into its plan: `Source → [Filter] →
//! [Aggregate] → [Filter] → Project → Sink`, one node per relational step,
//! in the order the original's (unoptimised) planner produces them.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::expr::{arithmetic_type, display_name_literal, AggCall, AggFunc, BinOp, Expr, Literal};
use super::node::{Changelog, Column, KeyedState, ModelPlan, NodeKind, Operator, PlanNode, Retention, SourceRead, TumblingWindow};
use crate::config::{Connector, Materialized};
use crate::diagnostic::{did_you_mean, Diagnostic, Span};
use crate::duration::Duration;
use crate::types::{DataType, Unsupported};

/// What the model's configuration contributes to its plan.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModelSettings {
    pub materialized: Materialized,
    pub key: Vec<String>,
    pub key_declared: bool,
    /// `"<materialized> <connector> <target>"` tail of the Sink definition.
    pub sink: Option<(Connector, String)>,
    pub retention: Option<Duration>,
    pub window: Option<Duration>,
}

/// A source as a model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceInput {
    pub connector: Connector,
    pub columns: Vec<Column>,
    pub definition: String,
    pub time: Option<String>,
    /// False when the source's contracts do not compile.
    pub contracts_ok: bool,
    /// The contracts that are part of the plan: (name, rendered predicate).
    pub contracts: Vec<(String, String)>,
    pub quarantine: Option<String>,
}

/// A model's output as its readers see it: the Sink's contract.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UpstreamModel {
    pub schema: Vec<Column>,
    pub changelog: Changelog,
    pub bounded: bool,
    pub time: Option<String>,
}

pub enum Upstream {
    Ok(UpstreamModel),
    Missing,
    /// The model exists but has no plan (its own errors say why).
    Broken,
    Cycle,
}

pub trait Inputs {
    fn source(&self, name: &str) -> Option<SourceInput>;
    fn model(&self, name: &str) -> Upstream;
    fn source_names(&self) -> Vec<String>;
    fn model_names(&self) -> Vec<String>;
}

/// A planning error: the first one ends planning of the model.
#[derive(Clone, Debug)]
pub struct LowerError {
    pub code: &'static str,
    pub message: String,
    pub span: Option<SqlSpan>,
    pub help: Option<String>,
}

impl LowerError {
    fn new(code: &'static str, message: impl Into<String>, span: SqlSpan) -> LowerError {
        LowerError { code, message: message.into(), span: Some(span), help: None }
    }

    fn help(mut self, help: impl Into<String>) -> LowerError {
        self.help = Some(help.into());
        self
    }

    pub fn into_diagnostic(self, path: &str, text: &str) -> Diagnostic {
        let span = self.span.and_then(|s| to_span(text, s));
        let mut d = Diagnostic::error(self.code, self.message).at(path, span);
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
}

struct Lowerer<'a> {
    model: &'a str,
    settings: &'a ModelSettings,
    inputs: &'a dyn Inputs,
    nodes: Vec<PlanNode>,
    ordinals: [u32; 5],
    reads_model: Option<String>,
    /// CTEs in scope, innermost last.
    ctes: Vec<(String, &'a sql::Cte)>,
    /// Where the last planned aggregate's GROUP BY (or SELECT) is, for
    /// errors about the model's key.
    key_span: Option<SqlSpan>,
}

pub fn lower_model(model: &str, query: &sql::Query, settings: &ModelSettings, inputs: &dyn Inputs) -> Result<ModelPlan> {
    let mut l = Lowerer { model, settings, inputs, nodes: Vec::new(), ordinals: [0; 5], reads_model: None, ctes: Vec::new(), key_span: None };
    if let Some(size) = settings.window {
        if size.millis() == 0 {
            return Err(LowerError { code: "E0310", message: format!("model `{model}` declares a window of size 0s; a window needs a positive size"), span: None, help: Some("set `window: {type: tumbling, size: 5m}` with a positive size".into()) });
        }
        if settings.retention.is_some() {
            return Err(LowerError { code: "E0311", message: format!("model `{model}` declares both a window and retention; a window's state lives until the window closes, so retention has nothing to expire"), span: None, help: Some("remove `retention` from the model".into()) });
        }
    }
    let rel = l.query(query)?;
    if settings.window.is_some() && !l.nodes.iter().any(|n| n.operator == Operator::Aggregate) {
        let at = match query.body.as_ref() {
            sql::SetExpr::Select(sel) => sel.select_token.0.span,
            _ => query.span(),
        };
        return Err(LowerError::new("E0312", format!("model `{model}` declares a window but has no aggregate to cut into windows"), at)
            .help("group by `window_start` and `window_end` (and any key), or remove `window` from the model"));
    }
    let span = l.key_span.unwrap_or_else(|| query.span());
    l.check_materialization(&rel, span)?;
    let sink_def = match &settings.sink {
        Some((c, target)) if !target.is_empty() => format!("{} {} {}", settings.materialized.as_str(), c.as_str(), target),
        Some((c, _)) => format!("{} {}", settings.materialized.as_str(), c.as_str()),
        None => settings.materialized.as_str().to_string(),
    };
    let schema = rel.cols.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
    l.push(Operator::Sink, &rel, sink_def, schema, rel.changelog.clone(), None, rel.time.clone(), NodeKind::Sink { materialized: settings.materialized });
    Ok(ModelPlan { name: model.to_string(), materialized: settings.materialized, key: settings.key.clone(), reads_model: l.reads_model, nodes: l.nodes })
}

fn operator_index(op: Operator) -> usize {
    match op {
        Operator::Source => 0,
        Operator::Filter => 1,
        Operator::Project => 2,
        Operator::Aggregate => 3,
        Operator::Sink => 4,
    }
}

fn unsupported(model: &str, what: impl std::fmt::Display, span: SqlSpan) -> LowerError {
    LowerError::new("E0401", format!("model `{model}` uses {what}, which is not supported yet"), span)
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
            state,
            time,
            kind,
        };
        let id = node.id(self.model);
        self.nodes.push(node);
        id
    }

    fn query(&mut self, q: &'a sql::Query) -> Result<Rel> {
        if let Some(order) = &q.order_by {
            return Err(LowerError::new(
                "E0402",
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
                    return Err(LowerError::new("E0511", format!("model `{}` defines the WITH query `{name}` twice", self.model), cte.alias.name.span)
                        .help("give each WITH query its own name"));
                }
                self.ctes.push((ident_name(&cte.alias.name), cte));
            }
        }
        let rel = self.set_expr(&q.body);
        self.ctes.truncate(scope);
        rel
    }

    fn set_expr(&mut self, body: &'a sql::SetExpr) -> Result<Rel> {
        match body {
            sql::SetExpr::Select(s) => self.select(s),
            sql::SetExpr::Query(q) => self.query(q),
            sql::SetExpr::SetOperation { op, set_quantifier, .. } => {
                let what = match (op, set_quantifier) {
                    (sql::SetOperator::Union, sql::SetQuantifier::All) => "UNION",
                    (sql::SetOperator::Union, _) => "DISTINCT",
                    (sql::SetOperator::Intersect, _) => "INTERSECT",
                    (sql::SetOperator::Except | sql::SetOperator::Minus, _) => "EXCEPT",
                };
                Err(unsupported(self.model, what, body.span()).help("a model reads exactly one relation; split it into one model per input"))
            }
            other => Err(unsupported(self.model, "a statement other than SELECT", other.span())),
        }
    }

    fn select(&mut self, s: &'a sql::Select) -> Result<Rel> {
        if let Some(d) = &s.distinct {
            let span = match d {
                sql::Distinct::On(e) => e.first().map(|e| e.span()).unwrap_or(s.span()),
                _ => s.select_token.0.span,
            };
            return Err(unsupported(self.model, "DISTINCT", span).help("group by the columns instead: SELECT k, COUNT(*) AS n ... GROUP BY k"));
        }
        let from = match s.from.as_slice() {
            [] => {
                return Err(LowerError::new("E0403", format!("model `{}` reads nothing: its SELECT has no FROM", self.model), s.span())
                    .help("read a source with FROM source('name') or another model with FROM ref('name')"))
            }
            [one] if one.joins.is_empty() => one,
            [one] => return Err(unsupported(self.model, "a join", one.joins[0].relation.span()).help("a model reads exactly one relation")),
            [_, second, ..] => return Err(unsupported(self.model, "a join", second.relation.span()).help("a model reads exactly one relation")),
        };
        if s.qualify.is_some() || !s.named_window.is_empty() {
            return Err(unsupported(self.model, "a window function", s.span()));
        }
        let mut rel = self.table_factor(&from.relation)?;
        if let Some(pred) = &s.selection {
            if contains_aggregate(pred) {
                return Err(LowerError::new("E0507", format!("model `{}` uses an aggregate in WHERE", self.model), pred.span())
                    .help("filter on aggregates with HAVING"));
            }
            let e = self.expr(pred, &rel, None)?;
            self.require_boolean(&e, pred, "WHERE")?;
            let def = e.render();
            let schema = rel_schema(&rel);
            let id = self.push(Operator::Filter, &rel, def, schema, rel.changelog.clone(), None, rel.time.clone(), NodeKind::Filter { predicate: e });
            rel.input_id = id;
        }

        let group_by = match &s.group_by {
            sql::GroupByExpr::Expressions(exprs, mods) if mods.is_empty() => exprs.as_slice(),
            other => return Err(unsupported(self.model, "this form of GROUP BY", other.span())),
        };
        let has_aggregates = s.projection.iter().any(|item| select_item_expr(item).is_some_and(contains_aggregate))
            || s.having.as_ref().is_some_and(contains_aggregate);
        if group_by.is_empty() && !has_aggregates {
            if let Some(h) = &s.having {
                return Err(LowerError::new("E0404", format!("model `{}` has HAVING but does not aggregate", self.model), h.span())
                    .help("use WHERE to filter rows that are not grouped"));
            }
            return self.plain_projection(s, rel);
        }
        self.aggregate_select(s, rel, group_by)
    }

    fn plain_projection(&mut self, s: &'a sql::Select, rel: Rel) -> Result<Rel> {
        let mut items: Vec<(Expr, String, SqlSpan)> = Vec::new();
        for item in &s.projection {
            match item {
                sql::SelectItem::Wildcard(_) => {
                    for (i, c) in rel.cols.iter().enumerate() {
                        items.push((Expr::Column { index: i, name: c.name.clone(), ty: c.ty }, c.name.clone(), item.span()));
                    }
                }
                sql::SelectItem::QualifiedWildcard(kind, _) => {
                    if let sql::SelectItemQualifiedWildcardKind::ObjectName(n) = kind {
                        let q = object_name(n);
                        if q != rel.qualifier {
                            return Err(LowerError::new("E0501", format!("model `{}` selects `{q}.*`, but it reads `{}`", self.model, rel.qualifier), item.span())
                                .help(format!("write `{}.*` or `*`", rel.qualifier)));
                        }
                    }
                    for (i, c) in rel.cols.iter().enumerate() {
                        items.push((Expr::Column { index: i, name: c.name.clone(), ty: c.ty }, c.name.clone(), item.span()));
                    }
                }
                sql::SelectItem::UnnamedExpr(e) => {
                    let ex = self.expr(e, &rel, None)?;
                    let name = match &ex {
                        Expr::Column { name, .. } => name.clone(),
                        _ => display_name(e, &rel.qualifier),
                    };
                    items.push((ex, name, e.span()));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    let ex = self.expr(expr, &rel, None)?;
                    items.push((ex, ident_name(alias), item.span()));
                }
                sql::SelectItem::ExprWithAliases { expr, .. } => return Err(unsupported(self.model, "several aliases for one column", expr.span())),
            }
        }
        self.project(rel, items)
    }

    fn project(&mut self, rel: Rel, items: Vec<(Expr, String, SqlSpan)>) -> Result<Rel> {
        for (i, (_, name, span)) in items.iter().enumerate() {
            if let Some(first) = items[..i].iter().position(|(_, n, _)| n == name) {
                return Err(LowerError::new(
                    "E0502",
                    format!("model `{}` produces the column `{name}` twice (select items {} and {})", self.model, first + 1, i + 1),
                    *span,
                )
                .help("give one of them another name with AS"));
            }
        }
        let def = items
            .iter()
            .map(|(e, name, _)| {
                let r = e.render();
                if &r == name { r } else { format!("{r} AS {name}") }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let time = rel.time.as_ref().and_then(|t| {
            let idx = rel.cols.iter().position(|c| &c.name == t)?;
            items.iter().find(|(e, _, _)| matches!(e, Expr::Column { index, .. } if *index == idx)).map(|(_, n, _)| n.clone())
        });
        let schema: Vec<Column> = items.iter().map(|(e, n, _)| Column { name: n.clone(), ty: e.ty() }).collect();
        let cols = schema.iter().map(|c| RelCol { name: c.name.clone(), ty: c.ty }).collect();
        let items = items.into_iter().map(|(e, n, _)| (e, n)).collect();
        let id = self.push(Operator::Project, &rel, def, schema, rel.changelog.clone(), None, time.clone(), NodeKind::Project { items });
        Ok(Rel { qualifier: rel.qualifier, cols, input_id: id, changelog: rel.changelog, bounded: rel.bounded, time, windowable: false })
    }

    fn aggregate_select(&mut self, s: &'a sql::Select, mut rel: Rel, group_by: &'a [sql::Expr]) -> Result<Rel> {
        if let Changelog::Upsert(_) = rel.changelog {
            let at = s.projection.iter().find(|i| select_item_expr(i).is_some_and(contains_aggregate)).map(|i| i.span()).or(group_by.first().map(|g| g.span())).unwrap_or(s.span());
            return Err(LowerError::new(
                "E0405",
                format!("model `{}` uses aggregation over an updating stream (its input emits {}), which is not supported yet", self.model, rel.changelog.title()),
                at,
            )
            .help("aggregate the append-only source directly, or aggregate in the upstream model"));
        }
        self.key_span = Some(match group_by {
            [] => s.projection.iter().find(|i| select_item_expr(i).is_some_and(contains_aggregate)).map(|i| i.span()).unwrap_or(s.span()),
            [first, ..] => first.span().union(&group_by[group_by.len() - 1].span()),
        });
        // A windowed model's aggregate input gains the window bounds.
        let windowed = self.settings.window.filter(|_| rel.windowable);
        rel.windowable = false;
        let base_cols = rel.cols.len();
        if windowed.is_some() {
            for name in ["window_start", "window_end"] {
                rel.cols.push(RelCol { name: name.into(), ty: DataType::Timestamp });
            }
        }
        // Select aliases, which GROUP BY and HAVING may use.
        let aliases: Vec<(String, &sql::Expr)> = s
            .projection
            .iter()
            .filter_map(|item| match item {
                sql::SelectItem::ExprWithAlias { expr, alias } => Some((ident_name(alias), expr)),
                _ => None,
            })
            .collect();

        let mut keys: Vec<usize> = Vec::new();
        for g in group_by {
            let target: &sql::Expr = match g {
                sql::Expr::Value(v) if matches!(v.value, sql::Value::Number(..)) => {
                    let sql::Value::Number(n, _) = &v.value else { unreachable!() };
                    let pos: usize = n.parse().unwrap_or(0);
                    match s.projection.get(pos.wrapping_sub(1)) {
                        Some(item) => select_item_expr(item).ok_or_else(|| {
                            LowerError::new("E0406", format!("model `{}` groups by position {pos}, which is a wildcard", self.model), g.span())
                                .help("group by the columns by name")
                        })?,
                        None => {
                            return Err(LowerError::new("E0406", format!("model `{}` groups by position {pos}, but the SELECT has {} items", self.model, s.projection.len()), g.span())
                                .help(format!("positions count the SELECT items from 1 to {}; or group by the columns by name", s.projection.len())))
                        }
                    }
                }
                sql::Expr::Identifier(id) if rel.cols.iter().all(|c| c.name != ident_name(id)) => {
                    aliases.iter().find(|(a, _)| *a == ident_name(id)).map(|(_, e)| *e).unwrap_or(g)
                }
                other => other,
            };
            let e = self.expr(strip_nested(target), &rel, None)?;
            match e {
                Expr::Column { index, .. } => {
                    if !keys.contains(&index) {
                        keys.push(index)
                    }
                }
                other => {
                    return Err(unsupported(self.model, format_args!("GROUP BY over the expression {}", other.render()), g.span())
                        .help("compute the expression in a derived table or an upstream model, then group by its column"))
                }
            }
        }

        let mut window = None;
        if let Some(size) = windowed {
            let has_start = keys.contains(&base_cols);
            let has_end = keys.contains(&(base_cols + 1));
            if !(has_start && has_end) {
                let which = match (has_start, has_end) {
                    (false, false) => "neither".to_string(),
                    (true, false) => "only `window_start`".to_string(),
                    _ => "only `window_end`".to_string(),
                };
                return Err(LowerError::new(
                    "E0407",
                    format!("model `{}` declares a window, so its aggregate must group by both `window_start` and `window_end`; it groups by {which}", self.model),
                    s.group_by.span(),
                )
                .help("add `window_start, window_end` to GROUP BY"));
            }
            let Some(time) = rel.time.clone() else {
                let what = if rel.qualifier.is_empty() { "its input".to_string() } else { format!("`{}`", rel.qualifier) };
                return Err(LowerError::new(
                    "E0408",
                    format!("model `{}` declares a window, but {what}, which its aggregate reads, carries no event time", self.model),
                    s.group_by.span(),
                )
                .help(format!("the source must declare `event_time:`, and every model and projection between it and this aggregate must keep that column; {what} has {}", rel.cols.iter().filter(|c| c.name != "window_start" && c.name != "window_end").map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "))));
            };
            window = Some(TumblingWindow { time, size });
        }
        let data_keys: Vec<usize> = keys.iter().copied().filter(|k| *k < base_cols || windowed.is_none()).collect();

        // Aggregate calls, de-duplicated by rendering, SELECT before HAVING.
        let mut calls: Vec<AggCall> = Vec::new();
        for item in &s.projection {
            if let Some(e) = select_item_expr(item) {
                self.collect_aggregates(e, &rel, &mut calls)?;
            }
        }
        if let Some(h) = &s.having {
            let h = resolve_alias(h, &aliases, &rel);
            self.collect_aggregates(&h, &rel, &mut calls)?;
        }

        // The Aggregate node.
        let key_names: Vec<String> = data_keys.iter().map(|k| rel.cols[*k].name.clone()).collect();
        let mut schema: Vec<Column> = data_keys.iter().map(|k| Column { name: rel.cols[*k].name.clone(), ty: rel.cols[*k].ty }).collect();
        if window.is_some() {
            schema.push(Column { name: "window_start".into(), ty: DataType::Timestamp });
            schema.push(Column { name: "window_end".into(), ty: DataType::Timestamp });
        }
        schema.extend(calls.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }));
        let def = format!("key=[{}] aggregates=[{}]", key_names.join(", "), calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "));
        let retention = match (&window, self.settings.retention) {
            (Some(_), _) => Retention::UntilClose,
            (None, Some(d)) => Retention::After(d),
            (None, None) => Retention::Unbounded,
        };
        let state = KeyedState {
            keys: key_names.clone(),
            accumulators: calls.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect(),
            retention,
            window: window.clone(),
        };
        let changelog = if window.is_some() { Changelog::Append } else { Changelog::Upsert(key_names.clone()) };
        let group_keys: Vec<usize> = if window.is_some() { data_keys.iter().copied().chain([base_cols, base_cols + 1]).collect() } else { data_keys.clone() };
        let id = self.push(
            Operator::Aggregate,
            &rel,
            def,
            schema.clone(),
            changelog.clone(),
            Some(state),
            None,
            NodeKind::Aggregate { keys: group_keys.clone(), calls: calls.clone(), window },
        );
        let agg_rel = Rel {
            qualifier: rel.qualifier.clone(),
            cols: schema.iter().map(|c| RelCol { name: c.name.clone(), ty: c.ty }).collect(),
            input_id: id,
            changelog,
            bounded: rel.bounded,
            time: None,
            windowable: false,
        };
        let grouping = Grouping { input: &rel, keys: &group_keys, calls: &calls };

        let mut out_rel = agg_rel;
        if let Some(h) = &s.having {
            let h2 = resolve_alias(h, &aliases, &rel);
            let e = self.expr(&h2, &out_rel, Some(&grouping))?;
            self.require_boolean(&e, h, "HAVING")?;
            let schema = rel_schema(&out_rel);
            let id = self.push(Operator::Filter, &out_rel, e.render(), schema, out_rel.changelog.clone(), None, None, NodeKind::Filter { predicate: e });
            out_rel.input_id = id;
        }

        let mut items = Vec::new();
        for item in &s.projection {
            match item {
                sql::SelectItem::UnnamedExpr(e) => {
                    let ex = self.expr(e, &out_rel, Some(&grouping))?;
                    let name = match &ex {
                        Expr::Column { name, .. } => name.clone(),
                        _ => display_name(e, &rel.qualifier),
                    };
                    items.push((ex, name, e.span()));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    let ex = self.expr(expr, &out_rel, Some(&grouping))?;
                    items.push((ex, ident_name(alias), item.span()));
                }
                other => {
                    return Err(LowerError::new("E0409", format!("model `{}` selects `*` from an aggregate", self.model), other.span())
                        .help("name the grouped columns and the aggregates"))
                }
            }
        }
        self.project(out_rel, items)
    }

    fn collect_aggregates(&self, e: &sql::Expr, rel: &Rel, calls: &mut Vec<AggCall>) -> Result<()> {
        if let sql::Expr::Function(f) = e {
            let name = object_name(&f.name).to_lowercase();
            if let Some(func) = AggFunc::parse(&name) {
                let call = self.aggregate_call(func, f, rel)?;
                if !calls.iter().any(|c| c.identity == call.identity) {
                    calls.push(call);
                }
                return Ok(());
            }
        }
        let mut result = Ok(());
        for_each_child(e, &mut |c| {
            if result.is_ok() {
                result = self.collect_aggregates(c, rel, calls);
            }
        });
        result
    }

    fn aggregate_call(&self, func: AggFunc, f: &sql::Function, rel: &Rel) -> Result<AggCall> {
        let span = f.span();
        if f.over.is_some() {
            return Err(unsupported(self.model, format_args!("the window function `{}() OVER`", func.name()), span));
        }
        if f.filter.is_some() {
            return Err(unsupported(self.model, "FILTER on an aggregate", span));
        }
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(LowerError::new("E0410", format!("model `{}` calls {}() without an argument", self.model, func.name()), span)
                .help(format!("pass one column: {}(amount){}", func.name(), if func == AggFunc::Count { ", or count(*) to count rows" } else { "" })));
        };
        if matches!(list.duplicate_treatment, Some(sql::DuplicateTreatment::Distinct)) {
            return Err(unsupported(self.model, "DISTINCT inside an aggregate", span));
        }
        if list.args.len() != 1 {
            return Err(LowerError::new("E0410", format!("model `{}` calls {}() with {} arguments; it takes one", self.model, func.name(), list.args.len()), span)
                .help(format!("pass one column: {}(amount)", func.name())));
        }
        let arg = match &list.args[0] {
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) if func == AggFunc::Count => None,
            // count(1), count('x'), even count(NULL): the original counts rows.
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::Value(_))) if func == AggFunc::Count => None,
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => {
                if contains_aggregate(e) {
                    return Err(unsupported(self.model, "an aggregate inside an aggregate", e.span()));
                }
                Some(self.expr(e, rel, None)?)
            }
            _ => {
                return Err(LowerError::new("E0410", format!("model `{}` calls {}() with an argument it does not take", self.model, func.name()), span)
                    .help("only count() takes `*`; the others take one column or expression"))
            }
        };
        let ty = func.accumulator_type(arg.as_ref().map(|a| a.ty())).map_err(|why| {
            LowerError::new("E0503", format!("model `{}` cannot compute {}: {why}", self.model, AggCall::render(func, arg.as_ref())), span)
                .help("cast the argument to a number, or use count(), min() or max()")
        })?;
        let identity = display_name(&sql::Expr::Function(f.clone()), &rel.qualifier);
        Ok(AggCall { func, name: AggCall::render(func, arg.as_ref()), arg, ty, identity })
    }

    fn require_boolean(&self, e: &Expr, ast: &sql::Expr, clause: &str) -> Result<()> {
        match e.ty() {
            DataType::Boolean | DataType::Unsupported(Unsupported::Null) => Ok(()),
            t => Err(LowerError::new("E0504", format!("model `{}` filters with {clause} `{}`, which is {t}, not boolean", self.model, e.render()), ast.span())
                .help("compare it with something, for example `> 0` or `IS NOT NULL`")),
        }
    }

    fn table_factor(&mut self, t: &'a sql::TableFactor) -> Result<Rel> {
        match t {
            sql::TableFactor::Table { name, alias, args, .. } => {
                let fname = object_name(name);
                let alias_name = alias.as_ref().map(|a| ident_name(&a.name));
                if let Some(args) = args {
                    let kind = fname.to_lowercase();
                    if kind != "source" && kind != "ref" {
                        return Err(unsupported(self.model, format_args!("the table function `{fname}`"), t.span()).help("read with source('name') or ref('name')"));
                    }
                    let arg_span = args.args.first().map(|a| a.span()).unwrap_or(t.span());
                    let target = match args.args.as_slice() {
                        [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::Value(v)))] => match &v.value {
                            sql::Value::SingleQuotedString(s) => s.clone(),
                            _ => return Err(self.bad_reference(&kind, arg_span)),
                        },
                        _ => return Err(self.bad_reference(&kind, arg_span)),
                    };
                    if kind == "source" {
                        self.read_source(&target, alias_name, arg_span)
                    } else {
                        self.read_model(&target, alias_name, arg_span)
                    }
                } else {
                    let key = ident_name(name.0.last().and_then(|p| p.as_ident()).expect("table names have a part"));
                    if name.0.len() == 1 {
                        if let Some(pos) = self.ctes.iter().rposition(|(n, _)| *n == key) {
                            let (_, cte) = self.ctes[pos];
                            // A CTE sees only the CTEs defined before it.
                            let saved = self.ctes.split_off(pos);
                            let r = self.query(&cte.query);
                            self.ctes.extend(saved);
                            let mut rel = self.rename_columns(r?, &cte.alias)?;
                            rel.qualifier = alias_name.unwrap_or(key);
                            return Ok(rel);
                        }
                    }
                    let is_source = self.inputs.source(&fname).is_some();
                    let is_model = self.inputs.model_names().iter().any(|m| *m == fname);
                    let help = if is_model && !is_source {
                        format!("write ref('{fname}') to read the model `{fname}`")
                    } else if is_source {
                        format!("write source('{fname}') to read the source `{fname}`")
                    } else {
                        format!("use source('{fname}') for a source or ref('{fname}') for a model")
                    };
                    Err(LowerError::new("E0601", format!("model `{}` reads `{fname}` directly", self.model), name.span()).help(help))
                }
            }
            sql::TableFactor::Derived { lateral, subquery, alias, .. } => {
                if *lateral {
                    return Err(unsupported(self.model, "LATERAL", t.span()));
                }
                let mut rel = self.query(subquery)?;
                if let Some(a) = alias {
                    rel = self.rename_columns(rel, a)?;
                    rel.qualifier = ident_name(&a.name);
                }
                Ok(rel)
            }
            other => Err(unsupported(self.model, "this kind of FROM item", other.span()).help("read with source('name') or ref('name')")),
        }
    }

    /// `WITH a(x, y) AS (...)` and `(...) AS t(x, y)` rename the columns,
    /// with a projection of their own.
    fn rename_columns(&mut self, rel: Rel, alias: &sql::TableAlias) -> Result<Rel> {
        if alias.columns.is_empty() {
            return Ok(rel);
        }
        if alias.columns.len() != rel.cols.len() {
            return Err(LowerError::new(
                "E0512",
                format!("model `{}` names {} columns for `{}`, which has {}", self.model, alias.columns.len(), ident_name(&alias.name), rel.cols.len()),
                alias.name.span,
            )
            .help(format!("name every column: {}", rel.cols.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "))));
        }
        let items = rel
            .cols
            .iter()
            .zip(&alias.columns)
            .enumerate()
            .map(|(i, (c, new))| (Expr::Column { index: i, name: c.name.clone(), ty: c.ty }, ident_name(&new.name), new.name.span))
            .collect();
        self.project(rel, items)
    }

    fn bad_reference(&self, kind: &str, span: SqlSpan) -> LowerError {
        LowerError::new("E0602", format!("model `{}` uses {kind}() with something other than one quoted name", self.model), span)
            .help(format!("write {kind}('name') with the name in single quotes"))
    }

    fn read_source(&mut self, name: &str, alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        let Some(src) = self.inputs.source(name) else {
            return Err(self.unknown_source(name, span));
        };
        if src.connector == Connector::Iceberg {
            return Err(LowerError::new("E0609", format!("model `{}` reads source `{name}`, which uses the iceberg connector; models can write Iceberg tables but not read them yet", self.model), span)
                .help("read the table's change stream from Kafka instead"));
        }
        self.source_rel(name, src, alias, span)
    }

    fn unknown_source(&self, name: &str, span: SqlSpan) -> LowerError {
        {
            let names = self.inputs.source_names();
            let help = match did_you_mean(name, names.iter().map(String::as_str)) {
                Some(s) => format!("did you mean source('{s}')? otherwise declare `{name}` under `sources:` in sources.yml"),
                None if self.inputs.model_names().iter().any(|m| m == name) => format!("`{name}` is a model: read it with ref('{name}')"),
                None => format!("declare it under `sources:` in sources.yml"),
            };
            LowerError::new("E0603", format!("model `{}` reads source('{name}'), which is not declared in sources.yml", self.model), span).help(help)
        }
    }

    fn source_rel(&mut self, name: &str, src: SourceInput, alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        if !src.contracts_ok {
            return Err(LowerError::new("E0604", format!("model `{}` reads source('{name}'), whose contracts do not compile", self.model), span)
                .help(format!("fix the contracts of `{name}` in sources.yml")));
        }
        let root = Rel {
            qualifier: String::new(),
            cols: Vec::new(),
            input_id: String::new(),
            changelog: Changelog::Append,
            bounded: src.connector == Connector::File,
            time: None,
            windowable: false,
        };
        let schema = src.columns.clone();
        let id = self.push(
            Operator::Source,
            &root,
            src.definition.clone(),
            schema.clone(),
            Changelog::Append,
            None,
            src.time.clone(),
            NodeKind::Source(SourceRead { source: name.to_string(), connector: src.connector }),
        );
        Ok(Rel {
            qualifier: alias.unwrap_or_else(|| name.to_string()),
            cols: schema.into_iter().map(|c| RelCol { name: c.name, ty: c.ty }).collect(),
            input_id: id,
            changelog: Changelog::Append,
            bounded: root.bounded,
            time: src.time,
            windowable: self.settings.window.is_some(),
        })
    }

    fn read_model(&mut self, name: &str, alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        match self.inputs.model(name) {
            Upstream::Ok(up) => {
                self.reads_model = Some(name.to_string());
                Ok(Rel {
                    qualifier: alias.unwrap_or_else(|| name.to_string()),
                    cols: up.schema.iter().map(|c| RelCol { name: c.name.clone(), ty: c.ty }).collect(),
                    input_id: format!("{name}::sink::0"),
                    changelog: up.changelog,
                    bounded: up.bounded,
                    time: up.time,
                    windowable: self.settings.window.is_some(),
                })
            }
            Upstream::Missing => {
                let names = self.inputs.model_names();
                let help = match did_you_mean(name, names.iter().map(String::as_str)) {
                    Some(s) => format!("did you mean ref('{s}')? ref() names another model in this project"),
                    None if self.inputs.source(name).is_some() => format!("`{name}` is a source: read it with source('{name}')"),
                    None => format!("ref() names another model in this project; create models/{name}.sql"),
                };
                Err(LowerError::new("E0606", format!("model `{}` reads ref('{name}'), but there is no models/{name}.sql", self.model), span).help(help))
            }
            Upstream::Broken => Err(LowerError::new("E0607", format!("model `{}` reads ref('{name}'), which does not compile", self.model), span)
                .help(format!("fix the errors in models/{name}.sql first"))),
            Upstream::Cycle => Err(LowerError::new("E0608", format!("model `{}` is part of a reference cycle, or depends on one", self.model), span)
                .help("a model cannot depend on its own output; break the cycle")),
        }
    }

    /// Plans a scalar expression over `rel`. With `grouping`, the
    /// expression is evaluated above an aggregate: grouped columns and
    /// aggregate calls become columns of the aggregate's output.
    fn expr(&self, e: &sql::Expr, rel: &Rel, grouping: Option<&Grouping>) -> Result<Expr> {
        if let Some(g) = grouping {
            if let Some(found) = self.grouped_column(e, rel, g)? {
                return Ok(found);
            }
        }
        let model = self.model;
        Ok(match e {
            sql::Expr::Identifier(id) => self.column(&[id.clone()], rel, grouping, e.span())?,
            sql::Expr::CompoundIdentifier(parts) => self.column(parts, rel, grouping, e.span())?,
            sql::Expr::Nested(inner) => self.expr(inner, rel, grouping)?,
            sql::Expr::Value(v) => {
                if let sql::Value::Number(n, _) = &v.value {
                    if n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<i64>().is_err() {
                        return Err(unsupported(model, format_args!("the integer {n}, beyond int64"), e.span())
                            .help("integers range from -9223372036854775808 to 9223372036854775807; write a decimal literal (with a `.`) for a float64"));
                    }
                }
                Expr::Literal(literal(&v.value).ok_or_else(|| unsupported(model, format_args!("the literal {}", v.value), e.span()))?)
            }
            sql::Expr::UnaryOp { op, expr } => match (op, expr.as_ref()) {
                (sql::UnaryOperator::Minus, sql::Expr::Value(v)) if matches!(v.value, sql::Value::Number(..)) => match literal(&v.value) {
                    Some(Literal::Int(i)) => Expr::Literal(Literal::Int(-i)),
                    Some(Literal::Float(f)) => Expr::Literal(Literal::Float(-f)),
                    _ => unreachable!(),
                },
                (sql::UnaryOperator::Plus, inner) => self.expr(inner, rel, grouping)?,
                (sql::UnaryOperator::Not, inner) => {
                    let x = self.expr(inner, rel, grouping)?;
                    if !matches!(x.ty(), DataType::Boolean | DataType::Unsupported(Unsupported::Null)) {
                        return Err(LowerError::new("E0505", format!("model `{model}` negates `{}`, which is {}, not boolean", x.render(), x.ty()), e.span())
                            .help("NOT applies to a condition: compare first, for example NOT (qty > 0)"));
                    }
                    Expr::Not(Box::new(x))
                }
                (sql::UnaryOperator::Minus, _) => {
                    return Err(unsupported(model, format_args!("the expression (- {})", display_name(expr, &rel.qualifier)), e.span())
                        .help("write `0 - x` instead of `-x`"))
                }
                (op, _) => return Err(unsupported(model, format_args!("the operator {op}"), e.span())),
            },
            sql::Expr::BinaryOp { left, op, right } => {
                let bop = match op {
                    sql::BinaryOperator::Eq => BinOp::Eq,
                    sql::BinaryOperator::NotEq => BinOp::NotEq,
                    sql::BinaryOperator::Lt => BinOp::Lt,
                    sql::BinaryOperator::LtEq => BinOp::LtEq,
                    sql::BinaryOperator::Gt => BinOp::Gt,
                    sql::BinaryOperator::GtEq => BinOp::GtEq,
                    sql::BinaryOperator::Plus => BinOp::Plus,
                    sql::BinaryOperator::Minus => BinOp::Minus,
                    sql::BinaryOperator::Multiply => BinOp::Multiply,
                    sql::BinaryOperator::Divide => BinOp::Divide,
                    sql::BinaryOperator::And => BinOp::And,
                    sql::BinaryOperator::Or => BinOp::Or,
                    other => return Err(unsupported(model, format_args!("the operator {other}"), e.span())),
                };
                let l = self.expr(left, rel, grouping)?;
                let r = self.expr(right, rel, grouping)?;
                let ty = if bop.is_arithmetic() {
                    arithmetic_type(bop, l.ty(), r.ty()).map_err(|why| {
                        LowerError::new("E0506", format!("model `{model}` computes `{} {} {}`: {why}", l.render(), bop.symbol(), r.render()), e.span())
                            .help("arithmetic works on int32, int64, float64 and decimal; CAST the other side if needed")
                    })?
                } else if matches!(bop, BinOp::And | BinOp::Or) {
                    for side in [&l, &r] {
                        if !matches!(side.ty(), DataType::Boolean | DataType::Unsupported(Unsupported::Null)) {
                            return Err(LowerError::new("E0505", format!("model `{model}` uses `{}` in {}, but it is {}, not boolean", side.render(), bop.symbol(), side.ty()), e.span())
                                .help(format!("{} joins conditions: compare it first, for example `{} > 0`", bop.symbol(), side.render())));
                        }
                    }
                    DataType::Boolean
                } else {
                    DataType::Boolean
                };
                Expr::Binary { op: bop, left: Box::new(l), right: Box::new(r), ty }
            }
            sql::Expr::IsNull(x) => Expr::IsNull { expr: Box::new(self.expr(x, rel, grouping)?), negated: false },
            sql::Expr::IsNotNull(x) => Expr::IsNull { expr: Box::new(self.expr(x, rel, grouping)?), negated: true },
            sql::Expr::Cast { kind, expr, data_type, format } => {
                if format.is_some() || matches!(kind, sql::CastKind::TryCast | sql::CastKind::SafeCast) {
                    return Err(unsupported(model, "TRY_CAST or CAST with FORMAT", e.span()));
                }
                let to = cast_type(data_type).ok_or_else(|| unsupported(model, format_args!("a cast to {data_type}"), e.span())
                    .help("cast to INT, BIGINT, DOUBLE, DECIMAL(p,s), BOOLEAN, VARCHAR or TIMESTAMP"))?;
                Expr::Cast { expr: Box::new(self.expr(expr, rel, grouping)?), to }
            }
            sql::Expr::TypedString(ts) => match (&ts.data_type, &ts.value.value) {
                (sql::DataType::Timestamp(None, sql::TimezoneInfo::None), sql::Value::SingleQuotedString(s)) => {
                    Expr::Cast { expr: Box::new(Expr::Literal(Literal::Str(s.clone()))), to: DataType::TimestampNanos }
                }
                _ => return Err(unsupported(model, format_args!("the literal {e}"), e.span())),
            },
            sql::Expr::Function(f) => {
                let name = object_name(&f.name).to_lowercase();
                if AggFunc::parse(&name).is_some() {
                    if f.over.is_some() {
                        return Err(unsupported(model, format_args!("the window function `{name}() OVER`"), e.span()));
                    }
                    return Err(LowerError::new("E0507", format!("model `{model}` uses the aggregate {name}() where no aggregate is allowed"), e.span())
                        .help("aggregates belong in the SELECT list or HAVING of a grouped query, not in WHERE or GROUP BY"));
                }
                return Err(LowerError::new("E0401", format!("model `{model}` uses the function `{name}` (supported: sum, count, min, max), which is not supported yet"), e.span()));
            }
            sql::Expr::Case { .. } => return Err(unsupported(model, "CASE", e.span())),
            sql::Expr::In { target: sql::InTarget::List(_), .. } => return Err(unsupported(model, "IN", e.span()).help("write `x = a OR x = b`")),
            sql::Expr::Between { .. } => return Err(unsupported(model, "BETWEEN", e.span()).help("write `x >= a AND x <= b`")),
            sql::Expr::Like { .. } | sql::Expr::ILike { .. } | sql::Expr::SimilarTo { .. } | sql::Expr::RLike { .. } => {
                return Err(unsupported(model, "LIKE", e.span()))
            }
            sql::Expr::IsTrue(_) | sql::Expr::IsFalse(_) | sql::Expr::IsNotTrue(_) | sql::Expr::IsNotFalse(_) | sql::Expr::IsUnknown(_) | sql::Expr::IsNotUnknown(_) => {
                return Err(unsupported(model, format_args!("the expression {e}"), e.span()).help("compare with `= true` or use the boolean column directly"))
            }
            sql::Expr::Subquery(_) | sql::Expr::In { .. } | sql::Expr::Exists { .. } => {
                return Err(unsupported(model, "a subquery expression", e.span()).help("a model reads one relation; move the subquery into an upstream model"))
            }
            sql::Expr::Interval(_) => return Err(unsupported(model, "an INTERVAL literal", e.span())),
            _ => return Err(unsupported(model, format_args!("the expression {e}"), e.span())),
        })
    }

    /// Above an aggregate: a grouped column or an aggregate call.
    fn grouped_column(&self, e: &sql::Expr, out: &Rel, g: &Grouping) -> Result<Option<Expr>> {
        match e {
            sql::Expr::Function(f) => {
                let name = object_name(&f.name).to_lowercase();
                if let Some(func) = AggFunc::parse(&name) {
                    let call = self.aggregate_call(func, f, g.input)?;
                    let pos = g.calls.iter().position(|c| c.identity == call.identity).expect("collected before");
                    let idx = out.cols.len() - g.calls.len() + pos;
                    return Ok(Some(Expr::Column { index: idx, name: call.name, ty: call.ty }));
                }
                Ok(None)
            }
            sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_) => {
                let parts = match e {
                    sql::Expr::Identifier(i) => vec![i.clone()],
                    sql::Expr::CompoundIdentifier(p) => p.clone(),
                    _ => unreachable!(),
                };
                let c = self.column(&parts, g.input, None, e.span())?;
                let Expr::Column { index, name, ty } = c else { unreachable!() };
                if g.keys.contains(&index) {
                    let out_idx = out.cols.iter().position(|c| c.name == name).expect("keys are in the aggregate output");
                    return Ok(Some(Expr::Column { index: out_idx, name, ty }));
                }
                Err(LowerError::new(
                    "E0508",
                    format!("model `{}` selects `{name}`, which is neither grouped nor aggregated", self.model),
                    e.span(),
                )
                .help(format!("add `{name}` to GROUP BY, or aggregate it, for example max({name})")))
            }
            _ => Ok(None),
        }
    }

    fn column(&self, parts: &[sql::Ident], rel: &Rel, grouping: Option<&Grouping>, span: SqlSpan) -> Result<Expr> {
        let _ = grouping;
        let (qualifier, name) = match parts {
            [n] => (None, ident_name(n)),
            [q, n] => (Some(ident_name(q)), ident_name(n)),
            _ => return Err(unsupported(self.model, "a column name with more than two parts", span)),
        };
        let found = rel.cols.iter().position(|c| c.name == name);
        match (found, &qualifier) {
            (Some(i), None) => Ok(Expr::Column { index: i, name, ty: rel.cols[i].ty }),
            (Some(i), Some(q)) if *q == rel.qualifier => Ok(Expr::Column { index: i, name, ty: rel.cols[i].ty }),
            (None, _) if rel.windowable && (name == "window_start" || name == "window_end") => Err(LowerError::new(
                "E0510",
                format!("model `{}` uses `{name}` before the aggregate", self.model),
                span,
            )
            .help("a window's bounds exist for the aggregate's GROUP BY and what is above it, not for WHERE or a projection below it")),
            _ => {
                let shown = match &qualifier {
                    Some(q) => format!("{q}.{name}"),
                    None => name.clone(),
                };
                let names: Vec<&str> = rel.cols.iter().map(|c| c.name.as_str()).collect();
                let mut help = match did_you_mean(&name, names.iter().copied()) {
                    Some(s) if qualifier.as_deref().is_none_or(|q| q == rel.qualifier) => format!("did you mean `{s}`? "),
                    _ => String::new(),
                };
                if let Some(q) = &qualifier {
                    if *q != rel.qualifier {
                        help.push_str(&format!("the relation here is `{}`; ", rel.qualifier));
                    }
                }
                help.push_str(&format!("the columns are {}", if names.is_empty() { "(none)".to_string() } else { names.join(", ") }));
                if parts[parts.len() - 1].quote_style == Some('"') {
                    help.push_str("; a double-quoted name is a column; write a string in single quotes");
                }
                Err(LowerError::new("E0509", format!("model `{}` uses the column `{shown}`, which does not exist here", self.model), span).help(help))
            }
        }
    }

    fn check_materialization(&self, rel: &Rel, span: SqlSpan) -> Result<()> {
        let s = self.settings;
        match (&s.materialized, &rel.changelog) {
            (Materialized::Append, Changelog::Upsert(k)) => Err(LowerError::new(
                "E0301",
                format!("model `{}` is materialized as append, but its output changelog is {}", self.model, rel.changelog.title()),
                span,
            )
            .help(format!("set `materialized: upsert` and `key: [{}]` for `{}` in streamform.yml", k.join(", "), self.model))),
            (Materialized::Upsert, Changelog::Upsert(k)) if *k != s.key => {
                if s.key.is_empty() && !k.is_empty() {
                    Err(LowerError::new(
                        "E0302",
                        format!("model `{}` is materialized as upsert over key [{}] but declares no key", self.model, k.join(", ")),
                        span,
                    )
                    .help(format!("add `key: [{}]` to `{}` in streamform.yml", k.join(", "), self.model)))
                } else {
                    Err(LowerError::new(
                        "E0303",
                        format!("model `{}` declares key [{}] but its GROUP BY produces key [{}]", self.model, s.key.join(", "), k.join(", ")),
                        span,
                    )
                    .help(format!("the upsert key is the GROUP BY columns in order: set `key: [{}]`", k.join(", "))))
                }
            }
            _ => Ok(()),
        }
    }
}

/// Above an aggregate: what its input was grouped by and computed.
struct Grouping<'r> {
    input: &'r Rel,
    keys: &'r [usize],
    calls: &'r [AggCall],
}

fn rel_schema(rel: &Rel) -> Vec<Column> {
    rel.cols.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect()
}

fn order_span(o: &sql::OrderBy) -> Option<SqlSpan> {
    match &o.kind {
        sql::OrderByKind::Expressions(e) => e.first().map(|e| e.expr.span()),
        _ => None,
    }
}

/// Unquoted identifiers fold to lowercase; quoted ones keep their case.
pub fn ident_name(i: &sql::Ident) -> String {
    if i.quote_style.is_some() {
        i.value.clone()
    } else {
        i.value.to_lowercase()
    }
}

fn object_name(n: &sql::ObjectName) -> String {
    n.0.iter().map(|p| p.as_ident().map(|i| i.value.clone()).unwrap_or_else(|| p.to_string())).collect::<Vec<_>>().join(".")
}

fn strip_nested(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(i) => strip_nested(i),
        other => other,
    }
}

fn select_item_expr(item: &sql::SelectItem) -> Option<&sql::Expr> {
    match item {
        sql::SelectItem::UnnamedExpr(e) | sql::SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

/// HAVING may name a select alias that is not an input column.
fn resolve_alias(e: &sql::Expr, aliases: &[(String, &sql::Expr)], rel: &Rel) -> sql::Expr {
    match e {
        sql::Expr::Identifier(id) if rel.cols.iter().all(|c| c.name != ident_name(id)) => {
            aliases.iter().find(|(a, _)| *a == ident_name(id)).map(|(_, x)| (*x).clone()).unwrap_or_else(|| e.clone())
        }
        sql::Expr::BinaryOp { left, op, right } => sql::Expr::BinaryOp {
            left: Box::new(resolve_alias(left, aliases, rel)),
            op: op.clone(),
            right: Box::new(resolve_alias(right, aliases, rel)),
        },
        sql::Expr::Nested(i) => sql::Expr::Nested(Box::new(resolve_alias(i, aliases, rel))),
        sql::Expr::UnaryOp { op, expr } => sql::Expr::UnaryOp { op: *op, expr: Box::new(resolve_alias(expr, aliases, rel)) },
        sql::Expr::IsNull(x) => sql::Expr::IsNull(Box::new(resolve_alias(x, aliases, rel))),
        sql::Expr::IsNotNull(x) => sql::Expr::IsNotNull(Box::new(resolve_alias(x, aliases, rel))),
        other => other.clone(),
    }
}

fn is_aggregate_call(e: &sql::Expr) -> bool {
    matches!(e, sql::Expr::Function(f) if f.over.is_none() && AggFunc::parse(&object_name(&f.name).to_lowercase()).is_some())
}

fn contains_aggregate(e: &sql::Expr) -> bool {
    if is_aggregate_call(e) {
        return true;
    }
    let mut found = false;
    for_each_child(e, &mut |c| found |= contains_aggregate(c));
    found
}

/// The direct sub-expressions of the forms we plan.
fn for_each_child<'e>(e: &'e sql::Expr, f: &mut dyn FnMut(&'e sql::Expr)) {
    match e {
        sql::Expr::BinaryOp { left, right, .. } => {
            f(left);
            f(right);
        }
        sql::Expr::UnaryOp { expr, .. } | sql::Expr::Nested(expr) | sql::Expr::IsNull(expr) | sql::Expr::IsNotNull(expr) | sql::Expr::Cast { expr, .. } => f(expr),
        sql::Expr::Function(func) => {
            if let sql::FunctionArguments::List(l) = &func.args {
                for a in &l.args {
                    if let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) = a {
                        f(x);
                    }
                }
            }
        }
        _ => {}
    }
}

fn literal(v: &sql::Value) -> Option<Literal> {
    Some(match v {
        sql::Value::Number(n, _) => {
            if n.bytes().all(|b| b.is_ascii_digit()) {
                match n.parse::<i64>() {
                    Ok(i) => Literal::Int(i),
                    Err(_) => Literal::Float(n.parse().ok()?),
                }
            } else {
                Literal::Float(n.parse().ok()?)
            }
        }
        sql::Value::SingleQuotedString(s) => Literal::Str(s.clone()),
        sql::Value::Boolean(b) => Literal::Bool(*b),
        sql::Value::Null => Literal::Null,
        _ => return None,
    })
}

fn cast_type(t: &sql::DataType) -> Option<DataType> {
    use sql::DataType as D;
    Some(match t {
        D::Int(_) | D::Integer(_) | D::Int32 => DataType::Int32,
        D::BigInt(_) | D::Int64 => DataType::Int64,
        D::Double(_) | D::DoublePrecision | D::Float64 => DataType::Float64,
        D::Float(_) | D::Real => DataType::Unsupported(Unsupported::Float32),
        D::SmallInt(_) => DataType::Unsupported(Unsupported::Int16),
        D::TinyInt(_) => DataType::Unsupported(Unsupported::Int8),
        D::Date => DataType::Unsupported(Unsupported::Date32),
        D::Decimal(info) | D::Numeric(info) => match info {
            sql::ExactNumberInfo::None => DataType::Decimal(38, 10),
            sql::ExactNumberInfo::Precision(p) if (1..=38).contains(p) => DataType::Decimal(*p as u8, 0),
            sql::ExactNumberInfo::PrecisionAndScale(p, s) if (1..=38).contains(p) && *s >= 0 && (*s as u64) <= *p => DataType::Decimal(*p as u8, *s as u8),
            _ => return None,
        },
        D::Boolean | D::Bool => DataType::Boolean,
        // Decided: a cast to text is a string (the original leaked Utf8View).
        D::Varchar(_) | D::String(_) | D::Text | D::Char(_) => DataType::String,
        D::Timestamp(None, sql::TimezoneInfo::None) => DataType::TimestampNanos,
        _ => return None,
    })
}

/// DataFusion's display name of an unaliased select expression, which the
/// original used as the column's name (`sum(orders.qty) * Int64(2)`).
fn display_name(e: &sql::Expr, qualifier: &str) -> String {
    match e {
        sql::Expr::Identifier(i) => format!("{qualifier}.{}", ident_name(i)),
        sql::Expr::CompoundIdentifier(p) => p.iter().map(ident_name).collect::<Vec<_>>().join("."),
        sql::Expr::Nested(i) => display_name(i, qualifier),
        sql::Expr::Value(v) => literal(&v.value).map(|l| display_name_literal(&l)).unwrap_or_else(|| v.to_string()),
        sql::Expr::UnaryOp { op: sql::UnaryOperator::Minus, expr } => match expr.as_ref() {
            sql::Expr::Value(v) => match literal(&v.value) {
                Some(Literal::Int(i)) => display_name_literal(&Literal::Int(-i)),
                Some(Literal::Float(f)) => display_name_literal(&Literal::Float(-f)),
                _ => format!("(- {})", display_name(expr, qualifier)),
            },
            _ => format!("(- {})", display_name(expr, qualifier)),
        },
        sql::Expr::UnaryOp { op: sql::UnaryOperator::Not, expr } => format!("NOT {}", display_name(expr, qualifier)),
        sql::Expr::BinaryOp { left, op, right } => {
            let sym = match op {
                sql::BinaryOperator::NotEq => "!=".to_string(),
                other => other.to_string(),
            };
            format!("{} {sym} {}", display_name(left, qualifier), display_name(right, qualifier))
        }
        sql::Expr::IsNull(x) => format!("{} IS NULL", display_name(x, qualifier)),
        sql::Expr::IsNotNull(x) => format!("{} IS NOT NULL", display_name(x, qualifier)),
        // A cast keeps the name of what it casts.
        sql::Expr::Cast { expr, .. } => display_name(expr, qualifier),
        sql::Expr::Function(f) => {
            let name = object_name(&f.name).to_lowercase();
            let args = match &f.args {
                sql::FunctionArguments::List(l) => l
                    .args
                    .iter()
                    .map(|a| match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => "*".to_string(),
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => display_name(x, qualifier),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => String::new(),
            };
            format!("{name}({args})")
        }
        other => other.to_string(),
    }
}

/// Plans a contract's `check:` predicate over a source's columns.
pub fn plan_check(source: &str, columns: &[Column], text: &str) -> std::result::Result<Expr, String> {
    let dialect = sqlparser::dialect::GenericDialect {};
    let parsed = sqlparser::parser::Parser::new(&dialect).try_with_sql(text).and_then(|mut p| {
        let e = p.parse_expr()?;
        p.expect_token(&sqlparser::tokenizer::Token::EOF)?;
        Ok(e)
    });
    let e = parsed.map_err(|e| e.to_string().trim_start_matches("sql parser error: ").to_string())?;
    struct NoInputs;
    impl Inputs for NoInputs {
        fn source(&self, _: &str) -> Option<SourceInput> {
            None
        }
        fn model(&self, _: &str) -> Upstream {
            Upstream::Missing
        }
        fn source_names(&self) -> Vec<String> {
            Vec::new()
        }
        fn model_names(&self) -> Vec<String> {
            Vec::new()
        }
    }
    let settings = ModelSettings { materialized: Materialized::Append, key: Vec::new(), key_declared: false, sink: None, retention: None, window: None };
    let l = Lowerer { model: source, settings: &settings, inputs: &NoInputs, nodes: Vec::new(), ordinals: [0; 5], reads_model: None, ctes: Vec::new(), key_span: None };
    let rel = Rel {
        qualifier: source.to_string(),
        cols: columns.iter().map(|c| RelCol { name: c.name.clone(), ty: c.ty }).collect(),
        input_id: String::new(),
        changelog: Changelog::Append,
        bounded: false,
        time: None,
        windowable: false,
    };
    let planned = l.expr(&e, &rel, None).map_err(|e| e.message.replace(&format!("model `{source}` "), ""))?;
    match planned.ty() {
        DataType::Boolean => Ok(planned),
        t => Err(format!("it is {t}, not boolean")),
    }
}
