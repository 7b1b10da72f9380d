//! `plan`: compare the running plan with the project's and classify every
//! change.
//!
//! The running plan is `--against FILE` (a plan manifest or an applied
//! record, digests verified), or what `apply` recorded for the target in
//! `.streamform/applied/<target>.json` (none: a first deploy). Exit 0 when
//! the verdict is SAFE or COMPATIBLE, 1 when state needs work, 2 when the
//! plan cannot be made.

use std::fs;

use camino::Utf8Path;
use streamform::driver::Work;
use streamform::identity::digest::short;
use streamform::manifest::manifest;
use streamform::upgrade::document::document;
use streamform::upgrade::reader::{read_running, RunningDoc};
use streamform::upgrade::{artifact_note, diff, hints_of};
use streamform::project::project_config;

use super::inspect::whole_manifest_error;
use crate::out::{eprint, print};
use crate::render::json::to_pretty_json;
use crate::render::plan::{text, Header};

pub struct Args {
    pub project: String,
    pub target: Option<String>,
    pub against: Option<String>,
    pub json: bool,
    /// Write a deploy plan (needs a reachable target: a later stage).
    pub out: Option<String>,
}

/// Where applied records live, per target.
pub const APPLIED_DIR: &str = ".streamform/applied";

/// Reads and verifies a running plan; prints why not.
fn read_doc(path: &str) -> Result<RunningDoc, ()> {
    let text = fs::read_to_string(path).map_err(|e| eprint(&format!("error: could not use {path}: {e}\n")))?;
    read_running(&text).map_err(|e| eprint(&format!("error: could not use {path}: {e}\n")))
}

/// `running: …` for a record, a file, or nothing.
fn running_line(doc: Option<&RunningDoc>, file: &str, target: Option<&str>) -> String {
    match doc {
        None => format!("nothing is recorded as applied to target `{}`; the application starts fresh", target.unwrap_or("")),
        Some(RunningDoc::Manifest(m)) => format!("{file}, application digest {}", short(&m.application_digest)),
        Some(RunningDoc::Record(r)) => {
            let jobs = match r.jobs.as_slice() {
                [] => String::new(),
                [one] => format!("job {one}, "),
                many => format!("jobs {}, ", many.join(", ")),
            };
            format!("applied {} by streamform {}, {jobs}application digest {}", r.applied_at, r.streamform_version, short(&r.manifest.application_digest))
        }
    }
}

pub fn run(a: &Args) -> u8 {
    let loaded = match super::load_checked(&a.project, "planning", Work::All) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let Ok(config) = project_config(&loaded.db, loaded.project).clone() else { return 2 };

    // What runs.
    let (target, file, running) = match &a.against {
        Some(file) => match read_doc(file) {
            Ok(doc) => (None, file.clone(), Some(doc)),
            Err(()) => return 2,
        },
        None => {
            let target = match config.select_target(a.target.as_deref(), "add a `targets:` section, or compare with a manifest using `--against FILE`") {
                Ok(t) => t,
                Err(msg) => {
                    eprint(&format!("error: {msg}\n"));
                    return 2;
                }
            };
            let path = Utf8Path::new(&a.project).join(APPLIED_DIR).join(format!("{target}.json"));
            let running = if path.is_file() {
                match read_doc(path.as_str()) {
                    Ok(doc) => {
                        if let Some(r) = doc.record().filter(|r| r.target != target) {
                            eprint(&format!("error: could not use {path}: it records target `{}`, not `{target}`\n", r.target));
                            return 2;
                        }
                        Some(doc)
                    }
                    Err(()) => return 2,
                }
            } else {
                None
            };
            (Some(target), path.to_string(), running)
        }
    };

    // What the project compiles to.
    let desired = match manifest(&loaded.db, loaded.project) {
        Ok(m) => m.to_manifest(),
        Err(e) => {
            whole_manifest_error(&loaded, e);
            return 2;
        }
    };

    let mut d = diff(running.as_ref().map(|r| r.manifest()), &desired, &hints_of(&config));
    // The deployed artifact's digest is compared once `build` can produce
    // the script here (the Flink backend); until then there is no desired
    // artifact digest and no note.
    let desired_artifact: Option<String> = None;
    let running_artifact = running.as_ref().and_then(|r| r.record()).and_then(|r| r.artifact_digest.as_deref());
    d.notices.extend(artifact_note(running_artifact, desired_artifact.as_deref(), &d));

    if a.json {
        print(&to_pretty_json(&document(&d, target.as_deref(), running.as_ref(), &desired.application_digest)));
    } else {
        let against = match (&a.against, &target) {
            (Some(f), _) => f.clone(),
            (None, Some(t)) => format!("target `{t}`"),
            (None, None) => String::new(),
        };
        let running_text = running_line(running.as_ref(), &file, target.as_deref());
        let header = Header { project: &config.name, against: &against, running: &running_text, desired_digest: &desired.application_digest };
        print(&text(&header, &d));
    }

    if a.out.is_some() {
        eprint(&format!(
            "error: could not observe target `{}`, so no plan was written: this build of streamform does not reach a Flink SQL Gateway yet\n",
            target.as_deref().unwrap_or("")
        ));
        return 2;
    }
    d.verdict.exit_code()
}
