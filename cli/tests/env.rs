//! Environments and secrets, end to end through the binary: a target read
//! from the environment, and a secret that reaches the SQL Gateway and
//! nothing else. A small fake gateway (std only) answers the calls `plan
//! --out`, `apply`, `status` and `stop` make and records each statement;
//! the real parts are exercised by tools/deploy-e2e/run.sh.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

const CANARY: &str = "canary-7f3a9c1e5b";

fn source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/env/project")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("env").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("models")).unwrap();
    for f in ["streamform.yml", "sources.yml", "models/totals.sql"] {
        fs::copy(source().join(f), dir.join(f)).unwrap();
    }
    dir
}

/// What the fake gateway saw, and what it answers.
#[derive(Default)]
struct Gateway {
    statements: Vec<String>,
    /// operation handle → statement
    operations: BTreeMap<String, String>,
    job: Option<(String, &'static str)>,
    /// Fail every CREATE TABLE with an error that echoes it, as a careless server might.
    fail_ddl: bool,
    savepoints: PathBuf,
}

fn start_gateway(savepoints: PathBuf) -> (String, Arc<Mutex<Gateway>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::new(Mutex::new(Gateway { savepoints, ..Gateway::default() }));
    let s = state.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            serve(conn, &s);
        }
    });
    (addr, state)
}

fn serve(mut conn: TcpStream, state: &Arc<Mutex<Gateway>>) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
    let mut length = 0;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, answer) = answer(&method, &path, &body, &mut state.lock().unwrap());
    let text = answer.to_string();
    let _ = write!(conn, "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}", text.len());
}

fn rows(columns: &[&str], data: Vec<Vec<Value>>, job: Option<&str>) -> Value {
    let cols: Vec<Value> = columns.iter().map(|c| json!({"name": c})).collect();
    let data: Vec<Value> = data.into_iter().map(|f| json!({"kind": "INSERT", "fields": f})).collect();
    json!({"resultType": "EOS", "jobID": job, "results": {"columns": cols, "data": data}})
}

fn answer(method: &str, path: &str, body: &Value, g: &mut Gateway) -> (u16, Value) {
    if method == "DELETE" {
        return (200, json!({}));
    }
    if path == "/v2/info" {
        return (200, json!({"productName": "Apache Flink", "version": "2.3.0"}));
    }
    if path == "/v2/sessions" {
        return (200, json!({"sessionHandle": "s1"}));
    }
    if path.ends_with("/statements") {
        let statement = body["statement"].as_str().unwrap_or("").to_string();
        g.statements.push(statement.clone());
        if g.fail_ddl && statement.starts_with("CREATE TABLE") {
            return (500, json!({"errors": [format!("org.apache.flink.table.api.ValidationException: cannot create {statement}")]}));
        }
        let op = format!("op{}", g.operations.len());
        g.operations.insert(op.clone(), statement);
        return (200, json!({"operationHandle": op}));
    }
    if let Some(op) = path.split("/operations/").nth(1).and_then(|r| r.split('/').next()) {
        let statement = g.operations.get(op).cloned().unwrap_or_default();
        if statement.starts_with("SHOW JOBS") {
            let data = g.job.iter().map(|(id, status)| vec![json!(id), json!("streamform-shop-prod"), json!(status), json!("2026-12-01T00:00:00Z")]).collect();
            return (200, rows(&["job id", "job name", "status", "start time"], data, None));
        }
        if statement.starts_with("EXECUTE") {
            g.job = Some(("fakejob1".into(), "RUNNING"));
            return (200, rows(&["job id"], vec![vec![json!("fakejob1")]], Some("fakejob1")));
        }
        if let Some(rest) = statement.strip_prefix("COMPILE PLAN 'file://") {
            // What Flink writes is checked by the canary; an empty plan is refused by the pinning, deterministically.
            fs::write(rest.split('\'').next().unwrap(), "{}").unwrap();
            return (200, rows(&["result"], vec![vec![json!("OK")]], None));
        }
        if statement.starts_with("STOP JOB") {
            let sp = g.savepoints.join("savepoint-fake");
            fs::create_dir_all(&sp).unwrap();
            fs::write(sp.join("_metadata"), "x").unwrap();
            if let Some(j) = g.job.as_mut() {
                j.1 = "FINISHED";
            }
            return (200, rows(&["savepoint path"], vec![vec![json!(format!("file:{}", sp.display()))]], None));
        }
        return (200, rows(&["result"], vec![vec![json!("OK")]], None));
    }
    (404, json!({"errors": ["not found"]}))
}

fn run(dir: &Path, env: &[(&str, String)], args: &[&str]) -> (i32, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_streamform"));
    c.args(args).current_dir(dir).stdin(Stdio::null()).env("NO_COLOR", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("the binary runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_holding(&p, needle));
        } else if fs::read(&p).is_ok_and(|b| String::from_utf8_lossy(&b).contains(needle)) {
            out.push(p);
        }
    }
    out
}

fn count_files(dir: &Path) -> usize {
    fs::read_dir(dir).map(|rd| rd.flatten().map(|e| if e.path().is_dir() { count_files(&e.path()) } else { 1 }).sum()).unwrap_or(0)
}

/// The canary: a secret set to a unique string reaches the gateway's
/// statements, and no file in the project (build/, .streamform/), the plan
/// directory, or any command's output.
#[test]
fn a_secret_reaches_the_gateway_and_nothing_else() {
    let dir = scratch("canary");
    let savepoints = dir.join("savepoints");
    let (gateway, state) = start_gateway(savepoints.clone());
    let jaas = format!("org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"{CANARY}\";");
    let env = [
        ("FLINK_GATEWAY", gateway),
        ("SAVEPOINT_DIR", savepoints.display().to_string()),
        ("KAFKA_BOOTSTRAP", "broker:9092".to_string()),
        ("KAFKA_SASL_JAAS", jaas.clone()),
    ];
    let steps: &[(&[&str], i32)] = &[
        (&["build"], 0),
        (&["build", "--stdout"], 0),
        (&["plan", "--target", "prod", "--out", "deploy.json"], 0),
        (&["apply", "--yes", "--plan", "deploy.json"], 0),
        (&["status"], 0),
        (&["stop"], 0),
    ];
    for (args, want) in steps {
        let (code, text) = run(&dir, &env, args);
        assert_eq!(code, *want, "streamform {args:?}:\n{text}");
        assert!(!text.contains(CANARY), "streamform {args:?} printed the secret:\n{text}");
        if args[0] == "build" {
            assert!(text.contains("${KAFKA_SASL_JAAS}"), "build says the secret is a placeholder:\n{text}");
        }
    }
    // A failure whose message echoes the statement: redacted in what is
    // printed and journaled.
    state.lock().unwrap().fail_ddl = true;
    let (code, text) = run(&dir, &env, &["apply", "--yes"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("${KAFKA_SASL_JAAS}") && !text.contains(CANARY), "{text}");

    let sent = state.lock().unwrap().statements.clone();
    let with_secret: Vec<&String> = sent.iter().filter(|s| s.contains(CANARY)).collect();
    assert!(with_secret.iter().any(|s| s.contains(&format!("'properties.sasl.jaas.config' = '{}'", jaas.replace('\'', "''")))), "apply sent the secret to the gateway: {sent:#?}");
    assert!(with_secret.iter().all(|s| s.starts_with("CREATE TABLE")), "only the DDL carries it: {with_secret:#?}");
    // The compile session got the placeholder, so Flink's plan cannot hold the secret.
    assert!(sent.iter().any(|s| s.contains("'${KAFKA_SASL_JAAS}'")), "{sent:#?}");

    assert!(dir.join("build/flink/application.sql").is_file() && dir.join(".streamform/applied/prod.json").is_file());
    assert!(count_files(&dir.join(".streamform")) >= 3, "the journal and record were written");
    assert_eq!(files_holding(&dir, CANARY), Vec::<PathBuf>::new(), "files holding the secret");
    assert!(fs::read_to_string(dir.join("build/flink/application.sql")).unwrap().contains("'properties.sasl.jaas.config' = '${KAFKA_SASL_JAAS}'"));
}

/// The same project gives the same manifest under any target and any
/// environment: the manifest `build` writes for a target equals
/// `inspect-plan --json` with no environment at all.
#[test]
fn identity_does_not_depend_on_the_environment() {
    let dir = scratch("identity");
    let bare = run(&dir, &[], &["inspect-plan", "--json"]);
    assert_eq!(bare.0, 0, "{}", bare.1);
    let mut manifests = Vec::new();
    for (servers, topic) in [("a:9092", "t1"), ("b:9093", "t2")] {
        let env = [("KAFKA_BOOTSTRAP", servers.to_string()), ("KAFKA_SASL_JAAS", format!("secret-{topic}")), ("TOTALS_TOPIC", topic.to_string())];
        let (code, text) = run(&dir, &env, &["build"]);
        assert_eq!(code, 0, "{text}");
        let sql = fs::read_to_string(dir.join("build/flink/application.sql")).unwrap();
        assert!(sql.contains(&format!("'properties.bootstrap.servers' = '{servers}'")) && sql.contains(&format!("'topic' = '{topic}'")), "{sql}");
        manifests.push(fs::read_to_string(dir.join("build/plan.json")).unwrap());
    }
    assert_eq!(manifests[0], manifests[1]);
    let bare: Value = serde_json::from_str(&bare.1).unwrap();
    let built: Value = serde_json::from_str(&manifests[0]).unwrap();
    assert_eq!(bare, built);
}

/// `build` of a project without targets: the SQL with placeholders for the
/// connection settings, and a note that says so.
#[test]
fn build_without_targets_writes_placeholders() {
    let dir = scratch("no-targets");
    let config = fs::read_to_string(dir.join("streamform.yml")).unwrap();
    fs::write(dir.join("streamform.yml"), config.split("targets:").next().unwrap()).unwrap();
    let (code, text) = run(&dir, &[], &["build"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("note: streamform.yml declares no targets, so the connection settings are placeholders (${KAFKA_BOOTSTRAP_SERVERS}"), "{text}");
    assert!(text.contains("with placeholders for the connection settings written to build/flink/application.sql"), "{text}");
    let sql = fs::read_to_string(dir.join("build/flink/application.sql")).unwrap();
    assert!(sql.contains("'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP_SERVERS}'") && sql.contains("'topic' = 'totals'"), "{sql}");
    // A named target that does not exist is still an error.
    let (code, text) = run(&dir, &[], &["build", "--target", "prod"]);
    assert_eq!(code, 2, "{text}");
}

/// An unset variable is a located error of the command that resolves the
/// target; `check` and `inspect-plan` do not need the environment.
#[test]
fn an_unset_variable_is_located() {
    let dir = scratch("unset");
    let (code, text) = run(&dir, &[("KAFKA_SASL_JAAS", "x".to_string())], &["build", "--stdout"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("error[E0882]: `${KAFKA_BOOTSTRAP}` in `targets.prod.kafka.bootstrap_servers`"), "{text}");
    assert!(text.contains("streamform.yml:17:26"), "{text}");
    assert_eq!(run(&dir, &[], &["check"]).0, 0);
}
