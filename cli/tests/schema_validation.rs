//! The schemas `streamform schema` prints, checked with a real JSON Schema
//! validator against the project files in this repository: every file
//! `check` accepts is valid (an editor that validates against the schema
//! must not flag it), and a file with a structural error `check` reports
//! (unknown key, wrong shape, missing key, bad duration, value not
//! allowed) is invalid.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Number, Value};
use streamform::yaml::{self, Node};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn schema(doc: &str) -> jsonschema::Validator {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(["schema", doc]).output().expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    jsonschema::validator_for(&v).unwrap_or_else(|e| panic!("{doc}: not a valid schema: {e}"))
}

/// YAML as the compiler reads it, as JSON.
fn to_json(n: &Node) -> Value {
    match &n.value {
        yaml::Value::Null => Value::Null,
        yaml::Value::Bool(b) => Value::Bool(*b),
        yaml::Value::Int(i) => i64::try_from(*i).map(Value::from).unwrap_or_else(|_| Value::String(i.to_string())),
        yaml::Value::Float(f) => Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null),
        yaml::Value::Str(s) => Value::String(s.clone()),
        yaml::Value::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
        yaml::Value::Map(entries) => {
            Value::Object(entries.iter().map(|(k, v)| (k.scalar_text().unwrap_or_default(), to_json(v))).collect::<Map<_, _>>())
        }
    }
}

/// Every project directory under testdata/ and examples/.
fn projects() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        if dir.join("streamform.yml").is_file() {
            out.push(dir.to_path_buf());
        }
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut subdirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        subdirs.sort();
        for d in subdirs {
            walk(&d, out);
        }
    }
    let mut out = Vec::new();
    walk(&repo().join("testdata"), &mut out);
    walk(&repo().join("examples"), &mut out);
    out
}

/// The project's YAML files with the schema each is read by.
fn documents(project: &Path) -> Vec<(String, &'static str)> {
    let mut docs = vec![("streamform.yml".to_string(), "project")];
    if project.join("sources.yml").is_file() {
        docs.push(("sources.yml".into(), "sources"));
    }
    fn fixtures(root: &Path, rel: &str, out: &mut Vec<(String, &'static str)>) {
        let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return };
        for e in entries.flatten() {
            let name = format!("{rel}/{}", e.file_name().to_string_lossy());
            if e.path().is_dir() {
                fixtures(root, &name, out);
            } else if name.ends_with(".yml") {
                out.push((name, "fixture"));
            }
        }
    }
    fixtures(project, "tests", &mut docs);
    docs
}

/// `check`'s diagnostics, from its text (which, unlike the JSON report of a
/// project that does not load, always names the code and the file):
/// (severity, path, code).
fn diagnostics(project: &Path) -> Option<Vec<(String, String, String)>> {
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("check").arg("-p").arg(project).output().expect("runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let mut found = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((severity, rest)) = line.split_once('[') else { continue };
        if severity != "error" && severity != "warning" {
            continue;
        }
        let code = rest.split(']').next().unwrap_or_default().to_string();
        let path = match lines.peek().and_then(|l| l.trim_start().strip_prefix("--> ")) {
            Some(loc) => loc.split(':').next().unwrap_or_default().to_string(),
            None => String::new(),
        };
        found.push((severity.to_string(), path, code));
    }
    Some(found)
}

const STRUCTURAL: &[&str] = &["E0102", "E0103", "E0105", "E0106", "E0107"];

#[test]
fn the_schemas_accept_every_file_check_accepts_and_refuse_structural_errors() {
    let validators: Vec<(&str, jsonschema::Validator)> = ["project", "sources", "fixture"].into_iter().map(|d| (d, schema(d))).collect();
    let (mut accepted, mut refused, mut problems) = (0, 0, Vec::new());
    for project in projects() {
        let Some(diags) = diagnostics(&project) else { continue };
        for (rel, doc) in documents(&project) {
            let Ok(text) = std::fs::read_to_string(project.join(&rel)) else { continue };
            let Ok(node) = yaml::parse(&text) else { continue };
            let errors: Vec<&(String, String, String)> = diags.iter().filter(|(sev, path, _)| sev == "error" && *path == rel).collect();
            let structural = errors.iter().any(|(_, _, code)| STRUCTURAL.contains(&code.as_str()));
            let validator = &validators.iter().find(|(d, _)| *d == doc).expect("validator").1;
            let valid = validator.is_valid(&to_json(&node));
            let name = format!("{}/{rel}", project.strip_prefix(repo()).unwrap_or(&project).display());
            if errors.is_empty() {
                accepted += 1;
                if !valid {
                    let why: Vec<String> = validator.iter_errors(&to_json(&node)).map(|e| format!("{} at {}", e, e.instance_path())).collect();
                    problems.push(format!("{name}: check accepts it, the `{doc}` schema does not: {}", why.join("; ")));
                }
            } else if structural {
                refused += 1;
                if valid {
                    problems.push(format!("{name}: check reports {:?}, the `{doc}` schema accepts it", errors.iter().map(|e| &e.2).collect::<Vec<_>>()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("schema validation: {accepted} files check accepts validate, {refused} with structural errors do not");
    assert!(accepted > 300 && refused >= 5, "accepted {accepted}, refused {refused}: too few files were compared");
}

/// What `plan --out` and `apply` wrote on the real parts for a rebuild with
/// an append and an upsert sink (tools/deploy-e2e/e2e.py, `sinks`; copied
/// from a run): the deploy plan with its sinks and cutover, the applied
/// record and the journal entry with the offsets read from the savepoint.
/// Each is valid against its schema and read back by this build; a sink
/// whose replay the schema does not know is not valid.
#[test]
fn the_deploy_documents_with_sinks_and_cutover_validate() {
    let dir = repo().join("testdata/deploy/sinks");
    let read = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(f)).expect(f)).expect(f) };
    for (file, doc) in [("rebuild-plan.json", "deploy-plan"), ("applied.json", "applied-record"), ("journal.json", "journal-entry")] {
        let v = read(file);
        let validator = schema(doc);
        let why: Vec<String> = validator.iter_errors(&v).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(why.is_empty(), "{file} against `{doc}`: {}", why.join("; "));
    }
    let text = std::fs::read_to_string(dir.join("rebuild-plan.json")).unwrap();
    let plan = streamform::deploy::read_deploy_plan(&text).expect("the plan's id matches its contents");
    assert_eq!(plan.sinks.len(), 3);
    assert!(plan.cutover.as_ref().is_some_and(|c| !c.restored && c.startup == "earliest-offset"));
    let rec = streamform::upgrade::reader::read_running(&std::fs::read_to_string(dir.join("applied.json")).unwrap()).expect("the record reads");
    let cutover = rec.record().and_then(|r| r.cutover.clone()).expect("the record holds the cutover");
    assert!(cutover.unread.is_none() && cutover.offsets.len() == 2, "{cutover:?}");
    let mut bad = read("rebuild-plan.json");
    bad["sinks"][0]["replay"] = Value::from("sometimes");
    assert!(!schema("deploy-plan").is_valid(&bad), "an unknown replay is not valid");
}
