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

use std::collections::BTreeMap;

use salsa::Setter;
use streamform::db::{ModelName, SourceName};
use streamform::graph::dependency_graph;
use streamform::manifest::{model_identity, model_manifest_json};
use streamform::model::{model_contract, model_reads, source_input};
use streamform::project::{load_errors, model_config_index, model_names, source_names};
use streamform::db::{Database, Project, SourceFile};
use streamform::manifest::{manifest, Manifest};

/// A loaded fixture: the database, the project input and its files.
pub struct Fixture {
    pub db: Database,
    pub project: Project,
    pub files: Vec<SourceFile>,
    /// `query(Id(..))` → `query(label)`, learned by [`Fixture::warm_up`].
    labels: BTreeMap<String, String>,
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
            match path.as_str() {
                "streamform.yml" => config = Some(file),
                "sources.yml" => sources = Some(file),
                p if p.starts_with("models/") && p.ends_with(".sql") => models.push(file),
                p if p.starts_with("tests/") && p.ends_with(".yml") => fixtures.push(file),
                p => panic!("fixture file {p} is not a project file"),
            }
        }
        let project = Project::new(&db, ".".to_string(), config, sources, models, fixtures);
        Fixture { db, project, files: all, labels: BTreeMap::new() }
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

    pub fn manifest(&self) -> Manifest {
        match manifest(&self.db, self.project) {
            Ok(m) => m.to_manifest(),
            Err(e) => panic!("fixture does not compile: {e:?}"),
        }
    }

    /// Computes the whole manifest in an order that lets every executed
    /// query be attributed to what it belongs to: project-wide queries,
    /// then each model's reads, each source, each model's identity in
    /// dependency order, and finally the graph and the manifest.
    pub fn warm_up(&mut self) -> Manifest {
        self.db.take_executed();
        let db = &self.db;
        let p = self.project;
        let mut learned: Vec<(Vec<String>, String)> = Vec::new();
        let _ = load_errors(db, p);
        let _ = model_config_index(db, p);
        let models = model_names(db, p).clone();
        let sources = source_names(db, p).clone();
        learned.push((db.take_executed(), "project".into()));
        for m in &models {
            let _ = model_reads(db, p, ModelName::new(db, m.clone()));
            learned.push((db.take_executed(), m.clone()));
        }
        for s in &sources {
            let _ = source_input(db, p, SourceName::new(db, s.clone()));
            learned.push((db.take_executed(), format!("source {s}")));
        }
        let order = dependency_graph(db, p).order.clone();
        learned.push((db.take_executed(), "project".into()));
        for m in &order {
            let name = ModelName::new(db, m.clone());
            let _ = model_identity(db, p, name);
            let _ = model_manifest_json(db, p, name);
            // Readers ask for it while lowering; attribute it to its model.
            let _ = model_contract(db, p, name);
            learned.push((db.take_executed(), m.clone()));
        }
        let m = self.manifest();
        learned.push((self.db.take_executed(), "project".into()));
        for (keys, label) in learned {
            for k in keys {
                let query = k.split('(').next().unwrap_or(&k).to_string();
                self.labels.insert(k, format!("{query}({label})"));
            }
        }
        m
    }

    /// Executed queries since the last call, one per line, sorted so that
    /// snapshots do not depend on salsa's scheduling, each named by what it
    /// belongs to (see [`Fixture::warm_up`]).
    pub fn executed(&self) -> String {
        let mut names: Vec<String> =
            self.db.take_executed().into_iter().map(|k| self.labels.get(&k).cloned().unwrap_or(k)).collect();
        names.sort();
        names.join("\n")
    }

    /// The executed queries labelled as belonging to `owner`.
    pub fn executed_for(list: &str, owner: &str) -> Vec<String> {
        list.lines().filter(|l| l.ends_with(&format!("({owner})"))).map(str::to_string).collect()
    }
}
