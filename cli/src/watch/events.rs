//! File-system events: a notify watcher on the project, and the debouncer
//! that drains a burst of events into one [`Batch`] of project-relative
//! paths.
//!
//! The root is watched alone (streamform.yml, sources.yml and the creation
//! or removal of models/ and tests/), models/ and tests/ recursively. A
//! directory that disappears takes its watch with it, so any event on
//! `models` or `tests` themselves re-establishes theirs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::files::Batch;

const TREES: [&str; 2] = ["models", "tests"];

/// A burst that never pauses is still cut after this long, so a stream of
/// writes shows progress.
const MAX_BATCH: Duration = Duration::from_millis(500);

/// Once every file the burst wrote has been closed or renamed into place
/// (and none went away), the burst is over sooner than the debounce: an
/// editor's save is complete at its close or rename.
const SETTLE: Duration = Duration::from_millis(4);

/// A burst whose files are all finished but some went away ends after this
/// long: an editor that moves the old file aside before writing the new one
/// (a backup rename, a safe write) creates it with its next system call,
/// well within a millisecond, and a removal has nothing more to wait for.
/// Were an editor held up past it, the removal would be reprinted and then
/// the new file: the same final state, one revision more.
const GONE_SETTLE: Duration = Duration::from_millis(5);

/// What a burst did to one path, as far as knowing it is finished goes.
#[derive(Clone, Copy, PartialEq)]
enum Written {
    /// Written and not yet closed (or an event that says nothing of it).
    Open,
    /// Closed after writing, or renamed into place: complete.
    Done,
    /// Removed or renamed away: something may yet take its place.
    Gone,
    /// A file this burst wrote, then removed or renamed: a temporary file.
    Retired,
}

/// The paths of a burst, and whether every write in it is finished.
#[derive(Default)]
struct Settle(HashMap<PathBuf, Written>);

impl Settle {
    fn note(&mut self, event: &Event) {
        match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) | EventKind::Modify(ModifyKind::Name(RenameMode::To)) => {
                for p in &event.paths {
                    self.0.insert(p.clone(), Written::Done);
                }
            }
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) if event.paths.len() == 2 => {
                self.away(&event.paths[0]);
                self.0.insert(event.paths[1].clone(), Written::Done);
            }
            EventKind::Modify(ModifyKind::Name(_)) | EventKind::Remove(_) => event.paths.iter().for_each(|p| self.away(p)),
            // A touch or chmod needs no close; a new directory says nothing.
            EventKind::Modify(ModifyKind::Metadata(_)) | EventKind::Create(CreateKind::Folder) => {}
            _ => {
                for p in &event.paths {
                    self.0.insert(p.clone(), Written::Open);
                }
            }
        }
    }

    /// A path removed or renamed away: a temporary file of this burst is
    /// simply done with; a file that was there before may yet be replaced.
    fn away(&mut self, p: &Path) {
        let next = match self.0.get(p) {
            None | Some(Written::Gone) => Written::Gone,
            Some(_) => Written::Retired,
        };
        self.0.insert(p.to_path_buf(), next);
    }

    /// How long a quiet spell ends the burst: [`SETTLE`] when every file
    /// it wrote is finished, [`GONE_SETTLE`] when some also went away, else
    /// the debounce.
    fn quiet(&self, debounce: Duration) -> Duration {
        let finished = self.0.values().all(|w| !matches!(w, Written::Open));
        let gone = self.0.values().any(|w| *w == Written::Gone);
        match (finished, gone) {
            (true, true) => GONE_SETTLE.min(debounce),
            (true, false) if self.0.values().any(|w| *w == Written::Done) => SETTLE.min(debounce),
            _ => debounce,
        }
    }
}

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
        let mut settle = Settle::default();
        self.add(&mut batch, &mut settle, first);
        loop {
            let left = MAX_BATCH.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            let wait = settle.quiet(quiet);
            match self.rx.recv_timeout(wait.min(left)) {
                Ok(e) => self.add(&mut batch, &mut settle, e),
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

    fn add(&self, batch: &mut Batch, settle: &mut Settle, event: notify::Result<Event>) {
        let event = match event {
            Ok(e) => e,
            Err(_) => {
                batch.rescan = true;
                settle.0.insert(PathBuf::new(), Written::Open);
                return;
            }
        };
        if !matches!(event.kind, EventKind::Access(AccessKind::Open(_) | AccessKind::Read | AccessKind::Close(AccessMode::Read))) {
            settle.note(&event);
        }
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

#[cfg(test)]
mod tests {
    use notify::event::{DataChange, RemoveKind};

    use super::*;

    fn ev(kind: EventKind, paths: &[&str]) -> Event {
        paths.iter().fold(Event::new(kind), |e, p| e.add_path(PathBuf::from(p)))
    }

    const DEBOUNCE: Duration = Duration::from_millis(30);

    fn quiet(events: &[Event]) -> Duration {
        let mut s = Settle::default();
        events.iter().for_each(|e| s.note(e));
        s.quiet(DEBOUNCE)
    }

    const WRITE: EventKind = EventKind::Modify(ModifyKind::Data(DataChange::Any));
    const CLOSE: EventKind = EventKind::Access(AccessKind::Close(AccessMode::Write));
    const FROM: EventKind = EventKind::Modify(ModifyKind::Name(RenameMode::From));
    const TO: EventKind = EventKind::Modify(ModifyKind::Name(RenameMode::To));
    const BOTH: EventKind = EventKind::Modify(ModifyKind::Name(RenameMode::Both));
    const CREATE: EventKind = EventKind::Create(CreateKind::File);
    const REMOVE: EventKind = EventKind::Remove(RemoveKind::File);

    #[test]
    fn a_save_is_over_at_its_close_or_rename() {
        // In place: truncate, write, close.
        assert_eq!(quiet(&[ev(WRITE, &["m.sql"]), ev(WRITE, &["m.sql"]), ev(CLOSE, &["m.sql"])]), SETTLE);
        // Temporary file renamed over the target (notify reports From, To and Both).
        assert_eq!(quiet(&[ev(CREATE, &["t~"]), ev(WRITE, &["t~"]), ev(CLOSE, &["t~"]), ev(FROM, &["t~"]), ev(TO, &["m.sql"]), ev(BOTH, &["t~", "m.sql"])]), SETTLE);
        // A backup renamed away first, then the new file written and closed.
        assert_eq!(quiet(&[ev(FROM, &["m.sql"]), ev(TO, &["m.sql~"]), ev(CREATE, &["m.sql"]), ev(WRITE, &["m.sql"]), ev(CLOSE, &["m.sql"])]), SETTLE);
    }

    #[test]
    fn a_removal_waits_a_little_for_a_file_to_take_its_place() {
        assert_eq!(quiet(&[ev(REMOVE, &["m.sql"])]), GONE_SETTLE);
        assert_eq!(quiet(&[ev(FROM, &["m.sql"])]), GONE_SETTLE);
        // Moved aside, and the new file not yet written: the debounce.
        assert_eq!(quiet(&[ev(FROM, &["m.sql"]), ev(TO, &["m.sql~"]), ev(CREATE, &["m.sql"])]), DEBOUNCE);
        // A shorter debounce wins.
        let mut s = Settle::default();
        s.note(&ev(REMOVE, &["m.sql"]));
        assert_eq!(s.quiet(Duration::from_millis(5)), Duration::from_millis(5));
    }

    #[test]
    fn an_unfinished_burst_waits_for_the_debounce() {
        // Written, not yet closed.
        assert_eq!(quiet(&[ev(WRITE, &["m.sql"])]), DEBOUNCE);
        // One file done, another still open.
        assert_eq!(quiet(&[ev(CLOSE, &["a.sql"]), ev(WRITE, &["b.sql"])]), DEBOUNCE);
        // A file removed, another still open.
        assert_eq!(quiet(&[ev(REMOVE, &["a.sql"]), ev(WRITE, &["b.sql"])]), DEBOUNCE);
        // Nothing written at all.
        assert_eq!(quiet(&[]), DEBOUNCE);
    }
}
