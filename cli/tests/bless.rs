//! `test --bless`: failing fixtures take what the simulator emits, and
//! nothing else in their files changes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn streamform(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(dir).output().expect("runs")
}

fn project(name: &str) -> PathBuf {
    let parent = std::env::temp_dir().join(format!("streamform-bless-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&parent);
    fs::create_dir_all(&parent).expect("mkdir");
    assert_eq!(streamform(&parent, &["init", "app"]).status.code(), Some(0));
    parent.join("app")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_changed_model_s_fixture_is_rewritten_and_passes() {
    let app = project("model");
    let sql = app.join("models/customer_totals.sql");
    fs::write(&sql, fs::read_to_string(&sql).unwrap().replace("COUNT(*) AS order_count", "COUNT(*) AS order_count, MAX(amount) AS largest")).unwrap();
    let before = fs::read_to_string(app.join("tests/customer_totals.yml")).unwrap();
    assert_eq!(streamform(&app, &["test"]).status.code(), Some(2), "the expected rows lack the new column");
    let bless = streamform(&app, &["test", "--bless"]);
    assert_eq!(bless.status.code(), Some(0), "{}", String::from_utf8_lossy(&bless.stderr));
    assert_eq!(stdout(&bless), "blessed tests/customer_totals.yml\nok: 1 rewritten, 1 already passing, 0 not blessed\n");
    let after = fs::read_to_string(app.join("tests/customer_totals.yml")).unwrap();
    let changed: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(b, a)| b != a).collect();
    assert_eq!(
        changed,
        [
            ("  - {op: insert, customer_id: 7, total_spend: \"40.00\", order_count: 1}", "  - {op: insert, customer_id: 7, total_spend: \"40.00\", order_count: 1, largest: \"40.00\"}"),
            ("  - {op: update, customer_id: 7, total_spend: \"115.50\", order_count: 2}", "  - {op: update, customer_id: 7, total_spend: \"115.50\", order_count: 2, largest: \"75.50\"}"),
        ],
        "only the expected rows change:\n{after}"
    );
    assert_eq!(before.lines().count(), after.lines().count());
    assert_eq!(streamform(&app, &["test"]).status.code(), Some(0));
    // Blessing again changes nothing.
    assert_eq!(stdout(&streamform(&app, &["test", "--bless"])), "ok: 0 rewritten, 2 already passing, 0 not blessed\n");
    assert_eq!(fs::read_to_string(app.join("tests/customer_totals.yml")).unwrap(), after);
    let _ = fs::remove_dir_all(app.parent().unwrap());
}

#[test]
fn late_and_quarantined_lists_are_rewritten_too_and_a_run_error_is_not_blessed() {
    let app = project("lists");
    let path = app.join("tests/big_spenders.yml");
    let original = fs::read_to_string(&path).unwrap();
    let cut = original.split("late:").next().unwrap().to_string();
    fs::write(&path, &cut).unwrap();
    assert_eq!(streamform(&app, &["test", "--select", "big_spenders"]).status.code(), Some(1));
    assert_eq!(streamform(&app, &["test", "--update", "--select", "big_spenders"]).status.code(), Some(0));
    // The late list comes back, its event's columns in name order.
    let blessed = fs::read_to_string(&path).unwrap();
    assert_eq!(blessed, format!("{cut}late:\n  - {{amount: \"20.00\", customer_id: 7, order_id: 3, status: paid, ts: \"2024-01-01T00:00:01Z\"}}\n"));
    assert_eq!(streamform(&app, &["test", "--select", "big_spenders"]).status.code(), Some(0));
    // A value that does not type stops the run: there is nothing to accept.
    let qpath = app.join("tests/customer_totals.yml");
    let q = fs::read_to_string(&qpath).unwrap().replace("amount: \"40.00\"", "amount: 1.005");
    fs::write(&qpath, &q).unwrap();
    let out = streamform(&app, &["test", "--bless", "--model", "customer_totals"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: cannot bless tests/customer_totals.yml: the run stopped"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read_to_string(&qpath).unwrap(), q, "left as it was");
    let _ = fs::remove_dir_all(app.parent().unwrap());
}
