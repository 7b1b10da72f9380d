//! Loading a project: its configuration files and model files, as queries.

use std::sync::Arc;
use std::collections::{BTreeMap, BTreeSet};

use salsa::plumbing::AsId;
use salsa::{Durability, Setter};

use crate::config::{self, ModelConfig, ProjectConfig, SourceConfig};
use crate::db::{Database, Db, ModelName, ModelSlot, Project, SourceFile, SourceName};
use crate::diagnostic::{Diagnostic, Span};
use crate::plan::lower::ModelSettings;
use crate::diagnostic::Code;

pub const CONFIG_FILE: &str = "streamform.yml";
pub const SOURCES_FILE: &str = "sources.yml";

/// What a project file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// `streamform.yml`.
    Config,
    /// `sources.yml`.
    Sources,
    /// `models/**/*.sql`.
    Model,
    /// `tests/**/*.yml`.
    Fixture,
}

/// What the file at a project-relative path (`models/a.sql`) is; None for
/// a path that is no project file. The one rule the loader, watch and the
/// tests apply.
pub fn classify_path(rel: &str) -> Option<FileKind> {
    match rel {
        CONFIG_FILE => return Some(FileKind::Config),
        SOURCES_FILE => return Some(FileKind::Sources),
        _ => {}
    }
    let ext = camino::Utf8Path::new(rel).extension();
    if rel.starts_with("models/") && ext == Some("sql") {
        Some(FileKind::Model)
    } else if rel.starts_with("tests/") && ext == Some("yml") {
        Some(FileKind::Fixture)
    } else {
        None
    }
}

/// Parsed streamform.yml, or why it could not be loaded.
#[salsa::tracked(returns(ref))]
pub fn project_config(db: &dyn Db, project: Project) -> Result<ProjectConfig, Vec<Diagnostic>> {
    let Some(file) = project.config_file(db) else {
        return Err(vec![Diagnostic::error(Code::NoProjectFile, format!("no streamform.yml found in {}", project.root(db)))
            .help("run `streamform init` to create a project here, or pass -p DIR; without -p, Streamform looks for streamform.yml here and in every directory above")]);
    };
    match db.config_entries() {
        // A poisoned lock holds entries each decoded whole: still right.
        Some(entries) => entries.lock().unwrap_or_else(|e| e.into_inner()).decode_project(file.path(db), file.text(db)),
        None => config::decode_project(file.path(db), file.text(db)),
    }
}

/// Parsed sources.yml (no file = no sources).
#[salsa::tracked(returns(ref))]
pub fn sources_config(db: &dyn Db, project: Project) -> Result<Vec<SourceConfig>, Vec<Diagnostic>> {
    match project.sources_file(db) {
        Some(file) => config::decode_sources(file.path(db), file.text(db)),
        None => Ok(Vec::new()),
    }
}

/// Model files by model name (the file stem), in name order. Two files
/// with one stem is a load error. A sorted list rather than a map: a model
/// added or removed rebuilds it before anything else runs, and the list
/// (already nearly in order, as files come in path order) sorts in a
/// fraction of the map's inserts.
#[salsa::tracked(returns(ref))]
pub fn model_index(db: &dyn Db, project: Project) -> Result<Vec<(String, SourceFile)>, Vec<Diagnostic>> {
    let mut out: Vec<(String, SourceFile)> = project.model_files(db).iter().map(|&f| (model_stem(f.path(db)).to_string(), f)).collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if !out.windows(2).any(|w| w[0].0 == w[1].0) {
        return Ok(out);
    }
    // A stem taken twice: each later file beside the first, by the slots' rule.
    let (_, duplicates) = files_by_name(db, project.model_files(db), |_| true);
    Err(duplicates
        .into_iter()
        .map(|(first, file)| {
            let path = file.path(db);
            Diagnostic::error(Code::DuplicateModelStem, format!("duplicate model `{}`: {} and {path}", model_name_of(path), first.path(db)))
                .in_file(path.clone())
                .help("model names are file stems and must be unique; rename one of the files")
        })
        .collect())
}

/// The file of each model name (of those `wanted` takes): the first file
/// with that stem, in the order of `files`; and each later file whose stem
/// is taken, with the file that took it. The one rule [`model_index`] and
/// the slots follow.
fn files_by_name(db: &dyn Db, files: &[SourceFile], wanted: impl Fn(&str) -> bool) -> (BTreeMap<String, SourceFile>, Vec<(SourceFile, SourceFile)>) {
    let mut out: BTreeMap<String, SourceFile> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for &file in files {
        let stem = model_stem(file.path(db));
        if !wanted(stem) {
            continue;
        }
        match out.entry(stem.to_string()) {
            std::collections::btree_map::Entry::Occupied(first) => duplicates.push((*first.get(), file)),
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(file);
            }
        }
    }
    (out, duplicates)
}

/// Gives each model name of `project` its own [`ModelSlot`] input, at
/// `durability`, and keeps them from now on (see [`set_model_files`]): for
/// a database that lives across edits (`watch`, the language server), so
/// that a model added or removed leaves every other model's queries known
/// valid. A one-shot command has no use for them.
pub fn keep_model_slots(db: &Database, project: Project, durability: Durability) {
    let slots = project.model_slots(db);
    slots.keep();
    for (name, file) in files_by_name(db, project.model_files(db), |_| true).0 {
        slots.insert(name, ModelSlot::builder(Some(file)).durability(durability).new(db));
    }
}

/// Sets the project's list of model files at `list`, and when slots are
/// kept, the slot of each name whose file changed at `slot` (a name new to
/// the project gets a new slot). A slot keeps the durability it had when
/// it changes: salsa reports the change at that durability, so the first
/// removal of a model the project started with re-verifies every query.
pub fn set_model_files(db: &mut Database, project: Project, files: Vec<SourceFile>, list: Durability, slot: Durability) {
    let slots = project.model_slots(db).clone();
    if slots.kept() {
        // Only the names of files that came or went can resolve anew: a
        // merge of the two lists in id order (an edit changes a file or
        // two of thousands, and hashing every one cost milliseconds).
        let mut old = project.model_files(db).clone();
        let mut new = files.clone();
        old.sort_unstable_by_key(|f| f.as_id());
        new.sort_unstable_by_key(|f| f.as_id());
        let mut names: BTreeSet<&str> = BTreeSet::new();
        let (mut i, mut j) = (0, 0);
        loop {
            let came_or_went = match (old.get(i), new.get(j)) {
                (None, None) => break,
                (Some(a), Some(b)) if a == b => {
                    i += 1;
                    j += 1;
                    continue;
                }
                (Some(a), Some(b)) if a.as_id() < b.as_id() => {
                    i += 1;
                    *a
                }
                (Some(a), None) => {
                    i += 1;
                    *a
                }
                (_, Some(b)) => {
                    j += 1;
                    *b
                }
            };
            names.insert(model_stem(came_or_went.path(db)));
        }
        let now = files_by_name(db, &files, |stem| names.contains(stem)).0;
        let changes: Vec<(String, Option<SourceFile>)> = names.iter().map(|n| (n.to_string(), now.get(*n).copied())).collect();
        for (name, file) in changes {
            match slots.get(&name) {
                Some(s) if s.file(db) != file => {
                    s.set_file(db).with_durability(slot).to(file);
                }
                Some(_) => {}
                None => slots.insert(name, ModelSlot::builder(file).durability(slot).new(db)),
            }
        }
    }
    project.set_model_files(db).with_durability(list).to(files);
}

/// The model name of `models/sub/name.sql`.
pub fn model_name_of(path: &str) -> String {
    model_stem(path).to_string()
}

fn model_stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".sql").unwrap_or(file)
}

/// The most model files a project may have: ten times the 100,000 models
/// Streamform is built and measured for. Past it, a project is most likely
/// a generator run away, and one Flink job of that many statements does not
/// start (docs/limits.md).
pub const MAX_MODELS: usize = 1_000_000;

/// The error for a project of more than [`MAX_MODELS`] model files, at the
/// first file past the limit; it counts the files and reads none of them,
/// so such a project is refused before anything is compiled.
#[salsa::tracked(returns(ref))]
pub fn model_count_error(db: &dyn Db, project: Project) -> Option<Diagnostic> {
    let files = project.model_files(db);
    let first_past = files.get(MAX_MODELS)?.path(db);
    Some(
        Diagnostic::error(Code::TooManyModels, format!("the project has {} model files, more than the limit of {MAX_MODELS}", files.len()))
            .at(first_past, Some(crate::diagnostic::Span::new(1, 1, 0)))
            .help("split it into projects of at most a million models each (each is its own Flink job)"),
    )
}

/// Everything that stops the project from loading, in file order.
#[salsa::tracked(returns(ref))]
pub fn load_errors(db: &dyn Db, project: Project) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(e) = model_count_error(db, project) {
        // Nothing else is read: the count alone refuses the project.
        return vec![e.clone()];
    }
    if let Err(e) = project_config(db, project) {
        out.extend(e.iter().cloned());
    }
    if let Err(e) = sources_config(db, project) {
        out.extend(e.iter().cloned());
    }
    if let Err(e) = model_index(db, project) {
        out.extend(e.iter().cloned());
    }
    out
}

/// Model names in name order (empty when the project does not load).
#[salsa::tracked(returns(ref))]
pub fn model_names(db: &dyn Db, project: Project) -> Vec<String> {
    match model_index(db, project) {
        Ok(m) => m.iter().map(|(name, _)| name.clone()).collect(),
        Err(_) => Vec::new(),
    }
}

/// Where each segment of the models starts in name order (see
/// [`crate::segments`]).
#[salsa::tracked(returns(ref))]
pub fn model_segment_starts(db: &dyn Db, project: Project) -> Vec<usize> {
    crate::segments::starts(model_names(db, project))
}

/// How many segments the project's models make (see [`crate::segments`]).
pub fn model_segments(db: &dyn Db, project: Project) -> u32 {
    model_segment_starts(db, project).len() as u32
}

/// The names of one segment of models. A model added or removed elsewhere
/// leaves it equal, so the segment's queries are not re-run.
#[salsa::tracked(returns(ref))]
pub fn segment_models(db: &dyn Db, project: Project, segment: u32) -> Vec<String> {
    let names = model_names(db, project);
    names[crate::segments::segment_range(model_segment_starts(db, project), names.len(), segment)].to_vec()
}

/// The keys of one segment's models, in its order: interned once when the
/// segment changes, not by every per-segment query for every model on
/// each run (hashing and comparing the name took a tenth of re-running the
/// manifest's segments).
#[salsa::tracked(returns(ref))]
pub fn segment_keys<'db>(db: &'db dyn Db, project: Project, segment: u32) -> Vec<ModelName<'db>> {
    segment_models(db, project, segment).iter().map(|n| ModelName::new(db, project, n.clone())).collect()
}

/// Source names in declaration order.
#[salsa::tracked(returns(ref))]
pub fn source_names(db: &dyn Db, project: Project) -> Vec<String> {
    match sources_config(db, project) {
        Ok(s) => s.iter().map(|s| s.name.clone()).collect(),
        Err(_) => Vec::new(),
    }
}

/// Model files by name, split by the hash of the name into
/// [`FILE_BUCKETS`] buckets. A stem two files share is the first's, as the
/// slots have it (such a project does not load: [`model_index`]).
#[salsa::tracked(returns(ref))]
pub(crate) fn model_file_buckets(db: &dyn Db, project: Project) -> Vec<BTreeMap<String, SourceFile>> {
    let mut out = vec![BTreeMap::new(); FILE_BUCKETS];
    match model_index(db, project) {
        Ok(index) => index.iter().for_each(|(name, file)| {
            out[bucket_of(name) as usize].insert(name.clone(), *file);
        }),
        Err(_) => files_by_name(db, project.model_files(db), |_| true).0.into_iter().for_each(|(name, file)| {
            out[bucket_of(&name) as usize].insert(name, file);
        }),
    }
    out
}

/// Buckets of [`model_file_bucket`]: enough that a bucket holds a few
/// dozen models of a 10,000-model project.
const FILE_BUCKETS: usize = 256;

fn bucket_of(name: &str) -> u32 {
    (crate::segments::name_hash(name) % FILE_BUCKETS as u64) as u32
}

/// One bucket of model files by name. Adding or removing a model changes
/// one bucket: the others come out equal, which stops the re-verification.
#[salsa::tracked(returns(ref))]
fn model_file_bucket(db: &dyn Db, project: Project, bucket: u32) -> BTreeMap<String, SourceFile> {
    model_file_buckets(db, project)[bucket as usize].clone()
}

/// The file of one model: its slot's when slots are kept (see
/// [`keep_model_slots`]), which adding or removing another model leaves
/// alone; read here, not memoized, as a slot is an input already (a memo
/// per model is more for an edit that re-verifies every model to walk). A
/// name without a slot goes through [`unslotted_model_file`].
pub fn model_source_file<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<SourceFile> {
    match name.project(db).model_slots(db).get(name.text(db)) {
        Some(slot) => slot.file(db),
        None => *unslotted_model_file(db, name),
    }
}

/// The file of a model without a slot (slots not kept, or a name the
/// project has never had). Without slots, adding or removing another model
/// re-runs this only for the models of its bucket (see
/// [`model_file_bucket`]), and the answer stays the same, so nothing
/// downstream of it re-runs.
#[salsa::tracked]
fn unslotted_model_file<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<SourceFile> {
    let project = name.project(db);
    if project.model_slots(db).kept() {
        // The list itself, not a bucket, which may come out equal when the
        // list changes: this name's slot is made with the change.
        let _ = project.model_files(db);
    }
    model_file_bucket(db, project, bucket_of(name.text(db))).get(name.text(db)).copied()
}

pub fn model_file(db: &dyn Db, project: Project, name: &str) -> Option<SourceFile> {
    model_source_file(db, ModelName::new(db, project, name.to_string()))
}

/// Whether a model of that name exists (see [`model_source_file`]).
pub fn model_exists(db: &dyn Db, project: Project, name: &str) -> bool {
    model_file(db, project, name).is_some()
}

/// Whether each entry of streamform.yml's `models:` (in its order) has a
/// model file. Adding or removing a model re-runs this: one merge of the
/// entries and the models in name order (a lookup per entry, hashed or by
/// binary search, missed the cache for milliseconds at 10,000 models). An
/// entry the index does not give (a name configured twice) is looked up.
#[salsa::tracked(returns(ref))]
pub fn configured_models_exist(db: &dyn Db, project: Project) -> Vec<bool> {
    let Ok(config) = project_config(db, project) else { return Vec::new() };
    let names = model_names(db, project);
    let mut exists: Vec<Option<bool>> = vec![None; config.models.len()];
    let mut rest = names.iter().peekable();
    for (name, &i) in model_config_index(db, project) {
        while rest.next_if(|n| *n < name).is_some() {}
        exists[i] = Some(rest.peek() == Some(&name));
    }
    let is_model = |n: &str| names.binary_search_by(|m| m.as_str().cmp(n)).is_ok();
    config.models.iter().zip(exists).map(|(m, e)| e.unwrap_or_else(|| is_model(&m.name))).collect()
}

/// Where each model's entry sits in streamform.yml's `models:`.
#[salsa::tracked(returns(ref))]
pub fn model_config_index(db: &dyn Db, project: Project) -> BTreeMap<String, usize> {
    match project_config(db, project) {
        Ok(c) => c.models.iter().enumerate().map(|(i, m)| (m.name.clone(), i)).collect(),
        Err(_) => BTreeMap::new(),
    }
}

/// A model's entry in streamform.yml (defaults when unconfigured) with
/// every span [`Span::relative_to`] the entry's start: an edit elsewhere in
/// the file that moves the entry leaves it equal. A model's own queries
/// read it (`lower_model`, `model_checks`, `sink_checks`,
/// `sink_nullable_key`), so such an edit re-runs none of
/// them; their diagnostics locate streamform.yml the same way, and
/// whoever gathers them places them ([`segment_entry_starts`],
/// [`model_entry_start`]).
#[salsa::tracked(returns(ref))]
pub fn model_entry<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Arc<ModelConfig> {
    match written_entry(db, name) {
        Some((c, i)) => c.models[i].clone(),
        None => Arc::new(ModelConfig::unconfigured(name.text(db))),
    }
}

/// streamform.yml and the place of the model's entry in it, if it has one.
fn written_entry<'db>(db: &'db dyn Db, name: ModelName<'db>) -> Option<(&'db ProjectConfig, usize)> {
    let project = name.project(db);
    let i = *model_config_index(db, project).get(name.text(db))?;
    Some((project_config(db, project).as_ref().ok()?, i))
}

/// The located configuration of one model (defaults when unconfigured), as
/// written. Not tracked: it reads all of streamform.yml, as the
/// whole-project queries and the commands that call it do anyway; a model's
/// own queries read [`model_entry`] instead.
pub fn model_config(db: &dyn Db, name: ModelName<'_>) -> Arc<ModelConfig> {
    Arc::new(written_entry(db, name).map_or_else(|| ModelConfig::unconfigured(name.text(db)), |(c, i)| c.model_at(i)))
}

/// Where a model's entry starts in streamform.yml (the default span when it
/// has none): a [`model_entry`] span, or a diagnostic of a model's own
/// queries, [`Span::placed_at`] it is where it is written.
pub fn model_entry_start(db: &dyn Db, name: ModelName<'_>) -> Span {
    written_entry(db, name).map_or_else(Span::default, |(c, i)| c.model_starts[i])
}

/// [`model_entry_start`] of each model of a segment, in its order: equal
/// unless an edit moved one of their entries, so that the segment's checks
/// are placed again only then.
#[salsa::tracked(returns(ref))]
pub fn segment_entry_starts(db: &dyn Db, project: Project, segment: u32) -> Vec<Span> {
    let names = segment_models(db, project, segment);
    let Ok(config) = project_config(db, project) else { return vec![Span::default(); names.len()] };
    let index = model_config_index(db, project);
    names.iter().map(|n| index.get(n).map_or_else(Span::default, |&i| config.model_starts[i])).collect()
}

/// The part of a model's entry that shapes its plan. A plain function: its
/// one reader, the model's lowering, reads the entry, which an edit of
/// another entry or one that moves it leaves equal.
pub fn settings_of(c: &ModelConfig) -> ModelSettings {
    ModelSettings {
        materialized: c.materialized,
        key: c.key.clone().unwrap_or_default(),
        key_declared: c.key.is_some(),
        sink: c.sink.as_ref().map(|s| (s.connector, s.target().unwrap_or("").to_string())),
        retention: c.retention,
        window: c.window.as_ref().map(|w| w.shape),
    }
}

/// Where each source's entry starts in sources.yml: a model's checks locate
/// a source's spans from its entry (`check::models::place_in_sources`).
#[salsa::tracked(returns(ref))]
pub fn source_entry_starts(db: &dyn Db, project: Project) -> BTreeMap<String, Span> {
    sources_config(db, project).as_ref().map(|s| s.iter().map(|s| (s.name.clone(), s.span)).collect()).unwrap_or_default()
}

/// The located configuration of one source.
#[salsa::tracked(returns(ref))]
pub fn source_config<'db>(db: &'db dyn Db, project: Project, name: SourceName<'db>) -> Option<SourceConfig> {
    sources_config(db, project).as_ref().ok()?.iter().find(|s| &s.name == name.text(db)).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_path_by_the_loader_rules() {
        assert_eq!(classify_path("streamform.yml"), Some(FileKind::Config));
        assert_eq!(classify_path("sources.yml"), Some(FileKind::Sources));
        assert_eq!(classify_path("models/a.sql"), Some(FileKind::Model));
        assert_eq!(classify_path("models/sub/a.sql"), Some(FileKind::Model));
        assert_eq!(classify_path("tests/a.yml"), Some(FileKind::Fixture));
        for other in ["models/a.yml", "tests/a.sql", "a.sql", "models", "models/.a.sql.swp", "sub/streamform.yml", "models/.sql"] {
            assert_eq!(classify_path(other), None, "{other}");
        }
    }

    /// With slots kept, each name resolves to the file the list gives it
    /// (the first with its stem, in path order) through adds, removals,
    /// renames and duplicate stems.
    #[test]
    fn slots_resolve_every_name_as_the_list_does() {
        use crate::db::Database;
        let mut db = Database::default();
        let file = |db: &Database, path: &str| SourceFile::new(db, path.into(), String::new());
        let [a, xb, yb, c, d, e] = ["models/a.sql", "models/x/b.sql", "models/y/b.sql", "models/c.sql", "models/d.sql", "models/sub/e.sql"].map(|p| file(&db, p));
        let project = Project::new(&db, ".".into(), None, None, vec![a, xb, yb, c], Vec::new());
        keep_model_slots(&db, project, Durability::HIGH);
        let steps: [Vec<SourceFile>; 6] = [vec![a, xb, yb, c], vec![a, xb, yb, c, d], vec![xb, yb, c, d], vec![yb, c, d], vec![yb, c, d, e], vec![a, xb, c, e]];
        for (i, files) in steps.into_iter().enumerate() {
            if i > 0 {
                set_model_files(&mut db, project, files.clone(), Durability::MEDIUM, Durability::LOW);
            }
            let expected = files_by_name(&db, &files, |_| true).0;
            for name in ["a", "b", "c", "d", "e", "f"] {
                let found = model_source_file(&db, ModelName::new(&db, project, name.to_string()));
                assert_eq!(found, expected.get(name).copied(), "step {i}: `{name}`");
                assert!(project.model_slots(&db).get(name).is_some() || expected.get(name).is_none(), "step {i}: `{name}` has a slot");
            }
        }
    }

    /// Each segment finds each model's entry start as the model's own lookup
    /// does: models with and without entries, entries of no model, names
    /// that sort by bytes (`B` before `a`, `a_b` before `ab`).
    #[test]
    fn segment_entry_starts_are_each_models_entry_start() {
        use crate::db::Database;
        let db = Database::default();
        let names = ["B", "a", "a_b", "ab", "c", "m1", "m10", "m2", "z"];
        let files: Vec<SourceFile> = names.iter().map(|n| SourceFile::new(&db, format!("models/{n}.sql"), String::new())).collect();
        let config = "name: p\nversion: 1\nmodels:\n  zz: {}\n  ab:\n    retention: 1h\n  B: {}\n  gone: {}\n  m10: {}\n  a:\n    key: [k]\n  m2: {}\n";
        let config = SourceFile::new(&db, CONFIG_FILE.into(), config.into());
        let project = Project::new(&db, ".".into(), Some(config), None, files, Vec::new());
        let mut seen = Vec::new();
        for segment in 0..model_segments(&db, project) {
            let starts = segment_entry_starts(&db, project, segment);
            for (n, at) in segment_models(&db, project, segment).iter().zip(starts) {
                assert_eq!(*at, model_entry_start(&db, ModelName::new(&db, project, n.clone())), "`{n}`");
                seen.push((n.clone(), at.line));
            }
        }
        let line = |n: &str| seen.iter().find(|(m, _)| m == n).map(|(_, l)| *l);
        assert_eq!((line("B"), line("a"), line("ab"), line("m10"), line("m2")), (Some(7), Some(10), Some(5), Some(9), Some(12)));
        assert_eq!((line("a_b"), line("c"), line("m1"), line("z")), (Some(0), Some(0), Some(0), Some(0)));
    }

    #[test]
    fn the_model_count_is_refused_one_past_the_limit_before_any_model_is_read() {
        use crate::db::Database;
        let db = Database::default();
        // The count reads no file, so one file listed many times stands for
        // a project of that many models.
        let empty = SourceFile::new(&db, "models/m.sql".into(), String::new());
        let last = SourceFile::new(&db, "models/past.sql".into(), String::new());
        let at = Project::new(&db, ".".into(), None, None, vec![empty; MAX_MODELS], Vec::new());
        assert_eq!(model_count_error(&db, at), &None);
        let mut files = vec![empty; MAX_MODELS];
        files.push(last);
        let past = Project::new(&db, ".".into(), None, None, files, Vec::new());
        let e = model_count_error(&db, past).as_ref().expect("refused");
        assert_eq!(e.code, Code::TooManyModels);
        assert_eq!(e.path.as_deref(), Some("models/past.sql"));
        // It is the only load error: no model was indexed or read.
        assert_eq!(load_errors(&db, past), &vec![e.clone()]);
    }
}
