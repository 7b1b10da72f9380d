//! A SELECT: its FROM and WHERE, the projection without aggregates (`*`,
//! expressions, aliases), and the output's check against the materialization.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::ast::{contains_aggregate, select_item_expr};
use super::names::{ident_name, object_name, planner_name, unaliased_name};
use super::{operand_type, rel_schema, unsupported, LowerError, Lowerer, Rel, RelCol, Result};
use crate::plan::changelog;
use crate::plan::expr::Expr;
use crate::plan::node::{Column, NodeKind, Operator};
use crate::types::{DataType, Unsupported};
use crate::diagnostic::Code;

impl<'a> Lowerer<'a> {
    pub(super) fn select(&mut self, s: &'a sql::Select) -> Result<Rel> {
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
        let has_aggregates = s.projection.iter().any(|item| select_item_expr(item).is_some_and(contains_aggregate))
            || s.having.as_ref().is_some_and(contains_aggregate);
        if group_by.is_empty() && !has_aggregates {
            if let Some(h) = &s.having {
                return Err(LowerError::new(Code::HavingWithoutAggregate, format!("model `{}` has HAVING but does not aggregate", self.model), h.span())
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
                            return Err(LowerError::new(Code::UnknownQualifier, format!("model `{}` selects `{q}.*`, but it reads `{}`", self.model, rel.qualifier), item.span())
                                .help(format!("write `{}.*` or `*`", rel.qualifier)));
                        }
                    }
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
        self.require_unique_names(&items)?;
        self.require_unique_planner_names(s, &rel.qualifier)?;
        self.project(rel, items)
    }

    /// Two select items the original's planner names alike are refused as it
    /// refuses them, though the names they show differ: `CAST(qty AS BIGINT)`
    /// and `qty` (a cast is named by its operand), or `CAST(SUM(qty) AS
    /// BIGINT)` and `SUM(CAST(qty AS BIGINT))`.
    pub(super) fn require_unique_planner_names(&self, s: &sql::Select, qualifier: &str) -> Result<()> {
        let mut seen: Vec<(String, usize)> = Vec::new();
        for (i, item) in s.projection.iter().enumerate() {
            let Some(name) = planner_name(item, qualifier) else { continue };
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                return Err(LowerError::new(
                    Code::DuplicateOutputColumn,
                    format!("model `{}` selects `{}` and `{item}` (items {} and {}), which the planner names alike", self.model, s.projection[*first], first + 1, i + 1),
                    item.span(),
                )
                .help(format!("both are named `{}`; give one of them another name with AS", name.trim_start_matches("AS "))));
            }
            seen.push((name, i));
        }
        Ok(())
    }

    /// Two items that show the same name.
    pub(super) fn require_unique_names(&self, items: &[(Expr, String, SqlSpan)]) -> Result<()> {
        for (i, (_, name, span)) in items.iter().enumerate() {
            if let Some(first) = items[..i].iter().position(|(_, n, _)| n == name) {
                return Err(LowerError::new(
                    Code::DuplicateOutputColumn,
                    format!("model `{}` produces the column `{name}` twice (select items {} and {})", self.model, first + 1, i + 1),
                    *span,
                )
                .help("give one of them another name with AS"));
            }
        }
        Ok(())
    }

    pub(super) fn project(&mut self, rel: Rel, items: Vec<(Expr, String, SqlSpan)>) -> Result<Rel> {
        self.require_unique_names(&items)?;
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
        let items = items.into_iter().map(|(e, n, _)| (e, n)).collect();
        let changelog = changelog::row_step(&rel.changelog);
        let id = self.push(Operator::Project, &rel, def, schema, changelog.clone(), None, time.clone(), NodeKind::Project { items });
        Ok(Rel { qualifier: rel.qualifier, cols, input_id: id, changelog, bounded: rel.bounded, time, windowable: false })
    }

    pub(super) fn require_boolean(&self, e: &Expr, ast: &sql::Expr, clause: &str) -> Result<()> {
        match e.ty() {
            DataType::Boolean | DataType::Unsupported(Unsupported::Null) => Ok(()),
            t => Err(LowerError::new(Code::PredicateNotBoolean, format!("model `{}` filters with {clause} `{}`, which is {t}, not boolean", self.model, e.render()), ast.span())
                .help("compare it with something, for example `> 0` or `IS NOT NULL`")),
        }
    }
}
