//! `streamform watch`: compile once, then keep one salsa database up to
//! date with the project's files and print only what changed.
//!
//! - [`crate::files`]: the files table (paths → input handles), applying a
//!   batch of changed paths.
//! - [`events`]: the notify watcher and the debouncer.
//! - [`view`]: what was printed, and the delta of a revision.
//! - [`render`]: the text and JSON output of a revision.
//! - [`fixtures`]: `--test`, fixtures rerun on the simulator.

pub mod events;
pub mod fixtures;
pub mod render;
pub mod view;

#[cfg(test)]
pub(crate) mod tests;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use streamform::driver::{self, Work};
use streamform::Database;

use crate::out::{closed, eprint, print, print_text};
use crate::files::{Batch, ChangeKind, FileChange, Files};
use fixtures::{Fixtures, TestOutcome};
use render::Revision;
use view::{Delta, View};

/// The default quiet period that ends a burst of events.
pub const DEFAULT_DEBOUNCE_MS: u64 = 30;
/// The longest quiet period accepted: past this, watch stops feeling instant.
pub const MAX_DEBOUNCE_MS: u64 = 50;

pub struct Options {
    pub json: bool,
    pub test: bool,
    pub debounce: Duration,
    /// Print no plan blocks at startup, only what changes after it.
    pub quiet: bool,
}

/// Past this many models, the startup prints a summary instead of every
/// model's block: thousands of lines bury what the next edit prints.
pub const STARTUP_BLOCKS_MAX: usize = 50;

/// One revision's result.
pub struct Step {
    pub changes: Vec<FileChange>,
    pub delta: Delta,
    pub tests: Option<TestOutcome>,
    pub notes: Vec<(String, String)>,
    pub elapsed: Duration,
}

impl Step {
    pub fn revision(&self, initial: bool) -> Revision<'_> {
        Revision { changes: &self.changes, initial, blocks: true, elapsed: self.elapsed, delta: &self.delta, tests: self.tests.as_ref(), notes: &self.notes }
    }
}

/// The database, the files table and the printed view, across revisions.
pub struct Session {
    pub db: Database,
    pub files: Files,
    view: View,
    /// Kept only under `--test`.
    fixtures: Option<Fixtures>,
}

impl Session {
    pub fn new(db: Database, root: &str, test: bool) -> Session {
        let files = Files::load_live(&db, root);
        Session { db, files, view: View::default(), fixtures: test.then(Fixtures::default) }
    }

    /// The first compile: every model's block.
    pub fn initial(&mut self) -> Step {
        let t = Instant::now();
        driver::compile(&mut self.db, self.files.project, Work::All);
        let delta = self.view.update(&self.db, &self.files, &HashSet::new());
        let tests = self.tests(&delta, &[]);
        Step { changes: Vec::new(), delta, tests, notes: Vec::new(), elapsed: t.elapsed() }
    }

    /// Applies a batch of changed paths; None when no input changed (an
    /// editor's temporary file, a save without edits).
    pub fn step(&mut self, batch: &Batch) -> Option<Step> {
        let t = Instant::now();
        let changes = self.files.apply(&mut self.db, batch);
        let notes = self.files.take_unreadable_notes();
        if changes.is_empty() && notes.is_empty() {
            return None;
        }
        let mut touched: HashSet<&str> = HashSet::new();
        for c in &changes {
            touched.insert(&c.path);
            if let ChangeKind::Renamed { from } = &c.kind {
                touched.insert(from);
            }
        }
        // The reprint is made while a helper thread hashes the manifest.
        let (db, files, view) = (&self.db, &self.files, &mut self.view);
        let delta = driver::refresh_then(db, files.project, Work::All, Some(|| view.update(db, files, &touched))).expect("the view is updated");
        let changed_fixtures: Vec<&str> = changes.iter().map(|c| c.path.as_str()).filter(|p| p.starts_with("tests/")).collect();
        let tests = self.tests(&delta, &changed_fixtures);
        drop(touched);
        Some(Step { changes, delta, tests, notes, elapsed: t.elapsed() })
    }

    /// After a revision is printed: what it replaced and what the LRU
    /// evicts is freed now, while nobody waits, rather than at the start
    /// of the next edit (about 15 ms after a revision that re-planned a
    /// thousand models).
    pub fn tidy(&mut self) {
        driver::tidy(&mut self.db);
    }

    fn tests(&mut self, delta: &Delta, changed_fixtures: &[&str]) -> Option<TestOutcome> {
        if !delta.loaded {
            return None;
        }
        Some(self.fixtures.as_mut()?.rerun(&self.db, self.files.project, changed_fixtures))
    }

    pub fn retry_at(&self) -> Option<Instant> {
        self.files.retry_at()
    }
}

/// `buf`: the text output's buffer, kept across revisions.
fn emit(opts: &Options, step: &Step, initial: bool, buf: &mut String) {
    let mut r = step.revision(initial);
    r.blocks = !initial || !(opts.quiet || step.delta.model_count > STARTUP_BLOCKS_MAX);
    if opts.json {
        print(&render::json_event(&r));
    } else {
        render::text_into(&r, buf);
        print_text(buf);
    }
}

pub fn run(project: &str, opts: Options) -> u8 {
    if !std::path::Path::new(project).is_dir() {
        eprint(&format!("error: no project directory at {project}\n"));
        return 2;
    }
    // Watch before the first scan, so nothing written meanwhile goes unseen.
    let mut watcher = match events::Watcher::new(std::path::Path::new(project)) {
        Ok(w) => w,
        Err(e) => {
            eprint(&format!("error: cannot watch {project}: {e}\n"));
            return 2;
        }
    };
    // STREAMFORM_WATCH_TRACE=1: after each revision, stderr gets the queries
    // salsa executed, counted by query (for finding incrementality gaps).
    let trace = std::env::var_os("STREAMFORM_WATCH_TRACE").is_some_and(|v| v != "0");
    let db = if trace { Database::with_execution_log() } else { Database::default() };
    let mut session = Session::new(db, project, opts.test);
    let first = session.initial();
    let mut buf = String::new();
    emit(&opts, &first, true, &mut buf);
    session.tidy();
    if trace {
        trace_executed(&session.db);
    }
    if !opts.json {
        eprint(&format!("watching {} (streamform.yml, sources.yml, models/, tests/); press Ctrl-C to stop\n", watcher.root().display()));
    }
    loop {
        if closed() {
            return 0;
        }
        let Some(batch) = watcher.next_batch(opts.debounce, session.retry_at()) else {
            eprint("error: the file watcher stopped\n");
            return 1;
        };
        if let Some(step) = session.step(&batch) {
            emit(&opts, &step, false, &mut buf);
            session.tidy();
        }
        if trace {
            trace_executed(&session.db);
        }
    }
}

/// The trace's lines: queries executed, and memos re-verified, counted by
/// query.
fn trace_executed(db: &Database) {
    let count = |keys: Vec<String>| {
        let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for q in keys {
            *counts.entry(q.split('(').next().unwrap_or(&q).to_string()).or_default() += 1;
        }
        counts.iter().map(|(q, n)| format!("{q} x{n}")).collect::<Vec<_>>().join(", ")
    };
    eprint(&format!("trace: executed {}\n", count(db.take_executed())));
    eprint(&format!("trace: verified {}\n", count(db.take_validated())));
}
