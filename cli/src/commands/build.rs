//! `build --backend flink`: the Flink SQL application and the plan
//! manifest, written atomically (nothing is written on error).

use camino::Utf8Path;
use streamform::driver::Work;
use streamform::backend::flink::{flink_script, flink_script_selected, TargetName};
use streamform::manifest::manifest;
use streamform::project::project_config;
use streamform::target::PLACEHOLDER_SETTINGS;

use super::print_diagnostics_stderr;
use crate::out::{eprint, print};
use crate::atomic::write_all_atomically;

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Backend {
    Flink,
}

/// `select`: `--select` selectors; a selection's script goes to
/// build/flink/selected.sql, beside the whole application's.
pub fn run(project: &str, _backend: Backend, target: Option<&str>, select: &[String], stdout: bool) -> u8 {
    let loaded = match super::load_checked_past_fixtures(project, "building", Work::All) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let selected = match super::selection(&loaded, select) {
        Ok(s) => s,
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
    let target_name = TargetName::new(db, target.clone());
    let built = match &selected {
        Some(models) => flink_script_selected(db, p, loaded.env, target_name, models),
        None => flink_script(db, p, loaded.env, target_name).clone(),
    };
    let script = match built {
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
    if manifest.write_pretty(&mut plan_json).is_err() {
        eprint("error: could not serialize the plan manifest\n");
        return 2;
    }
    plan_json.push(b'\n');
    let root = Utf8Path::new(&loaded.root);
    let sql_file = if selected.is_some() { "build/flink/selected.sql" } else { "build/flink/application.sql" };
    let files = [(root.join(sql_file), script.text.as_bytes()), (root.join("build/plan.json"), plan_json.as_slice())];
    if let Err(e) = write_all_atomically(&files) {
        eprint(&format!("error: could not write the build: {e}\n"));
        return 2;
    }
    let s = script.statements;
    let mut what = if placeholders { "with placeholders for the connection settings".to_string() } else { format!("for target `{target}`") };
    if let Some(models) = &selected {
        what.push_str(&format!(" writing {}", models.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")));
    }
    print(&format!(
        "ok: {s} statement{} {what} written to {sql_file}\nok: plan manifest written to build/plan.json\n",
        if s == 1 { "" } else { "s" }
    ));
    0
}
