//! What every feature reads: the database, the files table and the
//! project root. The server owns it; features take it by reference.

use std::sync::Mutex;
use std::time::SystemTime;

use camino::Utf8PathBuf;
use streamform::upgrade::reader::{read_running, RunningDoc};
use streamform::Database;

use crate::files::Files;

pub struct World {
    pub db: Database,
    pub files: Files,
    pub root: Utf8PathBuf,
    /// The running plan the code lens compares with (a plan manifest or an
    /// applied record), if any.
    pub compare_with: Option<Utf8PathBuf>,
    /// That file as last read, by modification time: `apply` rewrites it.
    pub running: Mutex<Option<(SystemTime, Result<std::sync::Arc<RunningDoc>, String>)>>,
}

impl World {
    /// The running plan to compare with, read again when the file changed;
    /// Err says why it cannot be used.
    pub fn running(&self) -> Option<Result<std::sync::Arc<RunningDoc>, String>> {
        let path = self.compare_with.as_ref()?;
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
        let mut cache = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, doc)) = cache.as_ref().filter(|(at, _)| *at == modified) {
            let _ = at;
            return Some(doc.clone());
        }
        let doc = std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| read_running(&t).map_err(|e| e.to_string())).map(std::sync::Arc::new).map_err(|e| format!("{path}: {e}"));
        *cache = Some((modified, doc.clone()));
        Some(doc)
    }

    /// The text of a project file as the compiler sees it.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.text(&self.db, path)
    }
}
