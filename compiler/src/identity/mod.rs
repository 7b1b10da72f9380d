//! Plan identity: every identity text and digest, and nothing else.
//!
//! - [`text`]: the layout of each text (schema, state, window, changelog),
//!   over small views;
//! - [`fingerprint`]: those views for a plan node (what the manifest hashes);
//! - [`entry`]: the same views for a manifest entry read back from JSON
//!   (what `plan` checks and compares);
//! - [`digest`]: SHA-256 of a text and the 12-character short form.

pub mod digest;
pub mod entry;
pub mod fingerprint;
pub mod text;
