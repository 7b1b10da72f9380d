//! The files table: project paths mapped to salsa input handles, outside
//! salsa. Applying a batch of changed paths reads them from disk, calls a
//! `SourceFile` setter only when the text differs, and touches the
//! structural `Project` input only when files appear or disappear.
//!
//! A deleted file keeps its handle: when it comes back (an editor's
//! delete-and-recreate, a `git checkout`), the same input is reused and its
//! text set only if it changed.

use std::collections::{BTreeMap, BTreeSet};
use std::io::ErrorKind;
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use salsa::{Durability, Setter};
use streamform::project::{CONFIG_FILE, SOURCES_FILE};
use streamform::{Database, Project, SourceFile};

use crate::load::{collect, scan};

/// What a project path is, by the rules `load::scan` applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Config,
    Sources,
    Model,
    Fixture,
}

pub fn classify(rel: &str) -> Option<Kind> {
    match rel {
        CONFIG_FILE => return Some(Kind::Config),
        SOURCES_FILE => return Some(Kind::Sources),
        _ => {}
    }
    let ext = Utf8Path::new(rel).extension();
    if rel.starts_with("models/") && ext == Some("sql") {
        Some(Kind::Model)
    } else if rel.starts_with("tests/") && ext == Some("yml") {
        Some(Kind::Fixture)
    } else {
        None
    }
}

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

struct Entry {
    file: SourceFile,
    present: bool,
}

/// A file that exists but could not be read (permissions, a half-written
/// multi-byte character): its last text stays in effect and it is retried.
struct Unreadable {
    since: Instant,
    next_try: Instant,
    reason: String,
    noted: bool,
}

/// How long an unreadable file is retried before `watch` says so.
const UNREADABLE_NOTE_AFTER: Duration = Duration::from_secs(2);
const RETRY_EVERY: Duration = Duration::from_millis(100);

pub struct Files {
    root: Utf8PathBuf,
    pub project: Project,
    /// Every path seen since the start, present or not, in byte order.
    entries: BTreeMap<String, Entry>,
    unreadable: BTreeMap<String, Unreadable>,
}

impl Files {
    /// Scans the project directory into new inputs.
    pub fn load(db: &Database, root: &str) -> Files {
        let s = scan(Utf8Path::new(root));
        let mut entries = BTreeMap::new();
        let mut mk = |f: (String, String)| {
            let file = SourceFile::builder(f.0.clone(), f.1).path_durability(Durability::HIGH).text_durability(initial_durability(&f.0)).new(db);
            entries.insert(f.0, Entry { file, present: true });
            file
        };
        let config = s.config.map(&mut mk);
        let sources = s.sources.map(&mut mk);
        let models = s.models.into_iter().map(&mut mk).collect();
        let fixtures = s.fixtures.into_iter().map(&mut mk).collect();
        let project = Project::builder(root.to_string(), config, sources, models, fixtures).durability(Durability::HIGH).new(db);
        Files { root: Utf8PathBuf::from(root), project, entries, unreadable: BTreeMap::new() }
    }

    /// The current text of a present project file.
    pub fn text<'a>(&self, db: &'a Database, path: &str) -> Option<&'a str> {
        self.entries.get(path).filter(|e| e.present).map(|e| e.file.text(db))
    }

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
        let mut dirty: BTreeSet<String> = BTreeSet::new();
        if batch.rescan {
            dirty.extend(self.entries.iter().filter(|(_, e)| e.present).map(|(p, _)| p.clone()));
            dirty.extend(self.walk(""));
        }
        // Retries that are due ride along with whatever else happened.
        dirty.extend(self.unreadable.iter().filter(|(_, u)| !u.noted && u.next_try <= now).map(|(p, _)| p.clone()));
        for p in &batch.paths {
            if classify(p).is_some() {
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
                let is_dir = classify(p).is_none() && self.root.join(p).is_dir();
                if !known.is_empty() || is_dir {
                    dirty.extend(known);
                    dirty.extend(self.walk(p));
                }
            }
        }

        let mut changes = Vec::new();
        let mut structural = false;
        for p in dirty {
            if classify(&p).is_none() {
                continue;
            }
            let fresh = batch.paths.contains(&p);
            match read(&self.root.join(&p)) {
                Read::Text(text) => {
                    self.unreadable.remove(&p);
                    match self.entries.get_mut(&p) {
                        Some(e) => {
                            let was_present = e.present;
                            let differs = e.file.text(db) != text;
                            if differs {
                                e.file.set_text(db).with_durability(edited_durability(&p)).to(text);
                            }
                            if !was_present {
                                e.present = true;
                                structural = true;
                                changes.push(FileChange { path: p, kind: ChangeKind::Added });
                            } else if differs {
                                changes.push(FileChange { path: p, kind: ChangeKind::Modified });
                            }
                        }
                        None => {
                            // A path never changes (a rename is a new input): HIGH, so that the
                            // file list's queries stay as durable as before and backdate.
                            let file = SourceFile::builder(p.clone(), text).path_durability(Durability::HIGH).text_durability(edited_durability(&p)).new(db);
                            self.entries.insert(p.clone(), Entry { file, present: true });
                            structural = true;
                            changes.push(FileChange { path: p, kind: ChangeKind::Added });
                        }
                    }
                }
                Read::Gone => {
                    self.unreadable.remove(&p);
                    if let Some(e) = self.entries.get_mut(&p) {
                        if e.present {
                            e.present = false;
                            structural = true;
                            changes.push(FileChange { path: p, kind: ChangeKind::Removed });
                        }
                    }
                }
                Read::Unreadable(reason) => {
                    let u = self.unreadable.entry(p).or_insert(Unreadable { since: now, next_try: now, reason: reason.clone(), noted: false });
                    u.reason = reason;
                    u.next_try = now + RETRY_EVERY;
                    if fresh && u.noted {
                        // A new event for a file given up on: try again for a while.
                        u.noted = false;
                        u.since = now;
                    }
                }
            }
        }
        if structural {
            self.sync_project(db);
        }
        pair_renames(db, &self.entries, &mut changes);
        changes
    }

    /// Project files on disk under `rel` ("" = the whole project).
    fn walk(&self, rel: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut found: Vec<Utf8PathBuf> = Vec::new();
        if rel.is_empty() {
            for f in [CONFIG_FILE, SOURCES_FILE] {
                out.push(f.to_string());
            }
            collect(&self.root, Utf8Path::new("models"), "sql", &mut found);
            collect(&self.root, Utf8Path::new("tests"), "yml", &mut found);
        } else if let Some(kind) = classify(&format!("{rel}/x.sql")).or_else(|| classify(&format!("{rel}/x.yml"))) {
            let ext = if kind == Kind::Model { "sql" } else { "yml" };
            collect(&self.root, Utf8Path::new(rel), ext, &mut found);
        }
        out.extend(found.into_iter().map(|p| p.into_string()));
        out
    }

    /// Brings the structural input up to date with the present files,
    /// setting only the fields that differ.
    fn sync_project(&self, db: &mut Database) {
        let present = |path: &str| self.entries.get(path).filter(|e| e.present).map(|e| e.file);
        let list = |kind: Kind| -> Vec<SourceFile> {
            self.entries.iter().filter(|(p, e)| e.present && classify(p) == Some(kind)).map(|(_, e)| e.file).collect()
        };
        let p = self.project;
        let config = present(CONFIG_FILE);
        if *p.config_file(db) != config {
            p.set_config_file(db).to(config);
        }
        let sources = present(SOURCES_FILE);
        if *p.sources_file(db) != sources {
            p.set_sources_file(db).to(sources);
        }
        let models = list(Kind::Model);
        if p.model_files(db) != &models {
            p.set_model_files(db).to(models);
        }
        let fixtures = list(Kind::Fixture);
        if p.fixture_files(db) != &fixtures {
            p.set_fixture_files(db).to(fixtures);
        }
    }
}

/// Durability is how salsa avoids re-verifying a 10,000-model graph after
/// every keystroke: a query that reads only inputs more durable than the
/// one that changed is known valid without walking its dependencies.
/// Configuration and the file lists are HIGH. Model and fixture files start
/// MEDIUM; a file once edited becomes LOW, so later edits to it re-verify
/// only the queries that read it (the first edit of a file still reports a
/// MEDIUM change: salsa invalidates by the durability the input had).
fn initial_durability(path: &str) -> Durability {
    match classify(path) {
        Some(Kind::Config | Kind::Sources) => Durability::HIGH,
        _ => Durability::MEDIUM,
    }
}

fn edited_durability(path: &str) -> Durability {
    match classify(path) {
        Some(Kind::Config | Kind::Sources) => Durability::HIGH,
        _ => Durability::LOW,
    }
}

enum Read {
    Text(String),
    /// Missing, or not a file: the path is no longer a project file.
    Gone,
    Unreadable(String),
}

fn read(path: &Utf8Path) -> Read {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => Read::Text(t),
            Err(_) => Read::Unreadable("it is not valid UTF-8".into()),
        },
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
            c.kind == ChangeKind::Added && classify(&c.path) == classify(&from) && entries[&c.path].file.text(db) == text
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
