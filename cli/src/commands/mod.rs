//! One module per command.

pub mod apply;
pub mod build;
pub mod check;
pub mod graph;
pub mod init;
pub mod inspect;
pub mod plan;
pub mod run;
pub mod schema;
pub mod status;
pub mod stop;
pub mod test;

pub(crate) use inspect::known_model;

use streamform::diagnostic::Diagnostic;
use streamform::driver::{self, Work};
use streamform::target::{resolved_target, ResolvedTarget, TargetName};

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

/// A project loaded free of errors, its configuration, and the selected
/// target's parts, for `apply`, `stop` and `status`. Prints why not and
/// returns the exit code (2).
pub fn open_target(project: &str, target: Option<&str>, verb: &str) -> Result<(Loaded, streamform::config::project::ProjectConfig, crate::deploy::Target), u8> {
    let loaded = load_checked(project, verb, Work::All)?;
    let Ok(config) = streamform::project::project_config(&loaded.db, loaded.project).clone() else { return Err(2) };
    let name = config.select_target(target, "add a `targets:` section (see docs/deploy.md)").map_err(|e| {
        eprint(&format!("error: {e}\n"));
        2u8
    })?;
    let resolved = resolve_target(&loaded, &name)?;
    let Some(flink) = resolved.target.flink.clone() else {
        eprint(&format!("error: target `{name}` declares no `flink:` section\nhelp: add `flink: {{gateway: http://localhost:8083}}`\n"));
        return Err(2);
    };
    let mut t = crate::deploy::Target::new(&loaded.root, &config.name, &name, &flink);
    t.secrets = resolved.secrets;
    Ok((loaded, config, t))
}

/// The target named, as it resolves in this environment (`name` empty:
/// the placeholders of a project without targets). Prints why not
/// (E0882, or an address that resolves to no URL) and returns 2.
pub fn resolve_target(loaded: &Loaded, name: &str) -> Result<ResolvedTarget, u8> {
    match resolved_target(&loaded.db, loaded.project, loaded.env, TargetName::new(&loaded.db, name.to_string())) {
        Ok(r) => Ok(r.clone()),
        Err(diags) => {
            eprint(&format!("error: target `{name}` does not resolve in this environment\n\n"));
            print_diagnostics_stderr(loaded, diags);
            Err(2)
        }
    }
}
