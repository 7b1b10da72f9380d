//! Segments: fixed consecutive slices of the models, in name order (or plan order), that
//! the whole-project queries (the check report, the dependency graph, the
//! manifest and its digest) read one query per segment instead of one model
//! at a time. After an edit salsa re-verifies a few dozen segment queries,
//! and walks into only the edited model's segment, instead of checking every
//! model's memos: on 10,000 models that is the difference between
//! milliseconds and a tenth of a second per keystroke.
//!
//! Pure arithmetic over positions; it knows nothing of the database.

use std::ops::Range;

/// At least this many models per segment; segments grow past it so that
/// there are never more than [`MAX_SEGMENTS`] (the digest chains one
/// segment to the next).
const MIN_SEGMENT: usize = 128;
const MAX_SEGMENTS: usize = 256;

fn segment_len(models: usize) -> usize {
    MIN_SEGMENT.max(models.div_ceil(MAX_SEGMENTS))
}

/// How many segments `models` items make.
pub fn count(models: usize) -> u32 {
    models.div_ceil(segment_len(models)) as u32
}

/// The item positions of segment `index`.
pub fn range(models: usize, index: u32) -> Range<usize> {
    let len = segment_len(models);
    let start = (index as usize * len).min(models);
    start..(start + len).min(models)
}

/// The segment of the item at `position`, and its offset in the segment.
pub fn locate(models: usize, position: usize) -> (u32, usize) {
    let len = segment_len(models);
    ((position / len) as u32, position % len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cover_every_item_once() {
        for models in [0, 1, 127, 128, 129, 1000, 10_000, 100_000] {
            let mut next = 0;
            for k in 0..count(models) {
                let r = range(models, k);
                assert_eq!(r.start, next, "{models} models, segment {k}");
                assert!(!r.is_empty());
                assert_eq!(locate(models, r.start), (k, 0));
                assert_eq!(locate(models, r.end - 1), (k, r.len() - 1));
                next = r.end;
            }
            assert_eq!(next, models);
            assert!(count(models) as usize <= MAX_SEGMENTS);
        }
    }
}
