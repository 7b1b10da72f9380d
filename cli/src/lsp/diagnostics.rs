//! Diagnostics published per file: the same list `check` reports (load
//! errors while the project does not load), with the same codes, ranges,
//! labels (as related information) and help.

use std::collections::{BTreeMap, BTreeSet};

use lsp_types::notification::PublishDiagnostics;
use lsp_types::{DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, PublishDiagnosticsParams};
use streamform::check::{all_load_errors, check_report};
use streamform::diagnostic::{Diagnostic, Severity};
use streamform::project::CONFIG_FILE;

use super::position::{range_of, uri};
use super::server::Server;

/// What `check` would report now.
pub fn current(s: &Server) -> Vec<Diagnostic> {
    let load = all_load_errors(&s.db, s.files.project);
    if load.is_empty() {
        check_report(&s.db, s.files.project).diagnostics.clone()
    } else {
        load
    }
}

impl Server {
    /// Publishes every file's diagnostics, and an empty list for each file
    /// that had some and has none now.
    pub fn publish_diagnostics(&mut self) {
        let mut by_file: BTreeMap<String, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        for d in current(self) {
            // A diagnostic about the whole project sits on streamform.yml.
            let path = d.path.clone().unwrap_or_else(|| CONFIG_FILE.to_string());
            let lsp = self.to_lsp(&path, &d);
            by_file.entry(path).or_default().push(lsp);
        }
        let now: BTreeSet<String> = by_file.keys().cloned().collect();
        for gone in self.published.difference(&now) {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams { uri: uri(&self.root, gone), diagnostics: Vec::new(), version: None });
        }
        for (path, diagnostics) in by_file {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams { uri: uri(&self.root, &path), diagnostics, version: None });
        }
        self.published = now;
    }

    fn to_lsp(&self, path: &str, d: &Diagnostic) -> lsp_types::Diagnostic {
        let text = self.text(path).unwrap_or("");
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        let related: Vec<DiagnosticRelatedInformation> = d
            .labels
            .iter()
            .map(|l| DiagnosticRelatedInformation {
                location: Location { uri: uri(&self.root, &l.path), range: range_of(self.text(&l.path).unwrap_or(""), l.span) },
                message: l.message.clone(),
            })
            .collect();
        lsp_types::Diagnostic {
            range: range_of(text, d.span),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
            }),
            code: Some(NumberOrString::String(d.code.as_str().to_string())),
            source: Some("streamform".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..Default::default()
        }
    }
}
