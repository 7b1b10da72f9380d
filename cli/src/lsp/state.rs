//! What every feature reads: the database, the files table and the
//! project root. The server owns it; features take it by reference.

use camino::Utf8PathBuf;
use streamform::Database;

use crate::files::Files;

pub struct World {
    pub db: Database,
    pub files: Files,
    pub root: Utf8PathBuf,
}

impl World {
    /// The text of a project file as the compiler sees it.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.text(&self.db, path)
    }
}
