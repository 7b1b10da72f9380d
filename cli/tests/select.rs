//! `--select` with dbt's syntax on `inspect-plan`, `explain` and `test`,
//! over testdata/graph/ref_chain: orders → a_clean → {b_totals → c_big,
//! z_flagged}; payments → pay.

use std::process::Command;

use expect_test::{expect, Expect};

fn run(args: &[&str]) -> (String, String, i32) {
    let project = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/graph/ref_chain");
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).args(["-p", project]).output().expect("runs");
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code().unwrap_or(-1))
}

/// The models `inspect-plan --select` prints, one per line.
fn models(selectors: &[&str]) -> String {
    let mut args = vec!["inspect-plan"];
    for s in selectors {
        args.extend(["--select", s]);
    }
    let (out, err, code) = run(&args);
    if code != 0 {
        return format!("exit {code}\n{err}");
    }
    out.lines().filter(|l| !l.starts_with(' ') && !l.is_empty()).map(|l| format!("{l}\n")).collect()
}

fn check(selectors: &[&str], expect: Expect) {
    expect.assert_eq(&models(selectors));
}

#[test]
fn a_model_alone_and_with_what_is_downstream_or_upstream() {
    check(&["a_clean"], expect![[r#"
        a_clean
        application digest=9a24603776c8
    "#]]);
    check(&["a_clean+"], expect![[r#"
        a_clean
        b_totals
        c_big
        z_flagged
        application digest=9a24603776c8
    "#]]);
    check(&["+c_big"], expect![[r#"
        a_clean
        b_totals
        c_big
        application digest=9a24603776c8
    "#]]);
    check(&["+b_totals+"], expect![[r#"
        a_clean
        b_totals
        c_big
        application digest=9a24603776c8
    "#]]);
}

#[test]
fn sources_and_unions_of_selectors() {
    check(&["source:payments"], expect![[r#"
        pay
        application digest=9a24603776c8
    "#]]);
    check(&["source:orders"], expect![[r#"
        a_clean
        application digest=9a24603776c8
    "#]]);
    // Several selectors, in one value or repeated, select their union, in plan order.
    check(&["pay c_big"], expect![[r#"
        c_big
        pay
        application digest=9a24603776c8
    "#]]);
    check(&["z_flagged", "pay,c_big"], expect![[r#"
        c_big
        pay
        z_flagged
        application digest=9a24603776c8
    "#]]);
}

#[test]
fn a_selector_that_names_nothing_is_an_error_with_a_suggestion() {
    check(&["b_total+"], expect![[r#"
        exit 2
        error: no model named `b_total`; this project defines: a_clean, b_totals, c_big, pay, z_flagged
          help: did you mean `b_totals`?
    "#]]);
    check(&["source:order"], expect![[r#"
        exit 2
        error: no source named `order`; this project defines: orders, payments
          help: did you mean `orders`?
    "#]]);
    check(&["+source:orders"], expect![[r#"
        exit 2
        error: `+source:orders`: a source has nothing upstream
          help: write `source:orders`
    "#]]);
    check(&["tag:nightly"], expect![[r#"
        exit 2
        error: `tag:nightly` is not a selector Streamform understands (`tag:`)
          help: write a model name, `source:<name>`, with `+` before for upstream or after for downstream
    "#]]);
}

#[test]
fn explain_and_json_follow_the_selection() {
    let (out, _, code) = run(&["explain", "-s", "+b_totals"]);
    assert_eq!(code, 0);
    // Each model's explain starts with its name alone on a line.
    let explained: Vec<&str> = out.lines().filter(|l| ["a_clean", "b_totals", "c_big", "z_flagged", "pay"].contains(l)).collect();
    assert_eq!(explained, ["a_clean", "b_totals"], "{out}");
    let (json, _, code) = run(&["inspect-plan", "-s", "c_big+", "--json"]);
    assert_eq!(code, 0);
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&json).into_iter().map(|d| d.expect("json")).collect();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0]["model"]["name"], "c_big");
    let (_, err, code) = run(&["inspect-plan", "a_clean", "-s", "pay"]);
    assert_eq!(code, 2, "a MODEL and --select do not go together: {err}");
}

#[test]
fn test_selects_fixtures_by_model() {
    let project = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/shop");
    let test = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("test").args(args).args(["-p", project]).output().expect("runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (text.lines().last().unwrap_or_default().to_string(), out.status.code())
    };
    assert_eq!(test(&[]), ("ok: 2 fixtures passed".into(), Some(0)));
    assert_eq!(test(&["--model", "big_spenders"]), ("ok: 1 fixture passed".into(), Some(0)));
    assert_eq!(test(&["--model", "big_spenders", "--model", "customer_totals"]), ("ok: 2 fixtures passed".into(), Some(0)));
    assert_eq!(test(&["-s", "paid_orders+"]), ("ok: 2 fixtures passed".into(), Some(0)));
    assert_eq!(test(&["-s", "+customer_totals"]), ("ok: 1 fixture passed".into(), Some(0)));
    assert_eq!(test(&["--model", "paid_orders"]), ("ok: no fixtures for model `paid_orders`".into(), Some(0)));
    assert_eq!(test(&["-s", "source:orders"]), ("ok: no fixtures for the 1 selected models".into(), Some(0)));
}

#[test]
fn build_writes_a_selection_beside_the_whole_application() {
    let parent = std::env::temp_dir().join(format!("streamform-select-build-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&parent);
    std::fs::create_dir_all(&parent).unwrap();
    let st = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(&parent).output().expect("runs");
    assert_eq!(st(&["init", "app"]).status.code(), Some(0));
    let app = parent.join("app");
    let run_in = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(&app).output().expect("runs");
    assert_eq!(run_in(&["build"]).status.code(), Some(0));
    let whole = std::fs::read_to_string(app.join("build/flink/application.sql")).unwrap();
    let out = run_in(&["build", "--select", "customer_totals"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok: 9 statements for target `dev` writing `customer_totals` written to build/flink/selected.sql\nok: plan manifest written to build/plan.json\n"
    );
    let selected = std::fs::read_to_string(app.join("build/flink/selected.sql")).unwrap();
    let inserts: Vec<&str> = selected.lines().filter(|l| l.trim_start().starts_with("INSERT INTO")).map(|l| l.split_whitespace().nth(2).unwrap_or_default()).collect();
    assert_eq!(inserts, ["`sink_customer_totals`", "`quarantine_orders`"], "{selected}");
    assert!(selected.contains("CREATE TEMPORARY VIEW `paid_orders`"), "the view it reads is there");
    assert!(!selected.contains("big_spenders"), "nothing downstream");
    assert_eq!(std::fs::read_to_string(app.join("build/flink/application.sql")).unwrap(), whole, "the whole application's script is left as it was");
    // The selected script is the whole one less what it does not write.
    assert!(selected.lines().all(|l| whole.contains(l)), "{selected}");
    let _ = std::fs::remove_dir_all(&parent);
}
