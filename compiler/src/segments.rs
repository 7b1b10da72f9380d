//! Segments: consecutive slices of the models, in name order (or plan order), that
//! the whole-project queries (the check report, the dependency graph, the
//! manifest and its digest) read one query per segment instead of one model
//! at a time. After an edit salsa re-verifies a few dozen segment queries,
//! and walks into only the edited model's segment, instead of checking every
//! model's memos: on 10,000 models that is the difference between
//! milliseconds and a tenth of a second per keystroke.
//!
//! Name-order segments are cut by content ([`starts`]): a model starts a
//! segment when its name's hash says so, so adding or removing a model
//! changes the one segment it falls in, and every other segment keeps its
//! models and its index (unless the model is itself a cut, one in
//! [`segment_len`]). Plan-order slices ([`range`], for the digest chain) are
//! positional: the digest re-hashes from the change on anyway.
//!
//! Pure arithmetic over names and positions; it knows nothing of the database.

use std::ops::Range;

/// At least this many models per segment on average; the length doubles
/// so that there are about [`MAX_SEGMENTS`] at most (the digest chains one
/// plan-order slice to the next), and is a power of two so that it, and
/// with it every cut, changes only when the project doubles.
const MIN_SEGMENT: usize = 128;
const MAX_SEGMENTS: usize = 256;

fn segment_len(models: usize) -> usize {
    MIN_SEGMENT.max(models.div_ceil(MAX_SEGMENTS)).next_power_of_two()
}

/// FNV-1a: a hash of a name that is the same in every process and build.
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Where each name-order segment starts: the first name, and every name
/// whose hash is a multiple of the segment length.
pub fn starts(names: &[String]) -> Vec<usize> {
    let len = segment_len(names.len()) as u64;
    let cut = |(i, n): &(usize, &String)| *i == 0 || name_hash(n) % len == 0;
    names.iter().enumerate().filter(cut).map(|(i, _)| i).collect()
}

/// The positions of name-order segment `index` of `starts` over `models`.
pub fn segment_range(starts: &[usize], models: usize, index: u32) -> Range<usize> {
    let i = index as usize;
    starts[i]..starts.get(i + 1).copied().unwrap_or(models)
}

/// The name-order segment of the model at `position`, and its offset in it.
pub fn segment_of(starts: &[usize], position: usize) -> (u32, usize) {
    let i = starts.partition_point(|&s| s <= position) - 1;
    (i as u32, position - starts[i])
}

/// How many plan-order slices `models` items make.
pub fn count(models: usize) -> u32 {
    models.div_ceil(segment_len(models)) as u32
}

/// The item positions of plan-order slice `index`.
pub fn range(models: usize, index: u32) -> Range<usize> {
    let len = segment_len(models);
    let start = (index as usize * len).min(models);
    start..(start + len).min(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_every_item_once() {
        for models in [0, 1, 127, 128, 129, 1000, 10_000, 100_000] {
            let mut next = 0;
            for k in 0..count(models) {
                let r = range(models, k);
                assert_eq!(r.start, next, "{models} models, slice {k}");
                assert!(!r.is_empty());
                next = r.end;
            }
            assert_eq!(next, models);
            assert!(count(models) as usize <= MAX_SEGMENTS);
        }
    }

    #[test]
    fn segments_cover_every_name_once() {
        for models in [1, 127, 1000, 10_000, 100_000] {
            let names: Vec<String> = (0..models).map(|i| format!("m_{i:06}")).collect();
            let s = starts(&names);
            let mut next = 0;
            for k in 0..s.len() as u32 {
                let r = segment_range(&s, models, k);
                assert_eq!(r.start, next, "{models} models, segment {k}");
                assert!(!r.is_empty());
                assert_eq!(segment_of(&s, r.start), (k, 0));
                assert_eq!(segment_of(&s, r.end - 1), (k, r.len() - 1));
                next = r.end;
            }
            assert_eq!(next, models);
            // About MAX_SEGMENTS at most: the cuts fall where the hashes say.
            assert!(s.len() <= MAX_SEGMENTS * 3 / 2, "{models} models: {} segments", s.len());
            assert!(s.len() >= models / segment_len(models) / 2, "{models} models: {} segments", s.len());
        }
    }

    /// A name added or removed changes only the segment it falls in, unless
    /// it is itself a cut.
    #[test]
    fn adding_a_name_moves_no_other_segment() {
        let names: Vec<String> = (0..5000).map(|i| format!("m_{i:05}")).collect();
        let before = starts(&names);
        let segments = |names: &[String], s: &[usize]| -> Vec<Vec<String>> {
            (0..s.len() as u32).map(|k| names[segment_range(s, names.len(), k)].to_vec()).collect()
        };
        let old = segments(&names, &before);
        let mut added = names.clone();
        let new = "m_02500a".to_string();
        assert_ne!(name_hash(&new) % segment_len(5000) as u64, 0, "pick a name that is no cut");
        added.insert(2501, new);
        let now = segments(&added, &starts(&added));
        assert_eq!(old.len(), now.len());
        let differ = old.iter().zip(&now).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 1);
    }
}
