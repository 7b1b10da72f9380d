//! `streamform.yml`: the project's name, format version, per-model
//! configuration and deployment targets.

use super::decode::Decoder;
use crate::diagnostic::{Diagnostic, Span};
use crate::duration::Duration;
use crate::window::WindowShape;
use crate::yaml::{self, Value};
use crate::diagnostic::Code;
use crate::template;

pub const SUPPORTED_VERSION: i128 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProjectConfig {
    pub name: String,
    pub version: u32,
    /// In file order, each located relative to the start of its entry
    /// ([`Span::relative_to`] the span at the same place in `model_starts`):
    /// an edit that moves an entry leaves it equal. Shared with each model's
    /// [`crate::project::model_entry`]; [`ProjectConfig::model_at`] is the
    /// entry as written.
    pub models: Vec<std::sync::Arc<ModelConfig>>,
    /// Where each of `models` starts in the file (its name).
    pub model_starts: Vec<Span>,
    /// In file order.
    pub targets: Vec<Target>,
    /// `delivery:`: the guarantee of every Kafka sink that names none.
    pub delivery: Option<Delivery>,
    /// `warnings: {allow: [...]}`: warnings accepted in the whole project.
    pub allow: Vec<AllowEntry>,
}

/// One entry of a `warnings: {allow: [...]}` list: a warning code that is
/// accepted, why, and where the entry is written in streamform.yml.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllowEntry {
    pub code: Code,
    pub reason: Option<String>,
    pub span: Span,
}

impl ProjectConfig {
    /// The `i`th model entry located where it is written.
    pub fn model_at(&self, i: usize) -> ModelConfig {
        let start = self.model_starts[i];
        self.models[i].with_spans(|s| s.placed_at(start))
    }

    /// Each model entry and where it starts.
    pub fn models_placed(&self) -> impl Iterator<Item = (&ModelConfig, Span)> {
        self.models.iter().map(|m| &**m).zip(self.model_starts.iter().copied())
    }

    /// The target a command works on: the one named, or the only one
    /// declared. `no_targets_help` ends the error when none is declared
    /// and none was named (what the command can do instead).
    pub fn select_target(&self, requested: Option<&str>, no_targets_help: &str) -> Result<String, String> {
        let names: Vec<&str> = self.targets.iter().map(|t| t.name.as_str()).collect();
        match requested {
            Some(r) if names.contains(&r) => Ok(r.to_string()),
            Some(r) if names.is_empty() => Err(format!("no target named `{r}`; streamform.yml declares no targets")),
            Some(r) => Err(format!("no target named `{r}`; streamform.yml declares: {}", names.join(", "))),
            None => match names.as_slice() {
                [] => Err(format!("streamform.yml declares no targets; {no_targets_help}")),
                [one] => Ok(one.to_string()),
                many => Err(format!("streamform.yml declares several targets ({}); pick one with --target", many.join(", "))),
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Materialized {
    #[default]
    Append,
    Upsert,
}

impl Materialized {
    pub fn as_str(self) -> &'static str {
        match self {
            Materialized::Append => "append",
            Materialized::Upsert => "upsert",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Connector {
    Kafka,
    File,
    Iceberg,
}

impl Connector {
    pub fn as_str(self) -> &'static str {
        match self {
            Connector::Kafka => "kafka",
            Connector::File => "file",
            Connector::Iceberg => "iceberg",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Format {
    #[default]
    Json,
    Csv,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
        }
    }
}

/// What a Kafka sink promises a reader after a failure (docs/deploy.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Delivery {
    /// Flink's default: a restart from a checkpoint writes again what came after it.
    #[default]
    AtLeastOnce,
    /// Kafka transactions committed at each checkpoint.
    ExactlyOnce,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::AtLeastOnce => "at-least-once",
            Delivery::ExactlyOnce => "exactly-once",
        }
    }

    pub const CHOICES: [(&'static str, Delivery); 2] = [("exactly-once", Delivery::ExactlyOnce), ("at-least-once", Delivery::AtLeastOnce)];
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SinkConfig {
    pub connector: Connector,
    pub topic: Option<String>,
    pub path: Option<String>,
    pub table: Option<String>,
    pub format: Format,
    pub span: Span,
    /// `delivery:` as written on the sink, and where.
    pub delivery: Option<(Delivery, Span)>,
}

impl SinkConfig {
    /// The topic, path or table the sink writes to.
    pub fn target(&self) -> Option<&str> {
        match self.connector {
            Connector::Kafka => self.topic.as_deref(),
            Connector::File => self.path.as_deref(),
            Connector::Iceberg => self.table.as_deref(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WindowConfig {
    pub shape: WindowShape,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeHint {
    /// `"<kind>.<ordinal>"` as written.
    pub node: String,
    /// `"<model>::<kind>::<ordinal>"`.
    pub was: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModelConfig {
    pub name: String,
    pub span: Span,
    pub materialized: Materialized,
    pub key: Option<Vec<String>>,
    pub key_span: Option<Span>,
    /// Where each `key:` entry is written, in order (a flow or block list).
    pub key_entry_spans: Vec<Span>,
    pub sink: Option<SinkConfig>,
    pub retention: Option<Duration>,
    pub retention_span: Option<Span>,
    pub window: Option<WindowConfig>,
    pub renamed_from: Option<String>,
    pub nodes: Vec<NodeHint>,
    /// `warnings: {allow: [...]}`: warnings accepted for this model.
    pub allow: Vec<AllowEntry>,
}

impl ModelConfig {
    /// The entry with every span moved by `f`
    /// ([`Span::relative_to`] its start, and back).
    pub fn with_spans(&self, f: impl Fn(Span) -> Span) -> ModelConfig {
        let mut c = self.clone();
        c.move_spans(f);
        c
    }

    /// [`ModelConfig::with_spans`], in place.
    pub fn move_spans(&mut self, f: impl Fn(Span) -> Span) {
        // Every field named, so that a new located field is not missed.
        let ModelConfig { name: _, span, materialized: _, key: _, key_span, key_entry_spans, sink, retention: _, retention_span, window, renamed_from: _, nodes, allow } = self;
        *span = f(*span);
        *key_span = key_span.map(&f);
        key_entry_spans.iter_mut().for_each(|s| *s = f(*s));
        if let Some(SinkConfig { span, delivery, .. }) = sink {
            *span = f(*span);
            if let Some((_, s)) = delivery {
                *s = f(*s);
            }
        }
        *retention_span = retention_span.map(&f);
        if let Some(WindowConfig { span, shape: _ }) = window {
            *span = f(*span);
        }
        nodes.iter_mut().for_each(|h| h.span = f(h.span));
        allow.iter_mut().for_each(|a| a.span = f(a.span));
    }

    pub fn unconfigured(name: &str) -> ModelConfig {
        ModelConfig {
            name: name.to_string(),
            span: Span::default(),
            materialized: Materialized::Append,
            key: None,
            key_span: None,
            key_entry_spans: Vec::new(),
            sink: None,
            retention: None,
            retention_span: None,
            window: None,
            renamed_from: None,
            nodes: Vec::new(),
            allow: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub name: String,
    pub span: Span,
    pub flink: Option<FlinkTarget>,
    pub kafka: Option<KafkaTarget>,
    pub iceberg: Option<IcebergTarget>,
    /// Topics this target reads and writes instead of the project's.
    pub topics: TopicOverrides,
}

impl Target {
    /// The topic a Kafka source is read from on this target.
    pub fn source_topic<'a>(&'a self, source: &str, declared: Option<&'a str>) -> Option<&'a str> {
        TopicOverrides::find(&self.topics.sources, source).or(declared)
    }

    /// The topic a model's Kafka sink writes on this target.
    pub fn sink_topic<'a>(&'a self, model: &str, declared: Option<&'a str>) -> Option<&'a str> {
        TopicOverrides::find(&self.topics.sinks, model).or(declared)
    }

    /// The topic a source's quarantined records go to on this target.
    pub fn quarantine_topic<'a>(&'a self, source: &str, declared: &'a str) -> &'a str {
        TopicOverrides::find(&self.topics.quarantine, source).unwrap_or(declared)
    }

    /// The connector properties every Kafka table of this target carries.
    pub fn kafka_properties(&self) -> &[Property] {
        self.kafka.as_ref().map(|k| k.properties.as_slice()).unwrap_or(&[])
    }
}

/// `targets.<t>.topics`: per source, per model's sink, per quarantine.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TopicOverrides {
    pub sources: Vec<TopicOverride>,
    pub sinks: Vec<TopicOverride>,
    pub quarantine: Vec<TopicOverride>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TopicOverride {
    /// The source or model it is for, and where that name is written.
    pub name: String,
    pub name_span: Span,
    pub topic: String,
}

impl TopicOverrides {
    fn find<'a>(list: &'a [TopicOverride], name: &str) -> Option<&'a str> {
        list.iter().find(|o| o.name == name).map(|o| o.topic.as_str())
    }
}

/// A Kafka client property (`security.protocol`), passed to Flink's Kafka
/// connectors as `properties.<key>`. A secret's value is its placeholder
/// (as written, `${KAFKA_SASL_JAAS}`) in every resolved target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Property {
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlinkTarget {
    pub gateway: String,
    pub rest: Option<String>,
    pub savepoint_dir: Option<String>,
    pub checkpoint_interval: Option<Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Startup {
    Earliest,
    Latest,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KafkaTarget {
    pub bootstrap_servers: String,
    pub startup: Option<Startup>,
    pub properties: Vec<Property>,
    /// The brokers' `transaction.max.timeout.ms`, as declared, and where.
    pub transaction_max_timeout: Option<(Duration, Span)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IcebergTarget {
    pub catalog: String,
    pub warehouse: Option<String>,
    pub s3_endpoint: Option<String>,
}

const TOP_KEYS: &[&str] = &["name", "version", "models", "targets", "delivery", "warnings"];
const MODEL_KEYS: &[&str] = &["materialized", "key", "sink", "renamed_from", "nodes", "retention", "window", "warnings"];
const SINK_KEYS: &[&str] = &["connector", "topic", "path", "table", "format", "delivery"];

/// Decodes streamform.yml. Errors here mean the project cannot be loaded.
pub fn decode_project(path: &str, text: &str) -> Result<ProjectConfig, Vec<Diagnostic>> {
    let root = yaml::parse(text).map_err(|e| vec![super::decode::invalid_yaml(path, text, &e)])?;
    decode_root(path, text, &root)
}

/// [`decode_project`] of the document `root` that `text` parses to.
pub(super) fn decode_root(path: &str, text: &str, root: &yaml::Node) -> Result<ProjectConfig, Vec<Diagnostic>> {
    let mut d = Decoder::new(path);
    let mut config = ProjectConfig { name: String::new(), version: 0, models: Vec::new(), model_starts: Vec::new(), targets: Vec::new(), delivery: None, allow: Vec::new() };
    for (k, v) in root.as_map().unwrap_or(&[]) {
        d.check_references(text, v, k.as_str() == Some("targets"));
    }
    let Some(top) = d.map(root, "streamform.yml", TOP_KEYS) else { return Err(d.errors) };
    if let Some(n) = d.required(&top, "name", "streamform.yml") {
        config.name = d.string(n, "name").unwrap_or_default();
    }
    if let Some(v) = d.required(&top, "version", "streamform.yml") {
        match v.value {
            Value::Int(SUPPORTED_VERSION) => config.version = 1,
            Value::Int(i) if (0..=u32::MAX as i128).contains(&i) => d.error(
                Code::UnsupportedVersion,
                v.span,
                format!("{path} is written for format version {i}; this streamform reads version {SUPPORTED_VERSION}"),
                Some("set `version: 1`".into()),
            ),
            _ => d.error(
                Code::UnsupportedVersion,
                v.span,
                format!("`version` must be the integer 1, found {}", v.value.describe()),
                Some("set `version: 1`".into()),
            ),
        }
    }
    if let Some(v) = top.get_some("delivery") {
        config.delivery = d.one_of(v, "delivery", &Delivery::CHOICES);
    }
    if let Some(v) = top.get_some("warnings") {
        config.allow = decode_warnings(&mut d, "warnings", v);
    }
    if let Some(models) = top.get("models") {
        let mut previous: Option<String> = None;
        for (name, key, node) in d.named_map(models, "models") {
            if misplaced_setting(&name, node) {
                let help = match &previous {
                    Some(p) => format!("indent it under `{p}:`, beside that model's other settings"),
                    None => format!("put it under the model it configures: `models: <model>: {name}: …`"),
                };
                d.error(Code::UnknownKey, key.span.with_len(name.len()), format!("`{name}:` is indented as a model of its own under `models:`, but it is a model's setting"), Some(help));
                continue;
            }
            previous = Some(name.clone());
            if let Some(mut m) = decode_model(&mut d, &name, key.span, node) {
                let start = m.span;
                m.move_spans(|s| s.relative_to(start));
                config.models.push(std::sync::Arc::new(m));
                config.model_starts.push(start);
            }
        }
    }
    // Kept for the whole run, one entry per model: not the doubled capacity.
    config.models.shrink_to_fit();
    config.model_starts.shrink_to_fit();
    if let Some(targets) = top.get("targets") {
        for (name, key, node) in d.named_map(targets, "targets") {
            if let Some(t) = decode_target(&mut d, &name, key.span, node) {
                config.targets.push(t);
            }
        }
    }
    if d.errors.is_empty() {
        Ok(config)
    } else {
        Err(d.errors)
    }
}

/// A model setting written at the indentation of a model's name (`sink:`
/// under `models:` rather than under `totals:`): its value is not a
/// model's configuration, which is a map of settings (or nothing).
pub(super) fn misplaced_setting(name: &str, node: &yaml::Node) -> bool {
    MODEL_KEYS.contains(&name)
        && match &node.value {
            Value::Map(pairs) => pairs.iter().any(|(k, _)| k.as_str().is_some_and(|k| !MODEL_KEYS.contains(&k))),
            Value::Null => false,
            _ => true,
        }
}

pub(super) fn decode_model(d: &mut Decoder, name: &str, span: Span, node: &yaml::Node) -> Option<ModelConfig> {
    let mut m = ModelConfig::unconfigured(name);
    m.span = span;
    if node.value == Value::Null {
        return Some(m);
    }
    let what = format!("models.{name}");
    let f = d.map(node, &what, MODEL_KEYS)?;
    // Every field is decoded even after an error, so one run reports them all.
    if let Some(v) = f.get("materialized") {
        if let Some(mat) = d.one_of(v, &format!("{what}.materialized"), &[("append", Materialized::Append), ("upsert", Materialized::Upsert)]) {
            m.materialized = mat;
        }
    }
    if let Some(v) = f.get("key") {
        m.key = d.string_list(v, &format!("{what}.key"));
        m.key_span = Some(v.span);
        if let Value::Seq(items) = &v.value {
            m.key_entry_spans = items.iter().map(|i| i.span.with_len(i.scalar_text().map_or(0, |t| t.len()))).collect();
        }
    }
    if let Some(v) = f.get_some("sink") {
        m.sink = decode_sink(d, &what, v);
    }
    if let Some(v) = f.get_some("retention") {
        m.retention = d.duration(v, &format!("{what}.retention"));
        m.retention_span = Some(v.span);
    }
    if let Some(v) = f.get_some("window") {
        m.window = decode_window(d, &what, v);
    }
    if let Some(v) = f.get_some("renamed_from") {
        m.renamed_from = d.string(v, &format!("{what}.renamed_from"));
    }
    if let Some(v) = f.get_some("warnings") {
        m.allow = decode_warnings(d, &format!("{what}.warnings"), v);
    }
    if let Some(v) = f.get_some("nodes") {
        for (hint, k, hv) in d.named_map(v, &format!("{what}.nodes")) {
            let hw = format!("{what}.nodes.{hint}");
            let Some(hf) = d.map(hv, &hw, &["was"]) else { continue };
            let Some(was) = d.required(&hf, "was", &hw) else { continue };
            if let Some(was) = d.string(was, &format!("{hw}.was")) {
                m.nodes.push(NodeHint { node: hint, was, span: k.span });
            }
        }
    }
    Some(m)
}

/// `warnings: {allow: [W0766, {code: W0792, reason: "…"}]}`: each entry a
/// warning's code, alone or with the reason it is accepted.
fn decode_warnings(d: &mut Decoder, what: &str, node: &yaml::Node) -> Vec<AllowEntry> {
    let Some(f) = d.map(node, what, &["allow"]) else { return Vec::new() };
    let Some(list) = f.get_some("allow") else { return Vec::new() };
    let Value::Seq(items) = &list.value else {
        d.error(Code::WrongShape, list.span, format!("`{what}.allow` must be a list of warning codes, found {}", list.value.describe()), Some("write it as a list, for example `allow: [W0766]`".into()));
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let (code_node, reason) = match &item.value {
            Value::Map(_) => {
                let iw = format!("{what}.allow");
                let Some(e) = d.map(item, &iw, &["code", "reason"]) else { continue };
                let Some(c) = d.required(&e, "code", &iw) else { continue };
                (c, e.get_some("reason").and_then(|r| d.string(r, &format!("{iw}.reason"))))
            }
            _ => (item, None),
        };
        let Some(text) = d.string(code_node, &format!("{what}.allow")) else { continue };
        let span = code_node.span.with_len(code_node.scalar_text().map_or(0, |t| t.len()));
        if let Some(code) = allowable_code(d, &text, span) {
            out.push(AllowEntry { code, reason, span });
        }
    }
    out
}

/// The warning code an allow entry names, or the error that says why it
/// cannot be allowed (E0324, E0325).
fn allowable_code(d: &mut Decoder, text: &str, span: Span) -> Option<Code> {
    let Some(&code) = Code::ALL.iter().find(|c| c.as_str() == text) else {
        let warnings = Code::ALL.iter().map(|c| c.as_str()).filter(|c| c.starts_with('W'));
        let help = match crate::diagnostic::did_you_mean(text, warnings) {
            Some(s) => format!("did you mean `{s}`? the codes are listed in docs/errors.md"),
            None => "write a code as Streamform prints it, such as `W0766`; the codes are listed in docs/errors.md".into(),
        };
        d.error(Code::AllowUnknownCode, span, format!("`{text}` is not a Streamform warning code"), Some(help));
        return None;
    };
    if code == Code::AllowMatchesNothing {
        d.error(Code::AllowNotAWarning, span, format!("`{text}` cannot be allowed: it reports an allow entry that matches no warning"), Some("remove the allow entry that matches nothing".into()));
        return None;
    }
    if !text.starts_with('W') {
        d.error(Code::AllowNotAWarning, span, format!("`{text}` is an error, and only warnings can be allowed"), Some(format!("fix what {text} reports: a project with an error does not build")));
        return None;
    }
    Some(code)
}

fn decode_window(d: &mut Decoder, model: &str, v: &yaml::Node) -> Option<WindowConfig> {
    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        Tumbling,
        Hop,
        Session,
    }
    let ww = format!("{model}.window");
    let wf = d.map(v, &ww, &["type", "size", "slide", "gap"])?;
    // As before sessions existed, a missing or unknown `type` still has
    // `size` checked, unless a `gap` says a session was meant.
    let size_too = |d: &mut Decoder| {
        if wf.get_some("gap").is_none() {
            if let Some(s) = d.required(&wf, "size", &ww) {
                d.duration(s, &format!("{ww}.size"));
            }
        }
    };
    let Some(ty) = d.required(&wf, "type", &ww) else {
        size_too(d);
        return None;
    };
    let Some(kind) = d.one_of(ty, &format!("{ww}.type"), &[("tumbling", Kind::Tumbling), ("hop", Kind::Hop), ("session", Kind::Session)]) else {
        size_too(d);
        return None;
    };
    let (name, wants): (&str, &[&str]) = match kind {
        Kind::Tumbling => ("tumbling", &["size"]),
        Kind::Hop => ("hop", &["size", "slide"]),
        Kind::Session => ("session", &["gap"]),
    };
    let mut ok = true;
    for (key, owner) in [("size", "a tumbling or hop window"), ("slide", "a hop window"), ("gap", "a session window")] {
        if let (Some(n), false) = (wf.get_some(key), wants.contains(&key)) {
            let fix = match key {
                "slide" => "remove `slide`, or set `type: hop`",
                "gap" => "remove `gap`, or set `type: session`",
                _ => "remove `size`; a session window lasts until `gap` passes without an event",
            };
            d.error(Code::UnknownKey, n.span, format!("`{ww}.{key}` is for {owner}; this window is {name}"), Some(fix.into()));
            ok = false;
        }
    }
    let mut read = |key: &str| -> Option<Duration> {
        let n = d.required(&wf, key, &ww)?;
        d.duration(n, &format!("{ww}.{key}"))
    };
    let shape = match kind {
        Kind::Tumbling => read("size").map(|size| WindowShape::Tumbling { size }),
        Kind::Hop => {
            let size = read("size");
            let slide = read("slide");
            Some(WindowShape::Hop { size: size?, slide: slide? })
        }
        Kind::Session => read("gap").map(|gap| WindowShape::Session { gap }),
    };
    let shape = shape?;
    ok.then_some(WindowConfig { shape, span: v.span })
}

fn decode_sink(d: &mut Decoder, model: &str, node: &yaml::Node) -> Option<SinkConfig> {
    let what = format!("{model}.sink");
    let f = d.map(node, &what, SINK_KEYS)?;
    let connector = d.required(&f, "connector", &what)?;
    let connector = d.one_of(connector, &format!("{what}.connector"), &[("kafka", Connector::Kafka), ("file", Connector::File), ("iceberg", Connector::Iceberg)])?;
    let mut s = SinkConfig { connector, topic: None, path: None, table: None, format: Format::Json, span: node.span, delivery: None };
    if let Some(v) = f.get_some("topic") {
        s.topic = Some(d.string(v, &format!("{what}.topic"))?);
    }
    if let Some(v) = f.get_some("path") {
        s.path = Some(d.string(v, &format!("{what}.path"))?);
    }
    if let Some(v) = f.get_some("table") {
        s.table = Some(d.string(v, &format!("{what}.table"))?);
    }
    if let Some(v) = f.get_some("format") {
        s.format = d.one_of(v, &format!("{what}.format"), &[("json", Format::Json), ("csv", Format::Csv)])?;
    }
    if let Some(v) = f.get_some("delivery") {
        s.delivery = Some((d.one_of(v, &format!("{what}.delivery"), &Delivery::CHOICES)?, v.span));
    }
    Some(s)
}

/// `kafka.properties`: Kafka client settings, each a string. One that
/// names a credential must come from the environment (E0883).
fn decode_properties(d: &mut Decoder, what: &str, node: &yaml::Node) -> Option<Vec<Property>> {
    let w = format!("{what}.properties");
    let mut out = Vec::new();
    for (key, k, v) in d.named_map(node, &w) {
        let value = d.string(v, &format!("{w}.{key}"))?;
        if key == "bootstrap.servers" || key.starts_with("properties.") {
            d.error(Code::UnknownKey, k.span.with_len(key.len()), format!("`{w}.{key}` is not a client property this section takes"),
                Some(if key == "bootstrap.servers" { "set `kafka.bootstrap_servers` instead".into() } else { format!("write the Kafka client's own name, `{}`", key.trim_start_matches("properties.")) }));
            continue;
        }
        if template::names_a_credential(&key) && !template::has_reference(&value) {
            d.error(Code::CredentialInFile, v.span, format!("`{w}.{key}` holds a credential written into streamform.yml"),
                Some(format!("read it from the environment: `{key}: ${{{}}}`, and set that variable where streamform runs", env_name(&key))));
            d.mark_last_secret();
            continue;
        }
        out.push(Property { key, value });
    }
    Some(out)
}

/// A variable name suggested for a property: `sasl.jaas.config` → `KAFKA_SASL_JAAS_CONFIG`.
fn env_name(key: &str) -> String {
    format!("KAFKA_{}", key.to_ascii_uppercase().replace(|c: char| !c.is_ascii_alphanumeric(), "_"))
}

/// `topics:` of a target: `sources`, `sinks` (by model) and `quarantine`
/// (by source), each a map of name to topic. Whether the names exist is
/// `check`'s (E0884).
fn decode_topics(d: &mut Decoder, what: &str, node: &yaml::Node) -> Option<TopicOverrides> {
    let w = format!("{what}.topics");
    let f = d.map(node, &w, &["sources", "sinks", "quarantine"])?;
    let mut out = TopicOverrides::default();
    for (key, list) in [("sources", &mut out.sources), ("sinks", &mut out.sinks), ("quarantine", &mut out.quarantine)] {
        let Some(v) = f.get_some(key) else { continue };
        for (name, k, tv) in d.named_map(v, &format!("{w}.{key}")) {
            if let Some(topic) = d.string(tv, &format!("{w}.{key}.{name}")) {
                list.push(TopicOverride { name, name_span: k.span, topic });
            }
        }
    }
    Some(out)
}

/// A Flink REST address: `http://host[:port][/path]`.
fn http_url(d: &mut Decoder, node: &yaml::Node, what: &str) -> Option<String> {
    let url = d.string(node, what)?;
    if unresolved(d, &url) {
        return Some(url);
    }
    let host = url.strip_prefix("http://").map(|r| r.split('/').next().unwrap_or(""));
    let port_ok = |h: &str| h.rsplit_once(':').is_none_or(|(_, p)| p.parse::<u16>().is_ok());
    match host {
        Some(h) if !h.is_empty() && !h.starts_with(':') && port_ok(h) => Some(url),
        _ => {
            let help = if url.starts_with("https://") {
                "this build of streamform reaches Flink over plain http; put a TLS-terminating proxy in front, or use the http address".to_string()
            } else {
                "write it as `http://host:port`, for example `http://localhost:8083`".to_string()
            };
            d.error(Code::BadTargetUrl, node.span, format!("`{what}` is not an http URL: `{url}`"), Some(help));
            None
        }
    }
}

/// A savepoint directory as Flink takes it: an absolute path or a URI.
fn savepoint_dir(d: &mut Decoder, node: &yaml::Node, what: &str) -> Option<String> {
    let dir = d.string(node, what)?;
    if unresolved(d, &dir) {
        return Some(dir);
    }
    if dir.starts_with('/') || dir.split_once("://").is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty()) {
        return Some(dir);
    }
    d.error(Code::BadSavepointDir, node.span, format!("`{what}` is neither an absolute path nor a URI: `{dir}`"),
        Some("write the directory as Flink's JobManager reaches it, for example `/var/flink/savepoints` or `s3://bucket/savepoints`".into()));
    None
}

/// A target decoded from its `${…}`-resolved tree (`target.rs`): every
/// value is checked as it now reads.
pub(crate) fn decode_resolved_target(path: &str, name: &str, span: Span, node: &yaml::Node) -> Result<Target, Vec<Diagnostic>> {
    let mut d = Decoder::new(path);
    d.templates_resolved = true;
    match decode_target(&mut d, name, span, node) {
        Some(t) if d.errors.is_empty() => Ok(t),
        _ => Err(d.errors),
    }
}

/// Whether a value is left unchecked until its `${…}` is resolved.
fn unresolved(d: &Decoder, value: &str) -> bool {
    !d.templates_resolved && template::has_reference(value)
}

fn decode_target(d: &mut Decoder, name: &str, span: Span, node: &yaml::Node) -> Option<Target> {
    let what = format!("targets.{name}");
    let f = d.map(node, &what, &["backend", "flink", "kafka", "iceberg", "topics"])?;
    let backend = d.required(&f, "backend", &what)?;
    d.one_of(backend, &format!("{what}.backend"), &[("flink", ())])?;
    let mut t = Target { name: name.to_string(), span, flink: None, kafka: None, iceberg: None, topics: TopicOverrides::default() };
    if let Some(v) = f.get_some("topics") {
        t.topics = decode_topics(d, &what, v)?;
    }
    if let Some(v) = f.get_some("flink") {
        let w = format!("{what}.flink");
        let ff = d.map(v, &w, &["gateway", "rest", "savepoint_dir", "checkpoint_interval"])?;
        let gateway = d.required(&ff, "gateway", &w)?;
        let mut flink = FlinkTarget { gateway: http_url(d, gateway, &format!("{w}.gateway"))?, rest: None, savepoint_dir: None, checkpoint_interval: None };
        if let Some(v) = ff.get_some("rest") {
            flink.rest = Some(http_url(d, v, &format!("{w}.rest"))?);
        }
        if let Some(v) = ff.get_some("savepoint_dir") {
            flink.savepoint_dir = Some(savepoint_dir(d, v, &format!("{w}.savepoint_dir"))?);
        }
        if let Some(v) = ff.get_some("checkpoint_interval") {
            flink.checkpoint_interval = Some(d.duration(v, &format!("{w}.checkpoint_interval"))?);
        }
        t.flink = Some(flink);
    }
    if let Some(v) = f.get_some("kafka") {
        let w = format!("{what}.kafka");
        let kf = d.map(v, &w, &["bootstrap_servers", "startup", "properties", "transaction_max_timeout"])?;
        let bs = d.required(&kf, "bootstrap_servers", &w)?;
        let mut kafka = KafkaTarget { bootstrap_servers: d.string(bs, &format!("{w}.bootstrap_servers"))?, startup: None, properties: Vec::new(), transaction_max_timeout: None };
        if let Some(v) = kf.get_some("transaction_max_timeout") {
            kafka.transaction_max_timeout = Some((d.duration(v, &format!("{w}.transaction_max_timeout"))?, v.span));
        }
        if let Some(v) = kf.get_some("startup") {
            kafka.startup = Some(d.one_of(v, &format!("{w}.startup"), &[("earliest", Startup::Earliest), ("latest", Startup::Latest)])?);
        }
        if let Some(v) = kf.get_some("properties") {
            kafka.properties = decode_properties(d, &w, v)?;
        }
        t.kafka = Some(kafka);
    }
    if let Some(v) = f.get_some("iceberg") {
        let w = format!("{what}.iceberg");
        let inf = d.map(v, &w, &["catalog", "warehouse", "s3_endpoint"])?;
        let cat = d.required(&inf, "catalog", &w)?;
        let mut ice = IcebergTarget { catalog: d.string(cat, &format!("{w}.catalog"))?, warehouse: None, s3_endpoint: None };
        if let Some(v) = inf.get_some("warehouse") {
            ice.warehouse = Some(d.string(v, &format!("{w}.warehouse"))?);
        }
        if let Some(v) = inf.get_some("s3_endpoint") {
            ice.s3_endpoint = Some(d.string(v, &format!("{w}.s3_endpoint"))?);
        }
        t.iceberg = Some(ice);
    }
    Some(t)
}

#[cfg(test)]
mod window_tests {
    use super::*;

    fn window(spec: &str) -> Result<WindowShape, Vec<String>> {
        let text = format!("name: p\nversion: 1\nmodels:\n  m:\n    window: {spec}\n");
        match decode_project("streamform.yml", &text) {
            Ok(p) => Ok(p.models.iter().find(|m| m.name == "m").and_then(|m| m.window.as_ref()).expect("a window").shape),
            Err(ds) => Err(ds.iter().map(|d| d.message.clone()).collect()),
        }
    }

    #[test]
    fn each_kind_takes_its_own_fields() {
        let d = |s| Duration::parse(s).unwrap();
        assert_eq!(window("{type: tumbling, size: 5m}"), Ok(WindowShape::Tumbling { size: d("5m") }));
        assert_eq!(window("{type: hop, size: 10m, slide: 5m}"), Ok(WindowShape::Hop { size: d("10m"), slide: d("5m") }));
        assert_eq!(window("{type: session, gap: 30m}"), Ok(WindowShape::Session { gap: d("30m") }));
    }

    #[test]
    fn a_field_of_another_kind_is_refused_by_name() {
        assert_eq!(window("{type: session, gap: 5m, size: 5m}"), Err(vec!["`models.m.window.size` is for a tumbling or hop window; this window is session".to_string()]));
        assert_eq!(window("{type: tumbling, size: 5m, gap: 5m}"), Err(vec!["`models.m.window.gap` is for a session window; this window is tumbling".to_string()]));
        let missing = window("{type: session}").unwrap_err();
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(missing[0].contains("gap"), "{missing:?}");
    }
}

#[cfg(test)]
mod env_tests {
    use super::*;

    fn codes(text: &str) -> Vec<(String, u32, u32)> {
        match decode_project("streamform.yml", text) {
            Ok(_) => Vec::new(),
            Err(ds) => ds.iter().map(|d| (d.code.as_str().to_string(), d.span.map_or(0, |s| s.col), d.span.map_or(0, |s| s.len))).collect(),
        }
    }

    const HEAD: &str = "name: p\nversion: 1\n";

    #[test]
    fn references_are_read_under_targets_only() {
        let t = |body: &str| codes(&format!("{HEAD}targets:\n  dev:\n    backend: flink\n    flink: {{gateway: \"{body}\"}}\n"));
        assert_eq!(t("${GW}"), vec![]);
        assert_eq!(t("${GW:-http://x:1}"), vec![]);
        // Located at the reference inside the quoted value.
        assert_eq!(t("http://${GW"), vec![("E0881".to_string(), 30, 4)]);
        assert_eq!(codes(&format!("{HEAD}models:\n  m:\n    sink: {{connector: kafka, topic: \"a-${{T}}\"}}\n")), vec![("E0880".to_string(), 40, 4)]);
        assert_eq!(codes("name: ${NAME}\nversion: 1\n"), vec![("E0880".to_string(), 7, 7)]);
        // Without `${`, an address is checked when the file loads, as before.
        assert_eq!(t("localhost:1")[0].0, "E0704");
    }

    #[test]
    fn credentials_come_from_the_environment() {
        let p = |v: &str| codes(&format!("{HEAD}targets:\n  dev:\n    backend: flink\n    kafka:\n      bootstrap_servers: b\n      properties:\n        {v}\n"));
        assert_eq!(p("sasl.jaas.config: ${J}"), vec![]);
        assert_eq!(p("sasl.mechanism: PLAIN"), vec![]);
        assert_eq!(p("ssl.keystore.password: hunter2")[0].0, "E0883");
        assert_eq!(p("bootstrap.servers: b")[0].0, "E0103");
    }

    #[test]
    fn sources_yml_does_not_read_the_environment() {
        let text = "sources:\n  s:\n    connector: kafka\n    topic: ${T}\n    schema: {a: int64}\n";
        let errs = crate::config::decode_sources("sources.yml", text).unwrap_err();
        assert_eq!(errs.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), vec!["E0880"]);
    }
}
