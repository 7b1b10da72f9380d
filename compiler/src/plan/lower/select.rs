//! A SELECT: its FROM and WHERE, the projection without aggregates (`*`,
//! expressions, aliases), and the output's check against the materialization.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::ast::{contains_aggregate, select_item_expr};
use super::names::{ident_name, planner_field, qualifier_name, unaliased_name};
use super::{operand_type, rel_schema, unsupported, LowerError, Lowerer, Rel, RelCol, Result};
use crate::plan::changelog;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, NodeKind, Operator};
use crate::types::{DataType, Unsupported};
use crate::diagnostic::Code;

/// What to write for a join form still refused: a join on equal keys.
const JOIN_HELP: &str = "join two inputs on an equality of a column of each side, with INNER, LEFT, RIGHT or FULL OUTER JOIN, e.g. `FROM source('orders') o LEFT JOIN source('customers') c ON o.customer_id = c.customer_id`";

/// The error for a join, by its kind, with what to write instead.
pub(super) fn refused_join(model: &str, j: &sql::Join) -> LowerError {
    if let sql::TableFactor::UNNEST { .. } = &j.relation {
        return unsupported(model, "CROSS JOIN UNNEST", j.relation.span())
            .help("a source's columns are scalars, so there is no array to unnest: have the producer write one event per element");
    }
    let what = match &j.join_operator {
        sql::JoinOperator::Join(_) | sql::JoinOperator::Inner(_) => "an INNER JOIN",
        sql::JoinOperator::Left(_) | sql::JoinOperator::LeftOuter(_) => "a LEFT JOIN",
        sql::JoinOperator::Right(_) | sql::JoinOperator::RightOuter(_) => "a RIGHT JOIN",
        sql::JoinOperator::FullOuter(_) => "a FULL OUTER JOIN",
        sql::JoinOperator::CrossJoin(_) => "a CROSS JOIN",
        _ => "a join",
    };
    unsupported(model, what, j.relation.span()).help(JOIN_HELP)
}

impl<'a> Lowerer<'a> {
    pub(super) fn select(&mut self, s: &'a sql::Select) -> Result<Rel> {
        self.select_skipping(s, None)
    }

    /// A SELECT, leaving out the item at `skip`: the ROW_NUMBER() of a
    /// ranked query, which the Rank above it computes (rank.rs).
    pub(super) fn select_skipping(&mut self, s: &'a sql::Select, skip: Option<usize>) -> Result<Rel> {
        if let Some(d) = &s.distinct {
            let span = match d {
                sql::Distinct::On(e) => e.first().map(|e| e.span()).unwrap_or(s.span()),
                _ => s.select_token.0.span,
            };
            return Err(unsupported(self.model, "DISTINCT", span).help("group by the columns instead: SELECT k, COUNT(*) AS n ... GROUP BY k"));
        }
        let from = match s.from.as_slice() {
            [] => {
                return Err(LowerError::new(Code::SelectWithoutFrom, format!("model `{}` reads nothing: its SELECT has no FROM", self.model), s.span())
                    .help("read a source with FROM source('name') or another model with FROM ref('name')"))
            }
            [one] => one,
            [_, second, ..] => return Err(unsupported(self.model, "a join (`FROM a, b`)", second.relation.span()).help(JOIN_HELP)),
        };
        if s.qualify.is_some() || !s.named_window.is_empty() {
            return Err(super::rank::window_clause(self.model, s.span()));
        }
        // A query that numbers rows with ROW_NUMBER(): its rows, ranked and
        // kept to the range this WHERE gives.
        let ranked = if from.joins.is_empty() { self.ranked_from(&from.relation) } else { None };
        let (rel, rank_at, join_at) = match &ranked {
            Some(r) => (self.ranked(s, r)?, Some(self.nodes.len() - 1), None),
            None if from.joins.is_empty() => (self.table_factor(&from.relation)?, None, None),
            None => {
                let (r, at) = self.join_from(from, s)?;
                (r, None, Some(at))
            }
        };
        let out = self.select_over(s, rel, join_at.is_none(), skip, rank_at);
        if let (Some(at), Ok(_)) = (join_at, &out) {
            self.prune_join(at);
        }
        out
    }

    /// WHERE (unless a join or a Rank took it), GROUP BY and the projection
    /// over `rel`; `skip` and `rank_at` as in [`Self::select_skipping`].
    fn select_over(&mut self, s: &'a sql::Select, mut rel: Rel, filter: bool, skip: Option<usize>, rank_at: Option<usize>) -> Result<Rel> {
        if let Some(pred) = s.selection.as_ref().filter(|_| filter && rank_at.is_none()) {
            if contains_aggregate(pred) {
                return Err(LowerError::new(Code::AggregateNotAllowedHere, format!("model `{}` uses an aggregate in WHERE", self.model), pred.span())
                    .help("filter on aggregates with HAVING"));
            }
            let e = self.expr(pred, &rel, None)?;
            self.require_boolean(&e, pred, "WHERE")?;
            let def = e.render();
            let schema = rel_schema(&rel);
            let id = self.push(Operator::Filter, &rel, def, schema, changelog::row_step(&rel.changelog), None, rel.time.clone(), NodeKind::Filter { predicate: e });
            rel.input_id = id;
        }

        let group_by = match &s.group_by {
            sql::GroupByExpr::Expressions(exprs, mods) if mods.is_empty() => exprs.as_slice(),
            other => return Err(unsupported(self.model, "this form of GROUP BY", other.span())),
        };
        let has_aggregates = s.projection.iter().enumerate().any(|(i, item)| Some(i) != skip && select_item_expr(item).is_some_and(contains_aggregate))
            || s.having.as_ref().is_some_and(contains_aggregate);
        if group_by.is_empty() && !has_aggregates {
            if let Some(h) = &s.having {
                return Err(LowerError::new(Code::HavingWithoutAggregate, format!("model `{}` has HAVING but does not aggregate", self.model), h.span())
                    .help("use WHERE to filter rows that are not grouped"));
            }
            let out = self.plain_projection(s, rel, skip)?;
            return match rank_at {
                Some(at) => self.prune_rank(at, s, out),
                None => Ok(out),
            };
        }
        if skip.is_some() {
            return Err(self.ranked_aggregate(s, group_by, &rel));
        }
        let out = self.aggregate_select(s, rel, group_by)?;
        match rank_at {
            Some(at) => self.prune_rank(at, s, out),
            None => Ok(out),
        }
    }

    fn plain_projection(&mut self, s: &'a sql::Select, rel: Rel, skip: Option<usize>) -> Result<Rel> {
        let mut items: Vec<(Expr, String, SqlSpan)> = Vec::new();
        let mut fields: Vec<String> = Vec::new();
        for (_, item) in s.projection.iter().enumerate().filter(|(i, _)| Some(*i) != skip) {
            if let Some(f) = planner_field(item, &rel.qualifier) {
                fields.push(f);
            }
            if !rel.sides.is_empty() {
                if let Some(cols) = self.join_wildcard(item, &rel)? {
                    for i in cols {
                        let name = rel.sides[i].1.clone();
                        fields.push(name.clone());
                        items.push((Expr::Column { index: i, name: rel.cols[i].name.clone(), ty: rel.cols[i].ty }, name, item.span()));
                    }
                    continue;
                }
            }
            match item {
                sql::SelectItem::Wildcard(_) => {
                    fields.extend(rel.cols.iter().map(|c| c.name.clone()));
                    for (i, c) in rel.cols.iter().enumerate() {
                        items.push((Expr::Column { index: i, name: c.name.clone(), ty: c.ty }, c.name.clone(), item.span()));
                    }
                }
                sql::SelectItem::QualifiedWildcard(kind, _) => {
                    if let sql::SelectItemQualifiedWildcardKind::ObjectName(n) = kind {
                        let q = qualifier_name(n);
                        if q != rel.qualifier {
                            return Err(LowerError::new(Code::UnknownQualifier, format!("model `{}` selects `{q}.*`, but it reads `{}`", self.model, rel.qualifier), item.span())
                                .help(format!("write `{}.*` or `*`", rel.qualifier)));
                        }
                    }
                    fields.extend(rel.cols.iter().map(|c| c.name.clone()));
                    for (i, c) in rel.cols.iter().enumerate() {
                        items.push((Expr::Column { index: i, name: c.name.clone(), ty: c.ty }, c.name.clone(), item.span()));
                    }
                }
                sql::SelectItem::UnnamedExpr(e) => {
                    let ex = self.expr(e, &rel, None)?;
                    let name = unaliased_name(e, &ex, &rel.qualifier);
                    items.push((ex, name, e.span()));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    let ex = self.expr(expr, &rel, None)?;
                    items.push((ex, ident_name(alias), item.span()));
                }
                sql::SelectItem::ExprWithAliases { expr, .. } => return Err(unsupported(self.model, "several aliases for one column", expr.span())),
            }
        }
        self.require_unique_fields(&items, &fields)?;
        self.project(rel, items)
    }

    /// Two items whose planner fields (`planner_field`, one per item) are
    /// equal are refused, as the original refuses them; two that only show
    /// the same name (`COUNT(1)` and `count(*)`) are accepted, as it accepts
    /// them.
    pub(super) fn require_unique_fields(&self, items: &[(Expr, String, SqlSpan)], fields: &[String]) -> Result<()> {
        for (i, field) in fields.iter().enumerate() {
            let Some(first) = fields[..i].iter().position(|f| f == field) else { continue };
            let (a, b) = (&items[first].1, &items[i].1);
            let err = if a == b {
                LowerError::new(Code::DuplicateOutputColumn, format!("model `{}` produces the column `{b}` twice (select items {} and {})", self.model, first + 1, i + 1), items[i].2)
                    .help("give one of them another name with AS")
            } else {
                LowerError::new(Code::DuplicateOutputColumn, format!("model `{}` produces `{a}` and `{b}` (select items {} and {}), which the planner names alike", self.model, first + 1, i + 1), items[i].2)
                    .help(format!("both are named `{field}`; give one of them another name with AS"))
            };
            return Err(err);
        }
        Ok(())
    }

    pub(super) fn project(&mut self, rel: Rel, items: Vec<(Expr, String, SqlSpan)>) -> Result<Rel> {
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
        // A bare column passes its operand type on; an expression's is its own.
        let cols = schema.iter().zip(&items).map(|(c, (e, _, _))| RelCol { name: c.name.clone(), ty: c.ty, engine: operand_type(e, &rel) }).collect();
        let changelog = changelog::project(&rel.changelog, |c| {
            let at = rel.cols.iter().position(|x| x.name == c);
            items.iter().filter(|(e, _, _)| matches!(e, Expr::Column { index, .. } if Some(*index) == at)).map(|(_, n, _)| n.clone()).collect()
        });
        let items = items.into_iter().map(|(e, n, _)| (e, n)).collect();
        let id = self.push(Operator::Project, &rel, def, schema, changelog.clone(), None, time.clone(), NodeKind::Project { items });
        Ok(Rel { qualifier: rel.qualifier, cols, input_id: id, changelog, bounded: rel.bounded, time, windowable: false, sides: Vec::new() })
    }

    pub(super) fn require_boolean(&self, e: &Expr, ast: &sql::Expr, clause: &str) -> Result<()> {
        match e.ty() {
            DataType::Boolean | DataType::Unsupported(Unsupported::Null) => Ok(()),
            t => Err(LowerError::new(Code::PredicateNotBoolean, format!("model `{}` filters with {clause} `{}`, which is {t}, not boolean", self.model, e.render()), ast.span())
                .help("compare it with something, for example `> 0` or `IS NOT NULL`")),
        }
    }
}
