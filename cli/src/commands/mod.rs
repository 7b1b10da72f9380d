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
use streamform::driver::{self, Work};

use crate::load::Loaded;
use crate::out::eprint;
use crate::render::diagnostic::render;

/// Prints why the project could not be loaded; true when it could not. A
/// malformed fixture file is a load error for every command, as in the
/// original.
pub fn report_load_errors(loaded: &Loaded) -> bool {
    let errors = streamform::check::all_load_errors(&loaded.db, loaded.project);
    if errors.is_empty() {
        return false;
    }
    eprint(&format!("error: could not load project at {}\n\n", loaded.root));
    print_diagnostics_stderr(loaded, &errors);
    true
}

pub fn print_diagnostics_stderr(loaded: &Loaded, diags: &[Diagnostic]) {
    let text = |p: &str| loaded.file_text(p);
    for d in diags {
        eprint(&render(d, &text));
        eprint("\n");
    }
}

/// Loads a project for a command that needs it free of errors (`test`,
/// `run`, `build`, `plan`): prints why not and returns the exit code (2)
/// when it does not load or `check` finds errors. `verb` completes "fix
/// them before …". `work` is what the command reads next: the driver
/// compiles it with the checks, on every core.
pub fn load_checked(project: &str, verb: &str, work: Work) -> Result<Loaded, u8> {
    let mut loaded = crate::load::load(project);
    let load_errors = streamform::check::all_load_errors(&loaded.db, loaded.project);
    if !load_errors.is_empty() {
        eprint(&format!("error: could not load project at {}\n\n", loaded.root));
        print_diagnostics_stderr(&loaded, &load_errors);
        return Err(2);
    }
    driver::compile(&mut loaded.db, loaded.project, work);
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
