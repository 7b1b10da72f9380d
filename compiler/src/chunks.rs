//! Whole-project queries (the check report, the dependency graph, the
//! manifest and its digest) read models in fixed runs, one query per run,
//! instead of one by one. After an edit salsa re-verifies a few dozen run
//! queries, and walks into only the edited model's run, instead of
//! checking every model's memos: on 10,000 models that is the difference
//! between milliseconds and a tenth of a second per keystroke.

use std::ops::Range;

use crate::db::{Database, Db, Project};
use crate::project::model_names;

/// At least this many models per run; runs grow past it so that there are
/// never more than [`MAX_RUNS`] (the digest chains one run to the next).
const MIN_RUN: usize = 128;
const MAX_RUNS: usize = 256;

fn run_len(models: usize) -> usize {
    MIN_RUN.max(models.div_ceil(MAX_RUNS))
}

/// How many runs `models` items make.
pub fn count(models: usize) -> u32 {
    models.div_ceil(run_len(models)) as u32
}

/// The item positions of run `index`.
pub fn range(models: usize, index: u32) -> Range<usize> {
    let len = run_len(models);
    let start = (index as usize * len).min(models);
    start..(start + len).min(models)
}

/// How many runs the project's models make.
pub fn model_runs(db: &dyn Db, project: Project) -> u32 {
    count(model_names(db, project).len())
}

/// Brings one run's queries up to date (the check report's, the dependency
/// graph's and the manifest's). Callers spread the runs over threads, so
/// that after an edit that re-verifies every model the work is shared.
pub fn refresh_run(db: &dyn Db, project: Project, run: u32) {
    let _ = crate::graph::run_upstream(db, project, run);
    let _ = crate::check::run_checks(db, project, run);
    let _ = crate::manifest::manifest_run(db, project, run);
}

/// Brings every run, the manifest and the check report up to date on
/// `threads` threads. After a file's first edit in a long session salsa
/// re-verifies every model's memos (the edit lowers the file's durability);
/// the runs are independent, so the work divides. Helper threads take runs
/// from the last one back while this thread builds the manifest (plan order,
/// the digest chained from the first run) and the check report.
pub fn refresh_parallel(db: &Database, project: Project, threads: u32) {
    let runs = model_runs(db, project);
    let helpers = threads.saturating_sub(1).min(runs.saturating_sub(1));
    std::thread::scope(|scope| {
        for t in 0..helpers {
            let db = db.clone();
            scope.spawn(move || (0..runs).rev().skip(t as usize).step_by(helpers as usize).for_each(|r| refresh_run(&db, project, r)));
        }
        let _ = crate::manifest::manifest(db, project);
        let _ = crate::check::check_report(db, project);
    });
}

/// The run of the item at `position`, and its offset in the run.
pub fn locate(models: usize, position: usize) -> (u32, usize) {
    let len = run_len(models);
    ((position / len) as u32, position % len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_every_item_once() {
        for models in [0, 1, 127, 128, 129, 1000, 10_000, 100_000] {
            let mut next = 0;
            for k in 0..count(models) {
                let r = range(models, k);
                assert_eq!(r.start, next, "{models} models, run {k}");
                assert!(!r.is_empty());
                assert_eq!(locate(models, r.start), (k, 0));
                assert_eq!(locate(models, r.end - 1), (k, r.len() - 1));
                next = r.end;
            }
            assert_eq!(next, models);
            assert!(count(models) as usize <= MAX_RUNS);
        }
    }
}
