//! `check`.
pub fn run(_p: &str, _s: bool, _j: bool) -> u8 { 2 }
