//! `streamform init`: the project it writes is examples/shop/, byte for
//! byte, and it never overwrites a project.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use expect_test::expect;

fn init(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_streamform")).arg("init").arg(dir).output().expect("runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("streamform-init-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Every file under `root`, relative, sorted, with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).expect("readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
                out.push((rel, fs::read(&p).expect("readable")));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

#[test]
fn writes_examples_shop_byte_for_byte() {
    // The project is named after its directory, so init into one named `shop`.
    let parent = scratch("shop");
    let dir = parent.join("shop");
    let out = init(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shop");
    let (got, want) = (files(&dir), files(&example));
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "init writes the files of examples/shop/");
    for ((name, g), (_, w)) in got.iter().zip(&want) {
        assert!(g == w, "{name} differs from examples/shop/{name}; regenerate it with `streamform init examples/shop`");
    }
    let _ = fs::remove_dir_all(&parent);
}

#[test]
fn prints_what_it_created_and_what_to_run() {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform"))
        .arg("init")
        .current_dir({
            let d = scratch("here").join("orders-app");
            fs::create_dir_all(&d).expect("mkdir");
            d
        })
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    expect![[r#"
        created project `orders-app` in .

          streamform.yml
          sources.yml
          .gitignore
          models/big_spenders.sql
          models/customer_totals.sql
          models/paid_orders.sql
          tests/big_spenders.yml
          tests/customer_totals.yml
          .schemas/fixture.json
          .schemas/project.json
          .schemas/sources.json

        next:
          streamform check
          streamform test
          streamform graph
          streamform inspect-plan
    "#]]
    .assert_eq(&String::from_utf8(out.stdout).expect("utf-8"));
    let _ = fs::remove_dir_all(scratch("here"));
}

#[test]
fn names_the_project_after_its_directory_and_quotes_what_yaml_would_misread() {
    let parent = scratch("names");
    for (dir, line) in [("orders-app", "name: orders-app"), ("my app", "name: \"my app\""), ("true", "name: \"true\""), ("2024", "name: \"2024\"")] {
        let out = init(&parent.join(dir));
        assert_eq!(out.status.code(), Some(0), "{dir}: {}", String::from_utf8_lossy(&out.stderr));
        let config = fs::read_to_string(parent.join(dir).join("streamform.yml")).expect("read");
        assert!(config.lines().any(|l| l == line), "{dir}: {config}");
        let check = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("check").arg("-p").arg(parent.join(dir)).output().expect("runs");
        assert_eq!(check.status.code(), Some(0), "{dir}: {}", String::from_utf8_lossy(&check.stderr));
        let first = String::from_utf8_lossy(&check.stdout).lines().next().unwrap_or_default().to_string();
        assert!(first.starts_with(&format!("{dir} (schema version 1)")), "{dir}: {first}");
    }
    let _ = fs::remove_dir_all(&parent);
}

#[test]
fn refuses_to_overwrite_a_project() {
    let dir = scratch("existing");
    fs::create_dir_all(&dir).expect("mkdir");
    fs::write(dir.join("streamform.yml"), "name: mine\nversion: 1\n").expect("write");
    let out = init(&dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("streamform.yml already exists"));
    assert_eq!(fs::read_to_string(dir.join("streamform.yml")).expect("read"), "name: mine\nversion: 1\n");
    assert!(!dir.join("sources.yml").exists(), "nothing else is written");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn refuses_to_overwrite_any_file_it_would_write() {
    let dir = scratch("partial");
    fs::create_dir_all(dir.join("models")).expect("mkdir");
    fs::write(dir.join("models/paid_orders.sql"), "SELECT 1\n").expect("write");
    let out = init(&dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("models/paid_orders.sql"));
    assert_eq!(fs::read_to_string(dir.join("models/paid_orders.sql")).expect("read"), "SELECT 1\n");
    assert!(!dir.join("streamform.yml").exists());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_project_plans_and_graphs() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shop");
    for args in [&["inspect-plan"][..], &["graph"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).arg("--project").arg(&example).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
