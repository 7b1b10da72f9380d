//! How large one value may be, in every reader: a YAML scalar (project
//! files and fixtures), a string literal in a model's SQL, and a value of
//! `run`'s JSON Lines input (docs/limits.md).

/// The longest single value, in bytes: 1 MiB, Kafka's default largest
/// record (`message.max.bytes`), so no value past it can reach Flink
/// through a topic; every copy a reader makes of a value stays bounded.
pub const MAX_VALUE_BYTES: usize = 1 << 20;
