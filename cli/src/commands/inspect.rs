//! `inspect-plan` and `explain`.

use streamform::db::{ModelName, SourceName};
use streamform::driver::{self, Work};
use streamform::identity::digest::short;
use streamform::manifest::{manifest, manifest_document, model_identity, ManifestError, ModelDocument};
use streamform::model::{lower_model, model_plan, source_input};
use streamform::project::{model_entry, model_names, source_config};
use streamform::source::event_time;

use super::{print_diagnostics_stderr, report_load_errors};
use crate::load::{load, Loaded};
use crate::out::{eprint, print, print_with};
use crate::render::explain::{model_explain, SourceFacts};
use crate::render::inspect::model_block;
use crate::render::json::to_pretty_json;

/// Checks a MODEL argument; prints the error and returns false when unknown.
pub(crate) fn known_model(loaded: &Loaded, model: &str) -> bool {
    let names = model_names(&loaded.db, loaded.project);
    if names.iter().any(|n| n == model) {
        return true;
    }
    let mut msg = format!("error: no model named `{model}`; this project defines: {}\n", names.join(", "));
    if let Some(s) = streamform::diagnostic::did_you_mean(model, names.iter().map(String::as_str)) {
        msg.push_str(&format!("  help: did you mean `{s}`?\n"));
    }
    eprint(&msg);
    false
}

/// The model's plan, or prints why it has none.
fn compiled(loaded: &Loaded, model: &str) -> bool {
    let name = ModelName::new(&loaded.db, loaded.project, model.to_string());
    if model_plan(&loaded.db, name).is_some() {
        return true;
    }
    if let Some(e) = &lower_model(&loaded.db, name).error {
        eprint(&format!("error: could not compile model `{model}`\n\n"));
        print_diagnostics_stderr(loaded, std::slice::from_ref(e));
    }
    false
}

pub(crate) fn whole_manifest_error(loaded: &Loaded, e: &ManifestError) {
    match e {
        ManifestError::Model { model, error } => {
            eprint(&format!("error: could not compile model `{model}`\n\n"));
            print_diagnostics_stderr(loaded, std::slice::from_ref(error));
        }
        ManifestError::Cycle(c) => {
            eprint(&format!("error: models form a reference cycle: {}; run `streamform check`\n", c.join(" \u{2192} ")));
        }
    }
}

pub fn inspect_plan(project: &str, model: Option<&str>, select: &[String], json: bool) -> u8 {
    let mut loaded = load(project);
    if report_load_errors(&loaded) {
        return 2;
    }
    match super::selection(&loaded, select) {
        Ok(Some(models)) => return selected_identities(&mut loaded, &models, json),
        Ok(None) => {}
        Err(code) => return code,
    }
    if model.is_none() {
        // The whole document as JSON needs only each model's JSON.
        driver::compile(&mut loaded.db, loaded.project, if json { Work::ManifestJson } else { Work::Manifest });
    }
    let db = &loaded.db;
    match model {
        Some(m) => {
            if !known_model(&loaded, m) || !compiled(&loaded, m) {
                return 2;
            }
            let slice = &model_identity(db, ModelName::new(db, loaded.project, m.to_string())).as_ref().expect("compiled").slice;
            if json {
                print(&to_pretty_json(&ModelDocument { manifest_version: 1, model: &slice.model, nodes: &slice.nodes }));
            } else {
                print(&model_block(slice));
            }
            0
        }
        None if json => match manifest_document(db, loaded.project) {
            Ok(m) => {
                print_with(|out| m.write_pretty(out).and_then(|()| out.write_all(b"\n")));
                0
            }
            Err(e) => {
                whole_manifest_error(&loaded, e);
                2
            }
        },
        None => match manifest(db, loaded.project) {
            Ok(m) => {
                let blocks: Vec<String> = m.slices.iter().map(|s| model_block(s)).collect();
                let mut out = blocks.join("\n");
                out.push_str(&format!("\napplication digest={}\n", short(&m.application_digest)));
                print(&out);
                0
            }
            Err(e) => {
                whole_manifest_error(&loaded, e);
                2
            }
        },
    }
}

/// `inspect-plan --select`: each selected model's block (or, with `--json`,
/// its manifest slice), in plan order, then the whole application's digest.
fn selected_identities(loaded: &mut Loaded, models: &[String], json: bool) -> u8 {
    driver::compile(&mut loaded.db, loaded.project, Work::Manifest);
    let loaded = &*loaded;
    if !models.iter().all(|m| compiled(loaded, m)) {
        return 2;
    }
    let db = &loaded.db;
    let slices: Vec<_> = models
        .iter()
        .map(|m| &model_identity(db, ModelName::new(db, loaded.project, m.clone())).as_ref().expect("compiled").slice)
        .collect();
    if json {
        let docs: Vec<String> = slices.iter().map(|s| to_pretty_json(&ModelDocument { manifest_version: 1, model: &s.model, nodes: &s.nodes })).collect();
        print(&docs.concat());
        return 0;
    }
    let mut out = slices.iter().map(|s| model_block(s)).collect::<Vec<_>>().join("\n");
    match manifest(db, loaded.project) {
        Ok(m) => out.push_str(&format!("\napplication digest={}\n", short(&m.application_digest))),
        Err(e) => {
            print(&out);
            whole_manifest_error(loaded, e);
            return 2;
        }
    }
    print(&out);
    0
}

pub fn explain(project: &str, model: Option<&str>, select: &[String], json: bool) -> u8 {
    let loaded = load(project);
    if report_load_errors(&loaded) {
        return 2;
    }
    let db = &loaded.db;
    let selected = match super::selection(&loaded, select) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let models: Vec<String> = match (model, selected) {
        (_, Some(models)) => {
            if !models.iter().all(|m| compiled(&loaded, m)) {
                return 2;
            }
            models
        }
        (Some(m), None) => {
            if !known_model(&loaded, m) || !compiled(&loaded, m) {
                return 2;
            }
            vec![m.to_string()]
        }
        (None, None) => match manifest(db, loaded.project) {
            Ok(m) => m.models().map(|m| m.name.clone()).collect(),
            Err(e) => {
                whole_manifest_error(&loaded, e);
                return 2;
            }
        },
    };
    let mut out = String::new();
    for (i, m) in models.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let name = ModelName::new(db, loaded.project, m.clone());
        if json {
            let slice = &model_identity(db, name).as_ref().expect("compiled").slice;
            out.push_str(&to_pretty_json(&ModelDocument { manifest_version: 1, model: &slice.model, nodes: &slice.nodes }));
        } else {
            let plan = model_plan(db, name).as_ref().expect("compiled");
            let cfg = model_entry(db, name);
            let sink = cfg.sink.as_ref().map(|s| (s.connector.as_str(), s.target().unwrap_or("")));
            let facts = |src: &str| source_facts(&loaded, src);
            out.push_str(&model_explain(plan, sink, &facts));
        }
    }
    print(&out);
    0
}

fn source_facts(loaded: &Loaded, src: &str) -> Option<SourceFacts> {
    let db = &loaded.db;
    let name = SourceName::new(db, src.to_string());
    let s = source_config(db, loaded.project, name).as_ref()?;
    let input = source_input(db, loaded.project, name).as_ref()?;
    let time = match event_time(s) {
        Some(t) => format!("event({}) watermark={} late={}", t.column, t.watermark, t.late.as_str()),
        None => "processing".to_string(),
    };
    Some(SourceFacts { connector: s.connector.as_str().to_string(), time, contracts: input.contracts.clone(), quarantine: input.quarantine.clone() })
}
