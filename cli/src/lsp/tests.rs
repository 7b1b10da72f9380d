//! The language server's edits are watch's edits: an unsaved buffer is set
//! through the same files table, so a keystroke re-executes only the
//! edited model's queries (asserted from salsa's execute events), and
//! closing the buffer brings the disk's text back.

use camino::Utf8Path;
use expect_test::expect;
use streamform::testing::QueryLabels;
use streamform::Database;

use super::diagnostics::by_file;
use crate::files::Files;
use crate::watch::tests::{assert_only, TempProject, SHOP};

const A: &str = "models/a.sql";

fn session(p: &TempProject) -> (Database, Files, QueryLabels) {
    let db = Database::with_execution_log();
    let files = Files::load_live(&db, p.root());
    let mut labels = QueryLabels::learn(&db, files.project);
    assert_eq!(errors(&by_file(&db, files.project, Utf8Path::new(p.root()))), 0, "the project has no errors");
    labels.label_rest(&db, "project");
    (db, files, labels)
}

type ByFile = Vec<(String, Vec<lsp_types::Diagnostic>)>;

fn is_error(d: &lsp_types::Diagnostic) -> bool {
    d.severity == Some(lsp_types::DiagnosticSeverity::ERROR)
}

/// Errors only: the project's upsert sink also draws W0792.
fn errors(d: &ByFile) -> usize {
    d.iter().flat_map(|(_, ds)| ds).filter(|d| is_error(d)).count()
}

#[test]
fn a_keystroke_rechecks_only_its_model() {
    let p = TempProject::new(SHOP);
    let (mut db, mut files, labels) = session(&p);
    let root = p.root().to_string();
    let text = files.text(&db, A).unwrap().to_string();
    // Opening the file pays the one re-verification of a file's first edit.
    files.open_buffer(&mut db, A, text.clone());
    let _ = by_file(&db, files.project, Utf8Path::new(&root));
    db.take_executed();

    let changes = files.set_buffer(&mut db, A, text.replace("amount > 0", "amount > 5"));
    assert_eq!(changes.len(), 1);
    assert_eq!(errors(&by_file(&db, files.project, Utf8Path::new(&root))), 0);
    let executed = labels.executed(&db);
    assert_only(&executed, &["a"]);
    expect![[r#"
        lower_model(a)
        model_checks(a)
        model_contract(a)
        model_reads(a)
        parse_model(a)"#]]
    .assert_eq(&executed);

    // The same text again sets nothing and runs nothing.
    assert!(files.set_buffer(&mut db, A, text.replace("amount > 0", "amount > 5")).is_empty());
    let _ = by_file(&db, files.project, Utf8Path::new(&root));
    assert_eq!(labels.executed(&db), "");
}

#[test]
fn a_buffer_hides_the_disk_until_closed() {
    let p = TempProject::new(SHOP);
    let (mut db, mut files, _) = session(&p);
    let root = p.root().to_string();
    let disk = files.text(&db, A).unwrap().to_string();
    files.set_buffer(&mut db, A, disk.replace("SUM(amount)", "SUM(amont)"));
    let d = by_file(&db, files.project, Utf8Path::new(&root));
    // The error, and a note on the downstream model that cannot compile
    // because of it (not a second error).
    let paths: Vec<&str> = d.iter().filter(|(_, ds)| ds.iter().any(is_error)).map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, [A], "{d:?}");
    let noted = d.iter().any(|(p, ds)| p == "models/b.sql" && ds.iter().any(|x| x.severity == Some(lsp_types::DiagnosticSeverity::INFORMATION)));
    assert!(noted, "{d:?}");
    // A file event for the open file is ignored: the buffer wins.
    assert!(files.apply(&mut db, &crate::files::Batch { paths: [A.to_string()].into(), rescan: false }).is_empty());
    // Closed unsaved: the disk's text is the input again.
    files.close_buffer(&mut db, A);
    assert_eq!(files.text(&db, A), Some(disk.as_str()));
    assert_eq!(errors(&by_file(&db, files.project, Utf8Path::new(&root))), 0);
}
