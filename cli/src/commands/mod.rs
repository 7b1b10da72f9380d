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

/// Loads a project for a command that needs it free of errors (`test`,
/// `run`, `build`, `plan`): prints why not and returns the exit code (2)
/// when it does not load or `check` finds errors. `verb` completes "fix
/// them before …".
pub fn load_checked(project: &str, verb: &str) -> Result<Loaded, u8> {
    let mut loaded = crate::load::load(project);
    let load_errors = streamform::check::all_load_errors(&loaded.db, loaded.project);
    if !load_errors.is_empty() {
        eprint(&format!("error: could not load project at {}\n\n", loaded.root));
        print_diagnostics_stderr(&loaded, &load_errors);
        return Err(2);
    }
    // Identities and checks of every model, in parallel batches.
    plan_all(&mut loaded, true);
    let errors: Vec<Diagnostic> =
        streamform::check::check_report(&loaded.db, loaded.project).diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    if !errors.is_empty() {
        let n = errors.len();
        eprint(&format!("error: project has {n} error{}; fix them before {verb}\n\n", if n == 1 { "" } else { "s" }));
        print_diagnostics_stderr(&loaded, &errors);
        return Err(2);
    }
    Ok(loaded)
}
