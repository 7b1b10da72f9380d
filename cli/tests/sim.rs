//! Golden tests of the simulator's commands: every project under
//! testdata/sim/ through `streamform test` (text and JSON, with exit code
//! and stderr) and, when it has an `input/` folder, `streamform run`.
//! `UPDATE_EXPECT=1 cargo test` rewrites the files under `expected/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect_file;

fn projects() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/sim");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("streamform.yml").is_file()).collect();
    out.sort();
    assert!(out.len() >= 5);
    out
}

/// `exit N`, then stdout, then stderr (when any) after a `--- stderr` line.
fn run(project: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(project).output().expect("the binary runs");
    let mut s = format!("exit {}\n{}", out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap());
    if !out.stderr.is_empty() {
        s.push_str("--- stderr\n");
        s.push_str(&String::from_utf8(out.stderr).unwrap());
    }
    s
}

#[test]
fn test_command_golden() {
    for p in projects() {
        let expected = p.join("expected");
        std::fs::create_dir_all(&expected).unwrap();
        expect_file![expected.join("test.txt")].assert_eq(&run(&p, &["test"]));
        expect_file![expected.join("test.json")].assert_eq(&run(&p, &["test", "--json"]));
    }
}

#[test]
fn run_command_golden() {
    for p in projects().into_iter().filter(|p| p.join("input").is_dir()) {
        let out_dir = std::env::temp_dir().join(format!("streamform-run-{}-{}", std::process::id(), p.file_name().unwrap().to_string_lossy()));
        let _ = std::fs::remove_dir_all(&out_dir);
        let mut s = run(&p, &["run", "--input", "input", "--output", out_dir.to_str().unwrap()]).replace(out_dir.to_str().unwrap(), "OUT");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&out_dir).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            s.push_str(&format!("=== {}\n{}", f.file_name().unwrap().to_string_lossy(), std::fs::read_to_string(&f).unwrap()));
        }
        std::fs::remove_dir_all(&out_dir).unwrap();
        std::fs::create_dir_all(p.join("expected")).unwrap();
        expect_file![p.join("expected/run.txt")].assert_eq(&s);
    }
}

#[test]
fn a_failed_run_writes_nothing() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/sim/errors");
    let input = std::env::temp_dir().join(format!("streamform-bad-input-{}", std::process::id()));
    let output = input.join("out");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("orders.jsonl"), "{\"customer_id\": 1, \"order_id\": 9223372036854775807}\n{\"customer_id\": 1, \"order_id\": 1}\n").unwrap();
    let r = run(&p, &["run", "--input", input.to_str().unwrap(), "--output", output.to_str().unwrap()]);
    assert!(r.starts_with("exit 1\n"), "{r}");
    assert!(r.contains("orders.jsonl:2: arithmetic overflow in 9223372036854775807 + 1"), "{r}");
    assert_eq!(std::fs::read_dir(&output).unwrap().count(), 0, "a failed run left files behind");
    std::fs::remove_dir_all(&input).unwrap();
}

#[test]
fn outputs_are_deterministic() {
    for p in projects() {
        assert_eq!(run(&p, &["test", "--json"]), run(&p, &["test", "--json"]), "{}", p.display());
    }
}

#[test]
fn run_refuses_a_missing_input_directory_and_a_misspelt_input_file() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/sim/operators");
    let base = std::env::temp_dir().join(format!("streamform-run-input-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (input, output) = (base.join("in"), base.join("out"));
    let args = |i: &Path| vec!["run".to_string(), "--input".into(), i.to_str().unwrap().into(), "--output".into(), output.to_str().unwrap().into()];
    let call = |i: &Path| run(&p, &args(i).iter().map(String::as_str).collect::<Vec<_>>()).replace(base.to_str().unwrap(), "BASE");
    expect_test::expect![[r#"
        exit 2
        --- stderr
        error: cannot read the input directory BASE/in: it does not exist
          help: --input names a directory with one `<source>.jsonl` per source (orders)
    "#]]
    .assert_eq(&call(&input));
    assert!(!output.exists(), "nothing is written");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(p.join("input/orders.jsonl"), input.join("ordrs.jsonl")).unwrap();
    std::fs::write(input.join("notes.jsonl"), "").unwrap();
    std::fs::write(input.join("orders.late.jsonl"), "").unwrap();
    expect_test::expect![[r#"
        exit 2
        --- stderr
        warning: BASE/in/notes.jsonl matches no source and is not read (the sources are orders)
        error: BASE/in/ordrs.jsonl matches no source
          help: did you mean `orders.jsonl`? the sources are orders
        nothing was run
    "#]]
    .assert_eq(&call(&input));
    assert!(!output.exists(), "nothing is written");
    std::fs::rename(input.join("ordrs.jsonl"), input.join("orders.jsonl")).unwrap();
    let ok = call(&input);
    assert!(ok.starts_with("exit 0\n") && ok.contains("notes.jsonl matches no source"), "{ok}");
    std::fs::remove_dir_all(&base).unwrap();
}
