//! One project per diagnostic: every code in docs/errors.md has a minimal
//! project under testdata/diagnostics/<CODE>/ that triggers it. The built
//! binary runs in each case directory; its exit code, stdout and stderr are
//! compared with `expected.txt` there (`UPDATE_EXPECT=1 cargo test -p
//! streamform-cli --test diagnostics` rewrites them).
//!
//! The command is `streamform check` unless the case directory holds a
//! `command` file with the arguments to use instead (one line, split on
//! whitespace), e.g. `test` for the diagnostics only the simulator reports.
//!
//! docs/errors.md is true: the example cell of each code's row is checked
//! against that code's case, the project proven to report it. Every
//! backticked fragment of the cell must occur in one input of the case: a
//! file (streamform.yml, sources.yml, models/**.sql, tests/**.yml), read as
//! its path followed by its text, or the command line (`streamform check`
//! unless a `command` file says otherwise). Runs of whitespace compare as one
//! space, and `…` in a fragment stands for any text. A fragment right after
//! the word "no" or "without" (e.g. "a target without `kafka:`") says what
//! the case lacks, so it must occur in none of the inputs. Plain text outside
//! backticks describes and is not checked; what to write instead belongs in
//! the fix cell, not the example.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect_file;

/// Documented codes that no project can trigger, each with the reason.
/// A code listed here must not have a case directory.
const UNREACHABLE: &[(&str, &str)] = &[];

/// Documented codes whose smallest case is too large to keep under
/// testdata/, each with where the code is tested instead. A code listed
/// here must not have a case directory either.
const TOO_LARGE_FOR_A_CASE: &[(&str, &str)] = &[
    ("E0896", "a million and one model files; project::tests holds the count query at and one past the limit"),
    ("E0898", "a fixture of 256 MiB and a byte; cli/tests/limits.rs writes one at the limit and one past it"),
    ("E0899", "a chain of 1,002 models; cli/tests/limits.rs writes one at the limit and one past it"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cases_dir() -> PathBuf {
    root().join("testdata/diagnostics")
}

/// Every `| E0xxx |` / `| W0xxx |` row of docs/errors.md.
fn documented_codes() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(root().join("docs/errors.md")).expect("docs/errors.md is readable");
    let codes: BTreeSet<String> = doc
        .lines()
        .filter_map(|line| {
            let code = line.strip_prefix("| ")?.split(' ').next()?;
            let is_code = code.len() == 5
                && matches!(code.as_bytes()[0], b'E' | b'W')
                && code[1..].bytes().all(|b| b.is_ascii_digit());
            is_code.then(|| code.to_string())
        })
        .collect();
    assert!(codes.len() > 50, "docs/errors.md lists only {} codes; did its table format change?", codes.len());
    codes
}

fn case_codes() -> BTreeSet<String> {
    std::fs::read_dir(cases_dir())
        .expect("testdata/diagnostics exists")
        .map(|e| e.expect("readable entry"))
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().expect("UTF-8 case name"))
        .collect()
}

fn command_of(case: &Path) -> Vec<String> {
    match std::fs::read_to_string(case.join("command")) {
        Ok(text) => text.split_whitespace().map(str::to_string).collect(),
        Err(_) => vec!["check".to_string()],
    }
}

/// Runs the binary in `case` and renders what it did: the command, the exit
/// code, then stdout and stderr (each only when not empty).
fn run(case: &Path) -> String {
    let args = command_of(case);
    let out = Command::new(env!("CARGO_BIN_EXE_streamform"))
        .args(&args)
        .current_dir(case)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    let mut text = format!("$ streamform {}\nexit {}\n", args.join(" "), out.status.code().unwrap_or(-1));
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if !bytes.is_empty() {
            text.push_str(&format!("--- {name}\n{}", String::from_utf8(bytes.clone()).expect("UTF-8 output")));
        }
    }
    text
}

#[test]
fn every_documented_code_has_a_case() {
    let cases = case_codes();
    let unreachable: BTreeSet<String> = UNREACHABLE.iter().chain(TOO_LARGE_FOR_A_CASE).map(|(c, _)| c.to_string()).collect();
    let missing: Vec<_> = documented_codes().into_iter().filter(|c| !cases.contains(c) && !unreachable.contains(c)).collect();
    assert!(missing.is_empty(), "documented codes without a case under testdata/diagnostics/: {missing:?}");
    let documented = documented_codes();
    let undocumented: Vec<_> = cases.iter().filter(|c| !documented.contains(*c)).collect();
    assert!(undocumented.is_empty(), "cases for codes docs/errors.md does not list: {undocumented:?}");
    for code in &unreachable {
        assert!(documented.contains(code), "{code} is listed as unreachable but not documented");
        assert!(!cases.contains(code), "{code} is listed as unreachable but has a case; remove it from UNREACHABLE");
    }
}

#[test]
fn every_case_reports_its_code() {
    let mut silent = Vec::new();
    for code in case_codes() {
        let case = cases_dir().join(&code);
        let out = run(&case);
        expect_file![case.join("expected.txt")].assert_eq(&out);
        if !out.contains(&format!("[{code}]")) {
            silent.push(code);
        }
    }
    assert!(silent.is_empty(), "cases whose output lacks their own code: {silent:?}");
}

/// `(code, example cell)` of every code row of docs/errors.md.
fn documented_examples() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(root().join("docs/errors.md")).expect("docs/errors.md is readable");
    let codes = documented_codes();
    let mut rows = Vec::new();
    for line in doc.lines() {
        // Cells split on `|` that is not escaped as `\|`.
        let line = line.replace("\\|", "\u{0}");
        let cells: Vec<String> = line.split('|').map(|c| c.trim().replace('\u{0}', "|")).collect();
        if cells.len() == 6 && codes.contains(&cells[1]) {
            rows.push((cells[1].clone(), cells[4].clone()));
        }
    }
    assert_eq!(rows.len(), codes.len(), "every code row of docs/errors.md has four cells");
    rows
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The inputs of a case, each as one text with its whitespace collapsed: a
/// file's path and contents, and the command line.
fn case_inputs(case: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("readable case").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.file_name().is_some_and(|n| n != "expected.txt" && n != "command") {
                let rel = path.strip_prefix(base).expect("under the case").to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path).expect("UTF-8 input");
                out.push(collapse_whitespace(&format!("{rel}\n{text}")));
            }
        }
    }
    let mut inputs = vec![format!("streamform {}", command_of(case).join(" "))];
    walk(case, case, &mut inputs);
    inputs
}

/// Whether `fragment` occurs in `text`, each `…` in it matching any text.
fn occurs(fragment: &str, text: &str) -> bool {
    let mut from = 0;
    for part in fragment.split('…').map(collapse_whitespace).filter(|p| !p.is_empty()) {
        match text[from..].find(&part) {
            Some(at) => from += at + part.len(),
            None => return false,
        }
    }
    true
}

/// The backticked fragments of an example cell, each with whether the cell
/// says the case lacks it (the word before it is "no" or "without").
fn fragments(cell: &str) -> Vec<(String, bool)> {
    let pieces: Vec<&str> = cell.split('`').collect();
    assert!(pieces.len() % 2 == 1, "unbalanced backticks in the example `{cell}`");
    (1..pieces.len())
        .step_by(2)
        .map(|i| {
            let before = pieces[i - 1].trim_end().rsplit(' ').next().unwrap_or("").to_lowercase();
            (pieces[i].to_string(), before == "no" || before == "without")
        })
        .collect()
}

/// The example cell of every row of docs/errors.md comes from the code's
/// case (the rule is in this file's doc comment).
#[test]
fn every_documented_example_is_in_its_case() {
    let mut wrong = Vec::new();
    for (code, cell) in documented_examples() {
        let case = cases_dir().join(&code);
        if !case.is_dir() {
            continue;
        }
        let inputs = case_inputs(&case);
        for (fragment, absent) in fragments(&cell) {
            let found = inputs.iter().any(|input| occurs(&fragment, input));
            if found == absent {
                let want = if absent { "holds" } else { "lacks" };
                wrong.push(format!("{code}: the case {want} `{fragment}`"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "examples in docs/errors.md that their case under testdata/diagnostics/ does not show:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn case_outputs_are_deterministic() {
    for code in case_codes() {
        let case = cases_dir().join(&code);
        assert_eq!(run(&case), run(&case), "output of case {code} differs between runs");
    }
}
