//! Which warnings a project accepts: the `warnings: {allow: [...]}` entries
//! of streamform.yml, for the whole project and per model, and the one rule
//! that decides whether an entry covers a warning. `check` (and so `watch`
//! and the language server) and `build` ask it.

use crate::config::{AllowEntry, ModelConfig, ProjectConfig};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::project::CONFIG_FILE;

/// A warning an allow entry covers: not reported, and not counted by
/// `--strict`; `check --verbose` shows it with the entry's reason.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AllowedWarning {
    pub diagnostic: Diagnostic,
    /// The model whose list allows it; `None` for the project's list.
    pub model: Option<String>,
    pub entry: AllowEntry,
}

/// The entry that allows `d`: the model's own list first, then the
/// project's. Only warnings can be allowed.
pub fn allowing<'a>(project: &'a [AllowEntry], model: Option<&'a ModelConfig>, d: &Diagnostic) -> Option<(&'a AllowEntry, Option<&'a str>)> {
    if d.severity != Severity::Warning {
        return None;
    }
    if let Some(m) = model {
        if let Some(e) = m.allow.iter().find(|e| e.code == d.code) {
            return Some((e, Some(m.name.as_str())));
        }
    }
    project.iter().find(|e| e.code == d.code).map(|e| (e, None))
}

/// Moves the diagnostics an entry allows from `diags` into `allowed`.
pub fn set_aside(project: &[AllowEntry], model: Option<&ModelConfig>, diags: &mut Vec<Diagnostic>, allowed: &mut Vec<AllowedWarning>) {
    if project.is_empty() && model.is_none_or(|m| m.allow.is_empty()) {
        return;
    }
    diags.retain(|d| match allowing(project, model, d) {
        Some((entry, m)) => {
            allowed.push(AllowedWarning { diagnostic: d.clone(), model: m.map(str::to_string), entry: entry.clone() });
            false
        }
        None => true,
    });
}

/// W0325 for every entry that allows none of `allowed`, except entries for
/// `unseen` codes, which the caller cannot see (only `build` gives them).
pub fn unmatched(config: &ProjectConfig, has_file: impl Fn(&str) -> bool, allowed: &[AllowedWarning], unseen: &[Code]) -> Vec<Diagnostic> {
    // `e` is located where it is written (a model's entry placed).
    let used = |model: Option<&str>, e: &AllowEntry| allowed.iter().any(|a| a.model.as_deref() == model && a.entry.span == e.span);
    let mut out = Vec::new();
    let mut report = |model: Option<&str>, e: &AllowEntry| {
        if unseen.contains(&e.code) || used(model, e) {
            return;
        }
        let (message, help) = match model {
            Some(m) => (format!("`{}` is allowed for model `{m}`, which has no such warning", e.code), format!("remove the entry: it would hide a {} that `{m}` gets later", e.code)),
            None => (format!("`{}` is allowed for the whole project, which has no such warning", e.code), format!("remove the entry: it would hide a {} that appears later", e.code)),
        };
        out.push(Diagnostic::warning(Code::AllowMatchesNothing, message).at(CONFIG_FILE, Some(e.span)).help(help));
    };
    for e in &config.allow {
        report(None, e);
    }
    for (m, start) in config.models_placed().filter(|(m, _)| has_file(&m.name)) {
        for e in &m.allow {
            report(Some(&m.name), &AllowEntry { span: e.span.placed_at(start), ..e.clone() });
        }
    }
    out
}
