//! Test support (feature `test-support`): salsa's executed queries named by
//! what they belong to, so incrementality tests can say "after this edit,
//! exactly these queries of model `a` re-ran".

use std::collections::BTreeMap;

use crate::check::{all_load_errors, fixture, fixture_checks, model_checks, source_diagnostics};
use crate::db::{Database, ModelName, Project, SourceName};
use crate::graph::dependency_graph;
use crate::manifest::{model_identity, model_json};
use crate::model::{model_contract, model_reads, named_reads, source_definition, source_input};
use crate::project::{model_config_index, model_names, source_names};

/// `query(Id(..))` → `query(owner)`.
#[derive(Default)]
pub struct QueryLabels {
    labels: BTreeMap<String, String>,
}

impl QueryLabels {
    /// Computes a project's queries in an order that attributes each one:
    /// project-wide queries, each model's reads, each source, each model's
    /// identity and checks in plan order, each fixture. The database must
    /// record executed queries ([`Database::with_execution_log`]) and have
    /// computed nothing yet. What the caller's own first compile runs after
    /// this is project-wide: label it with [`QueryLabels::label_rest`].
    pub fn learn(db: &Database, p: Project) -> QueryLabels {
        let mut l = QueryLabels::default();
        db.take_executed();
        let _ = all_load_errors(db, p);
        let _ = model_config_index(db, p);
        let models = model_names(db, p).clone();
        let sources = source_names(db, p).clone();
        let _ = crate::project::model_segments(db, p);
        let _ = crate::project::model_file_buckets(db, p);
        l.label_rest(db, "project");
        for m in &models {
            let _ = model_reads(db, ModelName::new(db, p, m.clone()));
            let _ = named_reads(db, ModelName::new(db, p, m.clone()));
            l.label_rest(db, m);
        }
        for s in &sources {
            let name = SourceName::new(db, s.clone());
            let _ = source_input(db, p, name);
            let _ = source_definition(db, p, name);
            let _ = source_diagnostics(db, p, name);
            l.label_rest(db, &format!("source {s}"));
        }
        let order = dependency_graph(db, p).order.clone();
        l.label_rest(db, "project");
        for m in &order {
            let name = ModelName::new(db, p, m.clone());
            let _ = model_identity(db, name);
            let _ = model_json(db, name);
            // Readers ask for it while lowering; attribute it to its model.
            let _ = model_contract(db, name);
            let _ = model_checks(db, name);
            l.label_rest(db, m);
        }
        for &f in p.fixture_files(db) {
            let _ = fixture(db, f);
            let _ = fixture_checks(db, p, f);
            l.label_rest(db, f.path(db));
        }
        l
    }

    /// Labels every query executed since the last call as `owner`'s.
    pub fn label_rest(&mut self, db: &Database, owner: &str) {
        for k in db.take_executed() {
            let query = k.split('(').next().unwrap_or(&k).to_string();
            self.labels.insert(k, format!("{query}({owner})"));
        }
    }

    /// Executed queries since the last call, one per line, sorted so that
    /// snapshots do not depend on salsa's scheduling, each named by owner.
    pub fn executed(&self, db: &Database) -> String {
        let mut names: Vec<String> = db.take_executed().into_iter().map(|k| self.labels.get(&k).cloned().unwrap_or(k)).collect();
        names.sort();
        names.join("\n")
    }
}

/// The lines of an [`QueryLabels::executed`] list that belong to `owner`.
pub fn executed_for(list: &str, owner: &str) -> Vec<String> {
    list.lines().filter(|l| l.ends_with(&format!("({owner})"))).map(str::to_string).collect()
}
