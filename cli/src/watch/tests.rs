//! Incrementality of watch's revisions, asserted from salsa's execute
//! events: a project on disk, a real files table and view, batches built by
//! hand (no notify, no timing).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use expect_test::expect;
use streamform::testing::QueryLabels;
use streamform::Database;

use crate::files::Batch;
use super::view::ModelStatus;
use super::Session;

pub(crate) const SHOP: &[(&str, &str)] = &[
    (
        "streamform.yml",
        "name: shop\nversion: 1\nmodels:\n  a:\n    materialized: upsert\n    key: [customer_id]\n    sink: {connector: kafka, topic: a-out}\n  b:\n    materialized: upsert\n    key: [customer_id]\n  c:\n    sink: {connector: kafka, topic: c-out}\n",
    ),
    (
        "sources.yml",
        "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    key: [customer_id]\n    schema:\n      order_id: int64\n      customer_id: int64\n      amount: decimal(10,2)\n  clicks:\n    connector: kafka\n    topic: clicks\n    schema:\n      user_id: int64\n      url: string\n",
    ),
    ("models/a.sql", A_TEXT),
    ("models/b.sql", "SELECT customer_id, total FROM ref('a') WHERE total > 100\n"),
    ("models/c.sql", "SELECT user_id, url FROM source('clicks') WHERE url IS NOT NULL\n"),
];

const A_TEXT: &str = "SELECT customer_id, SUM(amount) AS total\nFROM source('orders')\nWHERE amount > 0\nGROUP BY customer_id\n";

pub(crate) struct TempProject {
    dir: PathBuf,
}

impl TempProject {
    pub(crate) fn new(files: &[(&str, &str)]) -> TempProject {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("streamform-watch-unit-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&dir);
        let p = TempProject { dir };
        for (path, text) in files {
            p.write(path, text);
        }
        p
    }

    pub(crate) fn root(&self) -> &str {
        self.dir.to_str().expect("UTF-8 temp dir")
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.dir.join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let old = std::fs::read_to_string(self.dir.join(path)).expect("read");
        assert!(old.contains(from), "{path} does not contain {from:?}");
        self.write(path, &old.replacen(from, to, 1));
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.dir.join(path)).expect("remove");
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn batch(paths: &[&str]) -> Batch {
    Batch { paths: paths.iter().map(|p| p.to_string()).collect(), rescan: false }
}

/// A session whose executed queries are named by what they belong to:
/// queries are first computed model by model (then source by source,
/// fixture by fixture) and the keys each step executes are labelled with
/// it; whatever the first compile still runs is project-wide.
struct Labelled {
    session: Session,
    labels: QueryLabels,
}

impl Labelled {
    fn new(project: &TempProject) -> Labelled {
        let mut session = Session::new(Database::with_execution_log(), project.root(), false);
        let mut labels = QueryLabels::learn(&session.db, session.files.project);
        let first = session.initial();
        assert_eq!(first.delta.errors, 0, "the fixture project compiles cleanly");
        labels.label_rest(&session.db, "project");
        Labelled { session, labels }
    }

    /// Executed queries since the last call, labelled and sorted.
    fn executed(&self) -> String {
        self.labels.executed(&self.session.db)
    }

    /// Edits a file once and back, so its input is LOW durability as it is
    /// for a file being worked on (see `first_edit_of_a_file` for why the
    /// first edit does more).
    fn prime(&mut self, project: &TempProject, path: &str) {
        let text = std::fs::read_to_string(project.dir.join(path)).expect("read");
        project.write(path, &format!("{text}\n"));
        self.step(&[path]).expect("primed");
        project.write(path, &text);
        self.step(&[path]).expect("restored");
        self.session.db.take_executed();
    }

    /// A revision as `watch` runs it: the step, then the tidying.
    fn step(&mut self, paths: &[&str]) -> Option<super::Step> {
        let step = self.session.step(&batch(paths));
        self.session.tidy();
        step
    }
}

/// Every executed query belongs to one of `owners` (or is project-wide).
pub(crate) fn assert_only(executed: &str, owners: &[&str]) {
    for line in executed.lines() {
        let owner = line.split_once('(').map(|(_, o)| o.trim_end_matches(')')).unwrap_or("");
        assert!(owner == "project" || owners.contains(&owner), "{line} re-executed (only {owners:?} expected):\n{executed}");
    }
}

fn printed(step: &super::Step) -> Vec<(String, ModelStatus)> {
    step.delta.models.iter().map(|m| (m.name.clone(), m.status)).collect()
}

#[test]
fn logic_edit_reruns_only_the_edited_model() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    l.prime(&p, "models/a.sql");
    p.edit("models/a.sql", "amount > 0", "amount > 5");
    let step = l.step(&["models/a.sql"]).expect("a changed");
    assert_eq!(printed(&step), [("a".to_string(), ModelStatus::Changed)]);
    assert!(step.delta.digest_changed);
    let executed = l.executed();
    assert_only(&executed, &["a"]);
    expect![[r#"
        digest_through(project)
        lower_model(a)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_checks(a)
        model_contract(a)
        model_identity(a)
        model_reads(a)
        parse_model(a)
        plan_identity(a)
        segment_model_entries(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

#[test]
fn contract_edit_reruns_its_readers_too() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    l.prime(&p, "models/a.sql");
    p.edit("models/a.sql", "SUM(amount) AS total", "SUM(amount) AS total, COUNT(*) AS n");
    let step = l.step(&["models/a.sql"]).expect("a changed");
    // b reads a: its plan's input schema changed, so its block reprints.
    assert_eq!(printed(&step), [("a".to_string(), ModelStatus::Changed), ("b".to_string(), ModelStatus::Changed)]);
    let executed = l.executed();
    assert_only(&executed, &["a", "b"]);
    assert!(executed.contains("lower_model(b)"), "{executed}");
    expect![[r#"
        digest_through(project)
        lower_model(a)
        lower_model(b)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_checks(a)
        model_checks(b)
        model_contract(a)
        model_identity(a)
        model_identity(b)
        model_reads(a)
        parse_model(a)
        plan_identity(a)
        plan_identity(b)
        segment_model_entries(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

#[test]
fn whitespace_edit_prints_no_block_and_recomputes_no_identity() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    l.prime(&p, "models/a.sql");
    p.edit("models/a.sql", "SELECT customer_id, SUM(amount) AS total\n", "SELECT   customer_id,\n       SUM(amount)   AS total\n\n");
    let step = l.step(&["models/a.sql"]).expect("the text changed");
    assert!(step.delta.models.is_empty());
    assert!(!step.delta.digest_changed);
    let executed = l.executed();
    assert_only(&executed, &["a"]);
    for q in ["model_plan", "model_identity", "model_contract", "manifest", "dependency_graph"] {
        assert!(!executed.lines().any(|l| l.starts_with(&format!("{q}("))), "{q} re-executed:\n{executed}");
    }
    expect![[r#"
        lower_model(a)
        model_checks(a)
        model_reads(a)
        parse_model(a)"#]].assert_eq(&executed);
}

#[test]
fn an_unchanged_save_starts_no_revision() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    // Saving the same text, an editor's temporary file, a file outside
    // the project: no input is set, nothing runs.
    p.edit("models/a.sql", "amount", "amount");
    p.write("models/.a.sql.swp", "junk");
    p.write("notes.txt", "junk");
    assert!(l.step(&["models/a.sql", "models/.a.sql.swp", "notes.txt"]).is_none());
    assert_eq!(l.executed(), "");
}

#[test]
fn delete_and_recreate_in_one_burst_is_no_change() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    let text = std::fs::read_to_string(p.dir.join("models/c.sql")).expect("read");
    p.remove("models/c.sql");
    p.write("models/c.sql", &text);
    assert!(l.step(&["models/c.sql"]).is_none());
    assert_eq!(l.executed(), "");
}

#[test]
fn added_and_removed_models() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    p.write("models/d.sql", "SELECT user_id FROM source('clicks')\n");
    let step = l.step(&["models/d.sql"]).expect("d added");
    assert_eq!(printed(&step), [("d".to_string(), ModelStatus::Added)]);
    p.remove("models/c.sql");
    let step = l.step(&["models/c.sql"]).expect("c removed");
    assert!(step.delta.models.is_empty());
    assert_eq!(step.delta.removed, ["c"]);
    // A directory that appears with files in it reports only its own path.
    p.write("models/sub/e.sql", "SELECT url FROM source('clicks')\n");
    let step = l.step(&["models/sub"]).expect("e added");
    assert_eq!(printed(&step), [("e".to_string(), ModelStatus::Added)]);
    // A rescan finds what no event named.
    p.remove("models/d.sql");
    let step = l.session.step(&Batch { paths: Default::default(), rescan: true }).expect("d removed");
    assert_eq!(step.delta.removed, ["d"]);
}

/// Adding or removing a model checks only the queries over the list of
/// models: every model has its own input for its file (see
/// `Files::load_live`), so no other model's memos are walked (a walk would
/// verify every model's lowering and parse). Removing a model the project
/// started with walks once, as the first edit of a file does.
#[test]
fn a_model_added_or_removed_leaves_the_other_models_unchecked() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    let walked = |l: &Labelled| -> Vec<String> {
        l.session.db.take_validated().into_iter().filter(|q| q.starts_with("lower_model(") || q.starts_with("parse_model(")).collect()
    };
    l.session.db.take_validated();
    p.write("models/d.sql", "SELECT user_id FROM source('clicks')\n");
    let step = l.step(&["models/d.sql"]).expect("d added");
    assert_eq!(printed(&step), [("d".to_string(), ModelStatus::Added)]);
    assert_eq!(walked(&l), Vec::<String>::new());
    p.remove("models/d.sql");
    let step = l.step(&["models/d.sql"]).expect("d removed");
    assert_eq!(step.delta.removed, ["d"]);
    assert_eq!(walked(&l), Vec::<String>::new());
    // Back under the same name: its slot is reused.
    p.write("models/d.sql", "SELECT url FROM source('clicks')\n");
    l.step(&["models/d.sql"]).expect("d added again");
    assert_eq!(walked(&l), Vec::<String>::new());
    // A model that reads one that does not exist yet re-runs when it comes.
    p.write("models/f.sql", "SELECT user_id FROM ref('g')\n");
    let step = l.step(&["models/f.sql"]).expect("f added");
    assert_eq!(printed(&step), [("f".to_string(), ModelStatus::Failed)]);
    p.write("models/g.sql", "SELECT user_id FROM source('clicks')\n");
    let step = l.step(&["models/g.sql"]).expect("g added");
    let mut shown = printed(&step);
    shown.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(shown, [("f".to_string(), ModelStatus::Changed), ("g".to_string(), ModelStatus::Added)]);
    assert!(step.delta.resolved.len() == 1 && step.delta.errors == 0, "{:?}", step.delta.resolved);
}

#[test]
fn an_error_appears_and_goes_away() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    p.edit("models/c.sql", "SELECT user_id", "SELECT nope");
    let step = l.step(&["models/c.sql"]).expect("c changed");
    assert_eq!(printed(&step), [("c".to_string(), ModelStatus::Failed)]);
    assert_eq!(step.delta.appeared.len(), 1, "{:?}", step.delta.appeared);
    assert_eq!(step.delta.digest, None);
    p.edit("models/c.sql", "SELECT nope", "SELECT user_id");
    let step = l.step(&["models/c.sql"]).expect("c changed");
    assert_eq!(printed(&step), [("c".to_string(), ModelStatus::Changed)]);
    assert_eq!(step.delta.resolved.len(), 1);
    assert!(step.delta.digest_changed && step.delta.digest.is_some());
}

#[test]
fn an_unreadable_file_keeps_its_last_text_until_it_reads_again() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    std::fs::write(p.dir.join("models/a.sql"), b"SELECT customer_id, \xE2\x82").expect("write");
    assert!(l.step(&["models/a.sql"]).is_none(), "a half-written file is neither a change nor a removal");
    assert_eq!(l.executed(), "");
    let retry_at = l.session.retry_at().expect("it is retried");
    p.write("models/a.sql", &A_TEXT.replace("amount > 0", "amount > 7"));
    // The watch loop sleeps until the retry is due; so does this test.
    std::thread::sleep(retry_at.saturating_duration_since(std::time::Instant::now()));
    // The retry alone (an empty batch) picks up the readable text.
    let step = l.session.step(&Batch::default()).expect("a changed");
    assert_eq!(printed(&step), [("a".to_string(), ModelStatus::Changed)]);
    assert!(l.session.retry_at().is_none());
}

/// The first edit of a file does more than later ones: the file's input
/// goes from HIGH to LOW durability (so later edits skip re-verifying
/// every other model), and salsa does not backdate a result whose
/// durability dropped, so what reads `a` re-runs once even when equal.
/// The whole-project queries read the model list, LOW already, so they
/// backdate: the check report and the dependency graph do not re-run.
#[test]
fn first_edit_of_a_file() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    p.edit("models/a.sql", "amount > 0", "amount > 5");
    let step = l.step(&["models/a.sql"]).expect("a changed");
    assert_eq!(printed(&step), [("a".to_string(), ModelStatus::Changed)]);
    let executed = l.executed();
    assert_only(&executed, &["a", "b"]);
    expect![[r#"
        digest_through(project)
        lower_model(a)
        lower_model(b)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_checks(a)
        model_checks(b)
        model_contract(a)
        model_identity(a)
        model_identity(b)
        model_reads(a)
        parse_model(a)
        plan_identity(a)
        plan_identity(b)
        ref_walk(a)
        ref_walk(b)
        segment_checks_unplaced(project)
        segment_model_entries(project)
        segment_upstream(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

/// The variables the environment input holds follow `streamform.yml`: an
/// edit that names one adds it, and one that stops naming it drops it.
/// (Only an edit of `streamform.yml` reads its text for them again.)
#[test]
fn the_environment_follows_the_variables_streamform_yml_names() {
    let p = TempProject::new(SHOP);
    let mut s = Session::new(Database::default(), p.root(), false);
    let _ = s.initial();
    let vars = |s: &Session| s.files.env.vars(&s.db).keys().cloned().collect::<Vec<_>>();
    assert!(vars(&s).is_empty());
    p.edit("models/c.sql", "url IS NOT NULL", "url IS NULL");
    let _ = s.step(&batch(&["models/c.sql"])).expect("c changed");
    assert!(vars(&s).is_empty());
    // PATH is set in every process that runs the tests.
    p.edit("streamform.yml", "name: shop\n", "name: shop\n# deployed from ${PATH}\n");
    let _ = s.step(&batch(&["streamform.yml"])).expect("the configuration changed");
    assert_eq!(vars(&s), ["PATH"]);
    p.edit("models/c.sql", "url IS NULL", "url IS NOT NULL");
    let _ = s.step(&batch(&["models/c.sql"])).expect("c changed");
    assert_eq!(vars(&s), ["PATH"]);
    p.edit("streamform.yml", "# deployed from ${PATH}\n", "");
    let _ = s.step(&batch(&["streamform.yml"])).expect("the configuration changed");
    assert!(vars(&s).is_empty());
}

/// A diagnostic whose data is equal keeps its rendering while the lines it
/// quotes are the same, and is rendered again when one of them changed
/// (its span can stay put while its line does not); one whose byte offsets
/// alone moved keeps it too, and one whose line moved is printed again.
#[test]
fn a_warning_is_rendered_again_when_the_line_it_quotes_changes() {
    let mut files = SHOP.to_vec();
    let sources = format!("{}  views:\n    connector: kafka\n    topic: views\n    schema:\n      url: string\n", SHOP[1].1);
    files[1] = ("sources.yml", &sources);
    let p = TempProject::new(&files);
    let mut l = Labelled::new(&p);
    let unread = streamform::diagnostic::Code::UnreadSource.to_string();
    let quoting = |step: &super::Step| step.delta.appeared.iter().chain(&step.delta.resolved).map(|r| r.text.clone()).filter(|t| t.contains(&unread)).collect::<Vec<_>>();

    // Another line of the file: the warning's text is reused.
    p.write("sources.yml", &format!("{sources}# the team's sources\n"));
    let step = l.step(&["sources.yml"]).expect("a revision");
    assert!(step.delta.warnings >= 1);
    assert_eq!(quoting(&step), Vec::<String>::new());

    // Its own line, the span unmoved: rendered again.
    p.edit("sources.yml", "  views:\n", "  views:  # not read yet\n");
    let step = l.step(&["sources.yml"]).expect("a revision");
    let texts = quoting(&step);
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("views:  # not read yet"), "{}", texts[0]);
    assert!(!texts[1].contains("# not read yet"), "{}", texts[1]);

    // A line above it longer: only its byte offsets move, which its text
    // does not show; it is neither appeared nor resolved.
    p.edit("sources.yml", "topic: orders\n", "topic: orders_v2\n");
    let step = l.step(&["sources.yml"]).expect("a revision");
    assert_eq!(quoting(&step), Vec::<String>::new());

    // A line added above it: printed again at its new line.
    let line = std::fs::read_to_string(p.dir.join("sources.yml")).expect("read").lines().position(|l| l.starts_with("  views:")).expect("views") + 1;
    p.edit("sources.yml", "sources:\n", "# the team's sources\nsources:\n");
    let step = l.step(&["sources.yml"]).expect("a revision");
    let texts = quoting(&step);
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains(&format!("sources.yml:{}:", line + 1)), "{}", texts[0]);
    assert!(texts[1].contains(&format!("sources.yml:{line}:")), "{}", texts[1]);
}

/// Appeared and resolved, with many diagnostics at once (each text looked
/// up by hashing) and a few (looked up one by one).
#[test]
fn many_warnings_appear_and_one_is_resolved() {
    let p = TempProject::new(SHOP);
    let mut l = Labelled::new(&p);
    let unread = |n: usize| (0..n).map(|i| format!("  unread_{i:02}:\n    connector: kafka\n    topic: t{i}\n    schema:\n      url: string\n")).collect::<String>();
    let code = streamform::diagnostic::Code::UnreadSource.to_string();
    let warned = |step: &super::Step| (step.delta.appeared.iter().filter(|r| r.text.contains(&code)).count(), step.delta.resolved.iter().filter(|r| r.text.contains(&code)).count());

    p.write("sources.yml", &format!("{}{}", SHOP[1].1, unread(70)));
    let step = l.step(&["sources.yml"]).expect("a revision");
    assert_eq!(warned(&step), (70, 0));

    // The last one goes: no other line moves, so no other text changes.
    p.write("sources.yml", &format!("{}{}", SHOP[1].1, unread(69)));
    let step = l.step(&["sources.yml"]).expect("a revision");
    assert_eq!(warned(&step), (0, 1));
    assert!(step.delta.resolved[0].text.contains("unread_69"), "{}", step.delta.resolved[0].text);

    // Back: one appears.
    p.write("sources.yml", &format!("{}{}", SHOP[1].1, unread(70)));
    let step = l.step(&["sources.yml"]).expect("a revision");
    assert_eq!(warned(&step), (1, 0));
    assert_eq!(step.delta.appeared.len(), 1);
}

/// A source's watermark is part of the identity of the models that read it
/// (their Source node's definition), not of any model's plan or checks:
/// the readers are identified again, and nothing is lowered or checked. The
/// check report stays as it was: what it reads of `sources.yml` (the targets'
/// checks, the unread sources) is the same.
#[test]
fn a_watermark_edit_re_identifies_its_readers_and_re_plans_no_model() {
    let mut files = SHOP.to_vec();
    let sources = SHOP[1].1.replace("    key: [customer_id]\n    schema:\n", "    key: [customer_id]\n    event_time: ts\n    watermark: 5s\n    schema:\n      ts: timestamp\n");
    files[1] = ("sources.yml", &sources);
    let p = TempProject::new(&files);
    let mut l = Labelled::new(&p);
    l.prime(&p, "sources.yml");
    p.edit("sources.yml", "watermark: 5s", "watermark: 6s");
    let step = l.step(&["sources.yml"]).expect("a revision");
    let executed = l.executed();
    assert!(executed.contains("model_identity(a)"), "a reads the source:\n{executed}");
    for query in ["lower_model(", "parse_model(", "model_checks(", "sink_checks(", "model_identity(b)", "check_report(", "configured_sinks("] {
        assert!(!executed.contains(query), "{query}:\n{executed}");
    }
    let blocks: Vec<&str> = step.delta.models.iter().filter_map(|m| m.printed.as_ref()).map(|p| &*p.block).collect();
    assert!(blocks.len() == 1 && blocks[0].starts_with("a\n") && blocks[0].contains("watermark=6s"), "a's block, with the new watermark: {blocks:?}");
}
