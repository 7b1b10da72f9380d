//! Atomic writes: a temporary sibling, synced, then renamed over the
//! destination. `build`'s files and the deployment state use it.

use std::fs;
use std::io::Write;

use camino::Utf8PathBuf;

/// Writes every file to a temporary sibling first, then renames them all:
/// a failure before the renames leaves the previous build untouched.
pub fn write_all_atomically(files: &[(Utf8PathBuf, &[u8])]) -> std::io::Result<()> {
    let mut temps: Vec<(Utf8PathBuf, &Utf8PathBuf)> = Vec::new();
    let result = (|| {
        for (path, bytes) in files {
            let dir = path.parent().expect("build paths have a parent");
            fs::create_dir_all(dir)?;
            let tmp = dir.join(format!(".{}.tmp-{}", path.file_name().unwrap_or("out"), std::process::id()));
            let mut f = fs::File::create(&tmp)?;
            temps.push((tmp, path));
            f.write_all(bytes)?;
            f.sync_all()?;
        }
        for (tmp, path) in &temps {
            fs::rename(tmp, path)?;
        }
        Ok(())
    })();
    if result.is_err() {
        for (tmp, _) in &temps {
            let _ = fs::remove_file(tmp);
        }
    }
    result
}
