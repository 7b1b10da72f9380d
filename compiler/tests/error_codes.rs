//! Every diagnostic code the compiler emits is documented in docs/errors.md.

use std::path::Path;

fn collect(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, _) in text.match_indices("\"E0").chain(text.match_indices("\"W0")) {
                let code = &text[i + 1..(i + 6).min(text.len())];
                if code[1..].bytes().all(|b| b.is_ascii_digit()) {
                    out.push(code.to_string());
                }
            }
        }
    }
}

#[test]
fn every_code_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut codes = Vec::new();
    collect(&root.join("src"), &mut codes);
    codes.sort();
    codes.dedup();
    assert!(codes.len() > 50, "found only {} codes", codes.len());
    let docs = std::fs::read_to_string(root.join("../docs/errors.md")).unwrap();
    let missing: Vec<&String> = codes.iter().filter(|c| !docs.contains(&format!("| {c} |"))).collect();
    assert!(missing.is_empty(), "codes missing from docs/errors.md: {missing:?}");
}
