//! Test support: a project built from an inline multi-file fixture.
//!
//! ```text
//! //- /streamform.yml
//! name: shop
//! version: 1
//! //- /models/a.sql
//! SELECT ...
//! ```
#![allow(dead_code)]

use salsa::Setter;
use streamform::db::{Database, Project, SourceFile};
use streamform::manifest::{manifest, Manifest};
use streamform::project::{classify_path, FileKind};
use streamform::testing::{executed_for, QueryLabels};

/// A loaded fixture: the database, the project input and its files.
pub struct Fixture {
    pub db: Database,
    pub project: Project,
    pub files: Vec<SourceFile>,
    /// Learned by [`Fixture::warm_up`].
    labels: QueryLabels,
}

/// Splits a fixture into `(path, text)` pairs; paths lose their leading `/`.
pub fn parse_fixture(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("//- /") {
            out.push((path.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        } else {
            assert!(line.trim().is_empty(), "fixture text before the first `//- /path` line: {line:?}");
        }
    }
    out
}

impl Fixture {
    /// A fixture whose database records executed queries.
    pub fn new(text: &str) -> Fixture {
        Fixture::with_db(Database::with_execution_log(), text)
    }

    pub fn with_db(db: Database, text: &str) -> Fixture {
        let mut files = parse_fixture(text);
        files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut config = None;
        let mut sources = None;
        let mut models = Vec::new();
        let mut fixtures = Vec::new();
        let mut all = Vec::new();
        for (path, text) in files {
            let file = SourceFile::new(&db, path.clone(), text);
            all.push(file);
            match classify_path(&path) {
                Some(FileKind::Config) => config = Some(file),
                Some(FileKind::Sources) => sources = Some(file),
                Some(FileKind::Model) => models.push(file),
                Some(FileKind::Fixture) => fixtures.push(file),
                None => panic!("fixture file {path} is not a project file"),
            }
        }
        let project = Project::new(&db, ".".to_string(), config, sources, models, fixtures);
        Fixture { db, project, files: all, labels: QueryLabels::default() }
    }

    pub fn file(&self, path: &str) -> SourceFile {
        *self.files.iter().find(|f| f.path(&self.db) == path).unwrap_or_else(|| panic!("no fixture file {path}"))
    }

    pub fn text(&self, path: &str) -> String {
        self.file(path).text(&self.db).to_string()
    }

    /// Replaces a file's text (always a new revision, like an editor save).
    pub fn set_text(&mut self, path: &str, text: &str) {
        let file = self.file(path);
        file.set_text(&mut self.db).to(text.to_string());
    }

    /// Edits a file's text by replacing `from` (which must occur) with `to`.
    pub fn edit(&mut self, path: &str, from: &str, to: &str) {
        let old = self.text(path);
        assert!(old.contains(from), "{path} does not contain {from:?}");
        self.set_text(path, &old.replacen(from, to, 1));
    }

    /// Runs the fixture file `path` on the simulator, asserts that its
    /// changelog is as it expects, and returns how many changes it emitted.
    pub fn run_fixture(&self, path: &str) -> usize {
        let file = self.file(path);
        let report = streamform::sim::fixture::runner::fixture_report(&self.db, self.project, file).as_ref().expect("the fixture runs");
        assert_eq!(report.error, None);
        let mut rows: Vec<String> = Vec::new();
        streamform::sim::fixture_rows(&self.db, self.project, file, &mut |r| rows.push(format!("{r:?}")));
        assert!(report.changelog_ok, "{rows:#?}");
        report.changes_emitted
    }

    pub fn manifest(&self) -> Manifest {
        match manifest(&self.db, self.project) {
            Ok(m) => m.to_manifest(),
            Err(e) => panic!("fixture does not compile: {e:?}"),
        }
    }

    /// Computes every query of the project in an order that attributes
    /// each executed query to what it belongs to (see
    /// [`QueryLabels::learn`]), then the manifest.
    pub fn warm_up(&mut self) -> Manifest {
        self.labels = QueryLabels::learn(&self.db, self.project);
        let m = self.manifest();
        self.labels.label_rest(&self.db, "project");
        m
    }

    /// Executed queries since the last call, labelled and sorted.
    pub fn executed(&self) -> String {
        self.labels.executed(&self.db)
    }

    /// The executed queries labelled as belonging to `owner`.
    pub fn executed_for(list: &str, owner: &str) -> Vec<String> {
        executed_for(list, owner)
    }
}
