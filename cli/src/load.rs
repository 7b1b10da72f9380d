//! Reading a project directory into salsa inputs.

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};
use salsa::Durability;
use streamform::{Database, Project, SourceFile};

/// The files of a project on disk, relative to its root, sorted.
pub struct Scan {
    pub config: Option<(String, String)>,
    pub sources: Option<(String, String)>,
    pub models: Vec<(String, String)>,
    pub fixtures: Vec<(String, String)>,
}

pub fn scan(root: &Utf8Path) -> Scan {
    let read = |rel: &str| fs::read_to_string(root.join(rel)).ok().map(|t| (rel.to_string(), t));
    let mut models = Vec::new();
    walk(root, Utf8Path::new("models"), "sql", &mut models);
    let mut fixtures = Vec::new();
    walk(root, Utf8Path::new("tests"), "yml", &mut fixtures);
    Scan { config: read("streamform.yml"), sources: read("sources.yml"), models, fixtures }
}

fn walk(root: &Utf8Path, rel: &Utf8Path, ext: &str, out: &mut Vec<(String, String)>) {
    let mut found: Vec<Utf8PathBuf> = Vec::new();
    collect(root, rel, ext, &mut found);
    // Byte order of the relative path, as the original lists them.
    found.sort_by(|a, b| a.as_str().as_bytes().cmp(b.as_str().as_bytes()));
    for p in found {
        if let Ok(text) = fs::read_to_string(root.join(&p)) {
            out.push((p.to_string(), text));
        }
    }
}

pub(crate) fn collect(root: &Utf8Path, rel: &Utf8Path, ext: &str, out: &mut Vec<Utf8PathBuf>) {
    let Ok(entries) = root.join(rel).read_dir_utf8() else { return };
    for e in entries.flatten() {
        let p = rel.join(e.file_name());
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            collect(root, &p, ext, out);
        } else if p.extension() == Some(ext) {
            out.push(p);
        }
    }
}

/// A loaded project: the database and its input handles.
pub struct Loaded {
    pub db: Database,
    pub project: Project,
    pub root: String,
    one_shot: bool,
}

impl Loaded {
    /// Configuration files are HIGH durability and model files MEDIUM: an
    /// edited file drops to LOW (watch's files table does that), so after an edit
    /// salsa re-validates only what depends on the edited file.
    pub fn new(db: Database, root: &str, scan: Scan) -> Loaded {
        let mk = |db: &Database, f: Option<(String, String)>, d: Durability| f.map(|(p, t)| SourceFile::builder(p, t).durability(d).new(db));
        let config = mk(&db, scan.config, Durability::HIGH);
        let sources = mk(&db, scan.sources, Durability::HIGH);
        let models = scan.models.into_iter().filter_map(|f| mk(&db, Some(f), Durability::MEDIUM)).collect();
        let fixtures = scan.fixtures.into_iter().filter_map(|f| mk(&db, Some(f), Durability::MEDIUM)).collect();
        let project = Project::builder(root.to_string(), config, sources, models, fixtures).durability(Durability::MEDIUM).new(&db);
        Loaded { db, project, root: root.to_string(), one_shot: false }
    }

    /// The text of a project file, for rendering diagnostics.
    pub fn file_text(&self, path: &str) -> Option<String> {
        let db = &self.db;
        let p = self.project;
        let mut all: Vec<SourceFile> = Vec::new();
        all.extend(p.config_file(db));
        all.extend(p.sources_file(db));
        all.extend(p.model_files(db).iter().copied());
        all.extend(p.fixture_files(db).iter().copied());
        all.into_iter().find(|f| f.path(db) == path).map(|f| f.text(db).to_string())
    }

}

/// Loads a project for a one-shot command.
pub fn load(root: &str) -> Loaded {
    let mut loaded = Loaded::new(Database::default(), root, scan(Utf8Path::new(root)));
    loaded.one_shot = true;
    loaded
}

impl Drop for Loaded {
    /// A one-shot command exits right after; freeing every memoized value
    /// of a large project took a fifth of the run.
    fn drop(&mut self) {
        if self.one_shot {
            std::mem::forget(std::mem::take(&mut self.db));
        }
    }
}
