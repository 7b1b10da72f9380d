//! `UNION ALL`: several inputs with the same columns, by name and type, in
//! one Union node; and the errors for the set operations still refused.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::{rel_schema, unsupported, LowerError, Lowerer, Rel, Result};
use crate::diagnostic::Code;
use crate::plan::changelog;
use crate::plan::node::{NodeKind, Operator};

impl<'a> Lowerer<'a> {
    /// `a UNION ALL b UNION ALL …`: each branch planned left to right (so
    /// the Source nodes are numbered in order of appearance), then one
    /// Union node over all of them.
    pub(super) fn union_all(&mut self, body: &'a sql::SetExpr) -> Result<Rel> {
        let mut branches: Vec<&'a sql::SetExpr> = Vec::new();
        flatten(body, &mut branches);
        let mut rels: Vec<Rel> = Vec::with_capacity(branches.len());
        for b in &branches {
            rels.push(self.set_expr(b)?);
        }
        let first = &rels[0];
        for (rel, branch) in rels.iter().zip(&branches).skip(1) {
            self.same_columns(first, rel, branch)?;
        }
        let modes: Vec<_> = rels.iter().map(|r| &r.changelog).collect();
        let mode = changelog::union(&modes).map_err(|i| {
            LowerError::new(
                Code::UnionOverUpdatingInput,
                format!("model `{}` takes the UNION ALL of an updating input (it emits {}), which is not supported: only append inputs can be combined", self.model, rels[i].changelog.title()),
                branches[i].span(),
            )
            .help("UNION ALL the append inputs first and aggregate after the union, in this model or in a model reading it")
        })?;
        let time = first.time.clone().filter(|t| rels.iter().all(|r| r.time.as_ref() == Some(t)));
        let rel = Rel {
            qualifier: String::new(),
            cols: first.cols.clone(),
            input_id: String::new(),
            changelog: mode,
            bounded: rels.iter().all(|r| r.bounded),
            time,
            windowable: false,
            sides: Vec::new(),
        };
        let schema = rel_schema(&rel);
        let inputs: Vec<String> = rels.iter().map(|r| r.input_id.clone()).collect();
        let id = self.push(Operator::Union, &rel, "UNION ALL".into(), schema, rel.changelog.clone(), None, rel.time.clone(), NodeKind::Union);
        self.nodes.last_mut().expect("just pushed").inputs = inputs;
        Ok(Rel { input_id: id, ..rel })
    }

    /// The error when `rel` (the input `branch`) does not have `first`'s
    /// columns, name for name and type for type.
    fn same_columns(&self, first: &Rel, rel: &Rel, branch: &sql::SetExpr) -> Result<()> {
        let names = |r: &Rel| r.cols.iter().map(|c| format!("{} {}", c.name, c.ty)).collect::<Vec<_>>().join(", ");
        if rel.cols.len() != first.cols.len() {
            return Err(LowerError::new(
                Code::UnionColumnsDiffer,
                format!("model `{}` takes the UNION ALL of inputs with {} and {} columns", self.model, first.cols.len(), rel.cols.len()),
                branch.span(),
            )
            .help(format!("select the same columns, in the same order, in every input: {}", names(first))));
        }
        for (i, (a, b)) in first.cols.iter().zip(&rel.cols).enumerate() {
            let at = column_span(branch, i);
            if a.name != b.name {
                return Err(LowerError::new(Code::UnionColumnsDiffer, format!("model `{}` takes the UNION ALL of inputs whose column {} is `{}` in the first and `{}` here", self.model, i + 1, a.name, b.name), at)
                    .help(format!("UNION ALL matches columns by name and position: select `{}` here (alias it: `… AS {}`), in the order {}", a.name, a.name, names(first))));
            }
            if a.ty != b.ty {
                return Err(LowerError::new(Code::UnionColumnTypesDiffer, format!("model `{}` takes the UNION ALL of inputs whose column `{}` is {} in the first and {} here", self.model, a.name, a.ty, b.ty), at)
                    .help(format!("CAST one of them, for example `CAST({} AS {}) AS {}`", a.name, a.ty.to_string().to_uppercase(), a.name)));
            }
        }
        Ok(())
    }
}

/// The branches of a chain of `UNION ALL`, left to right.
fn flatten<'a>(s: &'a sql::SetExpr, out: &mut Vec<&'a sql::SetExpr>) {
    match s {
        sql::SetExpr::SetOperation { op: sql::SetOperator::Union, set_quantifier: sql::SetQuantifier::All, left, right } => {
            flatten(left, out);
            flatten(right, out);
        }
        other => out.push(other),
    }
}

/// Where the `i`th selected column of `branch` is written, when it is.
fn column_span(branch: &sql::SetExpr, i: usize) -> SqlSpan {
    match branch {
        sql::SetExpr::Select(s) if !s.projection.iter().any(|p| matches!(p, sql::SelectItem::Wildcard(_) | sql::SelectItem::QualifiedWildcard(..))) => {
            s.projection.get(i).map(|p| p.span()).unwrap_or(branch.span())
        }
        _ => branch.span(),
    }
}

/// The error for `UNION` (without ALL), `INTERSECT` and `EXCEPT`, with
/// what to write instead.
pub(super) fn refused_set_operation(model: &str, op: sql::SetOperator, span: SqlSpan) -> LowerError {
    let tagged = "SELECT a, b FROM (SELECT a, b, 1 AS side FROM source('x') UNION ALL SELECT a, b, 2 AS side FROM source('y')) GROUP BY a, b";
    let (what, help) = match op {
        sql::SetOperator::Union => ("UNION (without ALL)", "write UNION ALL to keep every row; to drop duplicates, GROUP BY every column of the union (an upsert model keyed by them)".to_string()),
        sql::SetOperator::Intersect => ("INTERSECT", format!("UNION ALL both inputs with a column telling them apart and keep the rows both have: `{tagged} HAVING MIN(side) = 1 AND MAX(side) = 2`")),
        sql::SetOperator::Except | sql::SetOperator::Minus => ("EXCEPT", format!("UNION ALL both inputs with a column telling them apart and keep the rows only the first has: `{tagged} HAVING MAX(side) = 1`")),
    };
    unsupported(model, what, span).help(help)
}
