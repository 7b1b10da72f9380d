//! SHA-256 digests of fingerprint texts.

use sha2::{Digest, Sha256};

/// The full digest: 64 lowercase hex characters.
pub fn sha256_hex(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(64);
    for b in hash.iter() {
        out.push(char::from_digit((b >> 4) as u32, 16).unwrap());
        out.push(char::from_digit((b & 15) as u32, 16).unwrap());
    }
    out
}

/// The 12-character prefix text outputs show. Counted in characters: a
/// damaged file's digest need not be hex.
pub fn short(digest: &str) -> &str {
    match digest.char_indices().nth(12) {
        Some((end, _)) => &digest[..end],
        None => digest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's verified test vectors (§3).
    #[test]
    fn spec_test_vectors() {
        for (text, prefix) in [
            ("[amount: decimal(38,9), customer_id: int64]", "55c5eb27e8b4"),
            ("[customer_id: int64, sum(amount): decimal(38,9)]", "322eb3aa5330"),
            ("aggregate key=[customer_id] accumulators=[sum(amount): decimal(38,9)] retention=unbounded", "4aead023aa01"),
            ("[customer_id: int64, total_spend: decimal(38,9)]", "7fac6038b2ce"),
        ] {
            assert_eq!(short(&sha256_hex(text)), prefix, "{text}");
        }
    }

    #[test]
    fn short_counts_characters() {
        assert_eq!(short("abc"), "abc");
        assert_eq!(short("ééééééééééééé"), "éééééééééééé");
    }
}
