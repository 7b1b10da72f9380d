//! The fuzz targets' harness (see `entry.rs`, `gen.rs`); the replay test
//! `compiler/tests/fuzz_corpus.rs` includes the same files.

pub mod entry;
pub mod gen;

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

/// Writes the input about to run to `$STREAMFORM_FUZZ_KEEP`, when set: a
/// stack overflow on a driver thread ends the process before libFuzzer
/// saves the input that caused it. The file stays open, and is rewritten
/// in place: opening it for every input cost a tenth of the executions.
pub fn keep(data: &[u8]) {
    static KEEP: OnceLock<Option<File>> = OnceLock::new();
    let file = KEEP.get_or_init(|| File::create(std::env::var_os("STREAMFORM_FUZZ_KEEP")?).ok());
    if let Some(f) = file {
        let _ = f.set_len(0).and_then(|()| f.write_all_at(data, 0));
    }
}
