//! The `streamform` command line.

mod atomic;
mod commands;
mod deploy;
mod files;
mod load;
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
#[command(name = "streamform", version, about = "Compile, check and inspect streaming SQL projects", arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load and validate the project; list models, sources and fixtures, and every diagnostic
    Check {
        #[arg(long, default_value = ".")]
        project: String,
        /// Treat warnings as errors
        #[arg(long)]
        strict: bool,
        /// Print the check report as JSON
        #[arg(long)]
        json: bool,
    },
    /// Print the plan identity of one model, or of all models and the application digest
    InspectPlan {
        /// The model to show (all models in dependency order when omitted)
        model: Option<String>,
        #[arg(long, default_value = ".")]
        project: String,
        /// Print the plan manifest (or the model's slice of it)
        #[arg(long)]
        json: bool,
    },
    /// Show the plan operator by operator, with the state fingerprint of each keyed operator
    Explain {
        model: Option<String>,
        #[arg(long, default_value = ".")]
        project: String,
        /// Print the model's slice of the manifest
        #[arg(long)]
        json: bool,
    },
    /// Show sources, models, sinks and their edges
    Graph {
        #[arg(long, default_value = ".")]
        project: String,
        #[arg(long, value_enum, default_value = "text")]
        format: commands::graph::GraphFormat,
        #[arg(long)]
        json: bool,
    },
    /// Compare the running plan with the project's and classify every change
    Plan {
        #[arg(long, default_value = ".")]
        project: String,
        /// The target whose applied record is the running plan (needed when several are declared)
        #[arg(long, conflicts_with = "against")]
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
        #[arg(long, default_value = ".")]
        project: String,
        /// The target (required when streamform.yml declares several)
        #[arg(long)]
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
    },
    /// Stop the target's job with a savepoint into flink.savepoint_dir
    Stop {
        #[arg(long, default_value = ".")]
        project: String,
        #[arg(long)]
        target: Option<String>,
        /// Cancel without a savepoint: the job's state is lost
        #[arg(long)]
        discard_state: bool,
    },
    /// Show what runs on a target
    Status {
        #[arg(long, default_value = ".")]
        project: String,
        #[arg(long)]
        target: Option<String>,
        /// Print the status document
        #[arg(long)]
        json: bool,
    },
    /// Print the JSON Schema of a document Streamform reads or writes
    Schema {
        /// The document (all documents are listed when omitted)
        doc: Option<String>,
        #[arg(long)]
        list: bool,
        #[arg(long)]
        version: Option<u32>,
    },
    /// Compile, print every model's plan identity, then reprint only what changes as files are edited
    Watch {
        #[arg(long, default_value = ".")]
        project: String,
        /// Rerun the fixtures of models whose plan changed
        #[arg(long)]
        test: bool,
        /// Print one JSON event per change (for editor integrations)
        #[arg(long)]
        json: bool,
        /// Quiet period that ends a burst of file events, in milliseconds (at most 50)
        #[arg(long, default_value_t = watch::DEFAULT_DEBOUNCE_MS, value_parser = clap::value_parser!(u64).range(0..=watch::MAX_DEBOUNCE_MS))]
        debounce_ms: u64,
    },
    /// Run fixtures on the simulator and assert the exact changelog, late and quarantined events
    Test {
        #[arg(long, default_value = ".")]
        project: String,
        /// Only the fixtures of this model
        #[arg(long)]
        model: Option<String>,
        /// Run this fixture file instead of tests/ (repeatable; `-` reads stdin)
        #[arg(long)]
        fixture: Vec<String>,
        /// Print the test report as JSON
        #[arg(long)]
        json: bool,
    },
    /// Run the whole application on the simulator over files: <source>.jsonl in, changelogs and final tables out
    Run {
        #[arg(long, default_value = ".")]
        project: String,
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
        #[arg(long, value_enum)]
        backend: commands::build::Backend,
        /// The deployment target (required when streamform.yml declares several)
        #[arg(long)]
        target: Option<String>,
        #[arg(long, default_value = ".")]
        project: String,
        /// Print the script instead of writing build/
        #[arg(long)]
        stdout: bool,
    },
    /// Create a small working project
    Init {
        /// Where to create it (default: the current directory)
        dir: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check { project, strict, json } => commands::check::run(&project, strict, json),
        Command::InspectPlan { model, project, json } => commands::inspect::inspect_plan(&project, model.as_deref(), json),
        Command::Explain { model, project, json } => commands::inspect::explain(&project, model.as_deref(), json),
        Command::Graph { project, format, json } => commands::graph::run(&project, format, json),
        Command::Plan { project, target, against, json, out } => commands::plan::run(&commands::plan::Args { project, target, against, json, out }),
        Command::Apply { project, target, plan, yes, allow_state_loss } => {
            commands::apply::run(&commands::apply::Args { project, target, plan, yes, allow_state_loss })
        }
        Command::Stop { project, target, discard_state } => commands::stop::run(&project, target.as_deref(), discard_state),
        Command::Status { project, target, json } => commands::status::run(&project, target.as_deref(), json),
        Command::Schema { doc, list, version } => commands::schema::run(doc.as_deref(), list, version),
        Command::Watch { project, test, json, debounce_ms } => {
            watch::run(&project, watch::Options { json, test, debounce: std::time::Duration::from_millis(debounce_ms) })
        }
        Command::Test { project, model, fixture, json } => commands::test::run(&project, model.as_deref(), &fixture, json),
        Command::Run { project, input, output } => commands::run::run(&project, &input, &output),
        Command::Build { backend, target, project, stdout } => commands::build::run(&project, backend, target.as_deref(), stdout),
        Command::Init { dir } => commands::init::run(dir.as_deref().unwrap_or(".")),
    };
    ExitCode::from(code)
}
