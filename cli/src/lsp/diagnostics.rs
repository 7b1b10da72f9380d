//! Diagnostics published per file: the same list `check` reports (load
//! errors while the project does not load), with the same codes, ranges,
//! labels (as related information) and help.

use std::collections::BTreeMap;

use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString};
use streamform::check::{all_load_errors, check_report};
use streamform::diagnostic::{Diagnostic, Severity};
use streamform::project::CONFIG_FILE;

use camino::Utf8Path;
use streamform::{Database, Project, SourceFile};

use super::position::{range_of, uri};

/// What `check` would report now, converted per file (a diagnostic about
/// the whole project sits on streamform.yml), in path order.
pub fn by_file(db: &Database, project: Project, root: &Utf8Path) -> Vec<(String, Vec<lsp_types::Diagnostic>)> {
    let load = all_load_errors(db, project);
    let all = if load.is_empty() { check_report(db, project).diagnostics.clone() } else { load };
    let files = project_files(db, project);
    let text = |path: &str| -> String { files.get(path).map_or(String::new(), |f| f.text(db).to_string()) };
    let mut out: BTreeMap<String, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
    for d in all {
        let path = d.path.clone().unwrap_or_else(|| CONFIG_FILE.to_string());
        let lsp = to_lsp(root, &text(&path), &text, &d);
        out.entry(path).or_default().push(lsp);
    }
    out.into_iter().collect()
}

/// The inputs of the present project files, by path.
fn project_files(db: &Database, project: Project) -> std::collections::HashMap<&str, SourceFile> {
    let fixed = [*project.config_file(db), *project.sources_file(db)];
    let all = fixed.into_iter().flatten().chain(project.model_files(db).iter().copied()).chain(project.fixture_files(db).iter().copied());
    all.map(|f| (f.path(db).as_str(), f)).collect()
}

fn to_lsp(root: &Utf8Path, text: &str, other: &dyn Fn(&str) -> String, d: &Diagnostic) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    if let Some(h) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(h);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .map(|l| DiagnosticRelatedInformation { location: Location { uri: uri(root, &l.path), range: range_of(&other(&l.path), l.span) }, message: l.message.clone() })
        .collect();
    lsp_types::Diagnostic {
        range: range_of(text, d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("streamform".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}
