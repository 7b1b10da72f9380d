//! What Streamform reads from a Flink savepoint's `_metadata`: where each
//! Kafka source was when the savepoint was taken. Flink writes each Kafka
//! split (`KafkaPartitionSplitSerializer`) as a length-prefixed record:
//! `u32 len, u16 n, topic (n bytes), i32 partition, i64 offset, i64
//! stopping offset`, with `len = n + 22`; operator state this small is kept
//! inline in `_metadata`. The enumerator keeps each split as it was
//! assigned (its starting position) and the reader as it read on, so the
//! furthest position per partition is the reader's. The bytes are another
//! program's, so any bytes are read without a panic.

use std::collections::BTreeMap;

use super::SourceOffset;

/// Every Kafka split in `bytes`, the furthest position per partition.
pub fn kafka_splits(bytes: &[u8]) -> Vec<SourceOffset> {
    let u32_at = |i: usize| bytes.get(i..i + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let u16_at = |i: usize| bytes.get(i..i + 2).map(|b| u16::from_be_bytes([b[0], b[1]]) as usize);
    let i64_at = |i: usize| bytes.get(i..i + 8).map(|b| i64::from_be_bytes(b.try_into().unwrap_or([0; 8])));
    let mut best: BTreeMap<(String, i32), i64> = BTreeMap::new();
    for i in 0..bytes.len().saturating_sub(6) {
        let (Some(len), Some(n)) = (u32_at(i), u16_at(i + 4)) else { continue };
        // Kafka topic names: 1 to 249 of [a-zA-Z0-9._-].
        if n == 0 || n > 249 || len as usize != n + 22 {
            continue;
        }
        let Some(name) = bytes.get(i + 6..i + 6 + n) else { continue };
        if !name.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')) {
            continue;
        }
        let at = i + 6 + n;
        let (Some(partition), Some(offset)) = (u32_at(at), i64_at(at + 4)) else { continue };
        let partition = partition as i32;
        if partition < 0 || offset < -3 {
            continue;
        }
        let topic = String::from_utf8_lossy(name).into_owned();
        let e = best.entry((topic, partition)).or_insert(offset);
        *e = (*e).max(offset);
    }
    best.into_iter().map(|((topic, partition), offset)| SourceOffset { topic, partition, offset }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(topic: &str, partition: i32, offset: i64) -> Vec<u8> {
        let mut b = ((topic.len() + 22) as u32).to_be_bytes().to_vec();
        b.extend((topic.len() as u16).to_be_bytes());
        b.extend(topic.as_bytes());
        b.extend(partition.to_be_bytes());
        b.extend(offset.to_be_bytes());
        b.extend(i64::MIN.to_be_bytes());
        b
    }

    #[test]
    fn the_readers_position_wins_over_the_assignment() {
        // As in a savepoint of one source on Flink 2.3: the enumerator's
        // split (earliest, -2), then the reader's (next offset 9).
        let mut bytes = b"\x00\x01junk".to_vec();
        bytes.extend(split("p-events", 0, -2));
        bytes.extend(b"\x00\x2e\x00\x00\x00\x00");
        bytes.extend(split("p-events", 0, 9));
        bytes.extend(split("other", 1, 4));
        let got = kafka_splits(&bytes);
        assert_eq!(got, vec![SourceOffset { topic: "other".into(), partition: 1, offset: 4 }, SourceOffset { topic: "p-events".into(), partition: 0, offset: 9 }]);
        let c = super::super::Cutover { savepoint: "file:/sp".into(), offsets: got, unread: None };
        assert_eq!(c.offsets_text(), "other[1]=4, p-events[0]=9");
    }

    #[test]
    fn a_prefix_that_is_not_a_topic_is_not_a_split() {
        // An exactly-once sink's transactional-id prefix has `/`, no topic does.
        assert!(kafka_splits(&split("streamform/app/t", 0, 3)).is_empty());
    }

    #[test]
    fn a_split_cut_short_at_the_end_is_not_read() {
        let whole = split("t", 0, 7);
        for cut in 0..whole.len() - 8 {
            assert!(kafka_splits(&whole[..cut]).is_empty(), "{cut}");
        }
    }
}
