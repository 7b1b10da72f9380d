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
