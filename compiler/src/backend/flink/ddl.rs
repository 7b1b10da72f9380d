//! DDL: source tables with their contract and late-event views, quarantine
//! tables, sink tables and the Iceberg catalog.

use super::expr::{ident, render, sql_type, string_literal};
use super::query::interval;
use crate::config::project::{IcebergTarget, Startup};
use crate::config::{Connector, Format, Materialized, SinkConfig, SourceConfig, Target};
use crate::plan::expr::Expr;
use crate::plan::node::Column;
use crate::source::{AppliedContracts, EventTime};

/// The catalog Iceberg sink tables live in.
pub const ICEBERG_CATALOG: &str = "streamform_iceberg";

/// `'key' = 'value'` lines of a WITH clause.
struct Options(Vec<(String, String)>);

impl Options {
    fn new() -> Options {
        Options(Vec::new())
    }

    fn add(&mut self, k: &str, v: impl Into<String>) {
        self.0.push((k.to_string(), v.into()));
    }

    fn render(&self) -> String {
        let lines: Vec<String> = self.0.iter().map(|(k, v)| format!("  {} = {}", string_literal(k), string_literal(v))).collect();
        format!("WITH (\n{}\n)", lines.join(",\n"))
    }
}

fn column_lines(columns: &[Column]) -> Vec<String> {
    if columns.is_empty() {
        // A source without a schema: the original writes an empty line.
        return vec!["  ".into()];
    }
    columns.iter().map(|c| format!("  {} {}", ident(&c.name), sql_type(c.ty).unwrap_or_else(|| c.ty.to_string()))).collect()
}

fn kafka_servers(target: &Target) -> String {
    target.kafka.as_ref().map(|k| k.bootstrap_servers.clone()).unwrap_or_default()
}

/// What the generated SQL of one source consists of.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceDdl {
    /// The table, then its `__checked` and filter views, then the quarantine table.
    pub statements: Vec<String>,
    /// The INSERT that feeds the quarantine table, when there is one.
    pub quarantine_insert: Option<String>,
}

/// A source's statements: its table, then the views that apply its
/// contracts and drop its late events, then its quarantine table.
pub fn source_ddl(s: &SourceConfig, time: Option<&EventTime>, contracts: &AppliedContracts, target: &Target) -> SourceDdl {
    let name = &s.name;
    let clock = time.and_then(EventTime::clock);
    let late_drop = time.is_some_and(EventTime::drops_late);
    let checked = !contracts.rules.is_empty();
    let table = if late_drop || checked { format!("{name}_raw") } else { name.clone() };
    let columns: Vec<Column> = s.columns.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
    let mut statements = vec![source_table(s, &table, &columns, time, target)];
    let late_filter = clock.map(|et| format!("CURRENT_WATERMARK({0}) IS NULL OR {0} >= CURRENT_WATERMARK({0})", ident(et)));
    let mut quarantine_insert = None;
    if checked {
        let checked_view = format!("{name}__checked");
        let late_filter = late_filter.as_deref().filter(|_| late_drop);
        statements.extend(contract_views(name, &table, &checked_view, &columns, &contracts.rules, late_filter));
        if let Some(topic) = &contracts.quarantine {
            statements.push(quarantine_table(name, topic, &columns, target));
            quarantine_insert = Some(quarantine_insert_into(name, &checked_view, &columns, clock));
        }
    } else if late_drop {
        statements.push(format!(
            "CREATE TEMPORARY VIEW {} AS\nSELECT * FROM {} WHERE {};",
            ident(name),
            ident(&table),
            late_filter.expect("event time")
        ));
    }
    SourceDdl { statements, quarantine_insert }
}

/// `CREATE TABLE` of the source as its connector delivers it, with the
/// watermark of its event-time rule.
fn source_table(s: &SourceConfig, table: &str, columns: &[Column], time: Option<&EventTime>, target: &Target) -> String {
    let clock = time.and_then(|t| Some((t.clock()?, t)));
    let mut lines = column_lines(columns);
    if let Some((et, t)) = clock {
        lines.push(format!("  WATERMARK FOR {} AS {} - {}", ident(et), ident(et), interval(t.watermark)));
    }
    let mut opts = Options::new();
    match s.connector {
        Connector::Kafka | Connector::Iceberg => {
            opts.add("connector", "kafka");
            opts.add("topic", s.topic.clone().unwrap_or_default());
            opts.add("properties.bootstrap.servers", kafka_servers(target));
            opts.add("format", s.format.as_str());
            let startup = match target.kafka.as_ref().and_then(|k| k.startup) {
                Some(Startup::Latest) => "latest-offset",
                _ => "earliest-offset",
            };
            opts.add("scan.startup.mode", startup);
        }
        Connector::File => {
            opts.add("connector", "filesystem");
            opts.add("path", s.path.clone().unwrap_or_default());
            opts.add("format", s.format.as_str());
        }
    }
    if clock.is_some() && s.format == Format::Json {
        opts.add("json.timestamp-format.standard", "ISO-8601");
    }
    if let Some(idle) = clock.and_then(|(_, t)| t.idle_timeout) {
        opts.add("scan.watermark.idle-timeout", idle.to_string());
    }
    format!("CREATE TABLE {} (\n{}\n) {};", ident(table), lines.join(",\n"), opts.render())
}

/// The `__checked` view naming the first contract each record breaks, and
/// the source's view of the records that break none (and are not late,
/// when `late_filter` is given).
fn contract_views(name: &str, table: &str, checked_view: &str, columns: &[Column], rules: &[(String, Expr)], late_filter: Option<&str>) -> [String; 2] {
    let col_list = columns.iter().map(|c| ident(&c.name)).collect::<Vec<_>>().join(", ");
    let cases: Vec<String> = rules.iter().map(|(n, e)| format!("WHEN NOT COALESCE({}, FALSE) THEN {}", render(e), string_literal(n))).collect();
    let checked = format!("CREATE TEMPORARY VIEW {} AS\nSELECT {col_list}, CASE {} END AS `_contract` FROM {};", ident(checked_view), cases.join(" "), ident(table));
    let mut filter = "`_contract` IS NULL".to_string();
    if let Some(lf) = late_filter {
        filter.push_str(&format!(" AND ({lf})"));
    }
    let good = format!("CREATE TEMPORARY VIEW {} AS\nSELECT {col_list} FROM {} WHERE {filter};", ident(name), ident(checked_view));
    [checked, good]
}

/// `CREATE TABLE` of the Kafka topic that records breaking a contract go to.
fn quarantine_table(name: &str, topic: &str, columns: &[Column], target: &Target) -> String {
    let mut qcols = column_lines(columns);
    qcols.push("  `_contract` STRING".into());
    qcols.push("  `_source` STRING".into());
    let mut q = Options::new();
    q.add("connector", "kafka");
    q.add("topic", topic);
    q.add("properties.bootstrap.servers", kafka_servers(target));
    q.add("format", "json");
    q.add("json.encode.decimal-as-plain-number", "true");
    q.add("json.timestamp-format.standard", "ISO-8601");
    format!("CREATE TABLE {} (\n{}\n) {};", ident(&quarantine_table_name(name)), qcols.join(",\n"), q.render())
}

fn quarantine_table_name(source: &str) -> String {
    format!("quarantine_{source}")
}

/// The INSERT feeding the quarantine table from the `__checked` view.
fn quarantine_insert_into(name: &str, checked_view: &str, columns: &[Column], clock: Option<&str>) -> String {
    // The event-time column is a rowtime attribute in the view; a cast
    // makes it a plain timestamp for the sink.
    let select: Vec<String> = columns
        .iter()
        .map(|c| match clock {
            Some(et) if et == c.name => format!("CAST({0} AS {1}) AS {0}", ident(et), sql_type(c.ty).unwrap_or_default()),
            _ => ident(&c.name),
        })
        .collect();
    format!(
        "INSERT INTO {} SELECT {}, `_contract`, {} FROM {} WHERE `_contract` IS NOT NULL;",
        ident(&quarantine_table_name(name)),
        select.join(", "),
        string_literal(name),
        ident(checked_view)
    )
}

/// The table a model's sink writes: its name in INSERT statements.
pub fn sink_table_name(model: &str, sink: &SinkConfig) -> String {
    match (sink.connector, sink.table.as_deref().and_then(|t| t.split_once('.'))) {
        (Connector::Iceberg, Some((ns, table))) => format!("{}.{}.{}", ident(ICEBERG_CATALOG), ident(ns), ident(table)),
        _ => ident(&format!("sink_{model}")),
    }
}

/// `CREATE TABLE` of a model's sink.
pub fn sink_ddl(model: &str, sink: &SinkConfig, materialized: Materialized, key: &[String], columns: &[Column], target: &Target) -> String {
    let mut lines = column_lines(columns);
    let upsert = materialized == Materialized::Upsert;
    if upsert && !key.is_empty() {
        lines.push(format!("  PRIMARY KEY ({}) NOT ENFORCED", key.iter().map(|k| ident(k)).collect::<Vec<_>>().join(", ")));
    }
    let json = sink.format == Format::Json;
    let mut opts = Options::new();
    let create = match sink.connector {
        Connector::Kafka if upsert => {
            opts.add("connector", "upsert-kafka");
            opts.add("topic", sink.topic.clone().unwrap_or_default());
            opts.add("properties.bootstrap.servers", kafka_servers(target));
            opts.add("key.format", sink.format.as_str());
            opts.add("value.format", sink.format.as_str());
            if json {
                opts.add("key.json.encode.decimal-as-plain-number", "true");
                opts.add("value.json.encode.decimal-as-plain-number", "true");
                opts.add("key.json.timestamp-format.standard", "ISO-8601");
                opts.add("value.json.timestamp-format.standard", "ISO-8601");
            }
            "CREATE TABLE"
        }
        Connector::Kafka => {
            opts.add("connector", "kafka");
            opts.add("topic", sink.topic.clone().unwrap_or_default());
            opts.add("properties.bootstrap.servers", kafka_servers(target));
            json_format(&mut opts, sink.format);
            "CREATE TABLE"
        }
        Connector::File => {
            opts.add("connector", "filesystem");
            opts.add("path", sink.path.clone().unwrap_or_default());
            json_format(&mut opts, sink.format);
            "CREATE TABLE"
        }
        Connector::Iceberg => {
            opts.add("format-version", "2");
            "CREATE TABLE IF NOT EXISTS"
        }
    };
    format!("{create} {} (\n{}\n) {};", sink_table_name(model, sink), lines.join(",\n"), opts.render())
}

fn json_format(opts: &mut Options, format: Format) {
    opts.add("format", format.as_str());
    if format == Format::Json {
        opts.add("json.encode.decimal-as-plain-number", "true");
        opts.add("json.timestamp-format.standard", "ISO-8601");
    }
}

/// `CREATE CATALOG` for the target's Iceberg REST catalog.
pub fn iceberg_catalog(ice: &IcebergTarget) -> String {
    let mut opts = Options::new();
    opts.add("type", "iceberg");
    opts.add("catalog-type", "rest");
    opts.add("uri", ice.catalog.clone());
    if let Some(w) = &ice.warehouse {
        opts.add("warehouse", w.clone());
    }
    if let Some(ep) = &ice.s3_endpoint {
        opts.add("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        opts.add("s3.endpoint", ep.clone());
        opts.add("s3.path-style-access", "true");
    }
    format!("CREATE CATALOG {} {};", ident(ICEBERG_CATALOG), opts.render())
}
