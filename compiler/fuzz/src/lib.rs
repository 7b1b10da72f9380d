//! The fuzz targets' harness (see `entry.rs`, `gen.rs`); the replay test
//! `compiler/tests/fuzz_corpus.rs` includes the same files.

pub mod entry;
pub mod gen;

/// Writes the input about to run to `$STREAMFORM_FUZZ_KEEP`, when set: a
/// stack overflow on a driver thread ends the process before libFuzzer
/// saves the input that caused it.
pub fn keep(data: &[u8]) {
    if let Some(path) = std::env::var_os("STREAMFORM_FUZZ_KEEP") {
        let _ = std::fs::write(path, data);
    }
}
