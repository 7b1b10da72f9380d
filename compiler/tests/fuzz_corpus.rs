//! Replays every fuzz target's regression corpus (compiler/fuzz/regressions/
//! <target>/) through the entry points the targets call, on stable and
//! without libFuzzer: an input that once crashed a target fails this test
//! if it crashes again. `just fuzz TARGET` runs a target for real.

#[path = "../fuzz/src/entry.rs"]
mod entry;
#[path = "../fuzz/src/gen.rs"]
mod gen;

use std::path::Path;

/// Each target by its name in compiler/fuzz/Cargo.toml.
const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("sql", entry::sql),
    ("structured", gen::structured),
    ("graph", gen::graph),
    ("config", entry::config),
    ("fixture", entry::fixture),
    ("jsonl", entry::jsonl),
    ("manifest", entry::manifest_reader),
    ("deploy", entry::deploy),
    ("savepoint", entry::savepoint),
];

#[test]
fn every_regression_input_runs_through_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut ran = 0;
    for (name, run) in TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.expect("entry").path()).collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "target {name} has no regression inputs");
        for path in inputs {
            let data = std::fs::read(&path).expect("readable");
            // A panic names the input; a stack overflow aborts the test binary.
            eprintln!("{}", path.display());
            // With the stack the CLI gives a command (the Flink script and a
            // fixture run are computed on the calling thread).
            let run = *run;
            std::thread::Builder::new().stack_size(streamform::driver::STACK_SIZE).spawn(move || run(&data)).expect("spawns").join().expect("no panic");
            ran += 1;
        }
    }
    assert!(ran >= TARGETS.len());
}

/// The fixed project every target but `structured` runs its input through
/// must itself load and check clean: with a broken sources.yml, every input
/// would stop at the same load error and the targets would test nothing.
#[test]
fn the_fixed_projects_check_clean() {
    use streamform::check::{all_load_errors, check_report};
    let model = [("models/m.sql", "SELECT id, amount, score, ts FROM source('orders')")];
    for (config, models) in [(entry::CONFIG, &model[..]), (entry::PROJECT, entry::MODELS)] {
        let mut files = vec![("streamform.yml", config), ("sources.yml", entry::SOURCES)];
        files.extend_from_slice(models);
        let mut db = streamform::db::Database::default();
        let p = entry::project(&db, &files);
        streamform::driver::compile(&mut db, p, streamform::driver::Work::All);
        assert_eq!(all_load_errors(&db, p), vec![], "the fixed project does not load");
        let report = check_report(&db, p);
        assert_eq!(report.errors(), 0, "the fixed project does not check: {:?}", report.diagnostics);
    }
}
