//! One module per command.

pub mod check;
pub mod graph;
pub mod init;
pub mod inspect;
pub mod schema;

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

/// Plans every model in batches, letting salsa drop the syntax trees of
/// each batch (parse_model is LRU-bounded, and eviction happens only
/// between revisions). Large projects then never hold every tree at once.
pub fn plan_all(loaded: &mut Loaded) {
    use salsa::Database as _;
    let order = streamform::graph::dependency_graph(&loaded.db, loaded.project).order.clone();
    for chunk in order.chunks(256) {
        for name in chunk {
            let key = streamform::db::ModelName::new(&loaded.db, name.clone());
            let _ = streamform::manifest::model_identity(&loaded.db, loaded.project, key);
        }
        loaded.db.trigger_lru_eviction();
    }
}
