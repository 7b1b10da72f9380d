//! Golden tests: every project under testdata/projects/ through the built
//! binary, compared with the files in its `expected/` folder
//! (`UPDATE_EXPECT=1 cargo test` rewrites them). A simulator project
//! (testdata/sim/) whose `expected/` holds an `inspect_plan.txt` is one too:
//! its fixtures and its plan are kept in one place.

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect_file;

/// The commands whose output is recorded, and the file each goes to.
const COMMANDS: &[(&str, &[&str])] = &[
    ("inspect_plan.txt", &["inspect-plan"]),
    ("inspect_plan.json", &["inspect-plan", "--json"]),
    ("explain.txt", &["explain"]),
];

fn projects_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/projects")
}

fn projects() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(projects_dir())
        .expect("testdata/projects exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.join("streamform.yml").is_file())
        .collect();
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/sim");
    out.extend(std::fs::read_dir(sim).expect("testdata/sim exists").map(|e| e.expect("readable entry").path()).filter(|p| p.join("expected/inspect_plan.txt").is_file()));
    out.sort();
    assert!(!out.is_empty(), "no projects under testdata/projects");
    out
}

/// Runs the binary in `project`, as a user would (`--project .` default).
fn run(project: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(project).output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "`streamform {}` in {} failed ({}):\n{stderr}", args.join(" "), project.display(), out.status);
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn golden_outputs() {
    for project in projects() {
        let expected = project.join("expected");
        std::fs::create_dir_all(&expected).expect("expected/ can be created");
        for (file, args) in COMMANDS {
            let out = run(&project, args);
            expect_file![expected.join(file)].assert_eq(&out);
        }
    }
}

#[test]
fn outputs_are_byte_identical_across_runs() {
    for project in projects() {
        for (_, args) in COMMANDS {
            let first = run(&project, args);
            assert_eq!(run(&project, args), first, "`streamform {}` in {} is not deterministic", args.join(" "), project.display());
        }
    }
}

/// Seed 000's block for the spec's reference example, verbatim.
const SEED_000_BLOCK: &str = "\
customer_metrics
  materialized=upsert key=[customer_id]
  output=customer_metrics::sink::0

  customer_metrics::source::0  Source
    definition=orders (kafka orders)
    schema=[amount: decimal(38,9), customer_id: int64]  digest=55c5eb27e8b4
    boundedness=unbounded changelog=append
    state=stateless

  customer_metrics::aggregate::0  Aggregate
    definition=key=[customer_id] aggregates=[sum(amount)]
    schema=[customer_id: int64, sum(amount): decimal(38,9)]  digest=322eb3aa5330
    boundedness=unbounded changelog=upsert(customer_id)
    state=keyed key=[customer_id] accumulators=[sum(amount): decimal(38,9)] retention=unbounded
    state digest=4aead023aa01

  customer_metrics::project::0  Project
    definition=customer_id, sum(amount) AS total_spend
    schema=[customer_id: int64, total_spend: decimal(38,9)]  digest=7fac6038b2ce
    boundedness=unbounded changelog=upsert(customer_id)
    state=stateless

  customer_metrics::sink::0  Sink
    definition=upsert kafka customer-metrics
    schema=[customer_id: int64, total_spend: decimal(38,9)]  digest=7fac6038b2ce
    boundedness=unbounded changelog=upsert(customer_id)
    state=stateless
";

#[test]
fn reference_example_matches_the_spec() {
    let project = projects_dir().join("reference");
    let text = run(&project, &["inspect-plan"]);
    assert_eq!(text, format!("{SEED_000_BLOCK}\napplication digest=7b0d9542cf02\n"));
    let json: serde_json::Value = serde_json::from_str(&run(&project, &["inspect-plan", "--json"])).expect("the manifest is JSON");
    assert_eq!(json["application_digest"], "7b0d9542cf025f951f1b9700f20e6ba0bb3580a70626475859dd0be6f94ced71");
    // The single-model form prints the block alone.
    assert_eq!(run(&project, &["inspect-plan", "customer_metrics"]), SEED_000_BLOCK);
}
