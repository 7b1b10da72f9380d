//! `test`: run fixtures on the simulator and assert the exact changelog,
//! the late events and the quarantined ones.

use std::io::Read;

use streamform::driver::Work;
use streamform::check::{fixture, fixture_checks};
use streamform::sim::{fixture_report, fixture_rows, FixtureReport, RowReport};
use streamform::SourceFile;

use camino::Utf8PathBuf;

use crate::atomic::write_all_atomically;
use crate::files::scan::read_text;
use crate::load::Loaded;
use crate::render::bless::blessed;
use crate::out::{eprint, print, print_text, print_with};
use crate::render::diagnostic::render;
use crate::render::test::{compact_text, fixture_text, summary, write_report_json, Out};

/// `select`: `--model` names and `--select` selectors; empty runs every fixture.
pub fn run(project: &str, select: &[String], fixtures: &[String], json: bool, bless: bool, verbose: bool) -> u8 {
    // Blessing is how a fixture that no longer fits its model is brought up
    // to date, so fixture errors do not stop it.
    let load = if bless { super::load_checked_to_bless } else { super::load_checked };
    let loaded = match load(project, "testing", Work::Checks) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let db = &loaded.db;
    let p = loaded.project;
    let models = match super::selection(&loaded, select) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let files = match fixture_files(&loaded, fixtures) {
        Ok(f) => f,
        Err(()) => return 2,
    };
    let selected: Vec<SourceFile> = files
        .into_iter()
        .filter(|f| models.as_ref().is_none_or(|ms| fixture(db, *f).as_ref().is_ok_and(|fx| ms.contains(&fx.model))))
        .collect();
    if bless {
        return bless_fixtures(&loaded, &selected);
    }
    let reports: Vec<&FixtureReport> = selected.iter().filter_map(|f| fixture_report(db, p, *f).as_ref()).collect();
    // Located detail on stderr: typing errors and values the simulator adjusted.
    for r in &reports {
        let text = |path: &str| loaded.file_text(path).or_else(|| selected.iter().find(|f| f.path(db) == path).map(|f| f.text(db).to_string()));
        for d in r.warnings.iter().chain(&r.error_diagnostics) {
            eprint(&render(d, &text));
            eprint("\n");
        }
    }
    // Changelog rows are replayed from a second run as they are printed.
    let file_of = |r: &FixtureReport| selected.iter().copied().find(|f| *f.path(db) == r.path);
    let rows_of = |r: &FixtureReport, visit: &mut dyn FnMut(RowReport)| {
        if let Some(f) = file_of(r) {
            fixture_rows(db, p, f, visit);
        }
    };
    if json {
        print_with(|w| {
            let mut failed = None;
            let mut sink = |s: &str| {
                if failed.is_none() {
                    failed = w.write_all(s.as_bytes()).err();
                }
            };
            let mut out = Out::new(&mut sink);
            write_report_json(&reports, &rows_of, &mut out);
            out.finish();
            failed.map_or(Ok(()), Err)
        });
    } else if reports.is_empty() {
        match (models.as_deref(), select) {
            (None, _) => print("ok: no fixtures under tests/\n"),
            (Some([m]), [s]) if s == m => print(&format!("ok: no fixtures for model `{m}`\n")),
            (Some(ms), _) => print(&format!("ok: no fixtures for the {} selected models\n", ms.len())),
        }
    } else {
        let mut sink = |s: &str| print_text(s);
        let mut out = Out::new(&mut sink);
        // At a terminal a passing fixture is one line; pipes and files get
        // every block, the layout scripts read.
        if !verbose && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            let line = |r: &FixtureReport, n: usize| expect_item_line(file_of(r)?.text(db), n);
            compact_text(&reports, &rows_of, &line, &mut out);
        } else {
            for (i, r) in reports.iter().enumerate() {
                if i > 0 {
                    out.push("\n");
                }
                fixture_text(r, &|visit| rows_of(r, visit), &mut out);
            }
            out.push("\n");
            out.push(&summary(&reports));
        }
        out.finish();
    }
    if reports.iter().all(|r| r.passed) {
        0
    } else {
        1
    }
}

/// The line of item `n` of a fixture's `expect` list.
fn expect_item_line(text: &str, n: usize) -> Option<usize> {
    let root = streamform::yaml::parse(text).ok()?;
    let (_, list) = root.as_map()?.iter().find(|(k, _)| k.as_str() == Some("expect"))?;
    match &list.value {
        streamform::yaml::Value::Seq(items) => items.get(n).map(|i| i.span.line as usize),
        _ => None,
    }
}

/// `--bless`: each failing fixture's lists rewritten from the run, written
/// atomically. Exit 0 when every fixture now passes or was rewritten.
fn bless_fixtures(loaded: &Loaded, fixtures: &[SourceFile]) -> u8 {
    let db = &loaded.db;
    let (mut written, mut failed, mut passed) = (Vec::new(), 0, 0);
    for f in fixtures {
        let Some(r) = fixture_report(db, loaded.project, *f).as_ref() else { continue };
        if r.passed {
            passed += 1;
            continue;
        }
        let path = f.path(db);
        if path == "<stdin>" {
            eprint("error: a fixture read from standard input cannot be blessed\n");
            failed += 1;
            continue;
        }
        let dest = if std::path::Path::new(path).is_absolute() { Utf8PathBuf::from(path) } else { Utf8PathBuf::from(&loaded.root).join(path) };
        match blessed(f.text(db), r, &|visit| {
            fixture_rows(db, loaded.project, *f, visit);
        }) {
            Ok(Some(text)) => match write_all_atomically(&[(dest.clone(), text.as_bytes())]) {
                Ok(()) => written.push(path.to_string()),
                Err(e) => {
                    eprint(&format!("error: could not write {dest}: {e}\n"));
                    failed += 1;
                }
            },
            Ok(None) => passed += 1,
            Err(why) => {
                eprint(&format!("error: cannot bless {path}: {why}\n"));
                failed += 1;
            }
        }
    }
    let mut out = String::new();
    for w in &written {
        out.push_str(&format!("blessed {w}\n"));
    }
    let verdict = if failed == 0 { "ok" } else { "failed" };
    out.push_str(&format!("{verdict}: {} rewritten, {passed} already passing, {failed} not blessed\n", written.len()));
    print_text(&out);
    if failed == 0 {
        0
    } else {
        1
    }
}

/// The project's fixtures, or the files named by `--fixture` (`-` is stdin),
/// each decoded and checked like the project's own.
fn fixture_files(loaded: &Loaded, named: &[String]) -> Result<Vec<SourceFile>, ()> {
    let db = &loaded.db;
    let p = loaded.project;
    if named.is_empty() {
        return Ok(p.fixture_files(db).clone());
    }
    let mut out = Vec::new();
    let mut stdin_used = false;
    for name in named {
        let existing = p.fixture_files(db).iter().find(|f| f.path(db) == name || format!("./{}", f.path(db)) == *name).copied();
        let file = match existing {
            Some(f) => f,
            None => {
                let (path, text) = if name == "-" {
                    let mut t = String::new();
                    let limit = streamform::limits::FIXTURE_READ_BYTES as u64;
                    if stdin_used || std::io::stdin().take(limit).read_to_string(&mut t).is_err() {
                        eprint("error: could not load fixture -: failed to read standard input\n");
                        return Err(());
                    }
                    stdin_used = true;
                    ("<stdin>".to_string(), t)
                } else {
                    let full = std::path::Path::new(&loaded.root).join(name);
                    let limit = Some(streamform::limits::FIXTURE_READ_BYTES);
                    let read = read_text(std::path::Path::new(name), limit).or_else(|e| read_text(&full, limit).map_err(|_| e));
                    match read {
                        Ok(t) => (name.clone(), t),
                        Err(e) => {
                            eprint(&format!("error: could not load fixture {name}: failed to read {name}: {e}\n"));
                            return Err(());
                        }
                    }
                };
                SourceFile::new(db, path, text)
            }
        };
        if let Err(errors) = fixture(db, file) {
            eprint(&format!("error: could not load fixture {name}\n\n"));
            print_stderr_with(loaded, file, errors);
            return Err(());
        }
        let (_, diags) = fixture_checks(db, p, file);
        let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).cloned().collect();
        if !errors.is_empty() {
            eprint(&format!("error: fixture {name} does not fit the project\n\n"));
            print_stderr_with(loaded, file, &errors);
            return Err(());
        }
        out.push(file);
    }
    Ok(out)
}

fn print_stderr_with(loaded: &Loaded, file: SourceFile, diags: &[streamform::diagnostic::Diagnostic]) {
    let db = &loaded.db;
    let text = |path: &str| if path == file.path(db) { Some(file.text(db).to_string()) } else { loaded.file_text(path) };
    for d in diags {
        eprint(&render(d, &text));
        eprint("\n");
    }
}

