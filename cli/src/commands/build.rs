//! `build --backend flink`: the Flink SQL application and the plan
//! manifest, written atomically (nothing is written on error).

use camino::Utf8Path;
use streamform::driver::Work;
use streamform::backend::flink::{flink_script, TargetName};
use streamform::manifest::manifest;
use streamform::project::project_config;
use streamform::target::PLACEHOLDER_SETTINGS;

use super::print_diagnostics_stderr;
use crate::out::{eprint, print};
use crate::atomic::write_all_atomically;
use crate::render::json::write_pretty_json;

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Backend {
    Flink,
}

pub fn run(project: &str, _backend: Backend, target: Option<&str>, stdout: bool) -> u8 {
    let loaded = match super::load_checked_past_fixtures(project, "building", Work::All) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let db = &loaded.db;
    let p = loaded.project;
    let Ok(config) = project_config(db, p) else { return 2 };
    // Without targets and without --target: the SQL with placeholders.
    let placeholders = target.is_none() && config.targets.is_empty();
    let target = if placeholders {
        String::new()
    } else {
        match config.select_target(target, "add a `targets:` section (see docs/project-format.md)") {
            Ok(t) => t,
            Err(e) => {
                eprint(&format!("error: {e}\n"));
                return 2;
            }
        }
    };
    let resolved = match super::resolve_target(&loaded, &target) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let manifest = match manifest(db, p) {
        Ok(m) => m,
        Err(_) => {
            eprint("error: the project does not plan; run `streamform check`\n");
            return 2;
        }
    };
    let script = match flink_script(db, p, loaded.env, TargetName::new(db, target.clone())) {
        Ok(s) => s,
        Err(errors) => {
            let mut out = String::new();
            for e in errors {
                out.push_str(&format!("error: {e}\n"));
            }
            out.push_str("\nfailed: the flink backend cannot run this application\n");
            print(&out);
            return 1;
        }
    };
    print_diagnostics_stderr(&loaded, &script.warnings);
    if placeholders {
        eprint(&format!(
            "note: streamform.yml declares no targets, so the connection settings are placeholders ({}); declare a target under `targets:` to fill them in\n",
            PLACEHOLDER_SETTINGS.join(", ")
        ));
    }
    if !resolved.secrets.is_empty() {
        let names: Vec<&str> = resolved.secrets.iter().map(|s| s.placeholder.as_str()).collect();
        eprint(&format!("note: secret properties are written as their placeholders ({}); only `apply` sends their values\n", names.join(", ")));
    }
    if stdout {
        print(&script.text);
        return 0;
    }
    let mut plan_json = Vec::new();
    if write_pretty_json(manifest, &mut plan_json).is_err() {
        eprint("error: could not serialize the plan manifest\n");
        return 2;
    }
    let root = Utf8Path::new(&loaded.root);
    let files = [(root.join("build/flink/application.sql"), script.text.as_bytes()), (root.join("build/plan.json"), plan_json.as_slice())];
    if let Err(e) = write_all_atomically(&files) {
        eprint(&format!("error: could not write the build: {e}\n"));
        return 2;
    }
    let s = script.statements;
    let what = if placeholders { "with placeholders for the connection settings".to_string() } else { format!("for target `{target}`") };
    print(&format!(
        "ok: {s} statement{} {what} written to build/flink/application.sql\nok: plan manifest written to build/plan.json\n",
        if s == 1 { "" } else { "s" }
    ));
    0
}
