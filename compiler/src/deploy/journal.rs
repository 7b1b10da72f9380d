//! The journal of a target (`.streamform/journal/<target>/<attempt>.json`):
//! one `journal-entry` document per `apply` or `stop` attempt, rewritten at
//! each step. The command line writes and lists the files; this module is
//! their shape, their one decoder, and what `apply` and `status` look up in
//! them.

use serde::{Deserialize, Serialize};

use super::{version_first, Cutover, Rollback};
use crate::manifest::Manifest;

pub const JOURNAL_VERSION: u32 = 1;

/// One transition of an attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transition {
    pub state: String,
    pub at: String,
    #[serde(default)]
    pub note: Option<String>,
}

/// A `journal-entry` document: one attempt (an apply or a stop), rewritten
/// atomically at each step so an interrupted one shows where it stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEntry {
    pub journal_version: u32,
    pub attempt: String,
    pub application: String,
    pub target: String,
    pub streamform_version: String,
    pub backend: String,
    pub operation: Option<String>,
    pub artifact_digest: String,
    pub job_name: String,
    pub application_digest: String,
    pub state: String,
    #[serde(default)]
    pub plan: Option<String>,
    #[serde(default)]
    pub job_id: Option<String>,
    #[serde(default)]
    pub flink_version: Option<String>,
    #[serde(default)]
    pub replaces: Option<String>,
    #[serde(default)]
    pub previous_artifact: Option<String>,
    #[serde(default)]
    pub savepoint: Option<String>,
    #[serde(default)]
    pub restored_from: Option<String>,
    #[serde(default)]
    pub problem: Option<String>,
    /// The savepoint the new job takes over from and its source offsets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutover: Option<Cutover>,
    pub transitions: Vec<Transition>,
    pub manifest: Manifest,
}

impl JournalEntry {
    /// Whether the attempt ended: an apply when its job runs or it failed,
    /// a stop when the job stopped or the stop failed.
    pub fn settled(&self) -> bool {
        match self.state.as_str() {
            "running" | "failed" => true,
            "stopped" => self.operation.as_deref() == Some("stop"),
            _ => false,
        }
    }

    fn reached(&self, state: &str) -> bool {
        self.transitions.iter().any(|t| t.state == state)
    }
}

/// A journal entry's text, decoded; Err says why it is not one.
/// Its version is read first: another version's entry is refused as such,
/// whatever else it holds.
pub fn decode_journal_entry(text: &str) -> Result<JournalEntry, String> {
    version_first(text, "journal_version", JOURNAL_VERSION)?;
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// The newest attempt after `applied_attempt` that took a savepoint (a
/// `stop`, or an apply interrupted after its stop). Attempt ids sort by
/// time, and `journal` is in that order.
pub fn last_stop<'a>(journal: &'a [JournalEntry], applied_attempt: &str) -> Option<&'a JournalEntry> {
    journal.iter().rfind(|e| e.savepoint.is_some() && e.attempt.as_str() > applied_attempt)
}

/// The job that wrote a savepoint, and the attempt that submitted it.
#[derive(Debug)]
pub struct SavepointWriter<'a> {
    pub job_id: String,
    /// The attempt that submitted the job: its application and artifact.
    pub ran: &'a JournalEntry,
}

impl SavepointWriter<'_> {
    pub fn rollback(&self, savepoint: &str) -> Rollback {
        Rollback { savepoint: savepoint.to_string(), job_id: self.job_id.clone(), application_digest: self.ran.application_digest.clone(), artifact_digest: self.ran.artifact_digest.clone() }
    }
}

/// The job that wrote `savepoint`: the attempt that stopped it into that
/// savepoint names the job (a `stop` its own, an apply the one it
/// replaced), and the attempt that submitted that job names its
/// application. Err when the journal of `target` does not record both.
pub fn savepoint_writer<'a>(journal: &'a [JournalEntry], target: &str, savepoint: &str) -> Result<SavepointWriter<'a>, String> {
    let stopped = journal
        .iter()
        .rfind(|e| e.savepoint.as_deref() == Some(savepoint) && e.reached("stopped"))
        .ok_or_else(|| format!("no journal entry of target `{target}` records taking savepoint {savepoint}"))?;
    let job = if stopped.operation.as_deref() == Some("stop") { &stopped.job_id } else { &stopped.replaces };
    let job_id = job.clone().ok_or_else(|| format!("the journal entry {} that took savepoint {savepoint} names no job", stopped.attempt))?;
    let ran = journal
        .iter()
        .rfind(|e| e.job_id.as_deref() == Some(job_id.as_str()) && e.operation.as_deref() != Some("stop") && e.reached("running"))
        .ok_or_else(|| format!("savepoint {savepoint} is of job {job_id}, but no journal entry of target `{target}` records submitting that job"))?;
    Ok(SavepointWriter { job_id, ran })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(attempt: &str, operation: &str, job: Option<&str>, replaces: Option<&str>, savepoint: Option<&str>, states: &[&str]) -> JournalEntry {
        let text = include_str!("../../../testdata/deploy/sinks/journal.json");
        let mut e = decode_journal_entry(text).expect("the testdata entry decodes");
        e.attempt = attempt.into();
        e.operation = Some(operation.into());
        e.job_id = job.map(Into::into);
        e.replaces = replaces.map(Into::into);
        e.savepoint = savepoint.map(Into::into);
        e.transitions = states.iter().map(|s| Transition { state: s.to_string(), at: "2026-12-03T00:00:00Z".into(), note: None }).collect();
        e.state = states.last().unwrap_or(&"").to_string();
        e
    }

    #[test]
    fn a_written_entry_reads_back_as_it_was() {
        let e = entry("a", "apply", Some("j1"), None, None, &["submitted", "running"]);
        let text = serde_json::to_string_pretty(&e).expect("serializes");
        assert_eq!(decode_journal_entry(&text), Ok(e));
    }

    #[test]
    fn an_entry_of_another_version_or_shape_is_refused_with_why() {
        let text = include_str!("../../../testdata/deploy/sinks/journal.json");
        let other = text.replacen("\"journal_version\": 1", "\"journal_version\": 2", 1);
        assert_eq!(decode_journal_entry(&other).unwrap_err(), "journal_version 2 is not one this streamform reads (1); it was written by another version");
        // A later version may rename fields: its version is what is said.
        let renamed = other.replacen("\"transitions\"", "\"steps\"", 1);
        assert_eq!(decode_journal_entry(&renamed).unwrap_err(), "journal_version 2 is not one this streamform reads (1); it was written by another version");
        let extra = text.replacen("{", "{\"x\": 1,", 1);
        assert!(decode_journal_entry(&extra).unwrap_err().starts_with("unknown field `x`"), "{extra}");
    }

    #[test]
    fn a_savepoint_names_the_job_that_wrote_it_and_the_attempt_that_submitted_that_job() {
        let journal = [
            entry("1", "apply", Some("j1"), None, None, &["submitted", "running"]),
            entry("2", "stop", Some("j1"), None, Some("sp1"), &["stopping", "stopped"]),
            entry("3", "rebuild", Some("j2"), Some("j1"), Some("sp2"), &["stopping", "stopped", "submitted", "running"]),
        ];
        let w = savepoint_writer(&journal, "t", "sp1").expect("recorded");
        assert_eq!((w.job_id.as_str(), w.ran.attempt.as_str()), ("j1", "1"));
        // An apply's savepoint is of the job it replaced.
        assert_eq!(savepoint_writer(&journal, "t", "sp2").expect("recorded").job_id, "j1");
        assert_eq!(savepoint_writer(&journal, "t", "sp3").unwrap_err(), "no journal entry of target `t` records taking savepoint sp3");
        assert_eq!(savepoint_writer(&journal[1..], "t", "sp1").unwrap_err(), "savepoint sp1 is of job j1, but no journal entry of target `t` records submitting that job");
        assert_eq!(last_stop(&journal, "1").map(|e| e.attempt.as_str()), Some("3"));
        assert_eq!(last_stop(&journal, "3"), None);
        assert!(journal[0].settled() && journal[1].settled() && journal[2].settled());
    }
}
