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


/// `--select` (and `--model`) resolved: `None` when nothing was asked for,
/// else the selected models in plan order. Prints why not and returns the
/// exit code (2) when a selector is malformed or names nothing.
pub fn selection(loaded: &Loaded, select: &[String]) -> Result<Option<Vec<String>>, u8> {
    if select.is_empty() {
        return Ok(None);
    }
    let fail = |e: streamform::select::SelectError| {
        let mut msg = format!("error: {}\n", e.message);
        if let Some(h) = e.help {
            msg.push_str(&format!("  help: {h}\n"));
        }
        eprint(&msg);
        2u8
    };
    let selectors = streamform::select::parse_selectors(select).map_err(fail)?;
    streamform::select::select(&loaded.db, loaded.project, &selectors).map(Some).map_err(fail)
}

use streamform::diagnostic::Diagnostic;
use streamform::project::{classify_path, FileKind};
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
/// `run`): prints why not and returns the exit code (2) when it does not
/// load or `check` finds errors. `verb` completes "fix them before …".
/// `work` is what the command reads next: the driver compiles it with the
/// checks, on every core.
pub fn load_checked(project: &str, verb: &str, work: Work) -> Result<Loaded, u8> {
    load_gated(project, verb, work, true, true)
}

/// As [`load_checked`], for commands that read no fixture (`build`, `plan`,
/// `apply`, `stop`, `status`): a fixture's errors (one that does not parse,
/// or no longer fits a changed model) do not block them; a warning says how
/// many were left to `test`.
pub fn load_checked_past_fixtures(project: &str, verb: &str, work: Work) -> Result<Loaded, u8> {
    load_gated(project, verb, work, false, true)
}

/// As [`load_checked_past_fixtures`], silently: `test --bless` rewrites
/// the fixtures whose errors it passes over.
pub fn load_checked_to_bless(project: &str, verb: &str, work: Work) -> Result<Loaded, u8> {
    load_gated(project, verb, work, false, false)
}

fn load_gated(project: &str, verb: &str, work: Work, fixtures_block: bool, warn_aside: bool) -> Result<Loaded, u8> {
    let is_fixture = |d: &Diagnostic| d.path.as_deref().and_then(classify_path) == Some(FileKind::Fixture);
    let mut loaded = crate::load::load(project);
    let mut aside = 0;
    let mut load_errors = streamform::check::all_load_errors(&loaded.db, loaded.project);
    if !fixtures_block {
        aside += load_errors.iter().filter(|d| is_fixture(d)).count();
        load_errors.retain(|d| !is_fixture(d));
    }
    if !load_errors.is_empty() {
        eprint(&format!("error: could not load project at {}\n\n", loaded.root));
        print_diagnostics_stderr(&loaded, &load_errors);
        return Err(2);
    }
    driver::compile(&mut loaded.db, loaded.project, work);
    let mut errors: Vec<Diagnostic> =
        streamform::check::check_report(&loaded.db, loaded.project).diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    if !fixtures_block {
        aside += errors.iter().filter(|d| is_fixture(d)).count();
        errors.retain(|d| !is_fixture(d));
    }
    if !errors.is_empty() {
        let n = errors.len();
        eprint(&format!("error: project has {n} error{}; fix them before {verb}\n\n", if n == 1 { "" } else { "s" }));
        print_diagnostics_stderr(&loaded, &errors);
        return Err(2);
    }
    if aside > 0 && warn_aside {
        eprint(&format!(
            "warning: {aside} fixture error{} left aside; {verb} does not read fixtures (`streamform test` reports them)\n",
            if aside == 1 { "" } else { "s" }
        ));
    }
    Ok(loaded)
}

/// A project loaded free of errors, its configuration, and the selected
/// target's parts, for `apply`, `stop` and `status`. Prints why not and
/// returns the exit code (2).
pub fn open_target(project: &str, target: Option<&str>, verb: &str) -> Result<(Loaded, streamform::config::project::ProjectConfig, crate::deploy::Target), u8> {
    let loaded = load_checked_past_fixtures(project, verb, Work::All)?;
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
