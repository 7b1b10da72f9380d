//! Plan identity: node ids, schema and state fingerprints, digests.

pub mod digest;
pub mod fingerprint;
