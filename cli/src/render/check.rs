//! The `check` report: text tables and the JSON document (check-report v1).

use serde::Serialize;
use streamform::check::CheckReport;
use streamform::config::{Connector, ModelConfig, ProjectConfig, SourceConfig};
use streamform::diagnostic::{Diagnostic, Label};
use streamform::project::CONFIG_FILE;
use streamform::warnings::AllowedWarning;

use crate::render::diagnostic::{render_in, SourceLines};

pub struct ModelRow<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub config: &'a ModelConfig,
}

/// Everything the report shows about a loaded project.
pub struct CheckView<'a> {
    pub root: &'a str,
    pub config: &'a ProjectConfig,
    pub models: Vec<ModelRow<'a>>,
    /// In name order.
    pub sources: Vec<&'a SourceConfig>,
    pub report: &'a CheckReport,
    pub strict: bool,
    /// Show the allowed warnings, each with its reason.
    pub verbose: bool,
}

impl CheckView<'_> {
    pub fn passed(&self) -> bool {
        self.report.errors() == 0 && !(self.strict && self.report.warnings() > 0)
    }
}

/// Appends `text` left-justified in `n` characters: written in place, as a
/// large project prints a row per model.
fn push_padded(out: &mut String, text: &str, n: usize) {
    out.push_str(text);
    let len = text.chars().count();
    out.extend(std::iter::repeat_n(' ', n.saturating_sub(len)));
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn materialization(c: &ModelConfig) -> std::borrow::Cow<'static, str> {
    match (c.materialized.as_str(), &c.key) {
        ("upsert", Some(k)) if !k.is_empty() => format!("upsert({})", k.join(", ")).into(),
        (m, _) => m.into(),
    }
}

fn source_location(s: &SourceConfig) -> String {
    match (s.connector, &s.topic, &s.path) {
        (Connector::Kafka, Some(t), _) => format!("topic={t}"),
        (Connector::File, _, Some(p)) => format!("path={p}"),
        _ => "-".to_string(),
    }
}

pub fn text(v: &CheckView, file_text: &dyn Fn(&str) -> Option<String>) -> String {
    let mut s = format!("{} (schema version {})\n\n", v.config.name, v.config.version);
    if !v.models.is_empty() {
        s.push_str("models\n");
        for m in &v.models {
            s.push_str("  ");
            push_padded(&mut s, m.name, 24);
            s.push(' ');
            push_padded(&mut s, &materialization(m.config), 24);
            s.push(' ');
            s.push_str(m.path);
            s.push('\n');
        }
        s.push('\n');
    }
    if !v.sources.is_empty() {
        s.push_str("sources\n");
        for src in &v.sources {
            let cf = format!("{}/{}", src.connector.as_str(), src.format.as_str());
            s.push_str("  ");
            push_padded(&mut s, &src.name, 24);
            s.push(' ');
            push_padded(&mut s, &cf, 12);
            s.push(' ');
            push_padded(&mut s, &source_location(src), 24);
            s.push_str(&format!(" {} columns\n", src.columns.len()));
        }
        s.push('\n');
    }
    if !v.report.fixtures.is_empty() {
        s.push_str("fixtures\n");
        for f in &v.report.fixtures {
            s.push_str("  ");
            push_padded(&mut s, &f.model, 24);
            s.push(' ');
            push_padded(&mut s, &f.path, 24);
            s.push_str(&format!(" {} given, {} expect\n", f.given, f.expect));
        }
        s.push('\n');
    }
    let sources = SourceLines::new(file_text);
    for d in &v.report.diagnostics {
        s.push_str(&render_in(d, &sources));
        s.push('\n');
    }
    if v.verbose {
        for a in &v.report.allowed {
            s.push_str(&render_in(&a.diagnostic, &sources));
            s.push_str(&format!("  {}\n\n", allowed_line(a)));
        }
    }
    let (errors, warnings, allowed) = (v.report.errors(), v.report.warnings(), v.report.allowed.len());
    s.push_str(&format!(
        "{}: {}, {}, {}, {}, {}{}\n",
        if v.passed() { "ok" } else { "failed" },
        plural(v.models.len(), "model", "models"),
        plural(v.sources.len(), "source", "sources"),
        plural(v.report.fixtures.len(), "fixture", "fixtures"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
        if allowed > 0 { format!(" ({allowed} allowed)") } else { String::new() },
    ));
    if v.strict && errors == 0 && warnings > 0 {
        s.push_str("failing because --strict treats warnings as errors\n");
    }
    if allowed > 0 && !v.verbose {
        s.push_str("`streamform check --verbose` shows the allowed warnings and why each is allowed\n");
    }
    s
}

/// For whom a warning is allowed, where, and why.
fn allowed_line(a: &AllowedWarning) -> String {
    let whom = match &a.model {
        Some(m) => format!("model `{m}`"),
        None => "the whole project".to_string(),
    };
    let at = format!("{CONFIG_FILE}:{}:{}", a.entry.span.line, a.entry.span.col);
    match &a.entry.reason {
        Some(r) => format!("allowed for {whom} ({at}): {r}"),
        None => format!("allowed for {whom} ({at}), with no reason given"),
    }
}

#[derive(Serialize)]
pub struct Report {
    pub check_version: u32,
    pub loaded: bool,
    pub passed: bool,
    pub strict: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<ProjectSummary>,
    pub models: Vec<ModelSummary>,
    pub sources: Vec<SourceSummary>,
    pub fixtures: Vec<FixtureSummary>,
    pub diagnostics: Vec<DiagnosticReport>,
    /// The warnings streamform.yml allows (Streamform's addition; absent
    /// when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<AllowedReport>,
}

/// An allowed warning: the diagnostic, and the entry that allows it.
#[derive(Serialize)]
pub struct AllowedReport {
    #[serde(flatten)]
    pub diagnostic: DiagnosticReport,
    /// The model whose list allows it; absent for the project's list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_for: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the allow entry is written in streamform.yml.
    pub allowed_at: Position,
}

#[derive(Serialize)]
pub struct Position {
    pub path: &'static str,
    pub line: u32,
    pub column: u32,
}

#[derive(Serialize)]
pub struct ProjectSummary {
    pub name: String,
    pub schema_version: u32,
    pub root: String,
}

#[derive(Serialize)]
pub struct ModelSummary {
    pub name: String,
    pub path: String,
    pub materialized: &'static str,
    pub key: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink: Option<Endpoint>,
}

#[derive(Serialize)]
pub struct Endpoint {
    pub connector: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub format: &'static str,
}

#[derive(Serialize)]
pub struct SourceSummary {
    pub name: String,
    pub connector: &'static str,
    pub format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub columns: usize,
}

#[derive(Serialize)]
pub struct FixtureSummary {
    pub model: String,
    pub path: String,
    pub given: usize,
    pub expect: usize,
}

#[derive(Serialize)]
pub struct DiagnosticReport {
    pub severity: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The other places a diagnostic that involves two places points at
    /// (an addition to the original's report; absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<LabelReport>,
    /// Streamform's additions: the code, and where the marked text starts
    /// and ends (1-based lines, columns in characters; the end is exclusive
    /// and equals the start for a point). Absent when the diagnostic has no
    /// position in a file.
    pub code: &'static str,
    /// The file a load error is in (its `path` is the project root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u32>,
}

#[derive(Serialize)]
pub struct LabelReport {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub message: String,
}

impl LabelReport {
    pub fn of(l: &Label) -> LabelReport {
        LabelReport { path: l.path.clone(), line: l.span.map(|s| s.line), column: l.span.map(|s| s.col), message: l.message.clone() }
    }
}

/// The text of a project file, by its path relative to the root.
pub type FileText<'a> = &'a dyn Fn(&str) -> Option<String>;

impl DiagnosticReport {
    pub fn of(d: &Diagnostic, text: FileText) -> DiagnosticReport {
        let labels = d.labels.iter().map(LabelReport::of).collect();
        let end = d.span.zip(d.path.as_deref().and_then(text)).map(|(s, t)| s.end(&t));
        DiagnosticReport {
            severity: d.severity.as_str(),
            path: d.path.clone(),
            message: d.message.clone(),
            help: d.help.clone(),
            labels,
            code: d.code.as_str(),
            file: None,
            line: d.span.map(|s| s.line),
            column: d.span.map(|s| s.col),
            end_line: end.map(|e| e.0),
            end_column: end.map(|e| e.1),
        }
    }
}

pub fn json(v: &CheckView, text: FileText) -> Report {
    Report {
        check_version: 1,
        loaded: true,
        passed: v.passed(),
        strict: v.strict,
        project: Some(ProjectSummary { name: v.config.name.clone(), schema_version: v.config.version, root: v.root.to_string() }),
        models: v
            .models
            .iter()
            .map(|m| ModelSummary {
                name: m.name.to_string(),
                path: m.path.to_string(),
                materialized: m.config.materialized.as_str(),
                key: m.config.key.clone().unwrap_or_default(),
                sink: m.config.sink.as_ref().map(|s| Endpoint { connector: s.connector.as_str(), topic: s.topic.clone(), path: s.path.clone(), format: s.format.as_str() }),
            })
            .collect(),
        sources: v
            .sources
            .iter()
            .map(|s| SourceSummary { name: s.name.clone(), connector: s.connector.as_str(), format: s.format.as_str(), topic: s.topic.clone(), path: s.path.clone(), columns: s.columns.len() })
            .collect(),
        fixtures: v.report.fixtures.iter().map(|f| FixtureSummary { model: f.model.clone(), path: f.path.clone(), given: f.given, expect: f.expect }).collect(),
        diagnostics: v.report.diagnostics.iter().map(|d| DiagnosticReport::of(d, text)).collect(),
        allowed: v
            .report
            .allowed
            .iter()
            .map(|a| AllowedReport {
                diagnostic: DiagnosticReport::of(&a.diagnostic, text),
                allowed_for: a.model.clone(),
                reason: a.entry.reason.clone(),
                allowed_at: Position { path: CONFIG_FILE, line: a.entry.span.line, column: a.entry.span.col },
            })
            .collect(),
    }
}

/// The document printed when the project does not load.
pub fn json_not_loaded(root: &str, errors: &[Diagnostic], strict: bool, text: FileText) -> Report {
    Report {
        check_version: 1,
        loaded: false,
        passed: false,
        strict,
        project: None,
        models: Vec::new(),
        sources: Vec::new(),
        fixtures: Vec::new(),
        allowed: Vec::new(),
        diagnostics: errors
            .iter()
            .map(|d| {
                let mut r = DiagnosticReport::of(d, text);
                r.path = Some(root.to_string());
                r.file = d.path.clone();
                if let Some(p) = &d.path {
                    let loc = d.span.map(|s| format!(":{}:{}", s.line, s.col)).unwrap_or_default();
                    if !r.message.contains(p.as_str()) {
                        r.message = format!("{p}{loc}: {}", r.message);
                    } else if !loc.is_empty() {
                        r.message = format!("{} (at {p}{loc})", r.message);
                    }
                }
                r
            })
            .collect(),
    }
}
