//! The files table: project paths mapped to salsa input handles, outside
//! salsa. It makes every input, for the one-shot commands and `watch`
//! alike, and is the only place that sets one.
//!
//! - [`Files::load`] scans the project directory ([`scan`]) into new inputs.
//! - [`Files::apply`] (in [`apply`]) applies a batch of changed paths: it
//!   reads them from disk, calls a `SourceFile` setter only when the text
//!   differs, and touches the structural `Project` input only when files
//!   appear or disappear. A deleted file keeps its handle: when it comes
//!   back (an editor's delete-and-recreate, a `git checkout`), the same
//!   input is reused and its text set only if it changed.
//!
//! # Durability
//!
//! Durability is how salsa avoids re-verifying a 10,000-model graph after
//! every keystroke: a query that reads only inputs more durable than the one
//! that changed is known valid without walking its dependencies. One policy:
//!
//! - Every file's path is HIGH, a new file's too (a path never changes: a
//!   rename is a new input). The `Project` input is HIGH but for its list
//!   of model files, which is LOW.
//! - Configuration text (`streamform.yml`, `sources.yml`) is MEDIUM, also
//!   after an edit: every model reads it, but what reads only models' SQL
//!   (parsing, the reads, the `ref()` chains) does not, and stays HIGH.
//! - Model text starts HIGH, fixture text LOW. A file once edited (or
//!   new) becomes LOW, so later edits to it re-verify only the queries that
//!   read it; unedited files keep theirs. (The first edit of a file still
//!   reports a change at the durability it had: salsa invalidates by the
//!   durability the input had, so every query is re-verified once.)
//! - In `watch` and the language server ([`Files::load_live`]) each model
//!   name has its own input, its slot (`streamform::project::keep_model_slots`),
//!   so that a model's queries find its file, and the files it reads with
//!   `ref()`, without reading the list. A slot starts HIGH and is set LOW;
//!   a new name's slot is made LOW.
//!
//! So a model's queries read only HIGH and MEDIUM inputs until its file is
//! edited; adding or removing a model (a LOW change) re-verifies only the
//! queries over the list of models and the edited files, not every model's;
//! and a configuration edit (a MEDIUM change) re-verifies what reads the
//! configuration but not what reads a model's SQL alone. The three levels
//! are ordered so: model list and edited files below configuration below
//! unedited SQL. Removing a model the project started with reports a HIGH
//! change once, as a first edit does.

mod apply;
mod buffers;
pub mod scan;

use std::collections::BTreeMap;

use camino::{Utf8Path, Utf8PathBuf};
use salsa::{Durability, Setter};
use streamform::project::{classify_path, keep_model_slots, set_model_files, FileKind, CONFIG_FILE, SOURCES_FILE};
use streamform::template::referenced_variables;
use streamform::{Database, Environment, Project, SourceFile};

pub use apply::{Batch, ChangeKind, FileChange};
use apply::Unreadable;
pub use scan::scan;

struct Entry {
    file: SourceFile,
    present: bool,
    /// [`classify_path`] of its path, which `sync_project` asks of every
    /// entry on each structural change.
    kind: Option<FileKind>,
}

impl Entry {
    fn new(path: &str, file: SourceFile) -> Entry {
        Entry { file, present: true, kind: classify_path(path) }
    }
}

pub struct Files {
    root: Utf8PathBuf,
    pub project: Project,
    /// The variables `streamform.yml` names, as this process sees them.
    pub env: Environment,
    /// Every path seen since the start, present or not, in byte order.
    entries: BTreeMap<String, Entry>,
    unreadable: BTreeMap<String, Unreadable>,
    /// Paths an editor holds open: their buffer's text stands in for the
    /// disk's, so file events for them are ignored until closed.
    buffers: std::collections::BTreeSet<String>,
}

impl Files {
    /// Scans the project directory into new inputs, for a database that
    /// lives across edits (`watch`, the language server): each model name
    /// also gets its own input (see [`keep_model_slots`]), and the database
    /// keeps `streamform.yml`'s decoded entries between edits, and every
    /// model's identity (never evicted there), which the manifest then reads.
    pub fn load_live(db: &Database, root: &str) -> Files {
        db.keep_config_entries();
        db.set_identities_kept(true);
        let files = Files::load(db, root);
        keep_model_slots(db, files.project, Durability::HIGH);
        files
    }

    /// Scans the project directory into new inputs.
    pub fn load(db: &Database, root: &str) -> Files {
        let s = scan(Utf8Path::new(root));
        let mut entries = BTreeMap::new();
        let mut mk = |(path, text): (String, String)| {
            let file = new_input(db, path.clone(), text, initial_durability(&path));
            let entry = Entry::new(&path, file);
            entries.insert(path, entry);
            file
        };
        let config = s.config.map(&mut mk);
        let sources = s.sources.map(&mut mk);
        let models = s.models.into_iter().map(&mut mk).collect();
        let fixtures = s.fixtures.into_iter().map(&mut mk).collect();
        let project = Project::builder(root.to_string(), config, sources, models, fixtures)
            .durability(Durability::HIGH)
            .model_files_durability(MODEL_LIST)
            .new(db);
        let vars = named_variables(config.map(|c| c.text(db)));
        let env = Environment::builder(vars).durability(Durability::HIGH).new(db);
        Files { root: Utf8PathBuf::from(root), project, env, entries, unreadable: BTreeMap::new(), buffers: Default::default() }
    }

    /// The current text of a present project file.
    pub fn text<'a>(&self, db: &'a Database, path: &str) -> Option<&'a str> {
        self.entries.get(path).filter(|e| e.present).map(|e| e.file.text(db))
    }

    /// Brings the environment input up to date with the variables the
    /// configuration names now (an edit may name another). The process's
    /// environment does not change while it runs, so only a change to
    /// `streamform.yml` among `changes` can change them: any other edit
    /// skips reading its text again.
    fn sync_environment(&self, db: &mut Database, changes: &[FileChange]) {
        if !changes.iter().any(|c| c.path == CONFIG_FILE) {
            return;
        }
        let config = *self.project.config_file(db);
        let vars = named_variables(config.map(|c| c.text(db)));
        if self.env.vars(db) != &vars {
            self.env.set_vars(db).with_durability(Durability::HIGH).to(vars);
        }
    }

    /// Brings the structural input up to date with the present files,
    /// setting only the fields that differ.
    fn sync_project(&self, db: &mut Database) {
        let present = |path: &str| self.entries.get(path).filter(|e| e.present).map(|e| e.file);
        let list = |kind: FileKind| -> Vec<SourceFile> {
            self.entries.values().filter(|e| e.present && e.kind == Some(kind)).map(|e| e.file).collect()
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
        let models = list(FileKind::Model);
        if p.model_files(db) != &models {
            set_model_files(db, p, models, MODEL_LIST, Durability::LOW);
        }
        let fixtures = list(FileKind::Fixture);
        if p.fixture_files(db) != &fixtures {
            p.set_fixture_files(db).to(fixtures);
        }
    }
}

/// The durability of the list of model files (see the module doc).
const MODEL_LIST: Durability = Durability::LOW;

/// The durability of configuration text, before and after an edit (see
/// the module doc).
const CONFIG_TEXT: Durability = Durability::MEDIUM;

/// The value of each variable `config` names that is set: the only read
/// of the process environment, and only of these names.
fn named_variables(config: Option<&str>) -> BTreeMap<String, String> {
    let names = config.map(referenced_variables).unwrap_or_default();
    names.into_iter().filter_map(|n| std::env::var(&n).ok().map(|v| (n, v))).collect()
}

/// A file's input: its path HIGH, its text at `text` (see the module doc).
fn new_input(db: &Database, path: String, text: String, durability: Durability) -> SourceFile {
    SourceFile::builder(path, text).path_durability(Durability::HIGH).text_durability(durability).new(db)
}

/// The text durability of a file as first scanned.
fn initial_durability(path: &str) -> Durability {
    match classify_path(path) {
        Some(FileKind::Config | FileKind::Sources) => CONFIG_TEXT,
        Some(FileKind::Model) => Durability::HIGH,
        _ => Durability::LOW,
    }
}

/// The text durability of a file once edited, or new since the scan.
fn edited_durability(path: &str) -> Durability {
    match classify_path(path) {
        Some(FileKind::Config | FileKind::Sources) => CONFIG_TEXT,
        _ => Durability::LOW,
    }
}
