//! An event-time temporal join: `FROM source('orders') o JOIN ref('rates')
//! FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency`.
//!
//! As Flink plans it (TemporalJoinRewriteWithUniqueKeyRule, then
//! TemporalRowTimeJoinOperator): the probe (left) input is append with
//! event time, and AS OF names that event time; the versioned (right)
//! input has a primary key (an upsert model's `key:`) and event time; ON
//! equates every column of that key. A condition on the probe side alone
//! filters it below the join (INNER); one on the versioned side stays in
//! the join condition, checked against the version found, since Flink
//! does not push a filter into a versioned table. INNER and LEFT only.

use sqlparser::ast::{self as sql, Spanned};

use super::join::{and, join_kind, joined, time_index, Conjunct};
use super::names::object_name;
use super::{rel_schema, LowerError, Lowerer, Rel, Result};
use crate::diagnostic::Code;
use crate::plan::changelog;
use crate::plan::node::{Changelog, JoinSideState, JoinState, JoinTemporal, JoinType, KeyedState, Operator, Retention, TemporalTimes};

/// What to write instead of a processing-time (lookup) join.
const LOOKUP_HELP: &str = "join the version valid at each row's event time: `FOR SYSTEM_TIME AS OF o.ts`, with `o.ts` the left side's `event_time`; a processing-time (lookup) join against an external table is not supported";

impl<'a> Lowerer<'a> {
    /// `FROM l JOIN r FOR SYSTEM_TIME AS OF l.t ON …`: the joined relation
    /// and the position of its Join node in the plan.
    // Whole: the checks Flink's planner makes, one after another, each with its located error.
    pub(super) fn temporal_join(&mut self, from: &'a sql::TableWithJoins, j: &'a sql::Join, join_type: JoinType, on: &'a sql::Expr, s: &'a sql::Select, as_of: &'a sql::Expr) -> Result<(Rel, usize)> {
        let at_right = j.relation.span();
        if matches!(join_type, JoinType::Right | JoinType::Full) {
            return Err(LowerError::new(Code::TemporalJoinUnsupportedForm, format!("model `{}` writes a {} against a versioned table; Flink runs a temporal join only as an INNER or a LEFT join", self.model, join_type.sql()), at_right)
                .help("write `JOIN` or `LEFT JOIN`, with the stream on the left and the versioned model (FOR SYSTEM_TIME AS OF) on the right"));
        }
        if let sql::Expr::Function(_) = as_of {
            return Err(LowerError::new(Code::TemporalJoinUnsupportedForm, format!("model `{}` joins as of processing time (`{as_of}`), a lookup join, which is not supported", self.model), as_of.span()).help(LOOKUP_HELP));
        }
        let left = self.table_factor(&from.relation)?;
        let right = self.versioned(&j.relation)?;
        let mode = changelog::temporal_join(&left.changelog).map_err(|_| {
            LowerError::new(Code::TemporalJoinOverUpdatingProbe, format!("model `{}` joins `{}` (which emits {}) with a versioned table; the left side of a temporal join must be append", self.model, left.qualifier, left.changelog.title()), from.relation.span())
                .help("put the append stream on the left (`FROM source('orders') o JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r …`) and aggregate after the join, in this model or in one reading it")
        })?;
        let Changelog::Upsert(pk) = &right.changelog else {
            return Err(LowerError::new(Code::TemporalJoinWithoutKey, format!("model `{}` joins `{}` as a versioned table, but `{}` has no primary key (it emits {})", self.model, right.qualifier, right.qualifier, right.changelog.title()), at_right)
                .help("read an upsert model with `key:` that keeps the latest row per key, for example `SELECT currency, rate, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rn FROM source('rate_updates')) WHERE rn = 1` with `materialized: upsert` and `key: [currency]`"));
        };
        let pk = pk.clone();
        for (rel, span) in [(&left, from.relation.span()), (&right, at_right)] {
            if rel.time.is_none() {
                return Err(LowerError::new(Code::TemporalJoinWithoutEventTime, format!("model `{}` joins `{}` by event time, but `{}` has no event time", self.model, rel.qualifier, rel.qualifier), span)
                    .help("declare `event_time:` and `watermark:` for the source in sources.yml, and keep its event-time column in the SELECT of every model between it and this join"));
            }
        }
        if left.qualifier == right.qualifier {
            return Err(LowerError::new(Code::AmbiguousColumn, format!("model `{}` reads `{}` on both sides of the join, so its columns cannot be told apart", self.model, left.qualifier), at_right)
                .help(format!("give each side an alias: `… {} a JOIN … FOR SYSTEM_TIME AS OF a.ts AS b ON …`", left.qualifier)));
        }
        let both = joined(&left, &right);
        let lw = left.cols.len();
        let (lt, rt) = (time_index(&left, 0).expect("checked"), time_index(&right, lw).expect("checked"));
        match self.expr(as_of, &both, None)? {
            crate::plan::expr::Expr::Column { index, .. } if index == lt => {}
            _ => {
                return Err(LowerError::new(Code::TemporalJoinUnsupportedForm, format!("model `{}` joins as of `{as_of}`, which is not the event time of `{}`", self.model, left.qualifier), as_of.span())
                    .help(format!("write `FOR SYSTEM_TIME AS OF {}.{}`, the left side's event-time column: each row then joins the version valid at its event time", left.qualifier, left.cols[lt].name)))
            }
        }
        let mut planned = Vec::new();
        for c in self.conjuncts(join_type, on, s.selection.as_ref(), &both, lw)? {
            planned.push(match c {
                Conjunct::Right(e) => Conjunct::Residual(self.expr(e, &both, None)?, e.span()),
                other => other,
            });
        }
        let keys: Vec<(usize, usize)> = planned.iter().filter_map(|c| if let Conjunct::Key(l, r) = c { Some((*l, *r)) } else { None }).collect();
        let missing: Vec<&String> = pk.iter().filter(|k| !keys.iter().any(|(_, r)| right.cols[*r - lw].name == **k)).collect();
        if !missing.is_empty() {
            let adds: Vec<String> = missing.iter().map(|k| format!("{}.{k} = {}.{k}", left.qualifier, right.qualifier)).collect();
            return Err(LowerError::new(
                Code::TemporalJoinKeyNotEquated,
                format!("model `{}` joins the versioned `{}`, whose primary key is [{}], without equating {}; a temporal join finds a version by the whole key", self.model, right.qualifier, pk.join(", "), missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
                on.span(),
            )
            .help(format!("equate every key column in ON: `AND {}` (with the left side's matching column)", adds.join(" AND "))));
        }
        let left = self.side_filter(left, planned.iter().filter_map(|c| if let Conjunct::Left(e) = c { Some(*e) } else { None }).collect())?;
        let residual = planned.into_iter().filter_map(|c| if let Conjunct::Residual(e, _) = c { Some(e) } else { None }).reduce(and);
        if let (JoinType::Left, Some(_)) = (join_type, &residual) {
            return Err(LowerError::new(Code::TemporalJoinUnsupportedForm, format!("model `{}` writes a LEFT temporal join with a condition besides the key equalities, which is not supported yet", self.model), on.span())
                .help("keep only the key equalities in ON and filter in a model reading this one, or write an INNER temporal join"));
        }
        let side = |rel: &Rel, keys: Vec<String>, unique: Vec<String>| JoinSideState { keys, stored: rel_schema(rel), unique };
        let state = KeyedState {
            keys: Vec::new(),
            accumulators: Vec::new(),
            // Left rows wait until the watermark passes them; each key keeps
            // its versions until a newer one is valid at the watermark.
            retention: Retention::UntilClose,
            window: None,
            rank: None,
            join: Some(JoinState {
                join_type,
                left: side(&left, keys.iter().map(|(l, _)| left.cols[*l].name.clone()).collect(), Vec::new()),
                right: side(&right, keys.iter().map(|(_, r)| right.cols[*r - lw].name.clone()).collect(), pk),
                interval: None,
                temporal: Some(JoinTemporal { left_time: left.cols[lt].name.clone(), right_time: right.cols[rt - lw].name.clone() }),
            }),
        };
        let kind = join_kind(join_type, (lw, right.cols.len()), &keys, residual, None, Some(TemporalTimes { left_time: lt, right_time: rt }));
        // The probe side's event time stays a time attribute, as on Flink
        // (the versioned side's does not).
        let time = Some(both.cols[lt].name.clone());
        let out = Rel { changelog: mode, bounded: left.bounded && right.bounded, time: time.clone(), ..both };
        let schema = rel_schema(&out);
        let at = self.nodes.len();
        let id = self.push(Operator::Join, &out, String::new(), schema, out.changelog.clone(), Some(state), time, kind);
        Ok((self.finish_join(&left, &right, id, out), at))
    }

    /// The versioned side: `ref('m')` or `source('x')` read as usual.
    fn versioned(&mut self, t: &'a sql::TableFactor) -> Result<Rel> {
        let sql::TableFactor::Table { name, alias, args: Some(args), .. } = t else { unreachable!("called for a read call with AS OF") };
        let kind = object_name(name).to_lowercase();
        let alias = alias.as_ref().map(|a| super::names::ident_name(&a.name));
        if kind != "source" && kind != "ref" {
            return Err(LowerError::new(Code::TemporalJoinUnsupportedForm, format!("model `{}` joins `{}` FOR SYSTEM_TIME AS OF, which is not a model or a source", self.model, object_name(name)), t.span()).help("write `JOIN ref('model') FOR SYSTEM_TIME AS OF o.ts AS r`"));
        }
        let span = args.args.first().map(|a| a.span()).unwrap_or(t.span());
        self.read_call(&kind, &args.args, alias, span)
    }
}
