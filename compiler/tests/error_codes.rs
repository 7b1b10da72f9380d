//! One code, one meaning: docs/errors.md has one row per code, those rows
//! are exactly the `Code` variants, and no code is written as a string
//! anywhere else in the compiler or the CLI (control flow matches variants).

use std::collections::BTreeMap;
use std::path::Path;

use streamform::diagnostic::Code;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Each `| E0xxx | meaning |` row of docs/errors.md: code → the meanings given.
fn documented() -> BTreeMap<String, Vec<String>> {
    let doc = std::fs::read_to_string(repo().join("docs/errors.md")).expect("docs/errors.md is readable");
    let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, code, meaning, ..] = cells.as_slice() else { continue };
        let is_code = code.len() == 5 && matches!(code.as_bytes()[0], b'E' | b'W') && code[1..].bytes().all(|b| b.is_ascii_digit());
        if is_code {
            rows.entry(code.to_string()).or_default().push(meaning.to_string());
        }
    }
    assert!(rows.len() > 50, "docs/errors.md lists only {} codes; did its table format change?", rows.len());
    rows
}

#[test]
fn every_code_has_one_row_and_one_variant() {
    let docs = documented();
    let twice: Vec<String> = docs.iter().filter(|(_, m)| m.len() > 1).map(|(c, m)| format!("{c}: {m:?}")).collect();
    assert!(twice.is_empty(), "codes documented with more than one meaning:\n{}", twice.join("\n"));

    let mut variants: BTreeMap<&str, usize> = BTreeMap::new();
    for c in Code::ALL {
        *variants.entry(c.as_str()).or_default() += 1;
    }
    let shared: Vec<&&str> = variants.iter().filter(|(_, n)| **n > 1).map(|(c, _)| c).collect();
    assert!(shared.is_empty(), "codes given to more than one variant: {shared:?}");

    let undocumented: Vec<&&str> = variants.keys().filter(|c| !docs.contains_key(**c)).collect();
    let unknown: Vec<&String> = docs.keys().filter(|c| !variants.contains_key(c.as_str())).collect();
    assert!(undocumented.is_empty(), "codes missing from docs/errors.md: {undocumented:?}");
    assert!(unknown.is_empty(), "documented codes that are no `Code` variant: {unknown:?}");
}

/// A code written as a string (`"E0401"`) outside diagnostic/code.rs would
/// bypass the enum: for a new meaning, or for control flow.
#[test]
fn no_code_is_written_as_a_string() {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("diagnostic/code.rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                // Tests may compare against the printed text.
                let code = text.split("\n#[cfg(test)]").next().unwrap_or("");
                for (i, _) in code.match_indices("\"E0").chain(code.match_indices("\"W0")) {
                    let lit = &code[i + 1..(i + 7).min(code.len())];
                    if lit.len() == 6 && lit[1..5].bytes().all(|b| b.is_ascii_digit()) && lit.ends_with('"') {
                        out.push(format!("{}: \"{}", path.display(), lit));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(&repo().join("compiler/src"), &mut found);
    walk(&repo().join("cli/src"), &mut found);
    assert!(found.is_empty(), "use a `Code` variant, not the code's text:\n{}", found.join("\n"));
}
