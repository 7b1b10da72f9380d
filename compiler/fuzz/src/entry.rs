//! The entry points the fuzz targets and the corpus replay
//! (`compiler/tests/fuzz_corpus.rs`) share: each takes one input's bytes,
//! makes an in-memory project of it, and runs what the commands run on it
//! (the driver's compile on its own threads, then the queries `check`,
//! `inspect-plan`, `build`, `test`, `run` and `plan --against` call). None
//! may panic, overflow its stack or run away with memory, on any input.

use std::collections::BTreeMap;

use streamform::backend::flink::{flink_script, TargetName};
use streamform::check::{check_report, fixture_checks};
use streamform::config::decode_project;
use streamform::config::entries::EntryCache;
use salsa::Setter;
use streamform::db::{Database, Environment, Project, SourceFile, SourceName};
use streamform::deploy::{journal, uids};
use streamform::driver::{self, Work};
use streamform::graph::dependency_graph;
use streamform::manifest::manifest;
use streamform::project::{classify_path, FileKind};
use streamform::yaml::agree;
use streamform::sim::line_feed::LineFeed;
use streamform::sim::{fixture_report, fixture_rows, inputs_to, source_spec, Change};
use streamform::upgrade::{diff, reader};

/// The sources every generated model reads: each column type, event time
/// on both.
pub const SOURCES: &str = "sources:
  orders:
    connector: kafka
    topic: orders
    key: [id]
    event_time: ts
    watermark: 5s
    schema: {id: int64, customer: int64, qty: int32, amount: \"decimal(10,2)\", status: string, ok: boolean, score: float64, ts: timestamp}
  payments:
    connector: kafka
    topic: payments
    event_time: ts
    schema: {order_id: int64, paid: \"decimal(10,2)\", ts: timestamp}
";

/// The project file of the fixed project: model `m` with no settings.
pub const CONFIG: &str = "name: fuzz\nversion: 1\n";

/// The project file of the fixed project the other targets read through:
/// a hop and a session window beside a group aggregate and a filter.
pub const PROJECT: &str = "name: fuzz
version: 1
models:
  totals:
    materialized: upsert
    key: [customer]
  sliding:
    window: {type: hop, size: 2m, slide: 1m}
  sessions:
    window: {type: session, gap: 1m}
";

/// The models of that project.
pub const MODELS: &[(&str, &str)] = &[
    ("models/totals.sql", "SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM source('orders') GROUP BY customer"),
    ("models/big.sql", "SELECT id, amount * 2 AS doubled, status FROM source('orders') WHERE qty > 0"),
    ("models/sliding.sql", "SELECT status, window_start, window_end, COUNT(*) AS n, AVG(score) AS s FROM source('orders') GROUP BY status, window_start, window_end"),
    ("models/sessions.sql", "SELECT customer, window_start, window_end, MAX(qty) AS q FROM source('orders') GROUP BY customer, window_start, window_end"),
];

/// A database kept from one input to the next, as `watch` keeps one: each
/// input replaces the text of its files, and what did not change is not
/// computed again (the fixed project's files and models): a fuzzer runs
/// 1.5 to 10 times as many inputs. Made anew every [`RESET`] inputs, so
/// what the inputs intern stays bounded; for every input when
/// `STREAMFORM_FUZZ_FRESH` is set (a crash that does not reproduce alone
/// depends on the inputs before it: an incrementality bug); and on each
/// new thread, so the corpus replay runs every input on a fresh one.
struct Session {
    db: Database,
    project: Project,
    /// The files the inputs write, in the order of the edits.
    edited: Vec<SourceFile>,
    runs: u32,
}

/// Inputs per database.
const RESET: u32 = 1000;

thread_local! {
    /// `streamform.yml`'s entries, kept from one input to the next.
    static ENTRIES: std::cell::RefCell<EntryCache> = std::cell::RefCell::new(EntryCache::default());
    static SESSIONS: std::cell::RefCell<BTreeMap<&'static str, Session>> = const { std::cell::RefCell::new(BTreeMap::new()) };
}

/// Runs `f` on the kept database of `target`: the project of `files` and
/// `edits`, each edit a path and the text the input gives it.
pub(crate) fn session(target: &'static str, files: &[(&str, &str)], edits: &[(&str, &str)], f: impl FnOnce(&mut Database, Project)) {
    SESSIONS.with_borrow_mut(|sessions| {
        let reset = if std::env::var_os("STREAMFORM_FUZZ_FRESH").is_some() { 1 } else { RESET };
        let fresh = sessions.get(target).is_none_or(|s| s.runs >= reset);
        if fresh {
            let db = Database::default();
            let project = project(&db, &[files, edits].concat());
            let all = all_files(&db, project);
            let edited = edits.iter().filter_map(|(path, _)| all.iter().copied().find(|f| f.path(&db) == path)).collect();
            sessions.insert(target, Session { db, project, edited, runs: 0 });
        }
        let s = sessions.get_mut(target).expect("made above");
        s.runs += 1;
        if !fresh {
            for (i, (_, text)) in edits.iter().enumerate() {
                let file = s.edited[i];
                file.set_text(&mut s.db).to(text.to_string());
            }
        }
        f(&mut s.db, s.project);
    });
}

/// Every file of a project.
fn all_files(db: &Database, p: Project) -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = p.config_file(db).iter().chain(p.sources_file(db)).copied().collect();
    files.extend(p.model_files(db).iter().copied());
    files.extend(p.fixture_files(db).iter().copied());
    files
}

/// The fixed project's files.
fn fixed() -> Vec<(&'static str, &'static str)> {
    [&[("streamform.yml", PROJECT), ("sources.yml", SOURCES)][..], MODELS].concat()
}

/// The text of an input, when it is UTF-8 (every reader refuses other
/// bytes before parsing; the CLI reads files as UTF-8).
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// An in-memory project of these files, as the CLI's files table makes one.
pub fn project(db: &Database, files: &[(&str, &str)]) -> Project {
    let (mut config, mut sources, mut models, mut fixtures) = (None, None, Vec::new(), Vec::new());
    let mut files = files.to_vec();
    files.sort_by(|a, b| a.0.cmp(b.0));
    for (path, text) in files {
        let file = SourceFile::new(db, path.to_string(), text.to_string());
        match classify_path(path) {
            Some(FileKind::Config) => config = Some(file),
            Some(FileKind::Sources) => sources = Some(file),
            Some(FileKind::Model) => models.push(file),
            Some(FileKind::Fixture) => fixtures.push(file),
            None => {}
        }
    }
    Project::new(db, ".".to_string(), config, sources, models, fixtures)
}

/// What `check`, `inspect-plan` and `build` compute: every model's checks
/// and identity, the report, the manifest and the Flink script.
pub fn compile(db: &mut Database, p: Project) {
    driver::compile(db, p, Work::All);
    let _ = check_report(db, p);
    if let Ok(m) = manifest(db, p) {
        // What `inspect-plan --json` and `build` print, re-indented from the
        // digest's compact JSON: byte for byte what serializing prints.
        let mut printed = Vec::new();
        m.write_pretty(&mut printed).expect("writing to memory does not fail");
        assert_eq!(printed, serde_json::to_vec_pretty(m).expect("manifests serialize"), "the printed manifest differs from the serialized one");
        let m = m.to_manifest();
        // `plan` against the project's own manifest: all unchanged.
        let _ = diff(Some(&m), &m, &[]);
    }
    let env = Environment::new(db, BTreeMap::new());
    let _ = flink_script(db, p, env, TargetName::placeholders(db));
}

/// A model's SQL through the whole pipeline, with the fixed sources.
/// Also: where the fast tokenizer takes the text, its tokens and spans
/// are sqlparser's, and where the plain parser takes those, its tree is.
pub fn sql(data: &[u8]) {
    let Some(sql) = text(data) else { return };
    if let Some(fast) = streamform::sql::tokens::simple_tokens(sql) {
        let slow = sqlparser::tokenizer::Tokenizer::new(&sqlparser::dialect::GenericDialect {}, sql).tokenize_with_location();
        assert_eq!(Ok(format!("{fast:?}")), slow.map(|t| format!("{t:?}")).map_err(|e| e.to_string()), "the fast tokenizer differs from sqlparser's");
        if let Some(plain) = streamform::sql::plain::plain_statements(&fast) {
            let parsed = sqlparser::parser::Parser::new(&sqlparser::dialect::GenericDialect {}).with_tokens_with_locations(fast).parse_statements();
            assert_eq!(Ok(format!("{plain:?}")), parsed.map(|s| format!("{s:?}")).map_err(|e| e.to_string()), "the plain parser differs from sqlparser's");
        }
    }
    session("sql", &[("streamform.yml", CONFIG), ("sources.yml", SOURCES)], &[("models/m.sql", sql)], compile);
}

/// `streamform.yml` and `sources.yml`, split at the first NUL byte (the
/// first without one is `streamform.yml` alone, with the fixed sources).
pub fn config(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let (config, sources) = t.split_once('\0').unwrap_or((t, SOURCES));
    for doc in [config, sources] {
        if let Err(e) = agree::block_document(doc) {
            panic!("{e}");
        }
    }
    // Decoded entry by entry (as `watch` decodes it, on the entries of
    // the inputs before), it is what the whole file's decode is.
    ENTRIES.with_borrow_mut(|entries| {
        assert_eq!(entries.decode_project("streamform.yml", config), decode_project("streamform.yml", config), "decoded entry by entry");
    });
    session("config", MODELS, &[("streamform.yml", config), ("sources.yml", sources)], compile);
}

/// A fixture of the fixed project, checked and run on the simulator as
/// `test` runs it (the report and, for `--json`, every row).
pub fn fixture(data: &[u8]) {
    let Some(t) = text(data) else { return };
    // Large fixtures are read a line at a time where the line is a flow
    // map of scalars; each line the line reader takes, it reads as the
    // parser reads it in a list of its own.
    for line in t.lines() {
        if let Err(e) = agree::fixture_line(line) {
            panic!("{e}");
        }
    }
    session("fixture", &fixed(), &[("tests/t.yml", t)], |db, p| {
        driver::compile(db, p, Work::Checks);
        let file = p.fixture_files(db)[0];
        let _ = fixture_checks(db, p, file);
        let _ = fixture_report(db, p, file);
        let _ = fixture_rows(db, p, file, &mut |row| drop(row));
    });
}

/// `run`'s JSON Lines input for source `orders`, fed line by line to the
/// models that read it, as `run` feeds a file.
pub fn jsonl(data: &[u8]) {
    let Some(t) = text(data) else { return };
    session("jsonl", &fixed(), &[], |db, p| jsonl_run(db, p, t));
}

fn jsonl_run(db: &mut Database, p: Project, t: &str) {
    driver::compile(db, p, Work::Checks);
    let db = &*db;
    for name in dependency_graph(db, p).order.clone() {
        let Some((sources, plans)) = inputs_to(db, p, &name) else { continue };
        let Some(specs) = sources.iter().map(|s| source_spec(db, p, SourceName::new(db, s.clone())).clone()).collect::<Option<Vec<_>>>() else { continue };
        let Some(src) = sources.iter().position(|s| s == "orders") else { continue };
        let mut feed = LineFeed::new(specs, plans);
        let mut emit = |_: usize, _: &Change| {};
        for line in t.split_inclusive('\n') {
            if feed.push_line(src, line, &mut emit).is_err() {
                break;
            }
        }
    }
}

/// A running plan (`plan --against`, the applied record's manifest): read,
/// verified, and diffed against the fixed project.
pub fn manifest_reader(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let Ok(doc) = reader::read_running(t) else { return };
    session("manifest", &fixed(), &[], |db, p| {
        driver::compile(db, p, Work::Manifest);
        if let Ok(m) = manifest(db, p) {
            let _ = diff(Some(doc.manifest()), &m.to_manifest(), &[]);
        }
    });
}

/// The deployment state `apply` and `status` read: a deploy plan
/// (`plan --out`), an applied record, a journal entry and a uids record.
pub fn deploy(data: &[u8]) {
    let Some(t) = text(data) else { return };
    // A mutated plan rarely keeps its id, so what follows the id check is
    // also run on every plan that decodes.
    if let Ok(plan) = streamform::deploy::decode_deploy_plan(t) {
        let _ = plan.digest();
        let _ = streamform::deploy::staleness(&plan, &plan);
        let _ = streamform::deploy::read_deploy_plan(t);
    }
    let _ = reader::read_running(t).map(|doc| doc.record().is_some());
    if let Ok(entry) = journal::decode_journal_entry(t) {
        // What `status` and `apply --from-savepoint` look up in a journal.
        let entries = [entry.clone()];
        let _ = entry.settled();
        let _ = journal::last_stop(&entries, "");
        if let Some(sp) = &entry.savepoint {
            let _ = journal::savepoint_writer(&entries, &entry.target, sp).map(|w| w.rollback(sp));
        }
        // A written entry reads back as it was.
        let written = serde_json::to_string_pretty(&entry).expect("an entry serializes");
        assert_eq!(journal::decode_journal_entry(&written).as_ref(), Ok(&entry), "{written}");
    }
    if let Ok(record) = uids::decode_uids_record(t) {
        let written = serde_json::to_string_pretty(&record).expect("a uids record serializes");
        assert_eq!(uids::decode_uids_record(&written).as_ref(), Ok(&record), "{written}");
        let job = record.job_id.clone();
        assert!(record.of_job(&job).is_some(), "a record is its own job's");
    }
}

/// A savepoint's `_metadata`, as Flink wrote it or not: the Kafka splits
/// `apply` reads for its cutover, one position per partition.
pub fn savepoint(data: &[u8]) {
    let offsets = streamform::deploy::savepoint::kafka_splits(data);
    for pair in offsets.windows(2) {
        assert!((&pair[0].topic, pair[0].partition) < (&pair[1].topic, pair[1].partition), "{offsets:?}");
    }
    assert!(offsets.iter().all(|o| o.partition >= 0 && o.offset >= -3 && !o.topic.is_empty()), "{offsets:?}");
}
