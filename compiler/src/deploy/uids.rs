//! The pins a job was submitted with (`.streamform/uids/<target>.json`, and
//! a copy per job under `<target>.jobs/<job id>.json`): which uid Flink's
//! plan gave each of Streamform's stateful nodes. `apply` writes them; the
//! next `plan` and `apply` read them to map the running job's state node by
//! node. The command line reads and writes the files; this module is their
//! shape and their one decoder.

use serde::{Deserialize, Serialize};

use super::version_first;
use crate::flink_uids::Pin;

pub const UIDS_VERSION: u32 = 1;

/// The pins of one applied attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UidsRecord {
    pub uids_version: u32,
    pub attempt: String,
    pub job_id: String,
    /// The pinned plan the job was submitted from.
    pub plan: String,
    pub pins: Vec<Pin>,
}

/// A uids record's text, decoded; Err says why it is not one (where, for
/// a malformed one). Its version is read first: another version's record
/// is refused as such, whatever else it holds.
pub fn decode_uids_record(text: &str) -> Result<UidsRecord, String> {
    version_first(text, "uids_version", UIDS_VERSION)?;
    serde_json::from_str(text).map_err(|e| e.to_string())
}

impl UidsRecord {
    /// The pins, if this record is of `attempt` (a record left by another
    /// attempt is not the applied job's).
    pub fn of_attempt(self, attempt: Option<&str>) -> Option<Vec<Pin>> {
        (Some(self.attempt.as_str()) == attempt).then_some(self.pins)
    }

    /// The pins, if this record is of job `job_id`.
    pub fn of_job(self, job_id: &str) -> Option<Vec<Pin>> {
        (self.job_id == job_id).then_some(self.pins)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> String {
        r#"{"uids_version":1,"attempt":"20260101T000000.000Z-1","job_id":"j1","plan":"/sp/p.pinned.json","pins":[{"key":"k","uid":"u","exec":"stream-exec-group-aggregate_1","nodes":["n1"]}]}"#.to_string()
    }

    #[test]
    fn a_record_decodes_and_round_trips() {
        let r = decode_uids_record(&record()).unwrap();
        assert_eq!(r.pins.len(), 1);
        assert!(!r.pins[0].materializer);
        assert_eq!(decode_uids_record(&serde_json::to_string(&r).unwrap()).unwrap(), r);
        assert_eq!(r.clone().of_attempt(Some("20260101T000000.000Z-1")).map(|p| p.len()), Some(1));
        assert_eq!(r.clone().of_attempt(Some("20260101T000000.000Z-2")), None);
        assert_eq!(r.clone().of_attempt(None), None);
        assert_eq!(r.clone().of_job("j1").map(|p| p.len()), Some(1));
        assert_eq!(r.of_job("j2"), None);
    }

    /// A malformed record says where; another version says so before any
    /// field it may have renamed.
    #[test]
    fn a_bad_record_is_refused_with_why() {
        let cut = &record()[..60];
        let e = decode_uids_record(cut).unwrap_err();
        assert!(e.contains("line 1 column 60"), "{e}");
        let e = decode_uids_record(&record().replace(r#""plan""#, r#""plan_file""#)).unwrap_err();
        assert!(e.starts_with("unknown field `plan_file`"), "{e}");
        let e = decode_uids_record(&record().replace(r#""uids_version":1,"#, r#""uids_version":2,"new":true,"#)).unwrap_err();
        assert_eq!(e, "uids_version 2 is not one this streamform reads (1); it was written by another version");
        let e = decode_uids_record("[]").unwrap_err();
        assert!(e.contains("expected struct UidsRecord"), "{e}");
    }
}
