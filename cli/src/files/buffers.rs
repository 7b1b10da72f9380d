//! Editor buffers (the language server): an open file's unsaved text is
//! the input, in place of the disk's, until the editor closes it. Same
//! inputs, same durability rules as a file read from disk.

use camino::Utf8Path;
use streamform::project::classify_path;
use streamform::Database;

use super::apply::{read, Read};
use super::{FileChange, Files};

impl Files {
    /// Sets the text of an open buffer (opened or edited). Paths that are
    /// not project files are ignored. Returns the files that changed.
    pub fn set_buffer(&mut self, db: &mut Database, path: &str, text: String) -> Vec<FileChange> {
        if classify_path(path).is_none() {
            return Vec::new();
        }
        self.buffers.insert(path.to_string());
        let mut changes = Vec::new();
        if self.read_text(db, path.to_string(), text, &mut changes) {
            self.sync_project(db);
        }
        self.sync_environment(db);
        changes
    }

    /// The editor closed `path`: the disk's text (or its absence) is the
    /// input again.
    pub fn close_buffer(&mut self, db: &mut Database, path: &str) -> Vec<FileChange> {
        if !self.buffers.remove(path) {
            return Vec::new();
        }
        let mut changes = Vec::new();
        let structural = match read(&self.root.join(Utf8Path::new(path))) {
            Read::Text(text) => self.read_text(db, path.to_string(), text, &mut changes),
            Read::Gone | Read::Unreadable(_) => self.gone(path.to_string(), &mut changes),
        };
        if structural {
            self.sync_project(db);
        }
        self.sync_environment(db);
        changes
    }
}
