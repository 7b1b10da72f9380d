//! The cutover offsets: where each Kafka source of a stopped job was when
//! its savepoint was taken, read from the savepoint's `_metadata`
//! (`streamform::deploy::savepoint` reads the bytes).
//!
//! Why the savepoint: the generated sources set no `group.id`, so Flink's
//! Kafka source commits no offsets to a consumer group, and Flink's REST API
//! reports none (a stopped job has no metrics). The savepoint is what the new
//! job restores, so its offsets are the cutover by definition.

use streamform::deploy::savepoint::kafka_splits;
use streamform::deploy::Cutover;

/// The cutover at `savepoint` (a `file:` path, as Flink reports it).
pub fn read_cutover(savepoint: &str) -> Cutover {
    let path = savepoint.strip_prefix("file://").or_else(|| savepoint.strip_prefix("file:")).unwrap_or(savepoint);
    let unread = |why: String| Cutover { savepoint: savepoint.to_string(), offsets: Vec::new(), unread: Some(why) };
    if savepoint.contains("://") && !savepoint.starts_with("file:") {
        return unread(format!("the savepoint is not on a local file system ({savepoint}); read its offsets with Flink's State Processor API"));
    }
    let file = std::path::Path::new(path).join("_metadata");
    match std::fs::read(&file) {
        Ok(bytes) => Cutover { savepoint: savepoint.to_string(), offsets: kafka_splits(&bytes), unread: None },
        Err(e) => unread(format!("could not read {}: {e}", file.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_savepoint_that_cannot_be_read_says_why() {
        let missing = read_cutover("file:/nonexistent/savepoint-x");
        assert!(missing.unread.as_deref().unwrap().starts_with("could not read /nonexistent/savepoint-x/_metadata"), "{missing:?}");
        assert!(read_cutover("s3://bucket/sp").unread.unwrap().contains("not on a local file system"));
    }
}
