//! `check`: load and validate the project; list its models, sources and
//! fixtures, and every diagnostic.

use streamform::check::{all_load_errors, check_report};
use streamform::driver::{self, Work};
use streamform::project::{model_config, model_file, model_names, project_config, sources_config};
use streamform::ModelName;

use crate::commands::print_diagnostics_stderr;
use crate::load::load;
use crate::out::{eprint, print, print_text};
use crate::render::check::{self, CheckView, ModelRow};
use crate::render::json::to_pretty_json;

pub fn run(project: &str, strict: bool, json: bool) -> u8 {
    let mut loaded = load(project);
    driver::compile(&mut loaded.db, loaded.project, Work::Checks);
    let db = &loaded.db;
    let p = loaded.project;
    let load_errors = all_load_errors(db, p);
    if !load_errors.is_empty() {
        if json {
            let doc = check::json_not_loaded(&loaded.root, &load_errors, strict);
            print(&to_pretty_json(&doc));
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
            let name = ModelName::new(db, n.clone());
            ModelRow {
                name: n.clone(),
                path: model_file(db, p, n).map(|f| f.path(db).clone()).unwrap_or_default(),
                config: model_config(db, p, name).clone(),
            }
        })
        .collect();
    let mut sources: Vec<_> = sources_config(db, p).as_ref().map(|s| s.iter().collect()).unwrap_or_default();
    sources.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let view = CheckView { root: &loaded.root, config, models, sources, report, strict };
    if json {
        print(&to_pretty_json(&check::json(&view)));
    } else {
        print_text(&check::text(&view, &|path| loaded.file_text(path)));
    }
    if view.passed() {
        0
    } else {
        1
    }
}
