//! One module per command.

pub mod build;
pub mod check;
pub mod graph;
pub mod init;
pub mod inspect;
pub mod plan;
pub mod run;
pub mod schema;
pub mod test;

pub(crate) use inspect::known_model;

use streamform::diagnostic::Diagnostic;

use crate::load::Loaded;
use crate::out::eprint;
use crate::render::diagnostic::render;

/// Prints why the project could not be loaded; true when it could not.
pub fn report_load_errors(loaded: &Loaded) -> bool {
    let errors = streamform::project::load_errors(&loaded.db, loaded.project);
    if errors.is_empty() {
        return false;
    }
    eprint(&format!("error: could not load project at {}\n\n", loaded.root));
    print_diagnostics_stderr(loaded, errors);
    true
}

pub fn print_diagnostics_stderr(loaded: &Loaded, diags: &[Diagnostic]) {
    let text = |p: &str| loaded.file_text(p);
    for d in diags {
        eprint(&render(d, &text));
        eprint("\n");
    }
}

/// Plans (and, for `check`, validates) every model in batches, on every core, letting salsa drop the
/// syntax trees of each batch (parse_model is LRU-bounded, and eviction
/// happens only between revisions): large projects never hold every tree.
pub fn plan_all(loaded: &mut Loaded, with_checks: bool) {
    use salsa::Database as _;
    // Name order, not dependency order: the dependency graph needs every
    // model's reads, which would parse every model before the first
    // eviction. Lowering pulls in upstream models on demand anyway.
    let order = streamform::project::model_names(&loaded.db, loaded.project).clone();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let project = loaded.project;
    for batch in order.chunks(512) {
        std::thread::scope(|scope| {
            for part in batch.chunks(batch.len().div_ceil(threads)) {
                let db = loaded.db.clone();
                scope.spawn(move || {
                    for name in part {
                        let key = streamform::db::ModelName::new(&db, name.clone());
                        let _ = streamform::model::model_reads(&db, project, key);
                        let _ = streamform::manifest::model_identity(&db, project, key);
                        if with_checks {
                            let _ = streamform::check::models::model_checks(&db, project, key);
                        }
                    }
                });
            }
        });
        loaded.db.trigger_lru_eviction();
    }
}
