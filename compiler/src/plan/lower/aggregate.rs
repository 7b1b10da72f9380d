//! A grouped SELECT: GROUP BY keys, windows, the aggregate calls, the
//! Aggregate node (where its keyed state and changelog are decided), and
//! HAVING and the projection above it.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::ast::{contains_aggregate, for_each_child, resolve_alias, select_item_expr, strip_nested};
use super::names::{display_name, function_display_name, ident_name, object_name, planner_field, unaliased_name};
use super::{rel_schema, unsupported, Grouping, LowerError, Lowerer, Rel, RelCol, Result};
use crate::plan::changelog;
use crate::plan::expr::{AggCall, AggFunc, Expr};
use crate::plan::node::{Column, KeyedState, NodeKind, Operator, Retention, TimeWindow};
use crate::types::DataType;
use crate::window::WindowShape;
use crate::diagnostic::Code;

/// Select aliases, which GROUP BY and HAVING may use.
type Aliases<'a> = Vec<(String, &'a sql::Expr)>;

/// What an Aggregate groups by and computes, once its GROUP BY is planned.
struct Aggregation {
    /// Indices of the grouped data columns in the input (not the window
    /// bounds).
    data_keys: Vec<usize>,
    /// Every grouped index, the window bounds last when windowed.
    group_keys: Vec<usize>,
    window: Option<TimeWindow>,
    calls: Vec<AggCall>,
    /// Over an updating input: replaced and deleted rows are retracted.
    retract: bool,
}

impl<'a> Lowerer<'a> {
    /// The steps of a grouped SELECT: refuse a window over an updating
    /// input, plan the GROUP BY (and the window it cuts), collect the
    /// aggregate calls, push the Aggregate node, then HAVING and the
    /// projection above it.
    pub(super) fn aggregate_select(&mut self, s: &'a sql::Select, mut rel: Rel, group_by: &'a [sql::Expr]) -> Result<Rel> {
        // A windowed model's aggregate input gains the window bounds.
        let windowed = self.settings.window.or(self.tvf_window.as_ref().map(|w| w.shape)).filter(|_| rel.windowable);
        changelog::aggregate_input(&rel.changelog, windowed.is_some()).map_err(|c| self.changelog_error(c, &rel.changelog, updating_input_span(s, group_by)))?;
        self.key_span = Some(key_span(s, group_by));
        rel.windowable = false;
        let base_cols = rel.cols.len();
        if windowed.is_some() {
            for name in ["window_start", "window_end"] {
                rel.cols.push(RelCol::new(name, DataType::Timestamp));
            }
        }
        let aliases = select_aliases(s);
        let agg = self.aggregation(s, &rel, group_by, &aliases, windowed, base_cols)?;
        let agg_rel = self.push_aggregate(&rel, &agg);
        let grouping = Grouping { input: &rel, keys: &agg.group_keys, calls: &agg.calls };
        let out_rel = self.having(s, &aliases, &rel, agg_rel, &grouping)?;
        let items = self.grouped_items(s, &rel, &out_rel, &grouping)?;
        self.project(out_rel, items)
    }

    /// The GROUP BY keys, the window and the calls, in the order their
    /// errors are reported.
    fn aggregation(&self, s: &'a sql::Select, rel: &Rel, group_by: &'a [sql::Expr], aliases: &Aliases, windowed: Option<WindowShape>, base_cols: usize) -> Result<Aggregation> {
        let keys = self.group_keys(s, rel, group_by, aliases)?;
        let window = match windowed {
            Some(shape) => Some(self.window(s, rel, &keys, base_cols, shape)?),
            None => None,
        };
        let data_keys: Vec<usize> = keys.iter().copied().filter(|k| *k < base_cols || windowed.is_none()).collect();
        let calls = self.aggregate_calls(s, rel, aliases)?;
        if let Some(WindowShape::Session { .. }) = windowed {
            session_bounds_unread(self.model, s, &calls, base_cols)?;
            self.session_partition(rel, &data_keys)?;
        }
        let group_keys = if window.is_some() { data_keys.iter().copied().chain([base_cols, base_cols + 1]).collect() } else { data_keys.clone() };
        Ok(Aggregation { data_keys, group_keys, window, calls, retract: changelog::retracts(&rel.changelog) })
    }

    /// The input columns GROUP BY names, by position, alias or expression.
    fn group_keys(&self, s: &'a sql::Select, rel: &Rel, group_by: &'a [sql::Expr], aliases: &Aliases) -> Result<Vec<usize>> {
        let mut keys: Vec<usize> = Vec::new();
        for g in group_by {
            let target: &sql::Expr = match g {
                sql::Expr::Value(v) if matches!(v.value, sql::Value::Number(..)) => {
                    let sql::Value::Number(n, _) = &v.value else { unreachable!() };
                    let pos: usize = n.parse().unwrap_or(0);
                    match s.projection.get(pos.wrapping_sub(1)) {
                        Some(item) => select_item_expr(item).ok_or_else(|| {
                            LowerError::new(Code::BadGroupByPosition, format!("model `{}` groups by position {pos}, which is a wildcard", self.model), g.span())
                                .help("group by the columns by name")
                        })?,
                        None => {
                            return Err(LowerError::new(Code::BadGroupByPosition, format!("model `{}` groups by position {pos}, but the SELECT has {} items", self.model, s.projection.len()), g.span())
                                .help(format!("positions count the SELECT items from 1 to {}; or group by the columns by name", s.projection.len())))
                        }
                    }
                }
                sql::Expr::Identifier(id) if rel.cols.iter().all(|c| c.name != ident_name(id)) => {
                    aliases.iter().find(|(a, _)| *a == ident_name(id)).map(|(_, e)| *e).unwrap_or(g)
                }
                other => other,
            };
            match self.expr(strip_nested(target), rel, None)? {
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
        Ok(keys)
    }

    /// A windowed aggregate's window: it must group by both bounds, over
    /// an input that carries event time.
    fn window(&self, s: &sql::Select, rel: &Rel, keys: &[usize], base_cols: usize, shape: WindowShape) -> Result<TimeWindow> {
        let has_start = keys.contains(&base_cols);
        let has_end = keys.contains(&(base_cols + 1));
        if !(has_start && has_end) {
            let which = match (has_start, has_end) {
                (false, false) => "neither".to_string(),
                (true, false) => "only `window_start`".to_string(),
                _ => "only `window_end`".to_string(),
            };
            return Err(LowerError::new(
                Code::WindowNotGrouped,
                format!("model `{}` declares a window, so its aggregate must group by both `window_start` and `window_end`; it groups by {which}", self.model),
                s.group_by.span(),
            )
            .help("add `window_start, window_end` to GROUP BY"));
        }
        let Some(time) = rel.time.clone() else {
            let what = if rel.qualifier.is_empty() { "its input".to_string() } else { format!("`{}`", rel.qualifier) };
            return Err(LowerError::new(
                Code::WindowInputWithoutEventTime,
                format!("model `{}` declares a window, but {what}, which its aggregate reads, carries no event time", self.model),
                s.group_by.span(),
            )
            .help(self.join_time_help().unwrap_or_else(|| format!("the source must declare `event_time:`, and every model and projection between it and this aggregate must keep that column; {what} has {}", rel.cols.iter().filter(|c| c.name != "window_start" && c.name != "window_end").map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")))));
        };
        Ok(TimeWindow { time, shape })
    }

    /// Aggregate calls, de-duplicated by rendering, SELECT before HAVING.
    fn aggregate_calls(&self, s: &sql::Select, rel: &Rel, aliases: &Aliases) -> Result<Vec<AggCall>> {
        let mut calls: Vec<AggCall> = Vec::new();
        for item in &s.projection {
            if let Some(e) = select_item_expr(item) {
                self.collect_aggregates(e, rel, &mut calls)?;
            }
        }
        if let Some(h) = &s.having {
            let h = resolve_alias(h, aliases, rel);
            self.collect_aggregates(&h, rel, &mut calls)?;
        }
        Ok(calls)
    }

    /// The Aggregate node: grouped keys, then the window bounds, then one
    /// column per call; its keyed state and changelog decided below.
    fn push_aggregate(&mut self, rel: &Rel, agg: &Aggregation) -> Rel {
        let key_names = key_names(rel, agg);
        let mut schema: Vec<Column> = agg.data_keys.iter().zip(&key_names).map(|(k, name)| Column { name: name.clone(), ty: rel.cols[*k].ty }).collect();
        if agg.window.is_some() {
            schema.push(Column { name: "window_start".into(), ty: DataType::Timestamp });
            schema.push(Column { name: "window_end".into(), ty: DataType::Timestamp });
        }
        schema.extend(agg.calls.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }));
        let def = format!("key=[{}] aggregates=[{}]", key_names.join(", "), agg.calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "));
        let state = self.keyed_state(&key_names, agg);
        let changelog = changelog::aggregate(&key_names, agg.window.is_some());
        let kind = NodeKind::Aggregate { keys: agg.group_keys.clone(), calls: agg.calls.clone(), window: agg.window.clone(), retract: agg.retract };
        let id = self.push(Operator::Aggregate, rel, def, schema.clone(), changelog.clone(), Some(state), None, kind);
        Rel {
            qualifier: rel.qualifier.clone(),
            cols: aggregate_columns(rel, agg, &schema),
            input_id: id,
            changelog,
            bounded: rel.bounded,
            time: None,
            windowable: false,
            sides: Vec::new(),
        }
    }

    /// What the Aggregate stores, the content of its state fingerprint: the
    /// grouped keys, one accumulator per call, the window, and how long a
    /// key is kept (until its window closes; else the model's `retention`;
    /// else forever). Over an updating input the accumulators are those of
    /// a retracting aggregate (`retract_accumulators`).
    fn keyed_state(&self, key_names: &[String], agg: &Aggregation) -> KeyedState {
        let retention = match (&agg.window, self.settings.retention) {
            (Some(_), _) => Retention::UntilClose,
            (None, Some(d)) => Retention::After(d),
            (None, None) => Retention::Unbounded,
        };
        KeyedState {
            keys: key_names.to_vec(),
            accumulators: if agg.retract { retract_accumulators(&agg.calls) } else { agg.calls.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect() },
            retention,
            window: agg.window.clone(),
            rank: None,
            join: None,
        }
    }

    /// HAVING: a Filter over the aggregate's output.
    fn having(&mut self, s: &sql::Select, aliases: &Aliases, rel: &Rel, mut out_rel: Rel, grouping: &Grouping) -> Result<Rel> {
        if let Some(h) = &s.having {
            let h2 = resolve_alias(h, aliases, rel);
            let e = self.expr(&h2, &out_rel, Some(grouping))?;
            self.require_boolean(&e, h, "HAVING")?;
            let schema = rel_schema(&out_rel);
            let changelog = changelog::row_step(&out_rel.changelog);
            let id = self.push(Operator::Filter, &out_rel, e.render(), schema, changelog, None, None, NodeKind::Filter { predicate: e });
            out_rel.input_id = id;
        }
        Ok(out_rel)
    }

    /// The SELECT items over the aggregate's output, with their names.
    fn grouped_items(&self, s: &sql::Select, rel: &Rel, out_rel: &Rel, grouping: &Grouping) -> Result<Vec<(Expr, String, SqlSpan)>> {
        let mut items = Vec::new();
        for item in &s.projection {
            match item {
                sql::SelectItem::UnnamedExpr(e) => {
                    let ex = self.expr(e, out_rel, Some(grouping))?;
                    let name = unaliased_name(e, &ex, &rel.qualifier);
                    items.push((ex, name, e.span()));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    let ex = self.expr(expr, out_rel, Some(grouping))?;
                    items.push((ex, ident_name(alias), item.span()));
                }
                other => {
                    return Err(LowerError::new(Code::WildcardOverAggregate, format!("model `{}` selects `*` from an aggregate", self.model), other.span())
                        .help("name the grouped columns and the aggregates"))
                }
            }
        }
        let fields: Vec<String> = s.projection.iter().filter_map(|item| planner_field(item, &rel.qualifier)).collect();
        self.require_unique_fields(&items, &fields)?;
        Ok(items)
    }

    /// Each aggregate call of `e` not met before, in order. Calls are one
    /// accumulator when the original's planner names them alike (`identity`);
    /// two that differ only by casts (`sum(x)`, `sum(CAST(x AS …))`) are
    /// refused, as it refuses them.
    fn collect_aggregates(&self, e: &sql::Expr, rel: &Rel, calls: &mut Vec<AggCall>) -> Result<()> {
        if let sql::Expr::Function(f) = e {
            let name = object_name(&f.name).to_lowercase();
            if name == "avg" {
                let (sum, count) = self.avg_calls(f, rel)?;
                for call in [sum, count] {
                    if !calls.iter().any(|c| c.identity == call.identity) {
                        calls.push(call);
                    }
                }
                return Ok(());
            }
            if let Some(func) = AggFunc::parse(&name) {
                let call = self.aggregate_call(func, f, rel)?;
                match calls.iter().find(|c| c.identity == call.identity) {
                    Some(c) if c.name != call.name => {
                        return Err(LowerError::new(
                            Code::DuplicateOutputColumn,
                            format!("model `{}` computes `{}` and `{}`, which the planner names alike", self.model, c.name, call.name),
                            e.span(),
                        )
                        .help(format!("both are named `{}`; compute one of them in an upstream model or a derived table", call.identity)));
                    }
                    Some(_) => {}
                    None => calls.push(call),
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

    pub(super) fn aggregate_call(&self, func: AggFunc, f: &sql::Function, rel: &Rel) -> Result<AggCall> {
        // Computed only for an error: it walks the whole call.
        let span = || f.span();
        if f.over.is_some() {
            return Err(super::rank::window_function(self.model, f, span()));
        }
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(LowerError::new(Code::BadAggregateArguments, format!("model `{}` calls {}() without an argument", self.model, func.name()), span())
                .help(format!("pass one column: {}(amount){}", func.name(), if func == AggFunc::Count { ", or count(*) to count rows" } else { "" })));
        };
        let distinct = matches!(list.duplicate_treatment, Some(sql::DuplicateTreatment::Distinct));
        if distinct && !matches!(func, AggFunc::Count | AggFunc::Sum) {
            return Err(unsupported(self.model, format_args!("DISTINCT inside {}()", func.name()), span()).help("DISTINCT changes nothing for min() and max(); it counts and sums each value once in count() and sum()"));
        }
        if list.args.len() != 1 {
            return Err(LowerError::new(Code::BadAggregateArguments, format!("model `{}` calls {}() with {} arguments; it takes one", self.model, func.name(), list.args.len()), span())
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
                return Err(LowerError::new(Code::BadAggregateArguments, format!("model `{}` calls {}() with an argument it does not take", self.model, func.name()), span())
                    .help("only count() takes `*`; the others take one column or expression"))
            }
        };
        let ty = func.accumulator_type(arg.as_ref().map(|a| a.ty())).map_err(|why| {
            LowerError::new(Code::AggregateOverWrongType, format!("model `{}` cannot compute {}: {why}", self.model, AggCall::render(func, arg.as_ref())), span())
                .help("cast the argument to a number, or use count(), min() or max()")
        })?;
        let filter = f.filter.as_deref().map(|w| self.aggregate_filter(w, rel)).transpose()?;
        let mut identity = function_display_name(f, &rel.qualifier);
        if distinct {
            identity = identity.replacen('(', "(DISTINCT ", 1);
        }
        if let Some(w) = &f.filter {
            identity.push_str(&format!(" FILTER (WHERE {})", display_name(w, &rel.qualifier)));
        }
        if distinct && arg.is_none() {
            return Err(LowerError::new(Code::BadAggregateArguments, format!("model `{}` calls {}(DISTINCT) without a column", self.model, func.name()), span()).help("count(DISTINCT customer_id) counts the distinct values of a column"));
        }
        Ok(AggCall { func, name: AggCall::render_filtered(func, arg.as_ref(), filter.as_ref(), distinct), arg, filter, distinct, ty, identity })
    }

    /// `avg(x)` is stored as the accumulators `sum(x)` and `count(x)` (one
    /// with a `sum(x)` or `count(x)` of the query); above the aggregate it
    /// is their quotient.
    pub(super) fn avg_calls(&self, f: &sql::Function, rel: &Rel) -> Result<(AggCall, AggCall)> {
        let named = |n: &str| sql::Function { name: sql::ObjectName::from(vec![sql::Ident::new(n)]), ..f.clone() };
        if let sql::FunctionArguments::List(l) = &f.args {
            if matches!(l.args.as_slice(), [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard)]) {
                return Err(LowerError::new(Code::BadAggregateArguments, format!("model `{}` calls avg(*)", self.model), f.span()).help("average one column: avg(amount)"));
            }
        }
        let sum = self.aggregate_call(AggFunc::Sum, &named("sum"), rel).map_err(|e| match e.code {
            Code::AggregateOverWrongType => LowerError::new(Code::AggregateOverWrongType, e.message.replace("compute sum(", "compute avg("), f.span()).help("avg() averages numbers; cast the argument to one"),
            _ => e,
        })?;
        let count = self.aggregate_call(AggFunc::Count, &named("count"), rel)?;
        Ok((sum, count))
    }

    /// `FILTER (WHERE …)` of an aggregate call: a condition on its input.
    fn aggregate_filter(&self, w: &sql::Expr, rel: &Rel) -> Result<Expr> {
        if contains_aggregate(w) {
            return Err(unsupported(self.model, "an aggregate inside FILTER", w.span()));
        }
        let cond = self.expr(w, rel, None)?;
        if !matches!(cond.ty(), DataType::Boolean | DataType::Unsupported(crate::types::Unsupported::Null)) {
            return Err(LowerError::new(Code::ScalarOperandMismatch, format!("model `{}` filters an aggregate by `{}`, which is {}, not boolean", self.model, cond.render(), cond.ty()), w.span())
                .help("FILTER (WHERE …) takes a condition, for example FILTER (WHERE qty > 0)"));
        }
        Ok(cond)
    }
}

/// A retracting aggregate's accumulators, as Flink's planner lays them out
/// over retracting input (docs/identity.md): `sum(x)`, `min(x)`, `max(x)`
/// and the DISTINCT calls keep more than their result (a non-null count
/// beside the sum, every value with its multiplicity), so their names say
/// `WITH RETRACT`; `count(…)` is the same counter either way; and the row
/// count that tells when a group is empty is the query's own `count(*)`,
/// or one more `count(*)` at the end.
fn retract_accumulators(calls: &[AggCall]) -> Vec<Column> {
    let mut accs: Vec<Column> = calls
        .iter()
        .map(|c| {
            let keeps_more = c.distinct || c.func != AggFunc::Count;
            Column { name: if keeps_more { format!("{} WITH RETRACT", c.name) } else { c.name.clone() }, ty: c.ty }
        })
        .collect();
    if !calls.iter().any(AggCall::counts_rows) {
        accs.push(Column { name: "count(*)".into(), ty: DataType::Int64 });
    }
    accs
}

/// Where a windowed aggregate over an updating stream is reported: its first
/// aggregate call, else its GROUP BY, else the SELECT.
fn updating_input_span(s: &sql::Select, group_by: &[sql::Expr]) -> SqlSpan {
    s.projection.iter().find(|i| select_item_expr(i).is_some_and(contains_aggregate)).map(|i| i.span()).or(group_by.first().map(|g| g.span())).unwrap_or(s.span())
}

/// Where errors about the model's key point: the GROUP BY, or the first
/// aggregate call of a global aggregate.
fn key_span(s: &sql::Select, group_by: &[sql::Expr]) -> SqlSpan {
    match group_by {
        [] => s.projection.iter().find(|i| select_item_expr(i).is_some_and(contains_aggregate)).map(|i| i.span()).unwrap_or(s.span()),
        [first, ..] => first.span().union(&group_by[group_by.len() - 1].span()),
    }
}

fn select_aliases(s: &sql::Select) -> Aliases<'_> {
    s.projection
        .iter()
        .filter_map(|item| match item {
            sql::SelectItem::ExprWithAlias { expr, alias } => Some((ident_name(alias), expr)),
            _ => None,
        })
        .collect()
}

/// The aggregate's output columns: a SUM over decimal(p,s) shows its
/// accumulator type, decimal(38,s), but arithmetic over it sees
/// decimal(min(38, p+10), s), the original planner's sum type
/// (docs/types.md); every other column is what it shows.
/// The names of the grouped columns: each input column's own, except over
/// a join, where a key is named as its side names it (`c.code`, which the
/// join calls `code0`, is `code`), as Flink names the column the query
/// selects and the upsert key it writes; the join's name stays where that
/// would name two columns alike.
fn key_names(rel: &Rel, agg: &Aggregation) -> Vec<String> {
    let joined: Vec<&str> = agg.data_keys.iter().map(|k| rel.cols[*k].name.as_str()).collect();
    let mut names: Vec<String> = Vec::with_capacity(joined.len());
    for (i, k) in agg.data_keys.iter().enumerate() {
        let own = rel.sides.get(*k).map(|(_, n)| n.as_str()).unwrap_or(joined[i]);
        let taken = |n: &str| names.iter().any(|x| x == n) || joined.iter().enumerate().any(|(j, x)| j != i && *x == n) || agg.calls.iter().any(|c| c.name == n) || ((n == "window_start" || n == "window_end") && agg.window.is_some());
        names.push(if own != joined[i] && taken(own) { joined[i].to_string() } else { own.to_string() });
    }
    names
}

fn aggregate_columns(rel: &Rel, agg: &Aggregation, schema: &[Column]) -> Vec<RelCol> {
    let calls_from = schema.len() - agg.calls.len();
    schema
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut col = RelCol::new(c.name.clone(), c.ty);
            if i < calls_from {
                // Grouped keys keep their operand type from the input.
                if let Some(k) = agg.data_keys.get(i) {
                    col.engine = rel.cols[*k].engine;
                }
            } else if let (AggFunc::Sum, Some(DataType::Decimal(p, s))) = (agg.calls[i - calls_from].func, agg.calls[i - calls_from].arg.as_ref().map(Expr::ty)) {
                col.engine = DataType::Decimal((p + 10).min(38), s);
            }
            col
        })
        .collect()
}

/// A session's bounds move as sessions merge, so no aggregate may read
/// them (Flink computes them only once the session closes).
fn session_bounds_unread(model: &str, s: &sql::Select, calls: &[AggCall], base_cols: usize) -> Result<()> {
    for c in calls {
        let mut reads = false;
        for e in c.arg.iter().chain(c.filter.iter()) {
            e.columns(&mut |i, _| reads |= i >= base_cols);
        }
        if reads {
            return Err(unsupported(model, format_args!("`{}` over a session window's bounds", c.name), s.projection.first().map_or(s.select_token.0.span, |p| p.span()))
                .help("a session's `window_start` and `window_end` are known only when it closes; select them, and aggregate other columns"));
        }
    }
    Ok(())
}

impl Lowerer<'_> {
    /// A SESSION function's PARTITION BY must be the GROUP BY keys: one
    /// session per group, as the simulator and the generated SQL keep them.
    fn session_partition(&self, rel: &Rel, data_keys: &[usize]) -> Result<()> {
        let Some(tvf) = &self.tvf_window else { return Ok(()) };
        let keys: Vec<&str> = data_keys.iter().filter_map(|&k| rel.cols.get(k)).map(|c| c.name.as_str()).collect();
        let mut given: Vec<&str> = tvf.partition.iter().flatten().map(String::as_str).collect();
        let mut want = keys.clone();
        given.sort_unstable();
        want.sort_unstable();
        if given == want {
            return Ok(());
        }
        let by = if keys.is_empty() { "no PARTITION BY".to_string() } else { format!("PARTITION BY {}", keys.join(", ")) };
        Err(LowerError::new(Code::UnsupportedConstruct, format!("model `{}` groups its sessions by [{}] but partitions them by [{}]; sessions are kept per group", self.model, keys.join(", "), tvf.partition.iter().flatten().cloned().collect::<Vec<_>>().join(", ")), tvf.span)
            .help(format!("write {by} in SESSION, the GROUP BY keys besides the window bounds")))
    }
}
