//! The salsa database and the inputs every derived fact is computed from.

use std::sync::{Arc, Mutex};

use salsa::Database as _;

/// One project file: its project-relative path (`models/a.sql`) and text.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: String,
    #[returns(deref)]
    pub text: String,
}

/// The set of project files. It changes only when a file is added, removed
/// or renamed; editing a file changes that file's input alone.
#[salsa::input(debug)]
pub struct Project {
    /// The project directory as the user named it (`.`), for messages.
    #[returns(ref)]
    pub root: String,
    /// `streamform.yml`; `None` when missing, which is a load error.
    pub config_file: Option<SourceFile>,
    pub sources_file: Option<SourceFile>,
    /// `models/**/*.sql`, sorted by path.
    #[returns(ref)]
    pub model_files: Vec<SourceFile>,
    /// `tests/**/*.yml`, sorted by path.
    #[returns(ref)]
    pub fixture_files: Vec<SourceFile>,
}

/// The environment as the project names it: the value of each variable
/// `streamform.yml` refers to with `${…}` and that is set. Only the files
/// table reads the process environment, and only these names. No identity
/// query takes it: only what a target resolves to (`target.rs`) does.
#[salsa::input(debug)]
pub struct Environment {
    #[returns(ref)]
    pub vars: std::collections::BTreeMap<String, String>,
}

/// A model of a project, by name, interned so queries can be keyed by it.
/// The project is part of the key so that each per-model query takes this
/// one argument: salsa interns the arguments of a query of several, once
/// per call, which was a tenth of a cold compile.
#[salsa::interned(debug)]
pub struct ModelName<'db> {
    #[returns(copy)]
    pub project: Project,
    #[returns(ref)]
    pub text: String,
}

/// A source's name, interned so queries can be keyed by it.
#[salsa::interned(debug)]
pub struct SourceName<'db> {
    #[returns(ref)]
    pub text: String,
}

#[salsa::db]
pub trait Db: salsa::Database {}

/// The database. Optionally records which queries executed, for tests and
/// for `watch`'s statistics.
#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    executed: Option<Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>>>,
}

impl Default for Database {
    fn default() -> Self {
        Database { storage: salsa::Storage::new(None), executed: None }
    }
}

impl Database {
    /// A database that records every query it executes.
    pub fn with_execution_log() -> Self {
        let executed: Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>> = Default::default();
        let sink = executed.clone();
        let hook = move |e: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = e.kind {
                sink.lock().unwrap().push(database_key);
            }
        };
        Database { storage: salsa::Storage::new(Some(Box::new(hook))), executed: Some(executed) }
    }

    /// `query(key)` for each query executed since the last call.
    pub fn take_executed(&self) -> Vec<String> {
        let Some(executed) = &self.executed else { return Vec::new() };
        let keys = std::mem::take(&mut *executed.lock().unwrap());
        keys.into_iter()
            .map(|k| format!("{}({:?})", self.ingredient_debug_name(k.ingredient_index()), k.key_index()))
            .collect()
    }
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {}
