//! `--test`: which fixtures to rerun after a change, and the seam the
//! simulator plugs into.
//!
//! The simulator is being built on another branch. When it lands, implement
//! [`FixtureRunner`] over it and return it from [`runner`]; selection,
//! printing and the JSON events already carry the results.

use streamform::check::fixture;
use streamform::{Database, Project, SourceFile};

/// One fixture file's outcome.
#[derive(Clone, Debug)]
pub struct FixtureRun {
    pub path: String,
    pub model: String,
    pub passed: bool,
    /// The rendered report (the failure table when it failed).
    pub report: String,
}

pub trait FixtureRunner {
    /// Runs one fixture file against the database's current revision.
    fn run(&mut self, db: &Database, project: Project, fixture: SourceFile) -> FixtureRun;
}

/// The fixture runner of this build: none until the simulator exists.
pub fn runner() -> Option<Box<dyn FixtureRunner>> {
    None
}

/// A fixture selected for a rerun.
#[derive(Clone, Debug)]
pub struct Selected {
    pub file: SourceFile,
    pub path: String,
    pub model: String,
}

/// The fixtures of the models whose plan changed, and the fixture files
/// that changed themselves, in path order. Fixtures that do not decode are
/// left to the diagnostics.
pub fn select(db: &Database, project: Project, replanned: &[String], changed: &[&str]) -> Vec<Selected> {
    project
        .fixture_files(db)
        .iter()
        .filter_map(|&f| {
            let fx = fixture(db, f).as_ref().ok()?;
            let path = f.path(db);
            (replanned.contains(&fx.model) || changed.contains(&path.as_str())).then(|| Selected { file: f, path: path.clone(), model: fx.model.clone() })
        })
        .collect()
}

/// What `--test` did for one revision.
#[derive(Clone, Debug, Default)]
pub struct TestOutcome {
    pub selected: Vec<(String, String)>,
    /// None when this build has no simulator.
    pub runs: Option<Vec<FixtureRun>>,
}

pub fn run_selected(runner: Option<&mut Box<dyn FixtureRunner>>, db: &Database, project: Project, selected: Vec<Selected>) -> TestOutcome {
    let pairs = selected.iter().map(|s| (s.path.clone(), s.model.clone())).collect();
    let runs = runner.map(|r| selected.iter().map(|s| r.run(db, project, s.file)).collect());
    TestOutcome { selected: pairs, runs }
}
