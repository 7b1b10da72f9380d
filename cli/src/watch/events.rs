//! File-system events: a notify watcher on the project, and the debouncer
//! that drains a burst of events into one [`Batch`] of project-relative
//! paths.
//!
//! The root is watched alone (streamform.yml, sources.yml and the creation
//! or removal of models/ and tests/), models/ and tests/ recursively. A
//! directory that disappears takes its watch with it, so any event on
//! `models` or `tests` themselves re-establishes theirs.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::files::Batch;

const TREES: [&str; 2] = ["models", "tests"];

/// A burst that never pauses is still cut after this long, so a stream of
/// writes shows progress.
const MAX_BATCH: Duration = Duration::from_millis(500);

pub struct Watcher {
    watcher: RecommendedWatcher,
    rx: Receiver<notify::Result<Event>>,
    /// Canonical project root: notify reports paths under it.
    root: PathBuf,
}

impl Watcher {
    pub fn new(root: &Path) -> notify::Result<Watcher> {
        let root = std::fs::canonicalize(root).map_err(notify::Error::io)?;
        let (tx, rx) = channel();
        let mut watcher = notify::recommended_watcher(tx)?;
        watcher.watch(&root, RecursiveMode::NonRecursive)?;
        let mut w = Watcher { watcher, rx, root };
        for t in TREES {
            w.rewatch(t);
        }
        Ok(w)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn rewatch(&mut self, tree: &str) {
        let dir = self.root.join(tree);
        let _ = self.watcher.unwatch(&dir);
        if dir.is_dir() {
            let _ = self.watcher.watch(&dir, RecursiveMode::Recursive);
        }
    }

    /// Waits for the next burst of events (or until `wake_at`, returning an
    /// empty batch), then drains events until none arrive for `quiet`.
    /// None when the watcher has stopped.
    pub fn next_batch(&mut self, quiet: Duration, wake_at: Option<Instant>) -> Option<Batch> {
        let mut batch = Batch::default();
        let first = match wake_at {
            None => self.rx.recv().ok()?,
            Some(t) => match self.rx.recv_timeout(t.saturating_duration_since(Instant::now())) {
                Ok(e) => e,
                Err(RecvTimeoutError::Timeout) => return Some(batch),
                Err(RecvTimeoutError::Disconnected) => return None,
            },
        };
        let started = Instant::now();
        self.add(&mut batch, first);
        loop {
            let left = MAX_BATCH.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            match self.rx.recv_timeout(quiet.min(left)) {
                Ok(e) => self.add(&mut batch, e),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
        // A tree that was created, removed or replaced needs its watch back
        // before the batch is read, so nothing written after goes unseen.
        for t in TREES {
            if batch.paths.contains(t) {
                self.rewatch(t);
            }
        }
        Some(batch)
    }

    fn add(&self, batch: &mut Batch, event: notify::Result<Event>) {
        let event = match event {
            Ok(e) => e,
            Err(_) => {
                batch.rescan = true;
                return;
            }
        };
        if event.need_rescan() {
            batch.rescan = true;
        }
        match event.kind {
            // Opening or reading a file (we do it ourselves) changes nothing.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => {}
            EventKind::Access(_) => return,
            EventKind::Any | EventKind::Other if event.paths.is_empty() => {
                batch.rescan = true;
                return;
            }
            _ => {}
        }
        for p in &event.paths {
            match relative(&self.root, p) {
                Some(rel) if rel.is_empty() => batch.rescan = true, // the root itself moved or changed
                Some(rel) => {
                    batch.paths.insert(rel);
                }
                None => batch.rescan = true,
            }
        }
    }
}

/// `root/models/a.sql` → `models/a.sql`; None when outside the root or
/// not UTF-8.
fn relative(root: &Path, p: &Path) -> Option<String> {
    let rel = p.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}
