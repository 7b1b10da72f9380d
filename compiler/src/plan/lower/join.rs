//! A regular join of two inputs: `FROM a x JOIN b y ON x.k = y.k`, inner
//! or outer, over append or keyed (upsert) inputs.
//!
//! As Flink plans it: the ON clause and the WHERE (one for an inner join)
//! split into conjuncts; an equality of a column of each side is a join
//! key, a conjunct over one side is a Filter below the join (pushed down),
//! the rest is the residual condition. Each side stores only the columns
//! the query uses (Flink prunes the rest before the join), which `prune`
//! settles once the SELECT above the join is planned.

use std::collections::BTreeSet;

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::ast::contains_aggregate;
use super::names::ident_name;
use super::{rel_schema, unsupported, LowerError, Lowerer, Rel, RelCol, Result};
use crate::diagnostic::{did_you_mean, Code};
use crate::plan::changelog;
use crate::plan::expr::{BinOp, Expr, Literal};
use crate::plan::node::{Changelog, Column, JoinInterval, JoinSideState, JoinState, JoinType, KeyedState, NodeKind, Operator, Retention, TimeBounds};
use crate::types::DataType;

/// A conjunct of ON or WHERE, by what it reads.
pub(super) enum Conjunct<'a> {
    Key(usize, usize),
    Left(&'a sql::Expr),
    Right(&'a sql::Expr),
    Residual(Expr, SqlSpan),
}

/// A bound on `right time - left time` that one comparison puts, in ms.
enum Bound {
    Lower(i64),
    Upper(i64),
}

impl<'a> Lowerer<'a> {
    /// `FROM l JOIN r ON …` (with the SELECT's WHERE): the joined relation
    /// and the position of its Join node in the plan.
    pub(super) fn join_from(&mut self, from: &'a sql::TableWithJoins, s: &'a sql::Select) -> Result<(Rel, usize)> {
        let j = match from.joins.as_slice() {
            [j] => j,
            [_, second, ..] => {
                return Err(unsupported(self.model, "more than one join in one SELECT", second.relation.span())
                    .help("join two inputs per model: join the first two in one model, and join its ref() with the third in the next"))
            }
            [] => unreachable!("called for a join"),
        };
        let (join_type, constraint) = match &j.join_operator {
            sql::JoinOperator::Join(c) | sql::JoinOperator::Inner(c) => (JoinType::Inner, c),
            sql::JoinOperator::Left(c) | sql::JoinOperator::LeftOuter(c) => (JoinType::Left, c),
            sql::JoinOperator::Right(c) | sql::JoinOperator::RightOuter(c) => (JoinType::Right, c),
            sql::JoinOperator::FullOuter(c) => (JoinType::Full, c),
            _ => return Err(super::select::refused_join(self.model, j)),
        };
        let on = match constraint {
            sql::JoinConstraint::On(e) => e,
            sql::JoinConstraint::Using(_) | sql::JoinConstraint::UsingAlias(..) | sql::JoinConstraint::Natural => {
                return Err(unsupported(self.model, "a join with USING or NATURAL", j.relation.span()).help("write the condition out: `ON a.k = b.k`"))
            }
            sql::JoinConstraint::None => return Err(self.no_equality(j.relation.span())),
        };
        if let Some(as_of) = crate::sql::calls::factor_as_of(&j.relation) {
            return self.temporal_join(from, j, join_type, on, s, as_of);
        }
        let left = self.table_factor(&from.relation)?;
        let right = self.table_factor(&j.relation)?;
        let mode = changelog::join(&left.changelog, &right.changelog, join_type).map_err(|i| {
            let (rel, at) = if i == 0 { (&left, from.relation.span()) } else { (&right, j.relation.span()) };
            LowerError::new(
                Code::JoinOverUpdatingInput,
                format!("model `{}` joins an updating input with no key (`{}` emits {}), which is not supported: a join reads append inputs and inputs whose rows are replaced by a key", self.model, rel.qualifier, rel.changelog.title()),
                at,
            )
            .help("give the input a key: group it by the column you join on (`GROUP BY k`), or join the inputs before aggregating and aggregate the join")
        })?;
        if left.qualifier == right.qualifier {
            return Err(LowerError::new(Code::AmbiguousColumn, format!("model `{}` reads `{}` on both sides of the join, so its columns cannot be told apart", self.model, left.qualifier), j.relation.span())
                .help(format!("give each side an alias: `… {} a JOIN … b ON a.k = b.k`", left.qualifier)));
        }
        let both = joined(&left, &right);
        let lw = left.cols.len();
        let mut planned = self.conjuncts(join_type, on, s.selection.as_ref(), &both, lw)?;
        let keys: Vec<(usize, usize)> = planned.iter().filter_map(|c| if let Conjunct::Key(l, r) = c { Some((*l, *r)) } else { None }).collect();
        if keys.is_empty() {
            return Err(self.no_equality(on.span()));
        }
        let left = self.side_filter(left, planned.iter().filter_map(|c| if let Conjunct::Left(e) = c { Some(*e) } else { None }).collect())?;
        let right = self.side_filter(right, planned.iter().filter_map(|c| if let Conjunct::Right(e) = c { Some(*e) } else { None }).collect())?;
        let interval = self.interval(&mut planned, &left, &right)?;
        if let (Some(_), JoinType::Left | JoinType::Right | JoinType::Full) = (interval, join_type) {
            return Err(unsupported(self.model, format!("an outer interval join ({})", join_type.sql()), j.relation.span())
                .help("write an INNER JOIN with the time bounds, or an outer join without them (a regular join, kept for the model's retention)"));
        }
        if let (Some(_), Changelog::Retract(_)) = (interval, &mode) {
            return Err(self.interval_over_updating([(&left, from.relation.span()), (&right, j.relation.span())]));
        }
        let residual = planned.into_iter().filter_map(|c| if let Conjunct::Residual(e, _) = c { Some(e) } else { None }).reduce(and);
        let mode = match mode {
            Changelog::Retract(_) => Changelog::Retract(upsert_keys(join_type, &left, &right, &both, &keys)),
            m => m,
        };
        let state = self.join_state(join_type, &left, &right, &keys, interval);
        let kind = join_kind(join_type, (lw, right.cols.len()), &keys, residual, interval, None);
        // An interval join keeps its inputs' time attributes, as on Flink
        // (a regular join's output has none): the left side's event time.
        let time = interval.map(|b| both.cols[b.left_time].name.clone());
        let out = Rel { changelog: mode, bounded: left.bounded && right.bounded, time: time.clone(), ..both };
        let schema = rel_schema(&out);
        let at = self.nodes.len();
        let id = self.push(Operator::Join, &out, String::new(), schema, out.changelog.clone(), Some(state), time, kind);
        Ok((self.finish_join(&left, &right, id, out), at))
    }

    /// The join node just pushed: its two inputs and its definition.
    pub(super) fn finish_join(&mut self, left: &Rel, right: &Rel, id: String, out: Rel) -> Rel {
        let node = self.nodes.last_mut().expect("just pushed");
        node.inputs = vec![left.input_id.clone(), right.input_id.clone()];
        node.definition = join_definition(node);
        Rel { input_id: id, ..out }
    }

    /// An interval join of an updating input (one of `sides`, each with
    /// where it is read): Flink's interval join reads inserts only.
    fn interval_over_updating(&self, sides: [(&Rel, SqlSpan); 2]) -> LowerError {
        let (rel, at) = if sides[0].0.changelog == Changelog::Append { sides[1] } else { sides[0] };
        LowerError::new(
            Code::IntervalJoinOverUpdatingInput,
            format!("model `{}` bounds the time between the two sides of a join of an updating input (`{}` emits {}); Flink joins within a time interval only rows that are never replaced", self.model, rel.qualifier, rel.changelog.title()),
            at,
        )
        .help("drop the time bounds to write a regular join, kept for the model's retention, or join the append input the updating one is computed from")
    }

    /// What the join stores, its state fingerprint's content: for each
    /// side its keys (`keys` index the joined columns), every column (pruned
    /// once the SELECT is planned) and its unique key (the upsert key Flink
    /// infers for its input: none for an append input), and the model's
    /// retention for both.
    /// An interval join keeps each row until the watermark passes its
    /// interval, whatever the model's retention (Flink's interval join
    /// takes no STATE_TTL): `until-close`.
    fn join_state(&self, join_type: JoinType, left: &Rel, right: &Rel, keys: &[(usize, usize)], interval: Option<TimeBounds>) -> KeyedState {
        let lw = left.cols.len();
        let retention = match (interval, self.settings.retention) {
            (Some(_), _) => Retention::UntilClose,
            (None, Some(d)) => Retention::After(d),
            (None, None) => Retention::Unbounded,
        };
        let side = |rel: &Rel, keys: Vec<String>| {
            let names: Vec<&str> = rel.cols.iter().map(|c| c.name.as_str()).collect();
            JoinSideState { keys, stored: rel_schema(rel), unique: changelog::join_unique(rel.changelog.key(), &names) }
        };
        KeyedState {
            keys: Vec::new(),
            accumulators: Vec::new(),
            retention,
            window: None,
            rank: None,
            join: Some(JoinState {
                join_type,
                left: side(left, keys.iter().map(|(l, _)| left.cols[*l].name.clone()).collect()),
                right: side(right, keys.iter().map(|(_, r)| right.cols[*r - lw].name.clone()).collect()),
                interval: interval.map(|b| JoinInterval { left_time: left.cols[b.left_time].name.clone(), right_time: right.cols[b.right_time - lw].name.clone(), lower: b.lower, upper: b.upper }),
                temporal: None,
            }),
        }
    }

    /// An interval join's bounds: the conjuncts comparing the two sides'
    /// event times (each `col`, `col ± INTERVAL …`), taken out of `planned`
    /// when they bound `right - left` from below and from above, as Flink
    /// then plans an interval join. Bounded on one side only they stay in
    /// the residual condition of a regular join, as on Flink.
    fn interval(&self, planned: &mut Vec<Conjunct<'a>>, left: &Rel, right: &Rel) -> Result<Option<TimeBounds>> {
        let lw = left.cols.len();
        let (Some(lt), Some(rt)) = (time_index(left, 0), time_index(right, lw)) else { return Ok(None) };
        let (mut lower, mut upper, mut used) = (Vec::new(), Vec::new(), Vec::new());
        for (i, c) in planned.iter().enumerate() {
            let Conjunct::Residual(e, span) = c else { continue };
            let Some(bounds) = time_bounds(e, lt, rt) else { continue };
            used.push(i);
            for b in bounds {
                match b {
                    Bound::Lower(v) => lower.push((v, *span)),
                    Bound::Upper(v) => upper.push((v, *span)),
                }
            }
        }
        let names = format!("`{}.{}` and `{}.{}`", left.qualifier, left.cols[lt].name, right.qualifier, right.cols[rt - lw].name);
        let (lo, hi) = match (lower.as_slice(), upper.as_slice()) {
            ([], _) | (_, []) => return Ok(None),
            ([lo], [hi]) => (*lo, *hi),
            (_, [_, (_, span), ..]) | ([_, (_, span), ..], _) => {
                return Err(LowerError::new(Code::IntervalJoinBoundTwice, format!("model `{}` bounds the time between {names} more than once in the same direction", self.model), *span)
                    .help(format!("give one lower and one upper bound, for example `{}.{} BETWEEN {}.{} AND {}.{} + INTERVAL '1' HOUR`", right.qualifier, right.cols[rt - lw].name, left.qualifier, left.cols[lt].name, left.qualifier, left.cols[lt].name)))
            }
        };
        if lo.0 > hi.0 {
            return Err(LowerError::new(Code::EmptyJoinInterval, format!("model `{}` joins when the time between {names} is at least {} ms and at most {} ms, which no pair of rows can be", self.model, lo.0, hi.0), hi.1)
                .help("swap the bounds so that the lower one comes first, for example `s.t BETWEEN o.t AND o.t + INTERVAL '1' HOUR`"));
        }
        for i in used.into_iter().rev() {
            planned.remove(i);
        }
        Ok(Some(TimeBounds { left_time: lt, right_time: rt, lower: lo.0, upper: hi.0 }))
    }

    /// The conjuncts of ON and WHERE. An inner join takes them alike. An
    /// outer join keeps its ON whole: a condition on a side whose rows are
    /// kept without a match (an outer side) stays in the join condition,
    /// while one on the other side filters that side below the join, as
    /// Flink pushes it. Its WHERE may filter only a side that is never
    /// padded with nulls (below the join, as Flink pushes it); a condition
    /// on a padded side is refused, since Flink would turn such a join into
    /// another (an INNER one when the condition rejects nulls).
    pub(super) fn conjuncts(&self, join_type: JoinType, on: &'a sql::Expr, selection: Option<&'a sql::Expr>, both: &Rel, lw: usize) -> Result<Vec<Conjunct<'a>>> {
        let (mut on_parts, mut where_parts) = (Vec::new(), Vec::new());
        split_and(on, &mut on_parts);
        if let Some(w) = selection {
            split_and(w, if join_type == JoinType::Inner { &mut on_parts } else { &mut where_parts });
        }
        let mut planned = Vec::new();
        for c in on_parts {
            planned.push(match self.conjunct(c, both, lw)? {
                Conjunct::Left(e) if join_type.outer(false) => Conjunct::Residual(self.expr(e, both, None)?, e.span()),
                Conjunct::Right(e) if join_type.outer(true) => Conjunct::Residual(self.expr(e, both, None)?, e.span()),
                other => other,
            });
        }
        for c in where_parts {
            match self.conjunct(c, both, lw)? {
                Conjunct::Left(e) if !join_type.outer(true) => planned.push(Conjunct::Left(e)),
                Conjunct::Right(e) if !join_type.outer(false) => planned.push(Conjunct::Right(e)),
                _ => return Err(self.padded_where(join_type, both, c)),
            }
        }
        Ok(planned)
    }

    /// WHERE over a side an outer join pads with nulls.
    fn padded_where(&self, join_type: JoinType, both: &Rel, c: &sql::Expr) -> LowerError {
        let quals = qualifiers(both);
        let padded: Vec<String> = [(false, quals[0]), (true, quals[quals.len() - 1])].iter().filter(|(r, _)| join_type.outer(!r)).map(|(_, q)| format!("`{q}`")).collect();
        LowerError::new(
            Code::OuterJoinWhereOnPaddedSide,
            format!("model `{}` filters its {} in WHERE on {}, whose columns are null in the rows kept without a match", self.model, join_type.sql(), padded.join(" and ")),
            c.span(),
        )
        .help("put the condition in ON to join only the rows that pass it (`ON o.k = c.k AND …`), write an INNER JOIN to keep only matched rows, or filter in a model that reads this one (`SELECT * FROM ref('…') WHERE …`)")
    }

    fn no_equality(&self, span: SqlSpan) -> LowerError {
        LowerError::new(Code::JoinWithoutEquality, format!("model `{}` joins without an equality between its two inputs; Flink runs a regular join only on equal keys", self.model), span)
            .help("add an equality of a column of each side to ON, for example `ON o.customer_id = c.customer_id`; further conditions may follow with AND")
    }

    /// One conjunct: a key (a column of each side, equal), a filter on one
    /// side, or part of the residual condition.
    fn conjunct(&self, c: &'a sql::Expr, both: &Rel, lw: usize) -> Result<Conjunct<'a>> {
        if contains_aggregate(c) {
            return Err(LowerError::new(Code::AggregateNotAllowedHere, format!("model `{}` uses an aggregate in a join condition", self.model), c.span()).help("filter on aggregates with HAVING"));
        }
        let e = self.expr(c, both, None)?;
        self.require_boolean(&e, c, "ON")?;
        if let Expr::Binary { op: BinOp::Eq, left: a, right: b, .. } = &e {
            if let (Expr::Column { index: i, name: an, ty: at }, Expr::Column { index: k, name: bn, ty: bt }) = (&**a, &**b) {
                if (*i < lw) != (*k < lw) {
                    if at != bt {
                        let (q, n) = &both.sides[*k];
                        return Err(LowerError::new(Code::JoinKeyTypesDiffer, format!("model `{}` joins `{an}` ({at}) with `{bn}` ({bt}); join keys must have the same type", self.model), c.span())
                            .help(format!("cast one side where it is read, then join on the cast column: `JOIN (SELECT CAST({n} AS {}) AS {n}, … FROM …) {q} ON …`", at.to_string().to_uppercase())));
                    }
                    return Ok(if *i < lw { Conjunct::Key(*i, *k) } else { Conjunct::Key(*k, *i) });
                }
            }
        }
        let mut sides = BTreeSet::new();
        e.columns(&mut |i, _| {
            sides.insert(i >= lw);
        });
        Ok(match (sides.contains(&false), sides.contains(&true)) {
            (true, false) => Conjunct::Left(c),
            (false, true) => Conjunct::Right(c),
            _ => Conjunct::Residual(e, c.span()),
        })
    }

    /// A Filter on one side below the join, of the conjuncts over it alone.
    pub(super) fn side_filter(&mut self, rel: Rel, conjuncts: Vec<&'a sql::Expr>) -> Result<Rel> {
        let mut pred = None;
        for c in conjuncts {
            let e = self.expr(c, &rel, None)?;
            pred = Some(match pred {
                None => e,
                Some(p) => and(p, e),
            });
        }
        let Some(pred) = pred else { return Ok(rel) };
        let id = self.push(Operator::Filter, &rel, pred.render(), rel_schema(&rel), changelog::row_step(&rel.changelog), None, rel.time.clone(), NodeKind::Filter { predicate: pred });
        Ok(Rel { input_id: id, ..rel })
    }

    /// A column over a join: by its relation's alias and name, or by its
    /// name when only one side has it.
    pub(super) fn join_column(&self, parts: &[sql::Ident], rel: &Rel, span: SqlSpan) -> Result<Expr> {
        let (qualifier, name) = match parts {
            [n] => (None, ident_name(n)),
            [q, n] => (Some(ident_name(q)), ident_name(n)),
            _ => return Err(unsupported(self.model, "a column name with more than two parts", span)),
        };
        if qualifier.is_none() && (name == "window_start" || name == "window_end") && self.settings.window.is_some() {
            return Err(unsupported(self.model, "a window over a join", span)
                .help("a join's output has no event time (a regular join's Flink turns into a plain timestamp, and an interval join's two are cast to plain timestamps, since a sink takes one), so it cannot be cut into windows: aggregate the join without `window:`, or window each input in its own model and join their results"));
        }
        let found: Vec<usize> = (0..rel.sides.len()).filter(|&i| rel.sides[i].1 == name && qualifier.as_ref().is_none_or(|q| *q == rel.sides[i].0)).collect();
        let quals = qualifiers(rel);
        match (found.as_slice(), &qualifier) {
            ([i], _) => Ok(Expr::Column { index: *i, name: rel.cols[*i].name.clone(), ty: rel.cols[*i].ty }),
            ([a, b, ..], _) => Err(LowerError::new(
                Code::AmbiguousColumn,
                format!("model `{}` uses the column `{name}`, which both `{}` and `{}` have", self.model, rel.sides[*a].0, rel.sides[*b].0),
                span,
            )
            .help(format!("qualify it: `{}.{name}` or `{}.{name}`", rel.sides[*a].0, rel.sides[*b].0))),
            ([], Some(q)) if !quals.contains(&q.as_str()) => Err(LowerError::new(Code::UnknownQualifier, format!("model `{}` uses `{q}.{name}`, but the join reads `{}`", self.model, quals.join("` and `")), span)
                .help(format!("qualify the column with {}", quals.iter().map(|q| format!("`{q}`")).collect::<Vec<_>>().join(" or ")))),
            ([], _) => {
                let all: Vec<String> = rel.sides.iter().map(|(q, n)| format!("{q}.{n}")).collect();
                let names: Vec<&str> = rel.sides.iter().filter(|(q, _)| qualifier.as_ref().is_none_or(|x| x == q)).map(|(_, n)| n.as_str()).collect();
                let hint = match did_you_mean(&name, names.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`? "),
                    None => String::new(),
                };
                let shown = qualifier.map_or(name.clone(), |q| format!("{q}.{name}"));
                Err(LowerError::new(Code::UnknownColumn, format!("model `{}` uses the column `{shown}`, which does not exist here", self.model), span).help(format!("{hint}the columns are {}", all.join(", "))))
            }
        }
    }

    /// `*` or `o.*` over a join: the columns it selects (`None` for any
    /// other item). `*` takes every column of both sides, as in Flink, and
    /// a name both sides have is an error (a sink's columns are unique).
    pub(super) fn join_wildcard(&self, item: &sql::SelectItem, rel: &Rel) -> Result<Option<Vec<usize>>> {
        match item {
            sql::SelectItem::Wildcard(_) => {
                let clash = (0..rel.sides.len()).find(|&i| rel.sides[..i].iter().any(|(_, n)| *n == rel.sides[i].1));
                if let Some(i) = clash {
                    let (q, n) = &rel.sides[i];
                    let first = &rel.sides.iter().find(|(_, x)| x == n).expect("a clash").0;
                    return Err(LowerError::new(Code::JoinWildcardNameClash, format!("model `{}` selects `*` over a join where `{first}` and `{q}` both have the column `{n}`, and a model's columns must have unique names", self.model), item.span())
                        .help(format!("list the columns instead, naming one of them with AS: `{first}.*` and the others of `{q}`, or `{q}.{n} AS {q}_{n}`")));
                }
                Ok(Some((0..rel.sides.len()).collect()))
            }
            sql::SelectItem::QualifiedWildcard(sql::SelectItemQualifiedWildcardKind::ObjectName(name), _) => {
                let q = super::names::qualifier_name(name);
                let cols: Vec<usize> = (0..rel.sides.len()).filter(|&i| rel.sides[i].0 == q).collect();
                if cols.is_empty() {
                    let quals: Vec<String> = qualifiers(rel).iter().map(|q| format!("`{q}.*`")).collect();
                    return Err(LowerError::new(Code::UnknownQualifier, format!("model `{}` selects `{q}.*`, but the join does not read `{q}`", self.model), item.span()).help(format!("write {}", quals.join(" or "))));
                }
                Ok(Some(cols))
            }
            _ => Ok(None),
        }
    }

    /// The readers of the join at `at`'s columns (Filters, then a Project
    /// or Aggregate), with the columns they use added to `used`.
    fn join_readers(&self, at: usize, used: &mut BTreeSet<usize>) -> Vec<usize> {
        let width = self.nodes[at].schema.len();
        let mut chain = Vec::new();
        let mut cur = self.nodes[at].id(self.model);
        while let Some(n) = self.nodes.iter().position(|n| n.inputs == [cur.clone()]) {
            chain.push(n);
            let node = &self.nodes[n];
            let mut add = |i: usize, _: &str| {
                used.insert(i);
            };
            match &node.kind {
                NodeKind::Filter { predicate } => predicate.columns(&mut add),
                NodeKind::Project { items } => items.iter().for_each(|(e, _)| e.columns(&mut add)),
                NodeKind::Aggregate { keys, calls, .. } => {
                    keys.iter().for_each(|&k| add(k, ""));
                    for c in calls {
                        c.arg.iter().chain(&c.filter).for_each(|e| e.columns(&mut add));
                    }
                }
                _ => (0..width).for_each(|i| add(i, "")),
            }
            if !matches!(node.kind, NodeKind::Filter { .. }) {
                break;
            }
            cur = node.id(self.model);
        }
        chain
    }

    /// Once the SELECT over the join at `at` is planned: each side keeps
    /// only the columns the join and the steps reading it use.
    pub(super) fn prune_join(&mut self, at: usize) {
        let width = self.nodes[at].schema.len();
        let mut used = BTreeSet::new();
        let NodeKind::Join { left_keys, right_keys, residual, interval, temporal, .. } = &self.nodes[at].kind else { return };
        used.extend(left_keys.iter().chain(right_keys).copied());
        used.extend(interval.iter().flat_map(|b| [b.left_time, b.right_time]));
        used.extend(temporal.iter().flat_map(|t| [t.left_time, t.right_time]));
        if let Some(r) = residual {
            r.columns(&mut |i, _| {
                used.insert(i);
            });
        }
        let chain = self.join_readers(at, &mut used);
        if used.len() == width {
            return;
        }
        let new_index: Vec<Option<usize>> = {
            let mut k = 0;
            (0..width).map(|i| used.contains(&i).then(|| (k, k += 1).0)).collect()
        };
        let remap = |e: &Expr| e.map_columns(&|i, n, ty| Expr::Column { index: new_index[i].expect("a used column"), name: n.to_string(), ty });
        let keep = |v: &[Column]| v.iter().enumerate().filter(|(i, _)| used.contains(i)).map(|(_, c)| c.clone()).collect::<Vec<_>>();
        let node = &mut self.nodes[at];
        let lw = match &node.kind {
            NodeKind::Join { left_stored, .. } => left_stored.len(),
            _ => unreachable!(),
        };
        node.schema = keep(&node.schema);
        // A key whose column Flink prunes below the join is no key (it is never one a reader selects).
        if let Changelog::Retract(keys) = &mut node.changelog {
            keys.retain(|k| k.iter().all(|c| node.schema.iter().any(|x| &x.name == c)));
        }
        if let NodeKind::Join { left_stored, right_stored, left_keys, right_keys, residual, interval, temporal, .. } = &mut node.kind {
            if let Some(b) = interval {
                (b.left_time, b.right_time) = (new_index[b.left_time].expect("times are used"), new_index[b.right_time].expect("times are used"));
            }
            if let Some(t) = temporal {
                (t.left_time, t.right_time) = (new_index[t.left_time].expect("times are used"), new_index[t.right_time].expect("times are used"));
            }
            *left_stored = left_stored.iter().enumerate().filter(|(i, _)| used.contains(i)).map(|(_, s)| *s).collect();
            *right_stored = right_stored.iter().enumerate().filter(|(i, _)| used.contains(&(i + lw))).map(|(_, s)| *s).collect();
            left_keys.iter_mut().chain(right_keys.iter_mut()).for_each(|k| *k = new_index[*k].expect("keys are used"));
            *residual = residual.as_ref().map(remap);
        }
        if let Some(JoinState { left, right, .. }) = node.state.as_mut().and_then(|s| s.join.as_mut()) {
            left.stored = left.stored.iter().enumerate().filter(|(i, _)| used.contains(i)).map(|(_, c)| c.clone()).collect();
            right.stored = right.stored.iter().enumerate().filter(|(i, _)| used.contains(&(i + lw))).map(|(_, c)| c.clone()).collect();
            for side in [left, right] {
                let names: Vec<&str> = side.stored.iter().map(|c| c.name.as_str()).collect();
                side.unique = changelog::join_unique(&side.unique, &names);
            }
        }
        for n in chain {
            let node = &mut self.nodes[n];
            match &mut node.kind {
                NodeKind::Filter { predicate } => {
                    *predicate = remap(predicate);
                    node.schema = keep(&node.schema);
                }
                NodeKind::Project { items } => items.iter_mut().for_each(|(e, _)| *e = remap(e)),
                NodeKind::Aggregate { keys, calls, .. } => {
                    keys.iter_mut().for_each(|k| *k = new_index[*k].expect("keys are used"));
                    for c in calls {
                        c.arg = c.arg.as_ref().map(remap);
                        c.filter = c.filter.as_ref().map(remap);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The upsert keys of the join of `left` and `right` (`both`, its
/// columns) on `keys` (indices into `both`), named as `both` names them:
/// each input's upsert key (an Upsert changelog's) put into the join's
/// columns, then `changelog::join_keys`.
fn upsert_keys(join_type: JoinType, left: &Rel, right: &Rel, both: &Rel, keys: &[(usize, usize)]) -> Vec<Vec<String>> {
    let lw = left.cols.len();
    let side_key = |rel: &Rel, offset: usize| -> Vec<String> {
        let Changelog::Upsert(k) = &rel.changelog else { return Vec::new() };
        let at: Option<Vec<usize>> = k.iter().map(|c| rel.cols.iter().position(|x| &x.name == c)).collect();
        at.map(|at| at.into_iter().map(|i| both.cols[i + offset].name.clone()).collect()).unwrap_or_default()
    };
    let pairs: Vec<(String, String)> = keys.iter().map(|(l, r)| (both.cols[*l].name.clone(), both.cols[*r].name.clone())).collect();
    changelog::join_keys(join_type, &side_key(left, 0), &side_key(right, lw), &pairs)
}

/// A Join node over inputs `widths` wide, every column stored (until
/// `prune_join`), on `keys` (left, right: indices into the output).
pub(super) fn join_kind(join_type: JoinType, widths: (usize, usize), keys: &[(usize, usize)], residual: Option<Expr>, interval: Option<TimeBounds>, temporal: Option<crate::plan::node::TemporalTimes>) -> NodeKind {
    NodeKind::Join {
        join_type,
        left_stored: (0..widths.0).collect(),
        right_stored: (0..widths.1).collect(),
        left_keys: keys.iter().map(|k| k.0).collect(),
        right_keys: keys.iter().map(|k| k.1).collect(),
        residual,
        interval,
        temporal,
    }
}

/// The columns of `left` then `right`, each resolvable by its side's
/// alias; a right column named as a left one is renamed `name0` (as
/// Flink's planner does), then `name1`, ….
pub(super) fn joined(left: &Rel, right: &Rel) -> Rel {
    let mut cols: Vec<RelCol> = left.cols.clone();
    let mut sides: Vec<(String, String)> = left.cols.iter().map(|c| (left.qualifier.clone(), c.name.clone())).collect();
    for c in &right.cols {
        let mut name = c.name.clone();
        let mut n = 0;
        while cols.iter().any(|x| x.name == name) {
            name = format!("{}{n}", c.name);
            n += 1;
        }
        cols.push(RelCol { name, ..c.clone() });
        sides.push((right.qualifier.clone(), c.name.clone()));
    }
    Rel { qualifier: String::new(), cols, input_id: String::new(), changelog: left.changelog.clone(), bounded: false, time: None, windowable: false, sides }
}

/// Where `rel`'s event-time column is, plus `offset`.
pub(super) fn time_index(rel: &Rel, offset: usize) -> Option<usize> {
    let t = rel.time.as_ref()?;
    rel.cols.iter().position(|c| &c.name == t).map(|i| i + offset)
}

/// `col`, `col + INTERVAL …`, `INTERVAL … + col`, `col - INTERVAL …`:
/// the column and its offset in ms.
fn time_operand(e: &Expr) -> Option<(usize, i64)> {
    match e {
        Expr::Column { index, .. } => Some((*index, 0)),
        Expr::Binary { op: BinOp::Plus, left, right, .. } => match (&**left, &**right) {
            (Expr::Column { index, .. }, Expr::Literal(Literal::Interval(ms))) | (Expr::Literal(Literal::Interval(ms)), Expr::Column { index, .. }) => Some((*index, *ms)),
            _ => None,
        },
        Expr::Binary { op: BinOp::Minus, left, right, .. } => match (&**left, &**right) {
            (Expr::Column { index, .. }, Expr::Literal(Literal::Interval(ms))) => Some((*index, -*ms)),
            _ => None,
        },
        _ => None,
    }
}

/// The bounds a comparison of the left time `lt` and the right time `rt`
/// puts on `rt - lt`; `None` for any other conjunct.
fn time_bounds(e: &Expr, lt: usize, rt: usize) -> Option<Vec<Bound>> {
    match e {
        Expr::Binary { op, left, right, .. } if matches!(op, BinOp::Lt | BinOp::LtEq | BinOp::Gt | BinOp::GtEq) => {
            let ((a, ao), (b, bo)) = (time_operand(left)?, time_operand(right)?);
            // `r + ao OP l + bo` is `r - l OP bo - ao`; `l + ao OP r + bo` is `r - l (flipped OP) ao - bo`.
            let (op, c) = match (a, b) {
                _ if a == rt && b == lt => (*op, bo - ao),
                _ if a == lt && b == rt => (flip(*op), ao - bo),
                _ => return None,
            };
            Some(vec![match op {
                BinOp::GtEq => Bound::Lower(c),
                BinOp::Gt => Bound::Lower(c + 1),
                BinOp::LtEq => Bound::Upper(c),
                _ => Bound::Upper(c - 1),
            }])
        }
        Expr::Between { expr, low, high, negated: false } => {
            let cmp = |op, l: &Expr, r: &Expr| Expr::Binary { op, left: Box::new(l.clone()), right: Box::new(r.clone()), ty: DataType::Boolean };
            let mut v = time_bounds(&cmp(BinOp::GtEq, expr, low), lt, rt)?;
            v.extend(time_bounds(&cmp(BinOp::LtEq, expr, high), lt, rt)?);
            Some(v)
        }
        _ => None,
    }
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::LtEq => BinOp::GtEq,
        BinOp::Gt => BinOp::Lt,
        BinOp::GtEq => BinOp::LtEq,
        other => other,
    }
}

/// The aliases of a join's two sides, left first.
fn qualifiers(rel: &Rel) -> Vec<&str> {
    let mut v: Vec<&str> = Vec::new();
    for (q, _) in &rel.sides {
        if !v.contains(&q.as_str()) {
            v.push(q);
        }
    }
    v
}

fn split_and<'e>(e: &'e sql::Expr, out: &mut Vec<&'e sql::Expr>) {
    match e {
        sql::Expr::BinaryOp { left, op: sql::BinaryOperator::And, right } => {
            split_and(left, out);
            split_and(right, out);
        }
        sql::Expr::Nested(inner) if matches!(**inner, sql::Expr::BinaryOp { op: sql::BinaryOperator::And, .. }) => split_and(inner, out),
        other => out.push(other),
    }
}

pub(super) fn and(a: Expr, b: Expr) -> Expr {
    Expr::Binary { op: BinOp::And, left: Box::new(a), right: Box::new(b), ty: DataType::Boolean }
}

/// `INNER JOIN ON customer_id = customer_id0[ AND residual]`, over the
/// output's column names: the keys in the order written, each left = right.
fn join_definition(node: &crate::plan::node::PlanNode) -> String {
    let NodeKind::Join { join_type, left_keys, right_keys, residual, interval, temporal, .. } = &node.kind else { unreachable!("a join node") };
    let mut conds: Vec<String> = left_keys.iter().zip(right_keys).map(|(l, r)| format!("{} = {}", node.schema[*l].name, node.schema[*r].name)).collect();
    if let Some(b) = interval {
        conds.push(crate::identity::text::interval_text(&node.schema[b.left_time].name, &node.schema[b.right_time].name, b.lower, b.upper));
    }
    if let Some(r) = residual {
        conds.push(r.render());
    }
    match temporal {
        Some(t) => crate::identity::text::temporal_definition(&join_type.as_str().to_uppercase(), &conds.join(" AND "), &node.schema[t.left_time].name, &node.schema[t.right_time].name),
        None => format!("{} JOIN ON {}", join_type.as_str().to_uppercase(), conds.join(" AND ")),
    }
}
