//! Unit tests' source of generated inputs: xorshift64, so that a failing
//! case is the same on every run and needs no crate.

/// The next number of a xorshift64 sequence from `seed` (which must not be
/// 0), on each call.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
