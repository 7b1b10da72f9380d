//! `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) AS rn` in a derived table
//! or a WITH query, kept to a range by the query that reads it (`WHERE rn
//! <= N`): the Rank node, in Flink's Top-N shape, and its deduplication when
//! the order is the event time and one row is kept. Every other window
//! function is refused (E0800) with this shape as what to write instead.
//!
//! The nodes: the inner query as usual (its FROM, WHERE and a Project of
//! its SELECT without the row number), then the Rank over that Project's
//! columns, then the outer query over the Rank. The outer WHERE is the
//! Rank's range, not a Filter. The Rank stores, per partition, rows of the
//! columns the outer query reads, the partition and the order (as Flink,
//! which prunes the rest before ranking); it is planned with every column
//! and pruned once the outer query is planned (`prune_rank`).

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::ast::{select_item_expr, strip_nested};
use super::names::{ident_name, object_name};
use super::{LowerError, Lowerer, Rel, RelCol, Result};
use crate::diagnostic::Code;
use crate::plan::changelog::{self, Conflict};
use crate::plan::expr::Expr;
use crate::plan::monotonic::{self, Modified};
use crate::plan::rank_strategy;
use crate::plan::node::{Changelog, Column, KeyedState, NodeKind, Operator, RankKeep, RankState, RankStrategy, Retention, SortKey};
use crate::types::DataType;

/// What to write instead of a window function we do not plan.
const SHAPE: &str = "write SELECT … FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY c DESC) AS rn FROM …) WHERE rn <= N; ordered by the event time with rn = 1 it is a deduplication (docs/types.md)";

/// A FROM item whose query numbers its rows with `ROW_NUMBER() OVER`.
pub(super) struct Ranked<'a> {
    query: &'a sql::Query,
    select: &'a sql::Select,
    /// The ROW_NUMBER() item's position in the SELECT list.
    item: usize,
    func: &'a sql::Function,
    /// The row number's name (`AS rn`), if it has one.
    number: Option<String>,
    /// For a WITH query, its place in scope (it sees only those before it).
    cte: Option<usize>,
    /// The name the outer query reads it by, when it has one.
    qualifier: Option<String>,
    /// Column alias lists (`AS t(a, b)`, `WITH t(a, b) AS`), refused.
    renames: Option<SqlSpan>,
}

impl<'a> Ranked<'a> {
    fn of(query: &'a sql::Query, cte: Option<usize>, qualifier: Option<String>, aliases: &[Option<&'a sql::TableAlias>]) -> Option<Ranked<'a>> {
        let sql::SetExpr::Select(select) = query.body.as_ref() else { return None };
        let (item, func) = select.projection.iter().enumerate().find_map(|(i, it)| match select_item_expr(it).map(strip_nested) {
            Some(sql::Expr::Function(f)) if f.over.is_some() && object_name(&f.name).eq_ignore_ascii_case("row_number") => Some((i, f)),
            _ => None,
        })?;
        let number = match &select.projection[item] {
            sql::SelectItem::ExprWithAlias { alias, .. } => Some(ident_name(alias)),
            _ => None,
        };
        let renames = aliases.iter().flatten().find(|a| !a.columns.is_empty()).map(|a| a.name.span);
        Some(Ranked { query, select, item, func, number, cte, qualifier, renames })
    }
}

/// E0800: a window function outside the Top-N shape.
pub(super) fn window_function(model: &str, f: &sql::Function, span: SqlSpan) -> LowerError {
    let name = object_name(&f.name).to_lowercase();
    let message = if name == "row_number" {
        format!("model `{model}` uses ROW_NUMBER() OVER outside the Top-N shape: the row number must be an item of a derived table or WITH query that the query reading it filters by it")
    } else {
        format!("model `{model}` uses the window function `{name}() OVER`, which is not supported; the one window function is ROW_NUMBER() in the Top-N shape")
    };
    // An OVER aggregate is a running or sliding total: say how to write those.
    let help = match name.as_str() {
        "sum" | "count" | "min" | "max" | "avg" => format!(
            "for a running {name} per key, GROUP BY the key (`SELECT k, {name}(x) AS total FROM … GROUP BY k`, an upsert model); for the last hour per key, aggregate in a hop window (`window: {{type: hop, size: 1h, slide: 5m}}` on the model, docs/semantics.md)"
        ),
        _ => SHAPE.to_string(),
    };
    LowerError::new(Code::WindowFunctionOutsideTopN, message, span).help(help)
}

/// E0800 for a SELECT's QUALIFY or WINDOW clause.
pub(super) fn window_clause(model: &str, span: SqlSpan) -> LowerError {
    LowerError::new(Code::WindowFunctionOutsideTopN, format!("model `{model}` uses QUALIFY or a WINDOW clause, which is not supported"), span).help(SHAPE)
}

/// E0803: a deduplication on event time over an updating stream.
pub(super) fn updating_input(model: &str, input: &Changelog, span: SqlSpan) -> LowerError {
    over_updates(model, format_args!("deduplicates an updating stream on its event time (its input emits {})", input.title()), span)
        .help("Flink deduplicates on event time only rows that are never updated: deduplicate the append-only stream they come from, FROM source('…') or a model that does not aggregate")
}

fn over_updates(model: &str, what: impl std::fmt::Display, span: SqlSpan) -> LowerError {
    LowerError::new(Code::RankOverUpdatingStream, format!("model `{model}` {what}, which is not supported"), span)
}

/// E0804: a Top-N of several rows without its row number.
pub(super) fn without_number(model: &str, rows: u64, span: SqlSpan) -> LowerError {
    LowerError::new(
        Code::TopNWithoutRowNumber,
        format!("model `{model}` keeps the first {rows} rows of each partition but does not select their row number; without it, its output has no key (Flink writes inserts and deletes of several rows per partition)"),
        span,
    )
    .help("select the row number too: the output is then keyed by the partition columns and the row number, as Flink's Top-N updates each rank")
}

/// Where PARTITION BY names both `window_start` and `window_end`: Flink
/// then plans a window Top-N (WindowRank or WindowDeduplicate), which emits
/// each window's rows once, when it closes, and keeps its state per window.
fn window_partition(partition_by: &[sql::Expr], partition: &[usize], rel: &Rel) -> Option<SqlSpan> {
    let named = |name: &str| partition.iter().any(|&i| rel.cols[i].name == name);
    (named("window_start") && named("window_end")).then(|| partition_by.iter().map(|e| e.span()).reduce(|a, b| a.union(&b)).expect("a partition"))
}

fn window_top_n(model: &str, span: SqlSpan) -> LowerError {
    LowerError::new(
        Code::WindowTopN,
        format!("model `{model}` ranks rows per window (PARTITION BY `window_start` and `window_end`), which Flink runs as a window Top-N that writes each window's rows once, when it closes; that is not supported yet"),
        span,
    )
    .help("partition by `window_start` alone: the Top-N then updates each window's ranks as rows arrive (set `materialized: upsert` and `key: [window_start, rn]`)")
}

fn bad_window(model: &str, what: impl std::fmt::Display, span: SqlSpan) -> LowerError {
    LowerError::new(Code::BadRowNumberWindow, format!("model `{model}` {what}"), span)
}

fn bad_filter(model: &str, what: impl std::fmt::Display, span: SqlSpan, number: &str) -> LowerError {
    LowerError::new(Code::BadRowNumberFilter, format!("model `{model}` {what}"), span).help(format!(
        "keep a range of the row number on its own: WHERE {number} <= N (or {number} < N, or {number} = 1); filter other conditions in the ranked query's WHERE, before ranking, or in a downstream model"
    ))
}

/// The integer of a literal, if it is one.
fn integer(e: &sql::Expr) -> Option<i64> {
    match strip_nested(e) {
        sql::Expr::Value(v) => match &v.value {
            sql::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `e` names the row number (`rn`, or `t.rn`).
fn names_number(e: &sql::Expr, number: &str, qualifier: Option<&str>) -> bool {
    match strip_nested(e) {
        sql::Expr::Identifier(id) => ident_name(id) == number,
        sql::Expr::CompoundIdentifier(parts) => matches!(parts.as_slice(), [q, n] if ident_name(n) == number && qualifier.is_none_or(|x| x == ident_name(q))),
        _ => false,
    }
}

/// The Rank's parts that depend on which columns it keeps: from its input
/// schema, and what it computes.
struct RankParts {
    definition: String,
    schema: Vec<Column>,
    state: KeyedState,
    changelog: std::result::Result<Changelog, Conflict>,
    time: Option<String>,
}

/// What a Rank computes, over the columns of its input.
struct RankSpec {
    partition: Vec<usize>,
    order: Vec<(usize, SortKey)>,
    keep: RankKeep,
    /// The row number's name.
    number: String,
    /// How Flink ranks the input (`plan::rank_strategy`).
    strategy: RankStrategy,
    /// The input's upsert key (empty when it has none).
    input_key: Vec<String>,
}

impl RankSpec {
    /// The node's texts, schema, state and changelog when it stores `row`
    /// (input indices, in order) and shows its number or not.
    fn parts(&self, input: &[Column], input_time: Option<&str>, retention: Option<crate::duration::Duration>, row: &[usize], number: bool) -> RankParts {
        let partition: Vec<String> = self.partition.iter().map(|&i| input[i].name.clone()).collect();
        let order_text: Vec<String> = self.order.iter().map(|(_, k)| k.text()).collect();
        let mut definition = format!("partition=[{}] order=[{}] top={}", partition.join(", "), order_text.join(", "), self.keep.rows());
        if number {
            definition.push_str(&format!(" number={}", self.number));
        }
        let stored: Vec<Column> = row.iter().map(|&i| input[i].clone()).collect();
        let mut schema = stored.clone();
        if number {
            schema.push(Column { name: self.number.clone(), ty: DataType::Int64 });
        }
        let state = KeyedState {
            keys: partition.clone(),
            accumulators: Vec::new(),
            retention: retention.map_or(Retention::Unbounded, Retention::After),
            window: None,
            rank: Some(RankState { order: self.order.iter().map(|(_, k)| k.clone()).collect(), keep: self.keep, strategy: self.strategy.clone(), row: stored.clone() }),
            join: None,
        };
        let unique: Vec<&str> = self.input_key.iter().map(String::as_str).filter(|k| stored.iter().any(|c| c.name == *k)).collect();
        let unique = (unique.len() == self.input_key.len() && !unique.is_empty()).then_some(unique);
        let changelog = changelog::rank(&partition, self.keep, number.then_some(self.number.as_str()), unique.as_deref());
        let time = input_time.filter(|t| row.iter().any(|&i| input[i].name == *t)).map(str::to_string);
        RankParts { definition, schema, state, changelog, time }
    }
}

impl<'a> Lowerer<'a> {
    /// The modified monotonicity of node `id`'s output, through the models
    /// it reads.
    fn modified(&self, id: &str) -> Modified {
        let upstream = |id: &str| match self.inputs.model(id.split("::").next().unwrap_or(id)) {
            super::inputs::Upstream::Ok(up) => up.modified,
            _ => None,
        };
        monotonic::of(&self.nodes, self.model, id, &upstream)
    }

    /// The FROM item's query when it numbers rows with ROW_NUMBER(): a
    /// derived table, or a WITH query in scope.
    pub(super) fn ranked_from(&self, t: &'a sql::TableFactor) -> Option<Ranked<'a>> {
        match t {
            sql::TableFactor::Derived { lateral: false, subquery, alias, .. } => {
                Ranked::of(subquery, None, alias.as_ref().map(|a| ident_name(&a.name)), &[alias.as_ref()])
            }
            sql::TableFactor::Table { name, alias, args: None, .. } if name.0.len() == 1 => {
                let key = ident_name(name.0[0].as_ident()?);
                let pos = self.ctes.iter().rposition(|(n, _)| *n == key)?;
                let (_, cte) = self.ctes[pos];
                let qualifier = alias.as_ref().map(|a| ident_name(&a.name)).unwrap_or(key);
                Ranked::of(&cte.query, Some(pos), Some(qualifier), &[alias.as_ref(), Some(&cte.alias)])
            }
            _ => None,
        }
    }

    /// The columns PARTITION BY names, each once; a window's two bounds are
    /// Flink's window Top-N, refused.
    fn rank_partition(&self, partition_by: &[sql::Expr], rel: &Rel, items: &[(Expr, String)]) -> Result<Vec<usize>> {
        let mut partition: Vec<usize> = Vec::new();
        for e in partition_by {
            let i = self.over_column(e, rel, items, "partitions")?;
            if !partition.contains(&i) {
                partition.push(i);
            }
        }
        match window_partition(partition_by, &partition, rel) {
            Some(span) => Err(window_top_n(self.model, span)),
            None => Ok(partition),
        }
    }

    /// The ranked query and the Rank over it, kept to the range the outer
    /// SELECT's WHERE gives. The Rank stores every column for now; the
    /// outer query's planning decides which it keeps (`prune_rank`).
    pub(super) fn ranked(&mut self, outer: &'a sql::Select, r: &Ranked<'a>) -> Result<Rel> {
        let model = self.model;
        let at = r.func.span();
        if let Some(span) = r.renames {
            return Err(bad_window(model, "names the columns of a query that ranks rows with a column list", span).help("name the columns inside the query, with AS"));
        }
        let saved = r.cte.map(|pos| self.ctes.split_off(pos));
        let inner = self.ranked_query(r);
        if let Some(s) = saved {
            self.ctes.extend(s);
        }
        let mut rel = inner?;
        let Some(number) = r.number.clone() else {
            return Err(bad_window(model, "numbers rows with ROW_NUMBER() without naming the row number", at).help("name it: ROW_NUMBER() OVER (…) AS rn, and filter on rn in the query that reads it"));
        };
        let (partition_by, order_by) = self.row_number_window(r.func, at)?;
        let items = match &self.nodes.last().map(|n| &n.kind) {
            Some(NodeKind::Project { items }) => items.clone(),
            _ => unreachable!("a SELECT ends in a Project"),
        };
        let partition = self.rank_partition(partition_by, &rel, &items)?;
        let mut order: Vec<(usize, SortKey)> = Vec::new();
        for o in order_by {
            if o.with_fill.is_some() {
                return Err(bad_window(model, "orders its row number WITH FILL", o.span()));
            }
            let i = self.over_column(&o.expr, &rel, &items, "orders")?;
            let descending = match &o.options.sort {
                None | Some(sql::OrderBySort::Asc) => false,
                Some(sql::OrderBySort::Desc) => true,
                Some(sql::OrderBySort::Using(_)) => return Err(bad_window(model, "orders its row number USING an operator", o.span()).help("order by columns ASC or DESC")),
            };
            let nulls_last = o.options.nulls_first.map_or(SortKey::default_nulls_last(descending), |first| !first);
            if !order.iter().any(|(j, _)| *j == i) {
                order.push((i, SortKey { column: rel.cols[i].name.clone(), descending, nulls_last }));
            }
        }
        let rows = self.row_number_range(outer, &number, r.qualifier.as_deref())?;
        // One row ordered by the event time: Flink's Deduplicate, which
        // reads inserts only.
        let keep = match order.as_slice() {
            [(i, k)] if rows == 1 && rel.time.as_deref() == Some(rel.cols[*i].name.as_str()) => {
                changelog::rank_input(&rel.changelog).map_err(|c| self.changelog_error(c, &rel.changelog, at))?;
                if k.descending {
                    RankKeep::Last
                } else {
                    RankKeep::First
                }
            }
            _ => RankKeep::Top(rows),
        };
        let input: Vec<Column> = rel.cols.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
        let modified = self.modified(&rel.input_id);
        let strategy = rank_strategy::strategy(&rel.changelog, &input, &modified, &partition, &order);
        let input_key = match &rel.changelog {
            Changelog::Upsert(k) => k.clone(),
            _ => Vec::new(),
        };
        let spec = RankSpec { partition, order, keep, number: number.clone(), strategy, input_key };
        let row: Vec<usize> = (0..input.len()).collect();
        let parts = spec.parts(&input, rel.time.as_deref(), self.settings.retention, &row, true);
        let changelog = parts.changelog.expect("a Rank with its number has a mode");
        let kind = NodeKind::Rank { partition: spec.partition.clone(), order: spec.order.clone(), keep, row, number: true };
        self.key_span = Some(r.func.span());
        let id = self.push(Operator::Rank, &rel, parts.definition, parts.schema, changelog.clone(), Some(parts.state), parts.time.clone(), kind);
        let mut cols = rel.cols.clone();
        cols.push(RelCol::new(number, DataType::Int64));
        if let Some(q) = &r.qualifier {
            rel.qualifier = q.clone();
        }
        Ok(Rel { qualifier: rel.qualifier, cols, input_id: id, changelog, bounded: rel.bounded, time: parts.time, windowable: false, sides: Vec::new() })
    }

    /// The ranked query's own clauses, its WITH queries, and its SELECT
    /// without the row number.
    fn ranked_query(&mut self, r: &Ranked<'a>) -> Result<Rel> {
        let scope = self.with_scope(r.query)?;
        let rel = self.select_skipping(r.select, Some(r.item));
        self.ctes.truncate(scope);
        rel
    }

    /// The error for ROW_NUMBER() beside aggregates in one SELECT: it would
    /// number the rows of an aggregate's result.
    pub(super) fn ranked_aggregate(&self, s: &sql::Select, group_by: &[sql::Expr], rel: &Rel) -> LowerError {
        let span = group_by.first().map_or(s.select_token.0.span, |g| g.span());
        if rel.windowable && (self.settings.window.is_some() || self.tvf_window.is_some()) {
            return LowerError::new(Code::WindowFunctionOutsideTopN, format!("model `{}` numbers the rows of a windowed aggregate with ROW_NUMBER(), Flink's window Top-N, which is not supported", self.model), span)
                .help("aggregate in one model and rank its rows in another, or rank the rows before aggregating them");
        }
        over_updates(self.model, "numbers the rows of its GROUP BY's result with ROW_NUMBER() in the same SELECT", span)
            .help("aggregate in a derived table and rank its rows in the query around it: SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM (SELECT k, SUM(x) AS total FROM … GROUP BY k)) WHERE rn <= 3 (or rank ref() to an aggregating model)")
    }

    /// ROW_NUMBER()'s PARTITION BY and ORDER BY, once the call is checked:
    /// no arguments, an inline window with an order and no frame.
    fn row_number_window(&self, f: &'a sql::Function, at: SqlSpan) -> Result<(&'a [sql::Expr], &'a [sql::OrderByExpr])> {
        let model = self.model;
        let no_args = match &f.args {
            sql::FunctionArguments::None => true,
            sql::FunctionArguments::List(l) => l.args.is_empty() && l.clauses.is_empty() && l.duplicate_treatment.is_none(),
            sql::FunctionArguments::Subquery(_) => false,
        };
        if !no_args || f.filter.is_some() || f.null_treatment.is_some() || !f.within_group.is_empty() || !matches!(f.parameters, sql::FunctionArguments::None) {
            return Err(bad_window(model, "calls ROW_NUMBER() with arguments or clauses it does not take", at).help("write ROW_NUMBER() OVER (PARTITION BY k ORDER BY c DESC)"));
        }
        let Some(sql::WindowType::WindowSpec(spec)) = &f.over else {
            return Err(bad_window(model, "numbers rows over a named window", at).help("write the window inline: ROW_NUMBER() OVER (PARTITION BY k ORDER BY c DESC)"));
        };
        if spec.window_name.is_some() || spec.window_frame.is_some() {
            return Err(bad_window(model, "gives ROW_NUMBER() a window frame or a named window", at).help("a row number counts every row of its partition: write OVER (PARTITION BY k ORDER BY c) alone"));
        }
        if spec.order_by.is_empty() {
            return Err(bad_window(model, "numbers rows with ROW_NUMBER() without ORDER BY", at).help("order the rows: ROW_NUMBER() OVER (PARTITION BY k ORDER BY c DESC); order by the event time to deduplicate"));
        }
        Ok((&spec.partition_by, &spec.order_by))
    }

    /// The column of the ranked query's SELECT that a PARTITION BY or
    /// ORDER BY expression names: a column its SELECT lists as it is.
    fn over_column(&self, e: &sql::Expr, rel: &Rel, items: &[(Expr, String)], verb: &str) -> Result<usize> {
        let model = self.model;
        let name = match strip_nested(e) {
            sql::Expr::Identifier(id) => ident_name(id),
            sql::Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [q, n] if ident_name(q) == rel.qualifier => ident_name(n),
                _ => return Err(bad_window(model, format_args!("{verb} its row number by `{e}`, which is not a column of `{}`", rel.qualifier), e.span())),
            },
            other => {
                return Err(bad_window(model, format_args!("{verb} its row number by the expression `{other}`"), e.span())
                    .help("compute it in the SELECT (or upstream) and rank by the column: PARTITION BY and ORDER BY take columns"))
            }
        };
        items.iter().position(|(x, _)| matches!(x, Expr::Column { name: n, .. } if *n == name)).ok_or_else(|| {
            bad_window(model, format_args!("{verb} its row number by `{name}`, which its SELECT does not list as a column"), e.span())
                .help(format!("list `{name}` beside ROW_NUMBER() (SELECT *, ROW_NUMBER() … lists every column): the rows are ranked over the columns the query selects"))
        })
    }

    /// How many rows of each partition the outer WHERE keeps: `rn = 1`,
    /// `rn <= N`, `rn < N` (or mirrored), on its own.
    fn row_number_range(&self, outer: &sql::Select, number: &str, qualifier: Option<&str>) -> Result<u64> {
        let model = self.model;
        let Some(w) = &outer.selection else {
            return Err(bad_filter(model, format_args!("reads rows numbered by ROW_NUMBER() but keeps no range of `{number}`"), outer.select_token.0.span, number));
        };
        let cond = strip_nested(w);
        let sql::Expr::BinaryOp { left, op, right } = cond else {
            return Err(bad_filter(model, format_args!("filters rows numbered by ROW_NUMBER() with `{w}`"), w.span(), number));
        };
        // `rn op N`, or `N op rn` turned around.
        let (op, n) = match (names_number(left, number, qualifier), names_number(right, number, qualifier)) {
            (true, false) => (op.clone(), integer(right)),
            (false, true) => (
                match op {
                    sql::BinaryOperator::Lt => sql::BinaryOperator::Gt,
                    sql::BinaryOperator::LtEq => sql::BinaryOperator::GtEq,
                    sql::BinaryOperator::Gt => sql::BinaryOperator::Lt,
                    sql::BinaryOperator::GtEq => sql::BinaryOperator::LtEq,
                    other => other.clone(),
                },
                integer(left),
            ),
            _ => return Err(bad_filter(model, format_args!("filters rows numbered by ROW_NUMBER() with `{w}`"), w.span(), number)),
        };
        let rows = match (op, n) {
            (sql::BinaryOperator::Eq, Some(1)) => Some(1),
            (sql::BinaryOperator::LtEq, Some(n)) if n >= 1 => Some(n),
            (sql::BinaryOperator::Lt, Some(n)) if n >= 2 => Some(n - 1),
            _ => None,
        };
        rows.map(|n| n as u64).ok_or_else(|| bad_filter(model, format_args!("keeps `{w}` of the rows ROW_NUMBER() numbers, which is not a range from the first row"), w.span(), number))
    }

    /// Once the outer query is planned over the Rank at `at`: keeps only
    /// the columns the node above it reads (and the partition and order),
    /// shows the row number only if that node reads it, and passes the
    /// Rank's final mode on to the nodes that copy it. `out` is the outer
    /// query's result.
    pub(super) fn prune_rank(&mut self, at: usize, outer: &sql::Select, mut out: Rel) -> Result<Rel> {
        let NodeKind::Rank { partition, order, keep, row, .. } = self.nodes[at].kind.clone() else { unreachable!("a Rank at {at}") };
        let strategy = self.nodes[at].state.as_ref().and_then(|s| s.rank.as_ref()).map(|r| r.strategy.clone()).expect("a Rank has its state");
        let input_key = match &self.nodes[at - 1].changelog {
            Changelog::Upsert(k) => k.clone(),
            _ => Vec::new(),
        };
        let input = self.nodes[at - 1].schema.clone();
        let input_time = self.nodes[at - 1].time.clone();
        let width = row.len();
        let number_name = self.nodes[at].schema[width].name.clone();
        let mut used = vec![false; width + 1];
        match &self.nodes[at + 1].kind {
            NodeKind::Project { items } => items.iter().for_each(|(e, _)| e.columns(&mut |i, _| used[i] = true)),
            NodeKind::Aggregate { keys, calls, .. } => {
                keys.iter().for_each(|&k| used[k] = true);
                for c in calls {
                    c.arg.iter().chain(c.filter.iter()).for_each(|e| e.columns(&mut |i, _| used[i] = true));
                }
            }
            _ => used.iter_mut().for_each(|u| *u = true),
        }
        let number = used[width];
        let spec = RankSpec { partition, order, keep, number: number_name, strategy, input_key };
        // UpdateFast stores rows by the input's unique key, so it keeps it.
        let unique = |i: &usize| matches!(&spec.strategy, RankStrategy::UpdateFast { key } if key.contains(&input[*i].name));
        let kept: Vec<usize> = (0..width).filter(|i| used[*i] || spec.partition.contains(i) || spec.order.iter().any(|(o, _)| o == i) || unique(i)).collect();
        let parts = spec.parts(&input, input_time.as_deref(), self.settings.retention, &kept, number);
        let changelog = parts.changelog.map_err(|c| {
            let span = outer.projection.first().map_or(outer.select_token.0.span, |p| p.span());
            self.changelog_error(c, &Changelog::Append, span)
        })?;
        // The node above reads the kept columns by their new positions.
        let position = |i: usize| if i == width { kept.len() } else { kept.iter().position(|k| *k == i).expect("a read column is kept") };
        let remap = |e: &Expr| e.map_columns(&|i, name, ty| Expr::Column { index: position(i), name: name.to_string(), ty });
        match &mut self.nodes[at + 1].kind {
            NodeKind::Project { items } => items.iter_mut().for_each(|(e, _)| *e = remap(e)),
            NodeKind::Aggregate { keys, calls, .. } => {
                keys.iter_mut().for_each(|k| *k = position(*k));
                for c in calls.iter_mut() {
                    c.arg = c.arg.as_ref().map(remap);
                    c.filter = c.filter.as_ref().map(remap);
                }
            }
            _ => {}
        }
        let node = &mut self.nodes[at];
        node.definition = parts.definition;
        node.schema = parts.schema;
        node.state = Some(Box::new(parts.state));
        node.changelog = changelog.clone();
        node.time = parts.time;
        node.kind = NodeKind::Rank { partition: spec.partition, order: spec.order, keep, row: kept, number };
        // Filters and projections copy their input's mode.
        let mut mode = changelog;
        for n in &mut self.nodes[at + 1..] {
            if !matches!(n.kind, NodeKind::Project { .. } | NodeKind::Filter { .. }) {
                return Ok(out);
            }
            n.changelog = mode.clone();
            mode = n.changelog.clone();
        }
        out.changelog = mode;
        Ok(out)
    }
}
