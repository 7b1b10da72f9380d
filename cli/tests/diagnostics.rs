//! One project per diagnostic: every code in docs/errors.md has a minimal
//! project under testdata/diagnostics/<CODE>/ that triggers it. The built
//! binary runs in each case directory; its exit code, stdout and stderr are
//! compared with `expected.txt` there (`UPDATE_EXPECT=1 cargo test -p
//! streamform-cli --test diagnostics` rewrites them).
//!
//! The command is `streamform check` unless the case directory holds a
//! `command` file with the arguments to use instead (one line, split on
//! whitespace), e.g. `test` for the diagnostics only the simulator reports.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect_file;

/// Documented codes that no project can trigger, each with the reason.
/// A code listed here must not have a case directory.
const UNREACHABLE: &[(&str, &str)] = &[];

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
    let unreachable: BTreeSet<String> = UNREACHABLE.iter().map(|(c, _)| c.to_string()).collect();
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

#[test]
fn case_outputs_are_deterministic() {
    for code in case_codes() {
        let case = cases_dir().join(&code);
        assert_eq!(run(&case), run(&case), "output of case {code} differs between runs");
    }
}
