//! What a source's declaration means to the models that read it: its
//! event-time rule ([`event_time`]) and which of its contracts apply
//! ([`applied_contracts`]). Lowering, check, the simulator and the Flink
//! backend all ask here; none re-derives these from `sources.yml`.
//!
//! Both are plain functions over the tracked `source_config` and
//! `source_contracts`, not queries of their own: every consumer also reads
//! the source's configuration directly (its columns, connector, spans), so
//! a memo of these small values would never spare a re-execution.

use crate::config::{ContractRule, LatePolicy, SourceConfig};
use crate::db::{Db, Project, SourceName};
use crate::duration::Duration;
use crate::plan::expr::Expr;
use crate::plan::lower::plan_check;
use crate::plan::node::Column;
use crate::project::source_config;

/// A source's event-time rule, with the defaults of what it leaves out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventTime {
    /// The column `event_time:` names, as written.
    pub column: String,
    /// Whether that column is a timestamp column of the source. Only then
    /// does the source run on event time ([`EventTime::clock`]); otherwise
    /// check reports the declaration and everything reads the source
    /// without a clock.
    pub is_timestamp: bool,
    /// How far the watermark trails the latest event time (default 0).
    pub watermark: Duration,
    /// What happens to an event behind the watermark (default drop).
    pub late: LatePolicy,
    /// How long a silent partition holds the clock back, when declared.
    pub idle_timeout: Option<Duration>,
}

impl EventTime {
    /// The column the source's clock reads, when it runs on event time.
    pub fn clock(&self) -> Option<&str> {
        self.is_timestamp.then_some(self.column.as_str())
    }

    /// Whether events behind the watermark are dropped on an event-time source.
    pub fn drops_late(&self) -> bool {
        self.clock().is_some() && self.late == LatePolicy::Drop
    }
}

/// The event-time rule a source declares; `None` without `event_time:`.
pub fn event_time(s: &SourceConfig) -> Option<EventTime> {
    let (column, _) = s.event_time.as_ref()?;
    Some(EventTime {
        column: column.clone(),
        is_timestamp: s.column(column).is_some_and(|c| c.ty.is_timestamp()),
        watermark: s.watermark.map(|(d, _)| d).unwrap_or_default(),
        late: s.late_events.map(|(l, _)| l).unwrap_or_default(),
        idle_timeout: s.idle_timeout.map(|(d, _)| d),
    })
}

/// The contracts every record of a source is checked against.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AppliedContracts {
    /// Name and predicate of each, in declared order: all the source's
    /// contracts when every rule compiles, none otherwise (check reports
    /// the rules that do not).
    pub rules: Vec<(String, Expr)>,
    /// The topic records that break one go to; only when some apply.
    pub quarantine: Option<String>,
    /// False when a `check:` predicate does not compile: then no model
    /// that reads the source plans.
    pub readable: bool,
}

/// Which contracts apply to the models that read `name`.
pub fn applied_contracts(db: &dyn Db, project: Project, name: SourceName<'_>) -> AppliedContracts {
    let Some(s) = source_config(db, project, name).as_ref() else { return AppliedContracts::default() };
    let compiled = source_contracts(db, project, name);
    let readable = compiled.iter().all(|c| !matches!(c.expr, Err(ContractError::Check(_))));
    let rules: Option<Vec<(String, Expr)>> = compiled.iter().map(|c| Some((c.name.clone(), c.expr.clone().ok()?))).collect();
    let rules = rules.unwrap_or_default();
    let quarantine = if rules.is_empty() { None } else { s.quarantine.as_ref().map(|(q, _)| q.clone()) };
    AppliedContracts { rules, quarantine, readable }
}

/// One compiled contract: its rule as a predicate that holds for good records.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledContract {
    pub name: String,
    pub expr: Result<Expr, ContractError>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractError {
    /// The rule is malformed: check reports it, planning ignores the contracts.
    Malformed(String),
    /// The `check:` predicate does not plan: readers cannot be planned.
    Check(String),
}

impl ContractError {
    pub fn message(&self) -> &str {
        match self {
            ContractError::Malformed(m) | ContractError::Check(m) => m,
        }
    }
}

/// Each declared contract of a source, compiled (or why it does not).
#[salsa::tracked(returns(ref))]
pub fn source_contracts<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Vec<CompiledContract> {
    let Some(s) = source_config(db, project, name).as_ref() else { return Vec::new() };
    compile_contracts(s)
}

pub fn compile_contracts(s: &SourceConfig) -> Vec<CompiledContract> {
    let columns: Vec<Column> = s.columns.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
    s.contracts
        .iter()
        .map(|c| {
            let expr = match &c.rule {
                Some(ContractRule::NotNull(cols)) if cols.is_empty() => Err(ContractError::Malformed("not_null lists no columns".into())),
                Some(ContractRule::NotNull(cols)) => match cols.iter().find(|c| s.column(c).is_none()) {
                    Some(bad) => Err(ContractError::Malformed(format!("not_null names `{bad}`, which is not a column of the source"))),
                    None => {
                        let text = cols.iter().map(|c| format!("{} IS NOT NULL", quote_ident(c))).collect::<Vec<_>>().join(" AND ");
                        plan_check(&s.name, &columns, &text).map_err(ContractError::Malformed)
                    }
                },
                Some(ContractRule::Check(text)) => plan_check(&s.name, &columns, text).map_err(ContractError::Check),
                None => Err(ContractError::Malformed("it must declare exactly one of `not_null` and `check`".into())),
            };
            CompiledContract { name: c.name.clone(), expr }
        })
        .collect()
}

fn quote_ident(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') && !s.is_empty() {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}
