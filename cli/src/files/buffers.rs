//! Editor buffers (the language server): an open file's unsaved text is
//! the input, in place of the disk's, until the editor closes it. Same
//! inputs, same durability rules as a file read from disk.

use streamform::project::classify_path;
use streamform::Database;

use super::apply::{read, Read};
use salsa::Setter;

use super::{edited_durability, FileChange, Files};

impl Files {
    /// An editor opened `path` with this text. A file opened is a file
    /// about to be edited: its input moves to the durability of an edited
    /// file now, so the one re-verification of every query that a file's
    /// first edit costs (see the module doc of [`super`]) happens at the
    /// open, not at the first keystroke.
    pub fn open_buffer(&mut self, db: &mut Database, path: &str, text: String) -> Vec<FileChange> {
        if let Some(e) = self.entries.get(path).filter(|e| e.present && !self.buffers.contains(path)) {
            if e.file.text(db) == text {
                e.file.set_text(db).with_durability(edited_durability(path)).to(text.clone());
            }
        }
        self.set_buffer(db, path, text)
    }

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
        self.sync_environment(db, &changes);
        changes
    }

    /// The editor closed `path`: the disk's text (or its absence) is the
    /// input again.
    pub fn close_buffer(&mut self, db: &mut Database, path: &str) -> Vec<FileChange> {
        if !self.buffers.remove(path) {
            return Vec::new();
        }
        let mut changes = Vec::new();
        let structural = match read(&self.root, path) {
            Read::Text(text) => self.read_text(db, path.to_string(), text, &mut changes),
            Read::Gone | Read::Unreadable(_) => self.gone(path.to_string(), &mut changes),
        };
        if structural {
            self.sync_project(db);
        }
        self.sync_environment(db, &changes);
        changes
    }
}
