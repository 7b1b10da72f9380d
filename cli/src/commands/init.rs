//! `init`.
pub fn run(_d: &str) -> u8 { 2 }
