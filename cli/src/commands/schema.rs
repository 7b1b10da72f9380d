//! `schema`.
pub fn run(_d: Option<&str>, _l: bool, _v: Option<u32>) -> u8 { 2 }
