//! Command-line conventions: where the project is found (`-p`,
//! `STREAMFORM_PROJECT`, or upward from the current directory),
//! `STREAMFORM_TARGET`, defaults, and shell completions.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn streamform(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamform"));
    cmd.args(args).current_dir(dir).env_remove("STREAMFORM_PROJECT").env_remove("STREAMFORM_TARGET");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("runs")
}

/// A fresh `init` project at `<tmp>/<name>/app`.
fn project(name: &str) -> PathBuf {
    let parent = std::env::temp_dir().join(format!("streamform-conv-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&parent);
    fs::create_dir_all(&parent).expect("mkdir");
    let out = streamform(&parent, &["init", "app"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    parent.join("app")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_project_is_found_from_a_subdirectory() {
    let app = project("up");
    let deep = app.join("models");
    let here = streamform(&app, &["check"], &[]);
    let below = streamform(&deep, &["check"], &[]);
    assert_eq!(below.status.code(), Some(0), "{}", stderr(&below));
    assert_eq!(stdout(&below), stdout(&here), "check from models/ is check of the project above");
    // Paths in messages are the project's, wherever the command runs.
    fs::write(app.join("models/broken.sql"), "SELECT nope FROM source('orders')\n").expect("write");
    let err = streamform(&deep, &["check"], &[]);
    assert_eq!(err.status.code(), Some(1), "{}", stdout(&err));
    assert!(stdout(&err).contains("--> models/broken.sql:1:8"), "{}", stdout(&err));
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}

#[test]
fn without_a_project_above_the_error_says_what_to_do() {
    let dir = std::env::temp_dir().join(format!("streamform-conv-none-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("mkdir");
    let out = streamform(&dir, &["check"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no streamform.yml found in ."), "{err}");
    assert!(err.contains("-p DIR"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn p_and_the_environment_name_the_project() {
    let app = project("env");
    let elsewhere = app.parent().expect("parent");
    let app_s = app.to_str().expect("utf-8");
    let by_flag = streamform(elsewhere, &["inspect-plan", "-p", app_s], &[]);
    assert_eq!(by_flag.status.code(), Some(0), "{}", stderr(&by_flag));
    let by_env = streamform(elsewhere, &["inspect-plan"], &[("STREAMFORM_PROJECT", app_s)]);
    assert_eq!(stdout(&by_env), stdout(&by_flag));
    // The flag wins over the environment.
    let both = streamform(elsewhere, &["inspect-plan", "--project", app_s], &[("STREAMFORM_PROJECT", "/nonexistent")]);
    assert_eq!(stdout(&both), stdout(&by_flag));
    let _ = fs::remove_dir_all(elsewhere);
}

#[test]
fn build_defaults_to_flink_and_reads_the_target_from_the_environment() {
    let app = project("target");
    let plain = streamform(&app, &["build", "--stdout"], &[]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let flink = streamform(&app, &["build", "--backend", "flink", "--stdout"], &[]);
    assert_eq!(stdout(&plain), stdout(&flink));
    let unknown = streamform(&app, &["build", "--stdout"], &[("STREAMFORM_TARGET", "prod")]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("no target named `prod`; streamform.yml declares: dev"), "{}", stderr(&unknown));
    let dev = streamform(&app, &["build", "--stdout"], &[("STREAMFORM_TARGET", "dev")]);
    assert_eq!(stdout(&dev), stdout(&plain));
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}

#[test]
fn completions_for_each_shell() {
    let dir = std::env::temp_dir();
    for (shell, marker, flag) in [("bash", "_streamform()", "--project"), ("zsh", "#compdef streamform", "--project"), ("fish", "complete -c streamform", "-l project")] {
        let out = streamform(&dir, &["completions", shell], &[]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {}", &script[..script.len().min(200)]);
        assert!(script.contains("inspect-plan") && script.contains(flag), "{shell} completes commands and flags");
    }
}

#[test]
fn an_exported_target_does_not_conflict_with_plan_against() {
    let app = project("against");
    let manifest = app.join("running.json");
    let m = streamform(&app, &["inspect-plan", "--json"], &[]);
    fs::write(&manifest, &m.stdout).expect("write");
    let out = streamform(&app, &["plan", "--against", "running.json"], &[("STREAMFORM_TARGET", "dev")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("SAFE"), "{}", stdout(&out));
    let named = streamform(&app, &["plan"], &[("STREAMFORM_TARGET", "qa")]);
    assert!(stderr(&named).contains("no target named `qa`"), "{}", stderr(&named));
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}

#[test]
fn colour_at_a_terminal_or_when_asked_and_never_in_a_pipe_or_with_no_color() {
    let app = project("color");
    fs::write(app.join("models/broken.sql"), "SELECT nope FROM source('orders')\n").expect("write");
    let esc = |o: &Output| o.stdout.contains(&0x1b);
    // A pipe (as here) gets plain text, so scripts and goldens never see escapes.
    assert!(!esc(&streamform(&app, &["check"], &[])));
    let always = streamform(&app, &["check", "--color", "always"], &[]);
    assert!(esc(&always));
    assert!(stdout(&always).contains("\u{1b}[1m\u{1b}[31merror[E0509]:"), "{}", stdout(&always));
    assert!(esc(&streamform(&app, &["check"], &[("CLICOLOR_FORCE", "1")])));
    assert!(!esc(&streamform(&app, &["check"], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])));
    assert!(!esc(&streamform(&app, &["check", "--color", "never"], &[("CLICOLOR_FORCE", "1")])));
    // JSON is never painted.
    assert!(!esc(&streamform(&app, &["check", "--json", "--color", "always"], &[])));
    // Painting adds escapes and nothing else.
    let strip = |s: &str| {
        let mut out = String::new();
        let mut in_esc = false;
        for c in s.chars() {
            match (in_esc, c) {
                (false, '\u{1b}') => in_esc = true,
                (true, 'm') => in_esc = false,
                (true, _) => {}
                (false, c) => out.push(c),
            }
        }
        out
    };
    assert_eq!(strip(&stdout(&always)), stdout(&streamform(&app, &["check"], &[])));
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}

#[test]
fn fixture_errors_block_test_and_check_but_not_plan_or_build() {
    let app = project("fixtures");
    let app_s = app.to_str().expect("utf-8");
    let running = streamform(&app, &["inspect-plan", "--json"], &[]);
    fs::write(app.join("running.json"), &running.stdout).expect("write");
    // A column added to the model: its fixture's expected rows lack it.
    let sql = fs::read_to_string(app.join("models/customer_totals.sql")).expect("read");
    fs::write(app.join("models/customer_totals.sql"), sql.replace("COUNT(*) AS order_count", "COUNT(*) AS order_count, MAX(amount) AS largest")).expect("write");
    // And a fixture that does not parse.
    fs::write(app.join("tests/broken.yml"), "model: [unclosed\n").expect("write");
    let check = streamform(&app, &["check"], &[]);
    assert_eq!(check.status.code(), Some(2), "check still fails: {}", stderr(&check));
    let test = streamform(&app, &["test"], &[]);
    assert_eq!(test.status.code(), Some(2), "test still fails: {}", stderr(&test));
    let plan = streamform(&app, &["plan", "--against", "running.json"], &[]);
    assert_eq!(plan.status.code(), Some(1), "plan runs (backfill for the new accumulator): {}", stderr(&plan));
    assert!(stdout(&plan).contains("BACKFILL REQUIRED"), "{}", stdout(&plan));
    assert!(stderr(&plan).contains("warning: 1 fixture error left aside; planning does not read fixtures"), "{}", stderr(&plan));
    fs::remove_file(app.join("tests/broken.yml")).expect("rm");
    let build = streamform(&app, &["build", "-p", app_s, "--stdout"], &[]);
    assert_eq!(build.status.code(), Some(0), "{}", stderr(&build));
    assert!(stderr(&build).contains("fixture error"), "{}", stderr(&build));
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}

/// Runs `streamform ARGS` in `dir` under a pseudo-terminal (util-linux's
/// `script`), as a person at a terminal runs it.
fn at_a_terminal(dir: &Path, args: &str) -> String {
    let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_streamform"));
    let out = Command::new("script").args(["-qec", &cmd, "/dev/null"]).current_dir(dir).env_remove("NO_COLOR").output().expect("script (util-linux) runs");
    String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
}

#[test]
fn at_a_terminal_a_passing_fixture_is_one_line() {
    let app = project("compact");
    assert_eq!(
        at_a_terminal(&app, "test --color never"),
        "PASS tests/big_spenders.yml (big_spenders)\nPASS tests/customer_totals.yml (customer_totals)\n\nok: 2 fixtures passed\n"
    );
    // --verbose, and any pipe, get every block.
    let verbose = at_a_terminal(&app, "test --color never --verbose");
    assert_eq!(verbose, stdout(&streamform(&app, &["test"], &[])));
    assert!(verbose.contains("3 events processed"), "{verbose}");
    // A failing fixture shows its whole block among the one-liners.
    let fx = app.join("tests/customer_totals.yml");
    fs::write(&fx, fs::read_to_string(&fx).unwrap().replace("\"115.50\"", "\"115.51\"")).unwrap();
    let failing = at_a_terminal(&app, "test --color never");
    assert!(failing.starts_with("PASS tests/big_spenders.yml (big_spenders)\n\ncustomer_totals\n\nFAIL\n  --> tests/customer_totals.yml\n"), "{failing}");
    assert!(failing.ends_with("failed: 1 of 2 fixtures\n"), "{failing}");
    // The failing record: a column per line, both sides written alike, the differing one marked, with its line.
    assert!(
        failing.contains(
            "  record 2  --> tests/customer_totals.yml:11\n    column       expected  actual\n    op           update    update\n    customer_id  7         7\n  ! total_spend  \"115.51\"  \"115.50\"\n    order_count  2         2\n    ^ total_spend: expected \"115.51\", got 115.5\n"
        ),
        "{failing}"
    );
    // Colour reaches the terminal by default.
    assert!(at_a_terminal(&app, "test").contains("\u{1b}["));
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}

#[test]
fn a_yaml_spelling_beside_a_missing_yml_is_named() {
    let app = project("yaml");
    fs::rename(app.join("sources.yml"), app.join("sources.yaml")).unwrap();
    let check = streamform(&app, &["check"], &[]);
    assert!(stderr(&check).starts_with("warning: ./sources.yaml is not read: Streamform reads sources.yml\n  help: rename it: mv sources.yaml sources.yml\n"), "{}", stderr(&check));
    fs::rename(app.join("streamform.yml"), app.join("streamform.yaml")).unwrap();
    let check = streamform(&app, &["check", "-p", "."], &[]);
    assert_eq!(check.status.code(), Some(2));
    assert!(stderr(&check).contains("warning: ./streamform.yaml is not read: Streamform reads streamform.yml"), "{}", stderr(&check));
    // With the .yml present, a stray .yaml is none of Streamform's business.
    fs::write(app.join("streamform.yml"), fs::read(app.join("streamform.yaml")).unwrap()).unwrap();
    fs::write(app.join("sources.yml"), fs::read(app.join("sources.yaml")).unwrap()).unwrap();
    assert!(stderr(&streamform(&app, &["check"], &[])).is_empty());
    let _ = fs::remove_dir_all(app.parent().expect("parent"));
}
