//! `sources.yml`: the typed streams models read.

use super::decode::{Decoder, Fields};
use super::project::{Connector, Format};
use crate::diagnostic::{Diagnostic, Span};
use crate::duration::Duration;
use crate::types::{DataType, TypeError, SUPPORTED_TYPES};
use crate::yaml::{self, Value};
use crate::diagnostic::Code;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LatePolicy {
    #[default]
    Drop,
    Keep,
}

impl LatePolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            LatePolicy::Drop => "drop",
            LatePolicy::Keep => "keep",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ContractRule {
    NotNull(Vec<String>),
    Check(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Contract {
    pub name: String,
    pub rule: Option<ContractRule>,
    pub span: Span,
    /// Where the `check:` text starts (for locating errors inside it).
    pub check_span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceConfig {
    pub name: String,
    pub span: Span,
    pub connector: Connector,
    pub topic: Option<String>,
    pub path: Option<String>,
    pub format: Format,
    /// Sorted by name: the original plans source columns in byte order.
    pub columns: Vec<Column>,
    pub schema_declared: bool,
    pub event_time: Option<(String, Span)>,
    pub watermark: Option<(Duration, Span)>,
    pub late_events: Option<(LatePolicy, Span)>,
    pub idle_timeout: Option<(Duration, Span)>,
    pub key: Option<(Vec<String>, Span)>,
    pub contracts: Vec<Contract>,
    pub contracts_span: Option<Span>,
    pub quarantine: Option<(String, Span)>,
}

impl SourceConfig {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The columns in the order sources.yml lists them (by where each is
    /// written): what a format that reads by position, csv, reads.
    pub fn columns_as_declared(&self) -> Vec<&Column> {
        let mut cols: Vec<&Column> = self.columns.iter().collect();
        cols.sort_by_key(|c| c.span.offset);
        cols
    }

    pub fn column_names(&self) -> String {
        self.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
    }

    pub fn location(&self) -> Option<&str> {
        match self.connector {
            Connector::Kafka => self.topic.as_deref(),
            Connector::File => self.path.as_deref(),
            Connector::Iceberg => None,
        }
    }
}

const SOURCE_KEYS: &[&str] = &[
    "connector", "topic", "path", "format", "schema", "event_time", "watermark", "late_events", "idle_timeout", "key",
    "contracts", "quarantine",
];

/// Decodes sources.yml. Errors here mean the project cannot be loaded.
pub fn decode_sources(path: &str, text: &str) -> Result<Vec<SourceConfig>, Vec<Diagnostic>> {
    let root = yaml::parse(text).map_err(|e| vec![super::decode::invalid_yaml(path, text, &e)])?;
    if root.value == Value::Null {
        return Ok(Vec::new());
    }
    let mut d = Decoder::new(path);
    let mut out = Vec::new();
    d.check_references(text, &root, false);
    if let Some(top) = d.map(&root, "sources.yml", &["sources"]) {
        if let Some(sources) = top.get("sources") {
            for (name, key, node) in d.named_map(sources, "sources") {
                if let Some(s) = decode_source(&mut d, &name, key.span, node) {
                    out.push(s);
                }
            }
        }
    }
    if d.errors.is_empty() {
        Ok(out)
    } else {
        Err(d.errors)
    }
}

/// One source; `None` (with errors recorded) when a field does not decode.
/// Fields decode in the order of `SOURCE_KEYS`, which is the order of errors.
fn decode_source(d: &mut Decoder, name: &str, span: Span, node: &yaml::Node) -> Option<SourceConfig> {
    let what = format!("sources.{name}");
    let f = d.map(node, &what, SOURCE_KEYS)?;
    let connector = d.required(&f, "connector", &what)?;
    let connector = d.one_of(connector, &format!("{what}.connector"), &[("kafka", Connector::Kafka), ("file", Connector::File), ("iceberg", Connector::Iceberg)])?;
    let mut s = SourceConfig {
        name: name.to_string(),
        span,
        connector,
        topic: None,
        path: None,
        format: Format::Json,
        columns: Vec::new(),
        schema_declared: false,
        event_time: None,
        watermark: None,
        late_events: None,
        idle_timeout: None,
        key: None,
        contracts: Vec::new(),
        contracts_span: None,
        quarantine: None,
    };
    decode_location(d, &f, &what, &mut s)?;
    if let Some(v) = f.get_some("schema") {
        s.columns = decode_schema(d, v, &what, name)?;
        s.schema_declared = !s.columns.is_empty();
        s.columns.sort_by(|a, b| a.name.cmp(&b.name));
    }
    decode_clock(d, &f, &what, &mut s)?;
    if let Some(v) = f.get_some("key") {
        s.key = Some((d.string_list(v, &format!("{what}.key"))?, v.span));
    }
    if let Some(v) = f.get("contracts") {
        s.contracts_span = Some(v.span);
        s.contracts = decode_contracts(d, v, &format!("{what}.contracts"))?;
    }
    if let Some(v) = f.get_some("quarantine") {
        let qw = format!("{what}.quarantine");
        let qf = d.map(v, &qw, &["topic"])?;
        let topic = d.required(&qf, "topic", &qw)?;
        s.quarantine = Some((d.string(topic, &format!("{qw}.topic"))?, v.span));
    }
    Some(s)
}

/// `topic`, `path` and `format`: where the connector reads, and how.
fn decode_location(d: &mut Decoder, f: &Fields, what: &str, s: &mut SourceConfig) -> Option<()> {
    if let Some(v) = f.get_some("topic") {
        s.topic = Some(d.string(v, &format!("{what}.topic"))?);
    }
    if let Some(v) = f.get_some("path") {
        s.path = Some(d.string(v, &format!("{what}.path"))?);
    }
    if let Some(v) = f.get_some("format") {
        s.format = d.one_of(v, &format!("{what}.format"), &[("json", Format::Json), ("csv", Format::Csv)])?;
    }
    Some(())
}

/// `schema:`, columns as written; `None` when any type does not parse
/// (each one that does not is an error).
fn decode_schema(d: &mut Decoder, v: &yaml::Node, what: &str, name: &str) -> Option<Vec<Column>> {
    let sw = format!("{what}.schema");
    let mut columns = Vec::new();
    let mut ok = true;
    for (col, key, ty) in d.named_map(v, &sw) {
        let text = ty.scalar_text().unwrap_or_default();
        match DataType::parse(&text) {
            Ok(t) => columns.push(Column { name: col, ty: t, span: key.span }),
            Err(TypeError::MalformedDecimal) => {
                ok = false;
                // In a flow map `{…}` the comma of decimal(10,2) ends the value.
                let help = if !text.contains(')') {
                    format!("in a flow map `{{…}}` a comma ends the value, so the type was cut at `{text}`: quote it, for example `{col}: \"decimal(12,2)\"`, or write the schema one column per line")
                } else {
                    "write decimal(precision,scale) with precision 1 to 38 and scale 0 to precision, for example decimal(12,2)".into()
                };
                d.error(Code::BadColumnType, ty.span, format!("column `{col}` of source `{name}` has the malformed decimal type `{text}`"), Some(help));
            }
            Err(TypeError::Unsupported) => {
                ok = false;
                d.error(Code::BadColumnType, ty.span, format!("column `{col}` of source `{name}` has the unsupported type `{text}`"),
                    Some(format!("the types are {SUPPORTED_TYPES}{}", type_hint(&text))));
            }
        }
    }
    ok.then_some(columns)
}

/// The type a name from another system most likely means.
fn type_hint(text: &str) -> &'static str {
    match text.to_ascii_lowercase().as_str() {
        "int" | "integer" | "int4" => " (did you mean `int32`?)",
        "bigint" | "long" | "int8" => " (did you mean `int64`?)",
        "double" | "float" | "float32" | "real" => " (did you mean `float64`?)",
        "varchar" | "text" | "str" | "utf8" => " (did you mean `string`?)",
        "bool" => " (did you mean `boolean`?)",
        "datetime" | "date" | "timestamp(3)" | "instant" => " (did you mean `timestamp`?)",
        _ => "",
    }
}

/// `event_time`, `watermark`, `late_events` and `idle_timeout`, as written
/// (`source::event_time` says what they mean together).
fn decode_clock(d: &mut Decoder, f: &Fields, what: &str, s: &mut SourceConfig) -> Option<()> {
    if let Some(v) = f.get_some("event_time") {
        s.event_time = Some((d.string(v, &format!("{what}.event_time"))?, v.span));
    }
    if let Some(v) = f.get_some("watermark") {
        s.watermark = Some((d.duration(v, &format!("{what}.watermark"))?, v.span));
    }
    if let Some(v) = f.get_some("late_events") {
        s.late_events = Some((d.one_of(v, &format!("{what}.late_events"), &[("drop", LatePolicy::Drop), ("keep", LatePolicy::Keep)])?, v.span));
    }
    if let Some(v) = f.get_some("idle_timeout") {
        s.idle_timeout = Some((d.duration(v, &format!("{what}.idle_timeout"))?, v.span));
    }
    Some(())
}

/// `contracts:`, a list of `{name, not_null | check}` (null is none).
fn decode_contracts(d: &mut Decoder, v: &yaml::Node, cw: &str) -> Option<Vec<Contract>> {
    let items = match &v.value {
        Value::Seq(items) => items,
        Value::Null => return Some(Vec::new()),
        other => {
            d.error(Code::WrongShape, v.span, format!("`{cw}` must be a list of contracts, found {}", other.describe()),
                Some("write `- {name: ids_present, not_null: [order_id]}` or `- {name: positive, check: amount > 0}`".into()));
            return None;
        }
    };
    let mut contracts = Vec::new();
    for item in items {
        let cf = d.map(item, cw, &["name", "not_null", "check"])?;
        let cname = d.required(&cf, "name", cw)?;
        let cname = d.string(cname, &format!("{cw}.name"))?;
        let not_null = match cf.get("not_null") {
            Some(v) => Some(d.string_list(v, &format!("{cw}.not_null"))?),
            None => None,
        };
        let check = match cf.get("check") {
            Some(v) => Some((d.string(v, &format!("{cw}.check"))?, v.span)),
            None => None,
        };
        let (rule, check_span) = match (not_null, check) {
            (Some(cols), None) => (Some(ContractRule::NotNull(cols)), None),
            (None, Some((c, sp))) => (Some(ContractRule::Check(c)), Some(sp)),
            _ => (None, None),
        };
        contracts.push(Contract { name: cname, rule, span: item.span, check_span });
    }
    Some(contracts)
}
