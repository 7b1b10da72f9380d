//! `build --backend flink`: golden scripts for every project under
//! testdata/projects, testdata/conformance and testdata/sim (`expected/build_flink.txt`:
//! stdout, then the warnings build prints), and the build directory's
//! atomic writes. A project that declares no target is built for a
//! `conformance` target added to a copy of it.

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect_file;

const TARGET: &str = "\ntargets:\n  conformance:\n    backend: flink\n    flink: {gateway: \"http://127.0.0.1:8083\"}\n    kafka: {bootstrap_servers: \"127.0.0.1:9092\"}\n    iceberg: {catalog: \"http://127.0.0.1:8181\"}\n";

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn projects() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["projects", "conformance", "sim"] {
        let Ok(entries) = std::fs::read_dir(testdata().join(group)) else { continue };
        out.extend(entries.map(|e| e.expect("readable entry").path()).filter(|p| p.join("streamform.yml").is_file()));
    }
    out.sort();
    assert!(!out.is_empty(), "no projects under testdata");
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("temp dir");
    for e in std::fs::read_dir(from).expect("readable dir") {
        let e = e.expect("entry");
        let name = e.file_name();
        if name == "expected" || name == "build" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).expect("copy");
        }
    }
}

/// A scratch copy of `project` that declares a target.
fn scratch(project: &Path, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sf-build-{}-{tag}-{}", std::process::id(), project.file_name().unwrap().to_string_lossy()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(project, &dir);
    let cfg = dir.join("streamform.yml");
    let text = std::fs::read_to_string(&cfg).expect("streamform.yml");
    if !text.lines().any(|l| l.starts_with("targets:")) {
        std::fs::write(&cfg, format!("{}\n{TARGET}", text.trim_end())).expect("write");
    }
    dir
}

fn streamform(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_streamform")).args(args).current_dir(dir).output().expect("the binary runs")
}

#[test]
fn golden_flink_scripts() {
    for project in projects() {
        let dir = scratch(&project, "golden");
        let out = streamform(&dir, &["build", "--backend", "flink", "--stdout"]);
        let code = out.status.code().unwrap_or(-1);
        assert!((0..=2).contains(&code), "build in {} exited {code}:\n{}", project.display(), String::from_utf8_lossy(&out.stderr));
        let mut text = String::from_utf8(out.stdout).expect("UTF-8");
        // What the backend cannot write is a `check` error: build stops at its gate (exit 2).
        if code == 2 {
            text = format!("exit 2\n{}", String::from_utf8_lossy(&out.stderr));
        }
        let warnings: Vec<String> = String::from_utf8_lossy(&out.stderr).lines().filter(|l| l.starts_with("warning")).map(str::to_string).collect();
        if !warnings.is_empty() && code != 2 {
            text.push_str("\n-- stderr --\n");
            text.push_str(&warnings.join("\n"));
            text.push('\n');
        }
        std::fs::create_dir_all(project.join("expected")).expect("expected/ can be created");
        expect_file![project.join("expected/build_flink.txt")].assert_eq(&text);
        let again = streamform(&dir, &["build", "--backend", "flink", "--stdout"]);
        if code != 2 {
            assert_eq!(String::from_utf8_lossy(&again.stdout), text.split("\n-- stderr --\n").next().unwrap(), "build is not deterministic in {}", project.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn build_writes_the_script_and_the_manifest() {
    let dir = scratch(&testdata().join("projects/reference"), "write");
    let out = streamform(&dir, &["build", "--backend", "flink"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = streamform(&dir, &["build", "--backend", "flink", "--stdout"]).stdout;
    assert_eq!(std::fs::read(dir.join("build/flink/application.sql")).unwrap(), script);
    assert_eq!(std::fs::read(dir.join("build/plan.json")).unwrap(), streamform(&dir, &["inspect-plan", "--json"]).stdout);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout, "ok: 4 statements for target `conformance` written to build/flink/application.sql\nok: plan manifest written to build/plan.json\n");
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("build")).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n.to_string_lossy().starts_with('.')).collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_writes_nothing_on_error() {
    let dir = scratch(&testdata().join("projects/reference"), "error");
    // A second target: build needs --target, and writes nothing without it.
    let cfg = dir.join("streamform.yml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("{text}  prod:\n    backend: flink\n    flink: {{gateway: \"http://prod:8083\"}}\n    kafka: {{bootstrap_servers: \"prod:9092\"}}\n")).unwrap();
    let out = streamform(&dir, &["build", "--backend", "flink"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "error: streamform.yml declares several targets (conformance, prod); pick one with --target\n");
    assert!(!dir.join("build").exists());
    // A check error: refused, nothing written.
    std::fs::write(dir.join("models/broken.sql"), "SELECT nope FROM source('orders')").unwrap();
    let out = streamform(&dir, &["build", "--backend", "flink", "--target", "prod"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: project has 1 error; fix them before building\n"));
    assert!(!dir.join("build").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// An exactly-once sink's options follow the target: its transactional-id
/// prefix names the target (two targets never share one), its timeout is the
/// target's brokers' maximum, and the source that reads its topic on that
/// target (overridden here) reads committed records only. A project that
/// writes no `delivery:` sets none of them.
#[test]
fn exactly_once_options_follow_the_target() {
    let dir = scratch(&testdata().join("projects/delivery"), "targets");
    let cfg = dir.join("streamform.yml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("{text}  prod:\n    backend: flink\n    flink: {{gateway: \"http://flink:8083\"}}\n    kafka:\n      bootstrap_servers: \"kafka:9092\"\n      transaction_max_timeout: 1h\n    topics:\n      sinks: {{paid: paid-prod}}\n      sources: {{paid_orders: paid-prod}}\n")).unwrap();
    let build = |target: &str| String::from_utf8(streamform(&dir, &["build", "--backend", "flink", "--stdout", "--target", target]).stdout).unwrap();
    let (dev, prod) = (build("dev"), build("prod"));
    assert!(dev.contains("'sink.transactional-id-prefix' = 'streamform/delivery/dev/paid::sink::0'"), "{dev}");
    assert!(prod.contains("'sink.transactional-id-prefix' = 'streamform/delivery/prod/paid::sink::0'"), "{prod}");
    assert!(dev.contains("'properties.transaction.timeout.ms' = '900000'") && prod.contains("'properties.transaction.timeout.ms' = '3600000'"));
    // The source of paid_orders reads `paid-prod` on prod, which `paid` writes there.
    let source = |script: &str| script.split("CREATE TABLE `paid_orders`").nth(1).unwrap().split(";").next().unwrap().to_string();
    assert!(source(&prod).contains("'topic' = 'paid-prod'") && source(&prod).contains("'properties.isolation.level' = 'read_committed'"), "{prod}");
    // `orders` is written by no exactly-once sink: it reads as before.
    let orders = prod.split("CREATE TABLE `orders`").nth(1).unwrap().split(";").next().unwrap();
    assert!(!orders.contains("isolation.level"), "{orders}");
    // The sink that says at-least-once, and a project without `delivery:`, set nothing.
    let audit = dev.split("CREATE TABLE `sink_audit`").nth(1).unwrap().split(";").next().unwrap();
    assert!(!audit.contains("delivery-guarantee") && !audit.contains("transaction"), "{audit}");
    let identity = |dir: &Path| streamform(dir, &["inspect-plan", "--json"]).stdout;
    let with_delivery = identity(&dir);
    std::fs::write(&cfg, text.replace("delivery: exactly-once\n", "")).unwrap();
    assert_eq!(identity(&dir), with_delivery, "delivery entered the plan manifest or its digests");
    let plain = build("dev");
    assert!(!plain.contains("delivery-guarantee") && !plain.contains("isolation.level") && !plain.contains("checkpointing"), "{plain}");
    let _ = std::fs::remove_dir_all(&dir);
}
