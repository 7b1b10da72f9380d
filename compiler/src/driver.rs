//! The driver: the one untracked routine that compiles the whole project,
//! and the only place in the compiler that spawns threads (scoped threads
//! over clones of the [`Database`]). It sits above check, graph and manifest
//! and calls their queries; nothing below imports it. It does no I/O.
//!
//! Every command that needs the whole project (`check`, `inspect-plan`,
//! `build`, `plan`, `test`, `run`) and `watch` call it; compare ty's
//! `Project::check`: per-model tracked work in parallel, one order.
//!
//! - [`compile`]: a cold compile. Every model in name order, in batches of
//!   [`BATCH`] spread over a pool of workers (one per core, kept for the
//!   whole compile), with salsa's LRU eviction between
//!   batches so that a large project never holds every syntax tree (nor,
//!   for a one-shot command, every plan: see [`Work`]); then
//!   [`refresh`]. Name order, not dependency order: the dependency graph
//!   needs every model's reads, which would parse every model before the
//!   first eviction, and lowering pulls upstream models in on demand anyway.
//! - [`refresh`]: brings the whole-project queries up to date after an
//!   edit (watch) or after [`compile`]: helper threads take the manifest's
//!   segments (see [`crate::segments`]) from the last one back while this
//!   thread builds the manifest's models (plan order); then the first
//!   helper hashes the manifest (the digest chained from the first
//!   segment), serial work that an edit redoes from its first changed
//!   model in plan order on, while this thread walks the check report's
//!   segments (or, in `watch`, first makes the reprint); the helpers then
//!   walk the checks' segments from the last one back, and the report's
//!   whole-project checks. After a file's first edit in a long session
//!   salsa re-verifies every model's memos; the segments are independent,
//!   so that work divides.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use salsa::Database as _;

use crate::check::{all_load_errors, check_report, model_checks, segment_checks, whole_project_checks};
use crate::db::{Database, ModelName, Project};
use crate::graph::segment_upstream;
use crate::manifest::{json_of, manifest_digest, manifest_models, manifest_segment, manifest_slices, model_identity, slice_segment, ModelSlice};
use crate::model::{lower_model, model_contract, model_reads, parse_model};
use crate::project::{model_names, model_segments, model_source_file};

/// What a whole-project compile brings up to date. Every kind includes
/// every model's reads and the dependency graph. `Checks`, `Manifest` and `ManifestJson`
/// are one-shot: a model's plan is dropped after its batch, and what they
/// report of a model is computed while the plan is at hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Every model's checks and the check report (`check`, and the commands
    /// that need a project free of errors first).
    Checks,
    /// Every model's identity and the manifest (`inspect-plan`).
    Manifest,
    /// The manifest as JSON alone (`inspect-plan --json`): a model's
    /// entries are dropped with its plan, and only its JSON is kept.
    ManifestJson,
    /// Both (`watch`).
    All,
}

impl Work {
    fn checks(self) -> bool {
        matches!(self, Work::Checks | Work::All)
    }

    fn manifest(self) -> bool {
        matches!(self, Work::Manifest | Work::ManifestJson | Work::All)
    }

    /// Whether the manifest's entries are kept, besides its JSON.
    fn entries(self) -> bool {
        matches!(self, Work::Manifest | Work::All)
    }
}

/// Models per batch of [`compile`]: the syntax trees of one batch may be
/// dropped before the next is parsed. A batch's trees were a fifth of a
/// cold `check`'s heap at 512. The workers share a batch's models, so a
/// smaller batch costs little waiting: at 128 the time is that of 256.
pub const BATCH: usize = 128;

/// At most this many threads: past it salsa's shared tables contend more
/// than the extra cores give.
const MAX_THREADS: usize = 8;

/// Each worker's stack. Parsing bounds how deep a model nests
/// ([`crate::sql::limits`]); lowering, the identity texts and the Flink SQL
/// then recurse once per level, which at the limit takes about 2 MiB in an
/// optimized build and several times that unoptimized. Only the pages a
/// thread touches are committed.
pub const STACK_SIZE: usize = 64 << 20;

/// A scoped worker with [`STACK_SIZE`]. The caller joins it ([`join`]):
/// dropping the handle would detach the thread, and glibc's
/// `pthread_detach` reads the thread's descriptor after marking it
/// detached, when a thread that has just finished may already have freed
/// it. A stack this size is past glibc's cache of stacks, so it is
/// unmapped and that read crashes (found by fuzzing, once in about two
/// million workers).
fn spawn<'scope, 'env>(scope: &'scope std::thread::Scope<'scope, 'env>, f: impl FnOnce() + Send + 'scope) -> std::thread::ScopedJoinHandle<'scope, ()> {
    std::thread::Builder::new().stack_size(STACK_SIZE).spawn_scoped(scope, f).expect("a worker thread starts")
}

/// Joins workers, passing a worker's panic on as the scope would.
fn join(workers: Vec<std::thread::ScopedJoinHandle<'_, ()>>) {
    for w in workers {
        if let Err(panic) = w.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

/// The threads a compile uses: every core, up to [`MAX_THREADS`].
pub fn threads() -> usize {
    // Read once: on Linux each call reads the cgroup's CPU quota from /proc.
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS))
}

/// Compiles the whole project from cold (see the module doc). Does nothing
/// when the project does not load.
pub fn compile(db: &mut Database, project: Project, work: Work) {
    if !all_load_errors(db, project).is_empty() {
        return;
    }
    let names = model_names(db, project).clone();
    // A one-shot command needs a model's plan only while its batch runs:
    // what it reports afterwards is memoized apart (checks, identity), and
    // readers see a model through its contract. `watch` keeps every plan,
    // so that an edit compares the new plan with the old one.
    crate::model::after_batch(db, work != Work::All);
    crate::manifest::keep_entries(db, work.entries(), work != Work::All);
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel();
        let pool: Vec<_> = (0..threads())
            .map(|_| {
                let (jobs, next) = mpsc::channel::<Job>();
                let done = done.clone();
                let worker = spawn(scope, move || {
                    let mut held: Vec<Made> = Vec::new();
                    for job in next {
                        // What the last batch made, evicted since.
                        held.clear();
                        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            while let Some(name) = job.next() {
                                held.push(compile_model(&job.db, project, name, work));
                            }
                        }));
                        // The clone goes before the report, so that the
                        // eviction that follows finds no other handle.
                        drop(job);
                        let failed = ran.is_err();
                        let _ = done.send(ran);
                        if failed {
                            return;
                        }
                    }
                });
                (jobs, worker)
            })
            .collect();
        drop(done);
        let mut panicked = None;
        for batch in names.chunks(BATCH) {
            let cursor = Arc::new(AtomicUsize::new(0));
            let sent = pool
                .iter()
                .filter(|(jobs, _)| jobs.send(Job { db: db.clone(), names: batch, cursor: cursor.clone() }).is_ok())
                .count();
            for _ in 0..sent {
                match finished.recv() {
                    Ok(Ok(())) => {}
                    Ok(Err(panic)) => panicked = panicked.or(Some(panic)),
                    Err(_) => break,
                }
            }
            if panicked.is_some() {
                break;
            }
            db.trigger_lru_eviction();
        }
        let workers = pool.into_iter().map(|(_, worker)| worker).collect();
        join(workers);
        if let Some(panic) = panicked {
            std::panic::resume_unwind(panic);
        }
    });
    refresh(db, project, work);
}

/// One batch for one worker: the workers of a batch take its models one at
/// a time from a shared cursor, so that none waits for another's slower
/// share before the eviction.
struct Job<'a> {
    db: Database,
    names: &'a [String],
    cursor: Arc<AtomicUsize>,
}

impl<'a> Job<'a> {
    fn next(&self) -> Option<&'a String> {
        self.names.get(self.cursor.fetch_add(1, Ordering::Relaxed))
    }
}

/// A model's syntax tree, plan and entries, as [`compile_model`] leaves them. The
/// worker that made them holds a reference until the eviction after the
/// batch has dropped the memo's, so that they are freed by the thread that
/// allocated them, in parallel, rather than by the evicting thread while
/// the workers wait (that was a tenth of a cold `check`).
type Made = (Option<Arc<sqlparser::ast::Query>>, Option<Arc<crate::plan::node::ModelPlan>>, Option<Arc<ModelSlice>>);

/// One model's tracked work.
fn compile_model(db: &Database, project: Project, name: &str, work: Work) -> Made {
    let key = ModelName::new(db, project, name.to_string());
    let _ = model_reads(db, key);
    if work.manifest() {
        let _ = json_of(db, key);
    }
    if work.checks() {
        // All that `segment_checks` reads of the model, while its plan is
        // at hand.
        let _ = model_checks(db, key);
    }
    if work != Work::All {
        // What a later batch's readers see of the model, while its plan is
        // at hand: an evicted plan would be lowered again for them.
        let _ = model_contract(db, key);
    }
    let tree = model_source_file(db, key).and_then(|file| parse_model(db, file).as_ref().ok().cloned());
    let slice = work.manifest().then(|| model_identity(db, key).as_ref().map(|id| id.slice.clone())).flatten();
    (tree, lower_model(db, key).plan.clone(), slice)
}

/// Brings every segment's queries and the manifest or the check report (as
/// `work` says) up to date (see the module doc). Does nothing when the
/// project does not load.
pub fn refresh(db: &Database, project: Project, work: Work) {
    refresh_then(db, project, work, None::<fn()>);
}

/// [`refresh`], then `then` on this thread while the helper thread may
/// still be hashing the manifest: what `then` asks of the manifest but its
/// digest is ready, and asking for the digest waits for the hashing. In
/// `watch`, the reprint is made while the digest is hashed.
pub fn refresh_then<R>(db: &Database, project: Project, work: Work, then: Option<impl FnOnce() -> R>) -> Option<R> {
    if !all_load_errors(db, project).is_empty() {
        return then.map(|f| f());
    }
    let segments = model_segments(db, project);
    let helpers = (threads() as u32).saturating_sub(1).min(segments.saturating_sub(1));
    std::thread::scope(|scope| {
        let workers = (0..helpers)
            .map(|t| {
                let db = db.clone();
                spawn(scope, move || {
                    let mine = || (0..segments).rev().skip(t as usize).step_by(helpers as usize);
                    // The digest reads only the manifest's segments: those
                    // first, so that the hashing starts while this thread
                    // has the checks' segments still to walk.
                    if work.manifest() {
                        mine().for_each(|s| {
                            let _ = manifest_segment(&db, project, s);
                        });
                        if t == 0 {
                            let _ = manifest_digest(&db, project);
                        }
                    }
                    mine().for_each(|s| refresh_segment(&db, project, s, work));
                    // The report's whole-project checks, which it reads
                    // after the segments, in the other order: the two
                    // threads share them rather than one waiting.
                    if work.checks() && t == 0 {
                        whole_project_checks(&db, project);
                    }
                })
            })
            .collect();
        // Hashing the manifest is serial: whichever thread is first free of
        // the rest does it (the other waits on salsa's claim). Before the
        // check report here: after a first edit this thread's walk through
        // the models has verified what the hashing reads. With `then`, this
        // thread goes on to it instead, and the helper hashes meanwhile.
        if work.manifest() {
            let _ = manifest_models(db, project);
            if work.entries() {
                let _ = manifest_slices(db, project);
            }
            if then.is_none() || helpers == 0 {
                let _ = manifest_digest(db, project);
            }
        }
        // With `then`, the check report is left to it: what it does first
        // overlaps the hashing, and the helper, once done hashing, walks its
        // segments' checks beside this thread.
        if work.checks() && then.is_none() {
            let _ = check_report(db, project);
        }
        let out = then.map(|f| f());
        join(workers);
        out
    })
}

/// Frees what the last revision left to free: the memos it replaced and
/// those past an LRU capacity, which salsa otherwise frees at the next
/// input change, before anything of that edit is computed. A long-lived
/// front end calls it once it has answered.
pub fn tidy(db: &mut Database) {
    db.trigger_lru_eviction();
}

/// Brings one segment's queries up to date: the dependency graph's, and
/// the check report's or the manifest's (as `work` says).
fn refresh_segment(db: &Database, project: Project, segment: u32, work: Work) {
    let _ = segment_upstream(db, project, segment);
    if work.checks() {
        let _ = segment_checks(db, project, segment);
    }
    if work.manifest() {
        let _ = manifest_segment(db, project, segment);
    }
    if work.entries() {
        let _ = slice_segment(db, project, segment);
    }
}
