//! `check`: load and validate the project; list its models, sources and
//! fixtures, and every diagnostic.

use streamform::check::{all_load_errors, check_report};
use streamform::driver::{self, Work};
use streamform::project::{model_entry, model_file, model_names, project_config, sources_config};
use streamform::ModelName;

use crate::commands::print_diagnostics_stderr;
use crate::load::load;
use crate::out::{eprint, print, print_text};
use crate::render::annotations;
use crate::render::check::{self, CheckView, ModelRow};
use crate::render::json::to_pretty_json;

/// How `check` prints its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The tables and rustc-style diagnostics
    Text,
    /// The check report (`streamform schema check-report`)
    Json,
    /// GitHub Actions annotations, one `::error`/`::warning` line per diagnostic
    Github,
    /// SARIF 2.1.0, for code-scanning tools
    Sarif,
}

pub fn run(project: &str, strict: bool, verbose: bool, format: Format) -> u8 {
    let mut loaded = load(project);
    driver::compile(&mut loaded.db, loaded.project, Work::Checks);
    let db = &loaded.db;
    let p = loaded.project;
    let text = |path: &str| loaded.file_text(path);
    let load_errors = all_load_errors(db, p);
    if !load_errors.is_empty() {
        match format {
            Format::Json => print(&to_pretty_json(&check::json_not_loaded(&loaded.root, &load_errors, strict, &text))),
            Format::Github => print(&annotations::github(&loaded.root, &load_errors, &text)),
            Format::Sarif => print(&to_pretty_json(&annotations::sarif(&loaded.root, &load_errors, &[], &text))),
            Format::Text => {}
        }
        eprint(&format!("error: could not load project at {}\n\n", loaded.root));
        print_diagnostics_stderr(&loaded, &load_errors);
        return 2;
    }
    let Ok(config) = project_config(db, p) else { return 2 };
    let report = check_report(db, p);
    let models = model_names(db, p)
        .iter()
        .map(|n| {
            let name = ModelName::new(db, p, n.clone());
            ModelRow { name: n, path: model_file(db, p, n).map_or("", |f| f.path(db).as_str()), config: model_entry(db, name) }
        })
        .collect();
    let mut sources: Vec<_> = sources_config(db, p).as_ref().map(|s| s.iter().collect()).unwrap_or_default();
    sources.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let view = CheckView { root: &loaded.root, config, models, sources, report, strict, verbose };
    match format {
        Format::Json => print(&to_pretty_json(&check::json(&view, &text))),
        Format::Github => print(&annotations::github(&loaded.root, &report.diagnostics, &text)),
        Format::Sarif => print(&to_pretty_json(&annotations::sarif(&loaded.root, &report.diagnostics, &report.allowed, &text))),
        Format::Text => print_text(&check::text(&view, &text)),
    }
    if view.passed() {
        0
    } else {
        1
    }
}
