//! The `streamform` command line.

mod atomic;
mod commands;
mod deploy;
mod files;
mod load;
mod lsp;
mod out;
mod render;
mod watch;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// mimalloc: the compiler makes many small allocations per model; glibc's
// malloc spent ~20% of a 10k-model run consolidating and kept more RSS.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "streamform", version, about = "Compile, check and inspect streaming SQL projects", arg_required_else_help = true, override_usage = "streamform <COMMAND>")]
struct Cli {
    /// Colour for diagnostics, verdicts and test results: auto (at a terminal, unless NO_COLOR is set), always, never
    #[arg(long, global = true, value_enum, default_value = "auto", value_name = "WHEN")]
    color: render::color::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load and validate the project; list models, sources and fixtures, and every diagnostic
    Check {
        #[command(flatten)]
        project: ProjectArg,
        /// Treat warnings as errors (the ones streamform.yml allows do not count)
        #[arg(long)]
        strict: bool,
        /// Also show the warnings streamform.yml allows, each with its reason
        #[arg(long, short = 'v')]
        verbose: bool,
        /// Print the check report as JSON (the same as `--format json`)
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// How to print the report: text, json, github (Actions annotations) or sarif (SARIF 2.1.0)
        #[arg(long, value_enum, default_value = "text")]
        format: commands::check::Format,
    },
    /// Print the plan identity of one model, or of all models and the application digest
    InspectPlan {
        /// The model to show (all models in dependency order when omitted)
        model: Option<String>,
        /// Only these models: `m`, `m+` (and downstream), `+m` (and upstream), `source:s` (its readers); repeatable
        #[arg(long, short = 's', value_name = "SELECTOR", conflicts_with = "model")]
        select: Vec<String>,
        #[command(flatten)]
        project: ProjectArg,
        /// Print the plan manifest (or the model's slice of it)
        #[arg(long)]
        json: bool,
    },
    /// Show the plan operator by operator, with the state fingerprint of each keyed operator
    Explain {
        /// The model to show (all models in dependency order when omitted)
        model: Option<String>,
        /// Only these models: `m`, `m+` (and downstream), `+m` (and upstream), `source:s` (its readers); repeatable
        #[arg(long, short = 's', value_name = "SELECTOR", conflicts_with = "model")]
        select: Vec<String>,
        #[command(flatten)]
        project: ProjectArg,
        /// Print the model's slice of the manifest
        #[arg(long)]
        json: bool,
    },
    /// Show sources, models, sinks and their edges
    Graph {
        #[command(flatten)]
        project: ProjectArg,
        /// `text` for people, `dot` for Graphviz
        #[arg(long, value_enum, default_value = "text")]
        format: commands::graph::GraphFormat,
        /// Print the graph document
        #[arg(long)]
        json: bool,
    },
    /// Compare the running plan with the project's and classify every change
    Plan {
        #[command(flatten)]
        project: ProjectArg,
        /// The target whose applied record is the running plan (needed when several are declared) [env: STREAMFORM_TARGET, unless --against]
        #[arg(long, value_name = "NAME", conflicts_with = "against")]
        target: Option<String>,
        /// Compare with this plan manifest or applied record instead (its digests are verified)
        #[arg(long, value_name = "FILE")]
        against: Option<String>,
        /// Print the diff document
        #[arg(long)]
        json: bool,
        /// Write a deploy plan for the target (needs a reachable Flink SQL Gateway)
        #[arg(long, value_name = "FILE", conflicts_with = "against")]
        out: Option<String>,
    },
    /// Deploy the project to a target through its Flink SQL Gateway
    Apply {
        #[command(flatten)]
        project: ProjectArg,
        /// The target (required when streamform.yml declares several)
        #[arg(long, env = "STREAMFORM_TARGET", value_name = "NAME")]
        target: Option<String>,
        /// Apply this saved deploy plan (`plan --out`); refused when stale
        #[arg(long, value_name = "FILE")]
        plan: Option<String>,
        /// Do not ask before acting (it never asks when stdin is not a terminal)
        #[arg(long)]
        yes: bool,
        /// Apply a plan that discards state (STATE INCOMPATIBLE, BACKFILL REQUIRED, a rebuild)
        #[arg(long)]
        allow_state_loss: bool,
        /// Roll back: restore this savepoint (one streamform took, e.g. before a rebuild) into the project, which must be the application that wrote it
        #[arg(long, value_name = "PATH", conflicts_with = "plan")]
        from_savepoint: Option<String>,
    },
    /// Stop the target's job with a savepoint into flink.savepoint_dir
    Stop {
        #[command(flatten)]
        project: ProjectArg,
        /// The target whose job to stop (required when streamform.yml declares several)
        #[arg(long, env = "STREAMFORM_TARGET", value_name = "NAME")]
        target: Option<String>,
        /// Cancel without a savepoint: the job's state is lost
        #[arg(long)]
        discard_state: bool,
    },
    /// Show what runs on a target
    Status {
        #[command(flatten)]
        project: ProjectArg,
        /// The target to look at (required when streamform.yml declares several)
        #[arg(long, env = "STREAMFORM_TARGET", value_name = "NAME")]
        target: Option<String>,
        /// Print the status document
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON Schema of a document Streamform reads or writes
    Schema {
        /// The document (all documents are listed when omitted)
        doc: Option<String>,
        /// List the documents with their schema versions
        #[arg(long)]
        list: bool,
        /// Fail unless this Streamform speaks this version of the document
        #[arg(long)]
        version: Option<u32>,
    },
    /// Compile, print every model's plan identity, then reprint only what changes as files are edited
    Watch {
        #[command(flatten)]
        project: ProjectArg,
        /// Rerun the fixtures of models whose plan changed
        #[arg(long)]
        test: bool,
        /// Print one JSON event per change (for editor integrations)
        #[arg(long)]
        json: bool,
        /// Print no plan blocks at startup (a project of over 50 models prints none anyway), only what each edit changes
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Quiet period that ends a burst of file events, in milliseconds (at most 50)
        #[arg(long, default_value_t = watch::DEFAULT_DEBOUNCE_MS, value_parser = clap::value_parser!(u64).range(0..=watch::MAX_DEBOUNCE_MS))]
        debounce_ms: u64,
    },
    /// Serve the Language Server Protocol over stdio, for editors (diagnostics, hover, definitions, completion, rename)
    Lsp {
        #[command(flatten)]
        project: ProjectArg,
        /// Speak over stdin and stdout (the only transport; accepted because editors pass it)
        #[arg(long)]
        stdio: bool,
    },
    /// Run fixtures on the simulator and assert the exact changelog, late and quarantined events
    Test {
        #[command(flatten)]
        project: ProjectArg,
        /// Only the fixtures of this model (repeatable)
        #[arg(long, value_name = "MODEL")]
        model: Vec<String>,
        /// Only the fixtures of these models: `m`, `m+` (and downstream), `+m` (and upstream), `source:s` (its readers); repeatable
        #[arg(long, short = 's', value_name = "SELECTOR")]
        select: Vec<String>,
        /// Run this fixture file instead of tests/ (repeatable; `-` reads stdin)
        #[arg(long)]
        fixture: Vec<String>,
        /// Accept what the simulator emits: rewrite the `expect`, `late` and `quarantined` lists of every failing fixture, keeping the rest of each file
        #[arg(long, alias = "update")]
        bless: bool,
        /// Show every fixture's block at a terminal too (a passing one is a line there; pipes always get every block)
        #[arg(long, short = 'v')]
        verbose: bool,
        /// Print the test report as JSON
        #[arg(long)]
        json: bool,
    },
    /// Run the whole application on the simulator over files: <source>.jsonl in, changelogs and final tables out
    Run {
        #[command(flatten)]
        project: ProjectArg,
        /// Directory with one `<source>.jsonl` per source
        #[arg(long)]
        input: String,
        /// Directory to write `<model>.changelog.jsonl` and `<model>.table.jsonl` to
        #[arg(long)]
        output: String,
    },
    /// Generate the Flink SQL application (build/flink/) and the plan manifest (build/plan.json)
    Build {
        /// The engine to generate for
        #[arg(long, value_enum, default_value = "flink")]
        backend: commands::build::Backend,
        /// The deployment target whose connection settings the script uses (required when streamform.yml declares several)
        #[arg(long, env = "STREAMFORM_TARGET", value_name = "NAME")]
        target: Option<String>,
        #[command(flatten)]
        project: ProjectArg,
        /// Only these models' sinks (with the views they read), into build/flink/selected.sql: `m`, `m+`, `+m`, `source:s`; repeatable
        #[arg(long, short = 's', value_name = "SELECTOR")]
        select: Vec<String>,
        /// Print the script instead of writing build/
        #[arg(long)]
        stdout: bool,
    },
    /// Create a small working project
    Init {
        /// Where to create it (default: the current directory); the project is named after it
        dir: Option<String>,
    },
    /// Print a shell completion script: `streamform completions bash > ~/.local/share/bash-completion/completions/streamform`
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// `-p/--project`: which project a command works on.
#[derive(clap::Args)]
struct ProjectArg {
    /// The project directory [default: the nearest directory holding streamform.yml, from here upward]
    #[arg(short = 'p', long = "project", env = "STREAMFORM_PROJECT", value_name = "DIR")]
    dir: Option<String>,
}

impl ProjectArg {
    /// The directory named, or the nearest one from the current directory
    /// upward that holds streamform.yml (as cargo and git find theirs),
    /// written relative to here (`.`, `..`, `../..`) so paths in messages
    /// stay short. With none found it is `.`, which reports the missing file.
    fn resolve(self) -> String {
        if let Some(dir) = self.dir {
            return dir;
        }
        let Ok(here) = std::env::current_dir() else { return ".".into() };
        let mut up = String::from(".");
        for (depth, dir) in here.ancestors().enumerate() {
            if dir.join(streamform::project::CONFIG_FILE).is_file() {
                return up;
            }
            up = if depth == 0 { "..".into() } else { format!("{up}/..") };
        }
        ".".into()
    }
}

fn main() -> ExitCode {
    // The command runs with the driver's stack: it computes some queries
    // itself (explain's text, the Flink script, a fixture run), which
    // recurse once per level of a model's expressions as the driver's do.
    let command = std::thread::Builder::new().stack_size(streamform::driver::STACK_SIZE).spawn(run).expect("the command's thread starts");
    command.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Watch { .. } | Command::Lsp { .. } | Command::Test { .. } | Command::Run { .. }) {
        small_pages();
    }
    render::color::init(cli.color);
    let code = match cli.command {
        Command::Check { project, strict, verbose, json, format } => commands::check::run(&project.resolve(), strict, verbose, if json { commands::check::Format::Json } else { format }),
        Command::InspectPlan { model, select, project, json } => commands::inspect::inspect_plan(&project.resolve(), model.as_deref(), &select, json),
        Command::Explain { model, select, project, json } => commands::inspect::explain(&project.resolve(), model.as_deref(), &select, json),
        Command::Graph { project, format, json } => commands::graph::run(&project.resolve(), format, json),
        Command::Plan { project, target, against, json, out } => commands::plan::run(&commands::plan::Args {
            project: project.resolve(),
            // Read here, not by clap: an exported target must not conflict with --against.
            target: target.or_else(|| against.is_none().then(|| std::env::var("STREAMFORM_TARGET").ok()).flatten()),
            against,
            json,
            out,
        }),
        Command::Apply { project, target, plan, yes, allow_state_loss, from_savepoint } => {
            commands::apply::run(&commands::apply::Args { project: project.resolve(), target, plan, yes, allow_state_loss, from_savepoint })
        }
        Command::Stop { project, target, discard_state } => commands::stop::run(&project.resolve(), target.as_deref(), discard_state),
        Command::Status { project, target, json } => commands::status::run(&project.resolve(), target.as_deref(), json),
        Command::Schema { doc, list, version } => commands::schema::run(doc.as_deref(), list, version),
        Command::Lsp { project, stdio: _ } => lsp::run(project.dir.clone(), &project.resolve()),
        Command::Watch { project, test, json, quiet, debounce_ms } => {
            watch::run(&project.resolve(), watch::Options { json, test, quiet, debounce: std::time::Duration::from_millis(debounce_ms) })
        }
        Command::Test { project, model, select, fixture, json, bless, verbose } => {
            // A model name is a selector of just that model.
            commands::test::run(&project.resolve(), &[model, select].concat(), &fixture, json, bless, verbose)
        }
        Command::Run { project, input, output } => commands::run::run(&project.resolve(), &input, &output),
        Command::Build { backend, target, project, select, stdout } => commands::build::run(&project.resolve(), backend, target.as_deref(), &select, stdout),
        Command::Init { dir } => commands::init::run(dir.as_deref().unwrap_or(".")),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "streamform", &mut out);
            out::print(&String::from_utf8_lossy(&out));
            0
        }
    };
    ExitCode::from(code)
}

/// A command that compiles the project once and exits does without
/// transparent huge pages: the kernel zeroing a 2 MiB page at each first
/// touch was a third of `check`'s system time at 10,000 models. `watch` and
/// `lsp` keep them (their re-verification walks memos all over the heap,
/// and huge pages spare it TLB misses), as do `test` and `run`, whose
/// simulator state lives as long as their input.
fn small_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only how
    // this process's future page faults are served.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every flag and argument of every command says what it is for in
    /// `--help`: a flag with no help line is a question the user has to ask.
    #[test]
    fn every_argument_has_a_help_line() {
        let cli = super::Cli::command();
        let mut missing = Vec::new();
        for cmd in cli.get_subcommands() {
            for arg in cmd.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{} {}", cmd.get_name(), arg.get_id()));
                }
            }
            if cmd.get_about().is_none() {
                missing.push(cmd.get_name().to_string());
            }
        }
        assert!(missing.is_empty(), "no help line: {missing:?}");
    }

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
