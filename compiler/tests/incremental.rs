//! Incrementality, asserted from salsa's execute events: after an edit,
//! exactly which queries re-run.

mod common;

use common::Fixture;
use expect_test::expect;
use salsa::Setter;
use streamform::diagnostic::Code;

const SHOP: &str = r#"
//- /streamform.yml
name: shop
version: 1
models:
  a:
    materialized: upsert
    key: [customer_id]
    sink: {connector: kafka, topic: a-out}
  b:
    materialized: upsert
    key: [customer_id]
  c:
    sink: {connector: kafka, topic: c-out}
//- /sources.yml
sources:
  orders:
    connector: kafka
    topic: orders
    schema:
      order_id: int64
      customer_id: int64
      amount: decimal(10,2)
  clicks:
    connector: kafka
    topic: clicks
    schema:
      user_id: int64
      url: string
//- /models/a.sql
SELECT customer_id, SUM(amount) AS total
FROM source('orders')
WHERE amount > 0
GROUP BY customer_id
//- /models/b.sql
SELECT customer_id, total FROM ref('a') WHERE total > 100
//- /models/c.sql
SELECT user_id, url FROM source('clicks') WHERE url IS NOT NULL
"#;

/// Queries whose results are identity: fingerprints, digests, the manifest.
const IDENTITY_QUERIES: &[&str] = &["model_plan", "model_identity", "model_contract", "manifest", "dependency_graph"];

fn assert_no_identity_query(executed: &str) {
    for line in executed.lines() {
        let query = line.split('(').next().unwrap_or(line);
        assert!(!IDENTITY_QUERIES.contains(&query), "{line} re-executed:\n{executed}");
    }
}

fn assert_nothing_of(executed: &str, model: &str) {
    let of = Fixture::executed_for(executed, model);
    assert!(of.is_empty(), "queries of `{model}` re-executed: {of:?}");
}

#[test]
fn warm_up_executes_each_query_once() {
    let mut f = Fixture::new(SHOP);
    f.warm_up();
    expect![[""]].assert_eq(&f.executed());
}

#[test]
fn whitespace_edit() {
    let mut f = Fixture::new(SHOP);
    let before = f.warm_up();
    f.edit("models/a.sql", "SELECT customer_id, SUM(amount) AS total\n", "SELECT   customer_id,\n       SUM(amount)   AS total\n\n");
    assert_eq!(f.manifest(), before);
    let executed = f.executed();
    assert_no_identity_query(&executed);
    expect![[r#"
        lower_model(a)
        model_reads(a)
        parse_model(a)"#]].assert_eq(&executed);

    // Keyword case, comments and redundant parentheses are formatting too.
    f.set_text("models/a.sql", "select customer_id, sum(amount) as total -- spend\nfrom SOURCE('orders')\nwhere ((amount > 0))\ngroup by customer_id\n");
    assert_eq!(f.manifest(), before);
    let executed = f.executed();
    assert_no_identity_query(&executed);
    expect![[r#"
        lower_model(a)
        model_reads(a)
        parse_model(a)"#]].assert_eq(&executed);
}

#[test]
fn unchanged_text_is_not_an_edit() {
    let mut f = Fixture::new(SHOP);
    f.warm_up();
    // Setting equal text starts a new revision; only the parse re-runs, and
    // the span-free summaries below it stop everything else.
    let text = f.text("models/a.sql");
    f.set_text("models/a.sql", &text);
    f.manifest();
    expect![[r#"
        lower_model(a)
        model_reads(a)
        parse_model(a)"#]].assert_eq(&f.executed());
}

#[test]
fn logic_edit_keeping_contract() {
    let mut f = Fixture::new(SHOP);
    let before = f.warm_up();
    f.edit("models/a.sql", "amount > 0", "amount > 5");
    assert_ne!(f.manifest(), before);
    let executed = f.executed();
    // b = ref(a) is not re-lowered: a's sink contract is unchanged.
    assert_nothing_of(&executed, "b");
    assert_nothing_of(&executed, "c");
    expect![[r#"
        digest_through(project)
        lower_model(a)
        manifest(project)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_contract(a)
        model_identity(a)
        model_json(a)
        model_reads(a)
        parse_model(a)
        plan_identity(a)
        segment_model_entries(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

#[test]
fn logic_edit_changing_contract() {
    let mut f = Fixture::new(SHOP);
    let before = f.warm_up();
    f.edit("models/a.sql", "SUM(amount) AS total", "SUM(amount) AS total, COUNT(*) AS n");
    assert_ne!(f.manifest(), before);
    let executed = f.executed();
    // b = ref(a) is re-lowered because a's sink schema changed; c is not touched.
    assert!(executed.contains("lower_model(b)"));
    assert_nothing_of(&executed, "c");
    expect![[r#"
        digest_through(project)
        lower_model(a)
        lower_model(b)
        manifest(project)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_contract(a)
        model_identity(a)
        model_identity(b)
        model_json(a)
        model_json(b)
        model_reads(a)
        parse_model(a)
        plan_identity(a)
        plan_identity(b)
        segment_model_entries(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

#[test]
fn config_edit_of_another_model() {
    let mut f = Fixture::new(SHOP);
    let before = f.warm_up();
    f.edit("streamform.yml", "topic: c-out", "topic: c-out-v2");
    assert_ne!(f.manifest(), before);
    let executed = f.executed();
    // Every model's entry is re-read (the file changed) and comes out equal
    // but c's, whose span-free settings changed: only c re-lowers.
    for m in ["a", "b"] {
        assert_eq!(Fixture::executed_for(&executed, m), [format!("model_entry({m})")]);
    }
    expect![[r#"
        digest_through(project)
        lower_model(c)
        manifest(project)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_config_index(project)
        model_entry(a)
        model_entry(b)
        model_entry(c)
        model_identity(c)
        model_json(c)
        plan_identity(c)
        project_config(project)
        segment_model_entries(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

#[test]
fn config_whitespace_edit() {
    let mut f = Fixture::new(SHOP);
    let before = f.warm_up();
    f.edit("streamform.yml", "name: shop\n", "# the shop\nname:   shop\n\n");
    assert_eq!(f.manifest(), before);
    let executed = f.executed();
    assert_no_identity_query(&executed);
    expect![[r#"
        model_config_index(project)
        model_entry(a)
        model_entry(b)
        model_entry(c)
        project_config(project)"#]].assert_eq(&executed);
}

/// An edit that moves the entries below it in streamform.yml or sources.yml
/// (lines added above them) re-runs none of their models' own checks nor
/// gathers a segment's again, and the check report locates their
/// diagnostics where they now are: the same report as a compile of the
/// edited project from cold.
#[test]
fn moving_model_entries_re_checks_no_model() {
    moving_entries("streamform.yml", "models:\n", &[Code::SinkNullKeyDropped, Code::RetentionWithoutEventTime, Code::HintUnknownNode]);
}

#[test]
fn moving_source_entries_re_checks_no_model() {
    moving_entries("sources.yml", "sources:\n", &[Code::AggregateOverUnkeyedKafka, Code::RetentionWithoutEventTime]);
}

/// Adds two lines after `after` in `file`; `codes` must be located in it.
fn moving_entries(file: &str, after: &str, codes: &[Code]) {
    // b gets a sink check (a key that may be null), a model check (a
    // retention without event time, labelled at the source) and a hint (a
    // node b does not have), all in its entry; a's aggregate over an
    // unkeyed source is located at the source.
    let project = SHOP.replace(
        "  b:\n    materialized: upsert\n    key: [customer_id]\n",
        "  b:\n    materialized: upsert\n    key: [customer_id]\n    retention: 1h\n    sink: {connector: kafka, topic: b-out}\n    nodes:\n      aggregate.3: {was: b::aggregate::0}\n",
    );
    let mut f = Fixture::new(&project);
    f.warm_up();
    let before = streamform::check::check_report(&f.db, f.project).clone();
    // Each diagnostic's spans in `file` (primary and labels), by code.
    let in_file = |r: &streamform::check::CheckReport| -> Vec<(String, u32, u32)> {
        let mut out = Vec::new();
        for d in &r.diagnostics {
            let spans = std::iter::once((d.path.as_deref(), d.span)).chain(d.labels.iter().map(|l| (Some(l.path.as_str()), l.span)));
            out.extend(spans.filter(|(p, _)| *p == Some(file)).filter_map(|(_, s)| s).map(|s| (d.code.to_string(), s.line, s.offset)));
        }
        out
    };
    let located: Vec<String> = in_file(&before).into_iter().map(|(c, ..)| c).collect();
    for code in codes {
        assert!(located.contains(&code.to_string()), "{code} not located in {file}: {before:?}");
    }
    f.db.take_executed();
    let added = "  # Two lines above every entry.\n\n";
    f.edit(file, after, &format!("{after}{added}"));
    let after_edit = streamform::check::check_report(&f.db, f.project).clone();
    let executed = f.executed();
    // A segment's checks are placed again; they are not gathered again.
    for query in ["model_checks(", "sink_checks(", "sink_nullable_key(", "parse_model(", "lower_model(", "segment_checks_unplaced("] {
        assert!(!executed.lines().any(|l| l.starts_with(query)), "{executed}");
    }
    let moved: Vec<(String, u32, u32)> = in_file(&before).into_iter().map(|(c, line, offset)| (c, line + 2, offset + added.len() as u32)).collect();
    assert_eq!(in_file(&after_edit), moved);
    let anchored = |p: &str| p.contains('#');
    assert!(!after_edit.diagnostics.iter().any(|d| d.path.as_deref().is_some_and(anchored) || d.labels.iter().any(|l| anchored(&l.path))), "{after_edit:?}");
    let cold = Fixture::new(&project.replacen(after, &format!("{after}{added}"), 1));
    assert_eq!(cold.text(file), f.text(file));
    assert_eq!(&after_edit, streamform::check::check_report(&cold.db, cold.project));
}

#[test]
fn source_edit_touches_only_its_readers() {
    let mut f = Fixture::new(SHOP);
    let before = f.warm_up();
    f.edit("sources.yml", "topic: clicks", "topic: clicks-v2");
    assert_ne!(f.manifest(), before);
    let executed = f.executed();
    // c's plan is kept; its Source node's definition is the new one.
    let cold = Fixture::new(&SHOP.replacen("topic: clicks", "topic: clicks-v2", 1));
    assert_eq!(f.manifest(), cold.manifest());
    for m in ["a", "b"] {
        let of = Fixture::executed_for(&executed, m);
        assert!(of.iter().all(|q| q.starts_with("model_config(")), "{m}: {of:?}");
    }
    expect![[r#"
        digest_through(project)
        manifest(project)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_identity(c)
        model_json(c)
        segment_model_entries(project)
        slice_segment(project)
        source_config(source clicks)
        source_config(source orders)
        source_contracts(source clicks)
        source_definition(source clicks)
        source_input(source clicks)
        sources_config(project)"#]].assert_eq(&executed);
}

#[test]
fn deleting_an_unrelated_model() {
    let mut f = Fixture::new(SHOP);
    f.warm_up();
    let files: Vec<_> = f.project.model_files(&f.db).iter().copied().filter(|m| m.path(&f.db) != "models/c.sql").collect();
    f.project.set_model_files(&mut f.db).to(files);
    let m = f.manifest();
    assert_eq!(m.models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    let executed = f.executed();
    // Each remaining model re-checks which file is its own, finds the same
    // one, and nothing of it is re-lowered.
    expect![[r#"
        dependency_graph(project)
        digest_head(project)
        digest_through(project)
        manifest(project)
        manifest_digest(project)
        manifest_models(project)
        manifest_segment(project)
        manifest_slices(project)
        model_file_bucket(a)
        model_file_bucket(b)
        model_file_buckets(project)
        model_index(project)
        model_names(project)
        model_segment_starts(project)
        segment_keys(project)
        segment_model_entries(project)
        segment_models(project)
        segment_upstream(project)
        slice_segment(project)"#]].assert_eq(&executed);
}

/// The check report too: removing a model re-checks no other model (their
/// checks ask whether each model they read exists, not for the name list).
#[test]
fn deleting_an_unrelated_model_re_checks_no_other() {
    let mut f = Fixture::new(SHOP);
    f.warm_up();
    let _ = streamform::check::check_report(&f.db, f.project);
    f.db.take_executed();
    let files: Vec<_> = f.project.model_files(&f.db).iter().copied().filter(|m| m.path(&f.db) != "models/c.sql").collect();
    f.project.set_model_files(&mut f.db).to(files);
    let report = streamform::check::check_report(&f.db, f.project).clone();
    assert!(report.diagnostics.iter().all(|d| d.code != "E0731"), "{report:?}");
    let executed = f.executed();
    for query in ["model_checks(", "parse_model(", "lower_model("] {
        assert!(!executed.lines().any(|l| l.starts_with(query)), "{executed}");
    }
}

/// On a project of several segments (crate::segments), an edit re-runs the
/// edited model's segment of the whole-project queries, and the digest from
/// that segment on: the segments before it are reused.
#[test]
fn large_project_edit_re_runs_one_segment() {
    let mut text = String::from("//- /streamform.yml\nname: big\nversion: 1\n//- /sources.yml\nsources:\n  o:\n    connector: kafka\n    topic: o\n    schema: {k: int64, v: int32}\n");
    for i in 0..400 {
        text.push_str(&format!("//- /models/m{i:03}.sql\nSELECT k, v FROM source('o') WHERE v > {i}\n"));
    }
    let mut f = Fixture::new(&text);
    f.warm_up();
    let _ = streamform::check::check_report(&f.db, f.project);
    f.db.take_executed();
    let count = |executed: &str, query: &str| executed.lines().filter(|l| l.starts_with(&format!("{query}("))).count();

    // 400 models make 4 slices of 128, 128, 128 and 16 in plan (here: name)
    // order for the digest chain, and a few segments cut by name hash.
    f.edit("models/m390.sql", "v > 390", "v > 7");
    let _ = streamform::check::check_report(&f.db, f.project);
    let executed = f.executed();
    let _ = f.manifest();
    let executed = executed + "\n" + &f.executed();
    // The model's checks came out equal, so no segment's checks re-run.
    assert_eq!(count(&executed, "segment_checks"), 0, "{executed}");
    assert_eq!(count(&executed, "manifest_segment"), 1, "{executed}");
    // The digest of the model's slice, and of the slice before it: that
    // one's last models share the edited model's segment, which it reads
    // (its digest comes out equal).
    assert_eq!(count(&executed, "digest_through"), 2, "{executed}");
    assert_eq!(count(&executed, "segment_upstream"), 0, "{executed}");
    // The models' entries (name, key, output) are unchanged: not re-hashed.
    assert_eq!(count(&executed, "digest_head"), 0, "{executed}");
    assert_eq!(count(&executed, "check_report"), 0, "equal diagnostics: {executed}");

    // An edit that changes the model's diagnostics re-runs its segment's checks only.
    f.edit("models/m390.sql", "v > 7", "nope > 7");
    let _ = streamform::check::check_report(&f.db, f.project);
    let executed = f.executed();
    assert_eq!(count(&executed, "segment_checks"), 1, "{executed}");
    f.edit("models/m390.sql", "nope > 7", "v > 7");
    let _ = f.manifest();
    f.db.take_executed();

    // An edit in the first segment re-hashes every segment after it.
    f.edit("models/m005.sql", "v > 5", "v > 6");
    let _ = f.manifest();
    let executed = f.executed();
    assert_eq!(count(&executed, "manifest_segment"), 1, "{executed}");
    assert_eq!(count(&executed, "digest_through"), 4, "{executed}");
}

/// A project of 400 models (several segments) where some models read others.
fn many_models() -> String {
    let mut text = String::from("//- /streamform.yml\nname: big\nversion: 1\n//- /sources.yml\nsources:\n  o:\n    connector: kafka\n    topic: o\n    schema: {k: int64, v: int32}\n");
    for i in 0..400 {
        let sql = match i % 4 {
            3 => format!("SELECT k, v FROM ref('m{:03}') WHERE v > 1", i - 1),
            _ => format!("SELECT k, v FROM source('o') WHERE v > {i}"),
        };
        text.push_str(&format!("//- /models/m{i:03}.sql\n{sql}\n"));
    }
    text
}

/// How many times each query executed, as `query ×n` lines.
fn executions(executed: &str) -> String {
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for line in executed.lines() {
        *counts.entry(line.split('(').next().unwrap_or(line)).or_default() += 1;
    }
    counts.iter().map(|(q, n)| format!("{q} ×{n}")).collect::<Vec<_>>().join("\n")
}

/// The executed queries of the models the warm-up knew (labelled `mNNN`),
/// but their bucket of file lookups.
fn per_model_queries_of_others(executed: &str) -> Vec<&str> {
    let of_known_model = |l: &&str| l.len() > 6 && l[l.len() - 6..].starts_with("(m") && l[l.len() - 4..l.len() - 1].bytes().all(|b| b.is_ascii_digit());
    executed.lines().filter(of_known_model).filter(|l| !l.starts_with("model_file_bucket(")).collect()
}

/// Adds `models/<name>.sql` to the project's file list, in path order.
fn add_model(f: &mut Fixture, name: &str, sql: &str) {
    let new = streamform::db::SourceFile::new(&f.db, format!("models/{name}.sql"), sql.into());
    let mut files = f.project.model_files(&f.db).clone();
    files.push(new);
    files.sort_by(|a, b| a.path(&f.db).cmp(b.path(&f.db)));
    f.project.set_model_files(&mut f.db).to(files);
}

fn remove_model(f: &mut Fixture, name: &str) {
    let path = format!("models/{name}.sql");
    let files: Vec<_> = f.project.model_files(&f.db).iter().copied().filter(|m| m.path(&f.db) != &path).collect();
    f.project.set_model_files(&mut f.db).to(files);
}

/// The check report and the manifest, after a warm-up that computed both.
fn check_and_manifest(f: &Fixture) -> streamform::manifest::Manifest {
    let _ = streamform::check::check_report(&f.db, f.project);
    f.manifest()
}

/// Adding a model to a project of several segments re-runs the new
/// model's queries, the lookups of the models that share its bucket of
/// files, its segment of the whole-project queries, and the queries over
/// the model list (the list itself, the graph, the digest, the reports):
/// no per-model query of any other model, and no other segment.
#[test]
fn adding_a_model_re_runs_one_segment() {
    let mut f = Fixture::new(&many_models());
    f.warm_up();
    check_and_manifest(&f);
    f.executed();
    add_model(&mut f, "m150a", "SELECT k, v FROM source('o') WHERE v > 3\n");
    let m = check_and_manifest(&f);
    assert_eq!(m.models.len(), 401);
    let executed = f.executed();
    // Of other models, only their file lookups' buckets (which come out
    // equal), and the lookup of the one model that shares the new one's bucket.
    assert_eq!(per_model_queries_of_others(&executed), ["unslotted_model_file(m205)"], "{executed}");
    expect![[r#"
        check_report ×1
        configured_models_exist ×1
        dependency_graph ×1
        digest_head ×1
        digest_through ×4
        load_errors ×1
        lower_model ×1
        manifest ×1
        manifest_digest ×1
        manifest_models ×1
        manifest_segment ×1
        manifest_slices ×1
        model_checks ×1
        model_count_error ×1
        model_entry ×1
        model_file_bucket ×232
        model_file_buckets ×1
        model_identity ×1
        model_index ×1
        model_json ×1
        model_names ×1
        model_reads ×1
        model_segment_starts ×1
        parse_model ×1
        plan_identity ×1
        project_model_diagnostics ×1
        ref_walk ×1
        segment_checks ×1
        segment_checks_unplaced ×1
        segment_entry_starts ×1
        segment_keys ×1
        segment_model_entries ×1
        segment_models ×5
        segment_upstream ×1
        slice_segment ×1
        unslotted_model_file ×2
        unused_sources ×1"#]].assert_eq(&executions(&executed));
}

/// Removing a model is the same: its segment, and the model list's queries.
#[test]
fn removing_a_model_re_runs_one_segment() {
    let mut f = Fixture::new(&many_models());
    f.warm_up();
    check_and_manifest(&f);
    f.executed();
    remove_model(&mut f, "m148");
    let m = check_and_manifest(&f);
    assert_eq!(m.models.len(), 399);
    let executed = f.executed();
    assert_eq!(per_model_queries_of_others(&executed), ["unslotted_model_file(m359)"], "{executed}");
    expect![[r#"
        check_report ×1
        configured_models_exist ×1
        dependency_graph ×1
        digest_head ×1
        digest_through ×4
        load_errors ×1
        manifest ×1
        manifest_digest ×1
        manifest_models ×1
        manifest_segment ×1
        manifest_slices ×1
        model_count_error ×1
        model_file_bucket ×232
        model_file_buckets ×1
        model_index ×1
        model_names ×1
        model_segment_starts ×1
        project_model_diagnostics ×1
        segment_checks ×1
        segment_checks_unplaced ×1
        segment_entry_starts ×1
        segment_keys ×1
        segment_model_entries ×1
        segment_models ×5
        segment_upstream ×1
        slice_segment ×1
        unslotted_model_file ×1
        unused_sources ×1"#]].assert_eq(&executions(&executed));
}

/// A one-shot compile (`check`, `inspect-plan`) keeps a model's plan only
/// while its batch runs, so what the whole-project queries read of a model
/// must be computed in that batch: each model is parsed and lowered once,
/// and the results equal those of a compile that keeps every plan.
#[test]
fn a_one_shot_compile_lowers_each_model_once() {
    use streamform::driver::{compile, Work, BATCH};
    let n = 2 * BATCH + 40;
    let mut text = String::from("//- /streamform.yml\nname: big\nversion: 1\nmodels:\n");
    for i in (1..n).step_by(5) {
        text.push_str(&format!("  m{i:04}: {{materialized: upsert, key: [k]}}\n"));
    }
    text.push_str("//- /sources.yml\nsources:\n  o:\n    connector: kafka\n    topic: o\n    schema: {k: int64, v: int32}\n");
    for i in 0..n {
        // Reads reach back across batches; an aggregate gives the hints
        // and the sink checks a plan with state to look at.
        let sql = match i % 5 {
            0 if i >= BATCH => format!("SELECT k, v FROM ref('m{:04}') WHERE v > 1", i - BATCH),
            // Two batches back: no plan of that batch is kept.
            4 if i >= 2 * BATCH => format!("SELECT k, v FROM ref('m{:04}') WHERE v > 4", i - 2 * BATCH),
            1 => format!("SELECT k, COUNT(*) AS n FROM source('o') WHERE v > {i} GROUP BY k"),
            _ => format!("SELECT k, v FROM source('o') WHERE v > {i}"),
        };
        text.push_str(&format!("//- /models/m{i:04}.sql\n{sql}\n"));
    }
    let count = |executed: &[String], query: &str| executed.iter().filter(|l| l.starts_with(&format!("{query}("))).count();
    let mut all = Fixture::new(&text);
    compile(&mut all.db, all.project, Work::All);
    let report = streamform::check::check_report(&all.db, all.project);
    assert_eq!(report.errors(), 0, "{:?}", report.diagnostics.first());
    let printed = |db: &dyn streamform::db::Db, project| {
        let mut out = Vec::new();
        streamform::manifest::manifest_document(db, project).expect("the manifest builds").write_pretty(&mut out).expect("writes to memory");
        out
    };
    for work in [Work::Checks, Work::Manifest, Work::ManifestJson] {
        let mut f = Fixture::new(&text);
        compile(&mut f.db, f.project, work);
        let executed = f.db.take_executed();
        assert_eq!(count(&executed, "parse_model"), n, "{work:?}");
        assert_eq!(count(&executed, "lower_model"), n, "{work:?}");
        match work {
            Work::Checks => assert_eq!(streamform::check::check_report(&f.db, f.project), streamform::check::check_report(&all.db, all.project)),
            Work::Manifest => assert_eq!(f.manifest(), all.manifest()),
            _ => {
                assert_eq!(count(&executed, "model_identity"), n);
                assert_eq!(printed(&f.db, f.project), printed(&all.db, all.project));
                // As the whole manifest prints.
                let whole = serde_json::to_vec_pretty(&all.manifest()).expect("manifests serialize");
                assert_eq!(printed(&all.db, all.project), whole);
                // The entries of the first batch went with its plans: asked
                // again, they are made again.
                let first = streamform::db::ModelName::new(&f.db, f.project, "m0000".to_string());
                assert!(streamform::manifest::model_identity(&f.db, first).is_some());
                assert_eq!(count(&f.db.take_executed(), "model_identity"), 1);
            }
        }
    }
}
