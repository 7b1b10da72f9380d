//! A loaded project for a one-shot command: the database and the files
//! table that made its inputs (see [`crate::files`]).

use streamform::{Database, Environment, Project};

use crate::files::Files;

/// A loaded project: the database and its input handles.
pub struct Loaded {
    pub db: Database,
    pub project: Project,
    /// The variables the project names, as this process sees them.
    pub env: Environment,
    pub root: String,
    files: Files,
}

impl Loaded {
    /// The text of a project file, for rendering diagnostics.
    pub fn file_text(&self, path: &str) -> Option<String> {
        self.files.text(&self.db, path).map(str::to_string)
    }
}

/// Loads a project for a one-shot command.
pub fn load(root: &str) -> Loaded {
    warn_misnamed(root);
    let db = Database::default();
    let files = Files::load(&db, root);
    Loaded { project: files.project, env: files.env, db, root: root.to_string(), files }
}

impl Drop for Loaded {
    /// A one-shot command exits right after; freeing every memoized value
    /// of a large project took a fifth of the run.
    fn drop(&mut self) {
        std::mem::forget(std::mem::take(&mut self.db));
    }
}

/// A project file spelt `.yaml` where its `.yml` is missing is never read:
/// say so, before the error or the silence that follows.
fn warn_misnamed(root: &str) {
    let dir = std::path::Path::new(root);
    for wanted in [streamform::project::CONFIG_FILE, streamform::project::SOURCES_FILE] {
        let found = wanted.replace(".yml", ".yaml");
        if !dir.join(wanted).exists() && dir.join(&found).is_file() {
            crate::out::eprint(&format!(
                "warning: {} is not read: Streamform reads {wanted}\n  help: rename it: mv {found} {wanted}\n",
                dir.join(&found).display()
            ));
        }
    }
}
