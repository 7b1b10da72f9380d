//! `--test`: after each change, rerun on the simulator the fixtures whose
//! result may have changed: those whose model, or a model or source
//! upstream of it, now plans differently, and the fixture files that
//! changed themselves.

use std::collections::HashMap;
use std::sync::Arc;

use streamform::check::fixture;
use streamform::plan::node::ModelPlan;
use streamform::sim::dataflow::SourceSpec;
use streamform::sim::{inputs_to, source_spec};
use streamform::sim::{fixture_report, fixture_rows, RowReport};
use streamform::{Database, Project, SourceName};

use crate::render::test::{collected, fixture_detail};

/// One fixture file's outcome.
#[derive(Clone, Debug)]
pub struct FixtureRun {
    pub path: String,
    pub model: String,
    pub passed: bool,
    /// The counts and, when it failed, the expected/actual table (indented).
    pub report: String,
}

/// What `--test` did for one revision.
#[derive(Clone, Debug, Default)]
pub struct TestOutcome {
    pub runs: Vec<FixtureRun>,
}

/// What each fixture ran against last time: its source and the plans from
/// the source down to its model.
type Inputs = Option<(Vec<Option<SourceSpec>>, Vec<Arc<ModelPlan>>)>;

#[derive(Default)]
pub struct Fixtures {
    last: HashMap<String, Inputs>,
}

impl Fixtures {
    /// Reruns what may have changed; `changed` are the fixture files whose
    /// text changed. Fixtures that do not decode are left to the diagnostics.
    pub fn rerun(&mut self, db: &Database, project: Project, changed: &[&str]) -> TestOutcome {
        let mut runs = Vec::new();
        let mut seen = HashMap::with_capacity(self.last.len());
        for &file in project.fixture_files(db) {
            let path = file.path(db).clone();
            let Ok(fx) = fixture(db, file) else { continue };
            let inputs: Inputs = inputs_to(db, project, &fx.model).map(|(sources, chain)| (sources.into_iter().map(|s| source_spec(db, project, SourceName::new(db, s)).clone()).collect(), chain));
            let same = self.last.get(&path).is_some_and(|old| same_inputs(old, &inputs));
            if !same || changed.contains(&path.as_str()) {
                let run = match fixture_report(db, project, file) {
                    Some(r) => {
                        let rows = |visit: &mut dyn FnMut(RowReport)| {
                            fixture_rows(db, project, file, visit);
                        };
                        let report = collected(|out| fixture_detail(r, &rows, out));
                        FixtureRun { path: path.clone(), model: r.model.clone(), passed: r.passed, report: indent(&report) }
                    }
                    None => FixtureRun {
                        path: path.clone(),
                        model: fx.model.clone(),
                        passed: false,
                        report: format!("  not run: model `{}` or this fixture has errors (see the diagnostics)\n", fx.model),
                    },
                };
                runs.push(run);
            }
            seen.insert(path, inputs);
        }
        self.last = seen;
        TestOutcome { runs }
    }
}

fn same_inputs(old: &Inputs, new: &Inputs) -> bool {
    match (old, new) {
        (Some((s1, c1)), Some((s2, c2))) => s1 == s2 && c1.len() == c2.len() && c1.iter().zip(c2).all(|(a, b)| Arc::ptr_eq(a, b) || a == b),
        (None, None) => true,
        _ => false,
    }
}

/// The report under its `test … FAILED` line, indented.
fn indent(text: &str) -> String {
    text.lines().map(|l| if l.is_empty() { "\n".to_string() } else { format!("  {l}\n") }).collect()
}
