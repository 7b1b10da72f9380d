//! The salsa database and the inputs every derived fact is computed from.

use std::sync::{Arc, Mutex, OnceLock};

use salsa::Database as _;

use crate::config::entries::EntryCache;

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
    /// Each model name's own input, in a database that lives across edits
    /// (see [`ModelSlots`]); empty otherwise. Set once, never replaced.
    #[returns(ref)]
    #[default]
    pub model_slots: ModelSlots,
}

/// The file one model name resolves to (`None`: no such model now). A query
/// that finds a model's file here depends on this input alone, not on the
/// list of model files, so adding or removing another model leaves it
/// valid without re-verifying what it feeds (see
/// [`crate::project::model_source_file`]).
#[salsa::input(debug)]
pub struct ModelSlot {
    #[returns(copy)]
    pub file: Option<SourceFile>,
}

/// Model names to their [`ModelSlot`], for every name the project has had
/// since the slots were kept ([`crate::project::keep_model_slots`]). A name's
/// slot, once made, is never replaced, so reading this table needs no
/// dependency: a query that finds no slot reads the list of model files
/// instead, and the list changes whenever a slot is made.
#[derive(Clone, Default)]
pub struct ModelSlots(Arc<std::sync::RwLock<SlotTable>>);

#[derive(Default)]
struct SlotTable {
    kept: bool,
    by_name: std::collections::HashMap<String, ModelSlot>,
}

impl ModelSlots {
    pub fn get(&self, name: &str) -> Option<ModelSlot> {
        self.read().by_name.get(name).copied()
    }

    /// Whether slots are kept (see [`crate::project::keep_model_slots`]).
    pub fn kept(&self) -> bool {
        self.read().kept
    }

    pub(crate) fn keep(&self) {
        self.write().kept = true;
    }

    pub(crate) fn insert(&self, name: String, slot: ModelSlot) {
        self.write().by_name.insert(name, slot);
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, SlotTable> {
        self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, SlotTable> {
        self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl std::fmt::Debug for ModelSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelSlots({})", self.read().by_name.len())
    }
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
///
/// Never collected (`revisions`): a project's names are few and long-lived,
/// and an immortal key needs no read recorded where it is interned.
#[salsa::interned(debug, revisions = usize::MAX)]
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
pub trait Db: salsa::Database {
    /// streamform.yml's model entries as last decoded, when kept (see
    /// [`Database::keep_config_entries`]).
    fn config_entries(&self) -> Option<&Mutex<EntryCache>>;

    /// Whether every model's identity memo is kept (`watch`, the language
    /// server, `inspect-plan`): the manifest then reads a model's JSON
    /// from it rather than through `model_json`, the copy kept for when the
    /// identities are evicted. The same value either way, one memo fewer
    /// per model for an edit to walk.
    fn identities_kept(&self) -> bool;
}

/// The database. Optionally records which queries executed, and which
/// memos salsa found still valid, for tests and for `watch`'s statistics.
#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    log: Option<Arc<Mutex<QueryLog>>>,
    entries: Arc<OnceLock<Mutex<EntryCache>>>,
    identities_kept: Arc<std::sync::atomic::AtomicBool>,
}

#[derive(Default)]
struct QueryLog {
    executed: Vec<salsa::DatabaseKeyIndex>,
    validated: Vec<salsa::DatabaseKeyIndex>,
}

impl Default for Database {
    fn default() -> Self {
        Database { storage: salsa::Storage::new(None), log: None, entries: Default::default(), identities_kept: Default::default() }
    }
}

impl Database {
    /// A database that records every query it executes and every memo it
    /// finds still valid.
    pub fn with_execution_log() -> Self {
        let log: Arc<Mutex<QueryLog>> = Default::default();
        let sink = log.clone();
        let hook = move |e: salsa::Event| match e.kind {
            salsa::EventKind::WillExecute { database_key } => sink.lock().unwrap().executed.push(database_key),
            salsa::EventKind::DidValidateMemoizedValue { database_key } => sink.lock().unwrap().validated.push(database_key),
            _ => {}
        };
        Database { storage: salsa::Storage::new(Some(Box::new(hook))), log: Some(log), entries: Default::default(), identities_kept: Default::default() }
    }

    /// Keeps streamform.yml's decoded model entries from one decode of it
    /// to the next, so that an edit decodes again only the entries it
    /// changed (see [`crate::config::entries`]): for a database that lives
    /// across edits. The result is the same either way.
    pub fn keep_config_entries(&self) {
        let _ = self.entries.set(Mutex::default());
    }

    /// See [`Db::identities_kept`]: set by the driver's compile with the
    /// identities' LRU capacity, and by a front end whose database lives
    /// across edits and never evicts them.
    pub fn set_identities_kept(&self, kept: bool) {
        self.identities_kept.store(kept, std::sync::atomic::Ordering::Relaxed);
    }

    /// `query(key)` for each query executed since the last call.
    pub fn take_executed(&self) -> Vec<String> {
        self.take(|l| &mut l.executed)
    }

    /// `query(key)` for each memo found still valid since the last call:
    /// by durability (its inputs all more durable than the last change) or
    /// by walking its dependencies. A memo no query reached is not listed,
    /// so a model's lowering appears only when something walked into it.
    pub fn take_validated(&self) -> Vec<String> {
        self.take(|l| &mut l.validated)
    }

    fn take(&self, which: fn(&mut QueryLog) -> &mut Vec<salsa::DatabaseKeyIndex>) -> Vec<String> {
        let Some(log) = &self.log else { return Vec::new() };
        let keys = std::mem::take(which(&mut log.lock().unwrap()));
        keys.into_iter()
            .map(|k| format!("{}({:?})", self.ingredient_debug_name(k.ingredient_index()), k.key_index()))
            .collect()
    }
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn config_entries(&self) -> Option<&Mutex<EntryCache>> {
        self.entries.get()
    }

    fn identities_kept(&self) -> bool {
        self.identities_kept.load(std::sync::atomic::Ordering::Relaxed)
    }
}
