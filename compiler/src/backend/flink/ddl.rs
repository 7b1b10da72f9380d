//! DDL: source tables with their contract and late-event views, quarantine
//! tables, sink tables and the Iceberg catalog.

use super::expr::{ident, render, sql_type, string_literal};
use super::query::interval;
use crate::config::project::{IcebergTarget, Startup};
use crate::config::{Connector, Format, Materialized, SinkConfig, SourceConfig, Target};
use crate::delivery::ExactlyOnce;
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

/// The target's brokers, then its client properties (a secret's as its
/// placeholder), as every Kafka table of the target takes them.
fn kafka_connection(opts: &mut Options, target: &Target) {
    opts.add("properties.bootstrap.servers", target.kafka.as_ref().map(|k| k.bootstrap_servers.clone()).unwrap_or_default());
    for p in target.kafka_properties() {
        opts.add(&format!("properties.{}", p.key), p.value.clone());
    }
}

/// What the generated SQL of one source consists of.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceDdl {
    /// The table, then its `__checked` and filter views, then the quarantine table.
    pub statements: Vec<String>,
    /// The INSERT that feeds the quarantine table, when there is one.
    pub quarantine_insert: Option<String>,
}

/// A source's statements: its table, then the views that type its event
/// time, apply its contracts and drop its late events, then its
/// quarantine table. `read_committed`: an exactly-once sink of the project
/// writes the topic (`delivery.rs`).
/// `scan.startup.mode` of every Kafka source on `target`: where a job that
/// starts without a savepoint reads from (the deploy plan says it per sink).
pub fn startup_mode(target: &Target) -> &'static str {
    match target.kafka.as_ref().and_then(|k| k.startup) {
        Some(Startup::Latest) => "latest-offset",
        _ => "earliest-offset",
    }
}

pub fn source_ddl(s: &SourceConfig, time: Option<&EventTime>, contracts: &AppliedContracts, target: &Target, read_committed: bool) -> SourceDdl {
    let name = &s.name;
    let clock = time.and_then(EventTime::clock);
    let late_drop = time.is_some_and(EventTime::drops_late);
    let checked = !contracts.rules.is_empty();
    let columns: Vec<Column> = s.columns.iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect();
    let typed = columns.iter().any(is_timestamp);
    // csv reads a record's fields by position, so its table lists them as
    // sources.yml does; the models read a view with them by name (the
    // plan's order), which is also what a json table lists.
    let read: Vec<Column> = match s.format {
        Format::Csv => s.columns_as_declared().into_iter().map(|c| Column { name: c.name.clone(), ty: c.ty }).collect(),
        Format::Json => columns.clone(),
    };
    let reordered = read != columns;
    let table = if late_drop || checked || typed || reordered { format!("{name}_raw") } else { name.clone() };
    let mut statements = vec![source_table(s, &table, &read, time, target, read_committed)];
    // With timestamp columns, the views read `<src>__typed`: each parsed
    // from its text (null when absent or unreadable), beside the rowtime.
    let mut from = if typed {
        statements.push(typed_view(name, &table, &columns, clock));
        format!("{name}__typed")
    } else {
        table.clone()
    };
    let mut filters = Vec::new();
    let mut quarantine_insert = None;
    if checked {
        let checked_view = format!("{name}__checked");
        statements.push(checked_view_ddl(&checked_view, &from, &columns, &contracts.rules, clock));
        filters.push("`_contract` IS NULL".to_string());
        if contracts.quarantine.is_some() {
            quarantine_insert = Some(quarantine_insert_into(name, &checked_view, &columns));
        }
        from = checked_view;
    }
    if let Some(et) = clock {
        // A record without a readable event time that no contract caught
        // is dropped, never a job failure (docs/semantics.md).
        filters.push(format!("{} IS NOT NULL", ident(et)));
        if late_drop {
            let t = ident(&rowtime_column(et));
            filters.push(format!("(CURRENT_WATERMARK({t}) IS NULL OR {t} >= CURRENT_WATERMARK({t}))"));
        }
    }
    if table != *name {
        statements.push(good_view(name, &from, &columns, clock, &filters));
    }
    if let (Some(topic), true) = (&contracts.quarantine, checked) {
        statements.push(quarantine_table(name, topic, &columns, target));
    }
    SourceDdl { statements, quarantine_insert }
}

/// Timestamp columns of a source are read as text and parsed (RFC 3339).
fn is_timestamp(c: &Column) -> bool {
    sql_type(c.ty).as_deref() == Some("TIMESTAMP(3)")
}

/// The computed rowtime column that carries the watermark of event time `et`.
fn rowtime_column(et: &str) -> String {
    format!("{et}__time")
}

/// The computed column holding event time `et` parsed from its text.
fn parsed_column(et: &str) -> String {
    format!("{et}__parsed")
}

/// Far before any event: the rowtime of a record whose event time is null,
/// so the watermark assigner never sees a null, and such a record never
/// moves the watermark.
const NO_TIME: &str = "TIMESTAMP '0001-01-01 00:00:00.000'";

/// `col` (text) read as the simulator reads a timestamp: RFC 3339 with `Z`
/// or a `+hh:mm`/`-hh:mm` offset (fraction truncated to milliseconds), or
/// integer epoch milliseconds (a JSON number reads as its text), as a UTC
/// `TIMESTAMP(3)` whatever the session time zone; NULL when null or of
/// another form. Flink's JSON
/// timestamp formats accept no offset, and for TIMESTAMP no `Z`.
fn rfc3339_timestamp(col: &str) -> String {
    let c = ident(col);
    let local = format!(
        "TO_TIMESTAMP(SUBSTRING({c} FROM 1 FOR 19) || '.' || RPAD(COALESCE(REGEXP_EXTRACT({c}, '^.{{19}}\\.([0-9]+)', 1), ''), 3, '0'), 'yyyy-MM-dd''T''HH:mm:ss.SSS')"
    );
    let offset = format!(
        "CASE WHEN {c} LIKE '%Z' THEN 0 ELSE (CASE WHEN SUBSTRING({c} FROM CHAR_LENGTH({c}) - 5 FOR 1) = '-' THEN -1 ELSE 1 END) * (CAST(SUBSTRING({c} FROM CHAR_LENGTH({c}) - 4 FOR 2) AS INT) * 60 + CAST(SUBSTRING({c} FROM CHAR_LENGTH({c}) - 1 FOR 2) AS INT)) END"
    );
    format!(
        "CASE WHEN REGEXP({c}, '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}T[0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}(\\.[0-9]+)?(Z|[+-][0-9]{{2}}:[0-9]{{2}})$') THEN TIMESTAMPADD(MINUTE, -({offset}), {local}) WHEN REGEXP({c}, '^-?[0-9]{{1,18}}$') THEN TIMESTAMPADD(MILLISECOND, CAST({c} AS BIGINT), TIMESTAMP '1970-01-01 00:00:00.000') END"
    )
}

/// `<src>__typed`: the timestamp columns parsed, and the rowtime of event time.
fn typed_view(name: &str, table: &str, columns: &[Column], clock: Option<&str>) -> String {
    let mut cols: Vec<String> = columns
        .iter()
        .map(|c| if is_timestamp(c) { format!("{} AS {}", ident(&parsed_column(&c.name)), ident(&c.name)) } else { ident(&c.name) })
        .collect();
    if let Some(et) = clock {
        cols.push(ident(&rowtime_column(et)));
    }
    format!("CREATE TEMPORARY VIEW {} AS\nSELECT {} FROM {};", ident(&format!("{name}__typed")), cols.join(", "), ident(table))
}

/// The `__checked` view naming the first contract each record breaks (the
/// rowtime rides along when the source has an event time).
fn checked_view_ddl(checked_view: &str, from: &str, columns: &[Column], rules: &[(String, Expr)], clock: Option<&str>) -> String {
    let mut cols: Vec<String> = columns.iter().map(|c| ident(&c.name)).collect();
    if let Some(et) = clock {
        cols.push(ident(&rowtime_column(et)));
    }
    let cases: Vec<String> = rules.iter().map(|(n, e)| format!("WHEN NOT COALESCE({}, FALSE) THEN {}", render(e), string_literal(n))).collect();
    format!("CREATE TEMPORARY VIEW {} AS\nSELECT {}, CASE {} END AS `_contract` FROM {};", ident(checked_view), cols.join(", "), cases.join(" "), ident(from))
}

/// The source's view the models read: the records that pass `filters`,
/// with the rowtime under the event-time column's name.
fn good_view(name: &str, from: &str, columns: &[Column], clock: Option<&str>, filters: &[String]) -> String {
    let cols: Vec<String> = columns
        .iter()
        .map(|c| match clock {
            Some(et) if et == c.name => format!("{} AS {}", ident(&rowtime_column(et)), ident(et)),
            _ => ident(&c.name),
        })
        .collect();
    let filter = if filters.is_empty() { String::new() } else { format!(" WHERE {}", filters.join(" AND ")) };
    format!("CREATE TEMPORARY VIEW {} AS\nSELECT {} FROM {}{filter};", ident(name), cols.join(", "), ident(from))
}

/// `CREATE TABLE` of the source as its connector delivers it, with the
/// watermark of its event-time rule.
fn source_table(s: &SourceConfig, table: &str, columns: &[Column], time: Option<&EventTime>, target: &Target, read_committed: bool) -> String {
    let clock = time.and_then(|t| Some((t.clock()?, t)));
    let mut lines = column_lines(columns);
    // Timestamps are read as text and parsed: RFC 3339 with `Z` or an
    // offset, which no JSON timestamp format of Flink's accepts.
    for (i, c) in columns.iter().enumerate().filter(|(_, c)| is_timestamp(c)) {
        lines[i] = format!("  {} STRING", ident(&c.name));
        lines.push(format!("  {} AS {}", ident(&parsed_column(&c.name)), rfc3339_timestamp(&c.name)));
    }
    if let Some((et, t)) = clock {
        // The watermark is on a never-null rowtime, so a record without
        // event time cannot fail the job.
        lines.push(format!("  {} AS COALESCE({}, {NO_TIME})", ident(&rowtime_column(et)), rfc3339_timestamp(et)));
        let rt = ident(&rowtime_column(et));
        lines.push(format!("  WATERMARK FOR {rt} AS {rt} - {}", interval(t.watermark)));
    }
    let mut opts = Options::new();
    match s.connector {
        Connector::Kafka | Connector::Iceberg => {
            opts.add("connector", "kafka");
            opts.add("topic", target.source_topic(&s.name, s.topic.as_deref()).unwrap_or_default());
            kafka_connection(&mut opts, target);
            if read_committed {
                // Neither open nor aborted transactions of the sink writing it.
                opts.add("properties.isolation.level", "read_committed");
            }
            opts.add("format", s.format.as_str());
            opts.add("scan.startup.mode", startup_mode(target));
            if clock.is_some() {
                // One watermark per record, as the simulator advances it;
                // periodic emission would make lateness depend on timing.
                opts.add("scan.watermark.emit.strategy", "on-event");
            }
        }
        Connector::File => {
            opts.add("connector", "filesystem");
            opts.add("path", s.path.clone().unwrap_or_default());
            opts.add("format", s.format.as_str());
        }
    }
    if let Some(idle) = clock.and_then(|(_, t)| t.idle_timeout) {
        opts.add("scan.watermark.idle-timeout", idle.to_string());
    }
    format!("CREATE TABLE {} (\n{}\n) {};", ident(table), lines.join(",\n"), opts.render())
}

/// `CREATE TABLE` of the Kafka topic that records breaking a contract go to.
fn quarantine_table(name: &str, topic: &str, columns: &[Column], target: &Target) -> String {
    let mut qcols = column_lines(columns);
    qcols.push("  `_contract` STRING".into());
    qcols.push("  `_source` STRING".into());
    let mut q = Options::new();
    q.add("connector", "kafka");
    q.add("topic", target.quarantine_topic(name, topic));
    kafka_connection(&mut q, target);
    q.add("format", "json");
    q.add("json.encode.decimal-as-plain-number", "true");
    q.add("json.timestamp-format.standard", "ISO-8601");
    format!("CREATE TABLE {} (\n{}\n) {};", ident(&quarantine_table_name(name)), qcols.join(",\n"), q.render())
}

fn quarantine_table_name(source: &str) -> String {
    format!("quarantine_{source}")
}

/// The INSERT feeding the quarantine table from the `__checked` view,
/// whose event-time column is the parsed (nullable) value, not the rowtime.
fn quarantine_insert_into(name: &str, checked_view: &str, columns: &[Column]) -> String {
    let select: Vec<String> = columns.iter().map(|c| ident(&c.name)).collect();
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

/// `CREATE TABLE` of a model's sink; `exactly_once` when it writes in
/// Kafka transactions (`delivery.rs`).
pub fn sink_ddl(model: &str, sink: &SinkConfig, materialized: Materialized, key: &[String], columns: &[Column], target: &Target, exactly_once: Option<&ExactlyOnce>) -> String {
    let mut lines = column_lines(columns);
    let upsert = materialized == Materialized::Upsert;
    // upsert-kafka needs a PRIMARY KEY; without key the topic is a
    // changelog instead (script.rs refuses a format other than JSON).
    let keyless_kafka = upsert && key.is_empty() && sink.connector == Connector::Kafka;
    if upsert && !key.is_empty() {
        lines.push(format!("  PRIMARY KEY ({}) NOT ENFORCED", key.iter().map(|k| ident(k)).collect::<Vec<_>>().join(", ")));
    }
    let json = sink.format == Format::Json;
    let mut opts = Options::new();
    let create = match sink.connector {
        Connector::Kafka if keyless_kafka => {
            opts.add("connector", "kafka");
            opts.add("topic", target.sink_topic(model, sink.topic.as_deref()).unwrap_or_default());
            kafka_connection(&mut opts, target);
            // One writer, one partition: the topic's order is the changelog's.
            opts.add("sink.partitioner", "fixed");
            opts.add("sink.parallelism", "1");
            opts.add("format", "debezium-json");
            opts.add("debezium-json.encode.decimal-as-plain-number", "true");
            opts.add("debezium-json.timestamp-format.standard", "ISO-8601");
            "CREATE TABLE"
        }
        Connector::Kafka if upsert => {
            opts.add("connector", "upsert-kafka");
            opts.add("topic", target.sink_topic(model, sink.topic.as_deref()).unwrap_or_default());
            kafka_connection(&mut opts, target);
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
            opts.add("topic", target.sink_topic(model, sink.topic.as_deref()).unwrap_or_default());
            kafka_connection(&mut opts, target);
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
    if let Some(eo) = exactly_once {
        if let Some(ms) = eo.timeout_ms {
            opts.add("properties.transaction.timeout.ms", ms.to_string());
        }
        opts.add("sink.delivery-guarantee", "exactly-once");
        opts.add("sink.transactional-id-prefix", eo.prefix.clone());
    }
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
