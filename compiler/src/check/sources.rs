//! Static validation of one source in sources.yml.

use crate::config::{Connector, ContractRule, SourceConfig};
use crate::db::{Db, Project, SourceName};
use crate::diagnostic::{did_you_mean, Diagnostic};
use crate::source::{source_contracts, CompiledContract, ContractError};
use crate::project::{source_config, SOURCES_FILE};
use crate::diagnostic::Code;

fn columns_help(s: &SourceConfig, name: &str) -> String {
    let cols = s.column_names();
    match did_you_mean(name, s.columns.iter().map(|c| c.name.as_str())) {
        Some(m) => format!("did you mean `{m}`? the columns of `{}` are {cols}", s.name),
        None if cols.is_empty() => format!("`{}` declares no columns; add them under `schema:`", s.name),
        None => format!("the columns of `{}` are {cols}", s.name),
    }
}

/// Every diagnostic about one source's own declaration, in rule order:
/// connector, schema, event time, contracts, key.
#[salsa::tracked(returns(ref))]
pub fn source_diagnostics<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Vec<Diagnostic> {
    let Some(s) = source_config(db, project, name).as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    out.extend(connector_check(s));
    if !s.schema_declared {
        let n = &s.name;
        out.push(
            Diagnostic::warning(Code::SourceWithoutSchema, format!("source `{n}` declares no schema"))
                .at(SOURCES_FILE, Some(s.span.with_len(n.len())))
                .help(format!("models can only plan against typed columns: add `schema:` to `{n}` with each column and its type")),
        );
    }
    event_time_checks(s, &mut out);
    out.extend(quarantine_check(s));
    contract_checks(s, source_contracts(db, project, name), &mut out);
    key_checks(s, &mut out);
    out
}

/// E0740/E0741: the connector names where to read, and can be read.
fn connector_check(s: &SourceConfig) -> Option<Diagnostic> {
    let n = &s.name;
    let at = Some(s.span.with_len(n.len()));
    match s.connector {
        Connector::Kafka if s.topic.is_none() => Some(
            Diagnostic::error(Code::SourceWithoutDestination, format!("source `{n}` reads from kafka but names no topic"))
                .at(SOURCES_FILE, at)
                .help(format!("add `topic: {n}` to the source")),
        ),
        Connector::File if s.path.is_none() => Some(
            Diagnostic::error(Code::SourceWithoutDestination, format!("source `{n}` reads from a file but names no path"))
                .at(SOURCES_FILE, at)
                .help(format!("add `path: /data/{n}` to the source")),
        ),
        Connector::Iceberg => Some(
            Diagnostic::error(Code::IcebergSource, format!("source `{n}` uses the iceberg connector; models can write Iceberg tables but cannot read them yet"))
                .at(SOURCES_FILE, at)
                .help("read the Kafka topic the table is written from instead"),
        ),
        _ => None,
    }
}

/// E0743/E0744: `event_time` names a timestamp column; E0745: the clock
/// settings are only declared together with it.
fn event_time_checks(s: &SourceConfig, out: &mut Vec<Diagnostic>) {
    let f = SOURCES_FILE;
    let n = &s.name;
    match &s.event_time {
        Some((et, span)) => match s.column(et) {
            None => out.push(
                Diagnostic::error(Code::UnknownEventTimeColumn, format!("source `{n}` declares event_time `{et}`, but its schema has no such column"))
                    .at(f, Some(span.with_len(et.len())))
                    .help(columns_help(s, et)),
            ),
            Some(c) if !c.ty.is_timestamp() => out.push(
                Diagnostic::error(Code::EventTimeNotTimestamp, format!("source `{n}` declares event_time `{et}`, a column of type {}; event time must be a timestamp", c.ty))
                    .at(f, Some(span.with_len(et.len())))
                    .help(format!("declare `{et}: timestamp` in the schema, or pick a timestamp column")),
            ),
            _ => {}
        },
        None => {
            let clockless = [
                (s.watermark.map(|w| w.1), "a watermark", "a watermark measures how far event time has progressed", "watermark"),
                (s.late_events.map(|l| l.1), "late_events", "an event can only be late against an event-time clock", "late_events"),
                (s.idle_timeout.map(|i| i.1), "idle_timeout", "an idle partition only holds back an event-time clock", "idle_timeout"),
            ];
            for (span, what, why, key) in clockless {
                if let Some(span) = span {
                    out.push(
                        Diagnostic::error(Code::TimeOptionWithoutEventTime, format!("source `{n}` declares {what} without event_time; {why}"))
                            .at(f, Some(span))
                            .help(format!("add `event_time: <timestamp column>` to `{n}`, or remove `{key}`")),
                    );
                }
            }
        }
    }
}

/// E0746/E0747: contracts and a quarantine come together.
fn quarantine_check(s: &SourceConfig) -> Option<Diagnostic> {
    let n = &s.name;
    match (s.contracts.is_empty(), &s.quarantine) {
        (false, None) => Some(
            Diagnostic::error(Code::ContractsWithoutQuarantine, format!("source `{n}` declares contracts but no quarantine, so records that break them have nowhere to go"))
                .at(SOURCES_FILE, s.contracts_span)
                .help(format!("add `quarantine: {{topic: {n}-quarantine}}` to the source")),
        ),
        (true, Some((_, span))) => Some(
            Diagnostic::error(Code::QuarantineWithoutContracts, format!("source `{n}` declares a quarantine but no contracts, so nothing would ever be quarantined"))
                .at(SOURCES_FILE, Some(*span))
                .help("add `contracts:` (for example `- {name: ids_present, not_null: [id]}`), or remove `quarantine`"),
        ),
        _ => None,
    }
}

/// E0748–E0752, contract by contract: unique names, one rule each, and a
/// rule that compiles against the source's columns.
fn contract_checks(s: &SourceConfig, compiled: &[CompiledContract], out: &mut Vec<Diagnostic>) {
    let f = SOURCES_FILE;
    let n = &s.name;
    for (i, c) in s.contracts.iter().enumerate() {
        if s.contracts[..i].iter().any(|p| p.name == c.name) {
            out.push(
                Diagnostic::error(Code::DuplicateContractName, format!("source `{n}` declares the contract `{}` twice", c.name))
                    .at(f, Some(c.span))
                    .help("contract names label quarantined records, so each must be unique; rename one"),
            );
        }
        match &c.rule {
            None => out.push(
                Diagnostic::error(Code::ContractRuleCount, format!("contract `{}` of source `{n}` must declare exactly one of `not_null` and `check`", c.name))
                    .at(f, Some(c.span))
                    .help("write `not_null: [column, …]` or `check: <predicate>`; for both, declare two contracts"),
            ),
            Some(ContractRule::NotNull(cols)) if cols.is_empty() => out.push(
                Diagnostic::error(Code::EmptyNotNull, format!("contract `{}` of source `{n}` has an empty `not_null` list", c.name))
                    .at(f, Some(c.span))
                    .help("list the columns that must be present, for example `not_null: [id]`"),
            ),
            Some(ContractRule::NotNull(cols)) => {
                for col in cols.iter().filter(|col| s.column(col).is_none()) {
                    out.push(
                        Diagnostic::error(Code::UnknownNotNullColumn, format!("contract `{}` of source `{n}` names `{col}`, which is not a column of the source", c.name))
                            .at(f, Some(c.span))
                            .help(columns_help(s, col)),
                    );
                }
            }
            Some(ContractRule::Check(text)) => {
                if let Some(Err(ContractError::Check(why))) = compiled.get(i).map(|cc| &cc.expr) {
                    out.push(
                        Diagnostic::error(Code::ContractCheckDoesNotCompile, format!("contract `{}` of source `{n}`: the check `{text}` does not compile: {why}", c.name))
                            .at(f, c.check_span.or(Some(c.span)))
                            .help(format!("a check is a boolean predicate over the columns of `{n}` ({}), using what a model's WHERE may use", s.column_names())),
                    );
                }
            }
        }
    }
}

/// E0753: the key names columns of the schema.
fn key_checks(s: &SourceConfig, out: &mut Vec<Diagnostic>) {
    let Some((key, span)) = &s.key else { return };
    for k in key.iter().filter(|k| s.column(k).is_none()) {
        out.push(
            Diagnostic::error(Code::UnknownSourceKeyColumn, format!("source `{}` declares the key column `{k}`, which is not in its schema", s.name))
                .at(SOURCES_FILE, Some(*span))
                .help(columns_help(s, k)),
        );
    }
}
