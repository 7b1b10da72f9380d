//! Listing and reading a project directory: the files [`classify_path`]
//! accepts, relative to the root, in byte order.
//!
//! [`classify_path`]: streamform::project::classify_path

use std::fs;
use std::io::{self, Read};

use camino::{Utf8Path, Utf8PathBuf};
use streamform::limits::FIXTURE_READ_BYTES;
use streamform::project::{CONFIG_FILE, SOURCES_FILE};

/// The files of a project on disk, relative to its root, sorted.
pub struct Scan {
    pub config: Option<(String, String)>,
    pub sources: Option<(String, String)>,
    pub models: Vec<(String, String)>,
    pub fixtures: Vec<(String, String)>,
}

pub fn scan(root: &Utf8Path) -> Scan {
    let read = |rel: &str| fs::read_to_string(root.join(rel)).ok().map(|t| (rel.to_string(), t));
    let mut models = Vec::new();
    walk(root, Utf8Path::new("models"), "sql", None, &mut models);
    let mut fixtures = Vec::new();
    walk(root, Utf8Path::new("tests"), "yml", Some(FIXTURE_READ_BYTES), &mut fixtures);
    Scan { config: read(CONFIG_FILE), sources: read(SOURCES_FILE), models, fixtures }
}

/// Reads `path` as UTF-8 text, no more than `limit` bytes of it when
/// given (a fixture past its limit is refused from its first bytes, not
/// read whole). A text cut at the limit drops the character it cut.
pub fn read_text(path: &std::path::Path, limit: Option<usize>) -> io::Result<String> {
    let Some(limit) = limit else { return fs::read_to_string(path) };
    let file = fs::File::open(path)?;
    // Sized up front: growing by doubling would copy a large file twice.
    let size = file.metadata().map_or(0, |m| m.len()).min(limit as u64) as usize;
    let mut bytes = Vec::with_capacity(size);
    file.take(limit as u64).read_to_end(&mut bytes)?;
    let cut = bytes.len() == limit;
    String::from_utf8(bytes).or_else(|e| match e.utf8_error() {
        u if cut && u.error_len().is_none() => {
            let valid = u.valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            Ok(String::from_utf8(bytes).expect("valid up to here"))
        }
        _ => Err(io::Error::new(io::ErrorKind::InvalidData, "stream did not contain valid UTF-8")),
    })
}

fn walk(root: &Utf8Path, rel: &Utf8Path, ext: &str, limit: Option<usize>, out: &mut Vec<(String, String)>) {
    let mut found: Vec<Utf8PathBuf> = Vec::new();
    collect(root, rel, ext, &mut found);
    // Byte order of the relative path, as the original lists them.
    found.sort_by(|a, b| a.as_str().as_bytes().cmp(b.as_str().as_bytes()));
    // Each read is a few system calls; a large project reads on every core.
    let threads = streamform::driver::threads().min(found.len().div_ceil(READS_PER_THREAD)).max(1);
    let parts: Vec<Vec<(String, String)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = found
            .chunks(found.len().div_ceil(threads).max(1))
            .map(|part| scope.spawn(move || part.iter().filter_map(|p| read_text(root.join(p).as_std_path(), limit).ok().map(|t| (p.to_string(), t))).collect()))
            .collect();
        handles.into_iter().map(|h| h.join().expect("reading files does not panic")).collect()
    });
    out.extend(parts.into_iter().flatten());
}

/// Files below this many are read on one thread: a thread costs more.
const READS_PER_THREAD: usize = 256;

/// The paths under `rel` (recursively) with extension `ext`, unsorted.
pub(crate) fn collect(root: &Utf8Path, rel: &Utf8Path, ext: &str, out: &mut Vec<Utf8PathBuf>) {
    let Ok(entries) = root.join(rel).read_dir_utf8() else { return };
    for e in entries.flatten() {
        let p = rel.join(e.file_name());
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            collect(root, &p, ext, out);
        } else if p.extension() == Some(ext) {
            out.push(p);
        }
    }
}
