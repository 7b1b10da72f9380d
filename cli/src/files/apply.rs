//! Applying a batch of changed paths to the files table (see the module
//! doc of [`super`]): which paths to re-read, what each read changes, and
//! files that exist but cannot be read yet.

use std::collections::{BTreeMap, BTreeSet};
use std::io::ErrorKind;
use std::time::{Duration, Instant};

use camino::Utf8Path;
use salsa::Setter;
use streamform::limits::FIXTURE_READ_BYTES;
use streamform::project::{classify_path, FileKind, CONFIG_FILE, SOURCES_FILE};
use streamform::Database;

use super::scan::collect;
use super::{edited_durability, new_input, Entry, Files};

/// The project-relative paths a batch of file-system events touched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub paths: BTreeSet<String>,
    /// Reconcile every file with the disk (the watcher lost events, or an
    /// event could not be attributed to a path).
    pub rescan: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Removed,
    /// Removed from `from` and added here with the same text.
    Renamed { from: String },
}

impl ChangeKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Removed => "removed",
            ChangeKind::Renamed { .. } => "renamed",
        }
    }
}

/// One file whose input changed in this revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub kind: ChangeKind,
}

/// A file that exists but could not be read (permissions, a half-written
/// multi-byte character): its last text stays in effect and it is retried.
pub(super) struct Unreadable {
    since: Instant,
    next_try: Instant,
    reason: String,
    noted: bool,
}

/// How long an unreadable file is retried before `watch` says so.
const UNREADABLE_NOTE_AFTER: Duration = Duration::from_secs(2);
const RETRY_EVERY: Duration = Duration::from_millis(100);

impl Files {
    /// When the next unreadable file is due for a retry.
    pub fn retry_at(&self) -> Option<Instant> {
        self.unreadable.values().filter(|u| !u.noted).map(|u| u.next_try).min()
    }

    /// Unreadable files given up on since the last call, with the reason.
    pub fn take_unreadable_notes(&mut self) -> Vec<(String, String)> {
        let now = Instant::now();
        let mut out = Vec::new();
        for (p, u) in self.unreadable.iter_mut() {
            if !u.noted && now.duration_since(u.since) >= UNREADABLE_NOTE_AFTER {
                u.noted = true;
                out.push((p.clone(), u.reason.clone()));
            }
        }
        out
    }

    /// Applies a batch: reads every path it touches and updates the inputs
    /// that changed. Returns the changed files in path order.
    pub fn apply(&mut self, db: &mut Database, batch: &Batch) -> Vec<FileChange> {
        let now = Instant::now();
        let mut changes = Vec::new();
        let mut structural = false;
        for p in self.dirty_paths(batch, now) {
            if classify_path(&p).is_none() || self.buffers.contains(&p) {
                continue;
            }
            let fresh = batch.paths.contains(&p);
            structural |= match read(&self.root, &p) {
                Read::Text(text) => self.read_text(db, p, text, &mut changes),
                Read::Gone => self.gone(p, &mut changes),
                Read::Unreadable(reason) => {
                    self.unreadable_now(p, reason, fresh, now);
                    false
                }
            };
        }
        if structural {
            self.sync_project(db);
        }
        self.sync_environment(db, &changes);
        pair_renames(db, &self.entries, &mut changes);
        changes
    }

    /// The paths a batch asks to re-read: every touched project file, the
    /// files in and known under a touched directory, every file on a
    /// rescan, and the unreadable files due for a retry.
    fn dirty_paths(&self, batch: &Batch, now: Instant) -> BTreeSet<String> {
        let mut dirty: BTreeSet<String> = BTreeSet::new();
        if batch.rescan {
            dirty.extend(self.entries.iter().filter(|(_, e)| e.present).map(|(p, _)| p.clone()));
            dirty.extend(self.walk(""));
        }
        // Retries that are due ride along with whatever else happened.
        dirty.extend(self.unreadable.iter().filter(|(_, u)| !u.noted && u.next_try <= now).map(|(p, _)| p.clone()));
        for p in &batch.paths {
            if classify_path(p).is_some() {
                dirty.insert(p.clone());
            }
            // A directory created, removed or renamed under models/ or
            // tests/ reports only its own path: walk it, and re-read every
            // file known under it.
            let in_tree = ["models", "tests"].iter().any(|d| p == d || p.starts_with(&format!("{d}/")));
            if in_tree {
                let prefix = format!("{p}/");
                let known: Vec<String> = self
                    .entries
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .filter(|(_, e)| e.present)
                    .map(|(k, _)| k.clone())
                    .collect();
                let is_dir = classify_path(p).is_none() && self.root.join(p).is_dir();
                if !known.is_empty() || is_dir {
                    dirty.extend(known);
                    dirty.extend(self.walk(p));
                }
            }
        }
        dirty
    }

    /// A file read: sets its text if it differs (a new path gets a new
    /// input). True when the set of present files changed.
    pub(super) fn read_text(&mut self, db: &mut Database, p: String, text: String, changes: &mut Vec<FileChange>) -> bool {
        self.unreadable.remove(&p);
        let Some(e) = self.entries.get_mut(&p) else {
            let file = new_input(db, p.clone(), text, edited_durability(&p));
            self.entries.insert(p.clone(), Entry::new(&p, file));
            changes.push(FileChange { path: p, kind: ChangeKind::Added });
            return true;
        };
        let was_present = e.present;
        let differs = e.file.text(db) != text;
        if differs {
            e.file.set_text(db).with_durability(edited_durability(&p)).to(text);
        }
        if !was_present {
            e.present = true;
            changes.push(FileChange { path: p, kind: ChangeKind::Added });
            return true;
        }
        if differs {
            changes.push(FileChange { path: p, kind: ChangeKind::Modified });
        }
        false
    }

    /// A file no longer there: it keeps its input, marked absent. True when
    /// it was present.
    pub(super) fn gone(&mut self, p: String, changes: &mut Vec<FileChange>) -> bool {
        self.unreadable.remove(&p);
        match self.entries.get_mut(&p) {
            Some(e) if e.present => {
                e.present = false;
                changes.push(FileChange { path: p, kind: ChangeKind::Removed });
                true
            }
            _ => false,
        }
    }

    /// A file that exists but could not be read: retried later.
    fn unreadable_now(&mut self, p: String, reason: String, fresh: bool, now: Instant) {
        let u = self.unreadable.entry(p).or_insert(Unreadable { since: now, next_try: now, reason: reason.clone(), noted: false });
        u.reason = reason;
        u.next_try = now + RETRY_EVERY;
        if fresh && u.noted {
            // A new event for a file given up on: try again for a while.
            u.noted = false;
            u.since = now;
        }
    }

    /// Project files on disk under `rel` ("" = the whole project).
    fn walk(&self, rel: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut found = Vec::new();
        if rel.is_empty() {
            for f in [CONFIG_FILE, SOURCES_FILE] {
                out.push(f.to_string());
            }
            collect(&self.root, Utf8Path::new("models"), "sql", &mut found);
            collect(&self.root, Utf8Path::new("tests"), "yml", &mut found);
        } else if let Some(kind) = classify_path(&format!("{rel}/x.sql")).or_else(|| classify_path(&format!("{rel}/x.yml"))) {
            let ext = if kind == FileKind::Model { "sql" } else { "yml" };
            collect(&self.root, Utf8Path::new(rel), ext, &mut found);
        }
        out.extend(found.into_iter().map(|p| p.into_string()));
        out
    }

}

pub(super) enum Read {
    Text(String),
    /// Missing, or not a file: the path is no longer a project file.
    Gone,
    Unreadable(String),
}

/// Reads project file `rel` under `root`; a fixture no further than its
/// limit (the compiler refuses one past it).
pub(super) fn read(root: &Utf8Path, rel: &str) -> Read {
    let limit = (classify_path(rel) == Some(FileKind::Fixture)).then_some(FIXTURE_READ_BYTES);
    match super::scan::read_text(root.join(rel).as_std_path(), limit) {
        Ok(t) => Read::Text(t),
        Err(e) if e.kind() == ErrorKind::InvalidData => Read::Unreadable("it is not valid UTF-8".into()),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::IsADirectory | ErrorKind::NotADirectory) => Read::Gone,
        Err(e) => Read::Unreadable(e.to_string()),
    }
}

/// A file removed and another of the same kind added with the same text is
/// a rename.
fn pair_renames(db: &Database, entries: &BTreeMap<String, Entry>, changes: &mut Vec<FileChange>) {
    let removed: Vec<usize> = (0..changes.len()).filter(|&i| changes[i].kind == ChangeKind::Removed).collect();
    if removed.is_empty() || removed.len() > 64 {
        return;
    }
    let mut drop = Vec::new();
    for r in removed {
        let from = changes[r].path.clone();
        let text = entries[&from].file.text(db);
        let to = changes.iter().position(|c| {
            c.kind == ChangeKind::Added && classify_path(&c.path) == classify_path(&from) && entries[&c.path].file.text(db) == text
        });
        if let Some(a) = to {
            changes[a].kind = ChangeKind::Renamed { from };
            drop.push(r);
        }
    }
    let mut i = 0;
    changes.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}
