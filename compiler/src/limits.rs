//! How large one value may be, in every reader: a YAML scalar (project
//! files and fixtures), a string literal in a model's SQL, and a value of
//! `run`'s JSON Lines input; and how large a fixture file may be
//! (docs/limits.md); and how long a chain of ref()s may be.

/// The longest single value, in bytes: 1 MiB, Kafka's default largest
/// record (`message.max.bytes`), so no value past it can reach Flink
/// through a topic; every copy a reader makes of a value stays bounded.
pub const MAX_VALUE_BYTES: usize = 1 << 20;

/// The largest fixture file, in bytes: 256 MiB, about 2.5 million events
/// of a hundred bytes. A run holds the file's text and its model's state,
/// never its changelog, so `test` on a fixture at the limit stays near
/// 300 MB; spans count bytes in 32 bits, which this keeps far from. A
/// reader takes at most [`FIXTURE_READ_BYTES`] of a file, so a larger one
/// is refused without being read whole.
pub const MAX_FIXTURE_BYTES: usize = 256 << 20;

/// How much of a fixture file a reader takes: past the limit by a whole
/// UTF-8 character, so a cut text is still past it.
pub const FIXTURE_READ_BYTES: usize = MAX_FIXTURE_BYTES + 4;

/// The longest chain of ref()s below a model: 1,000 models. Each model of a
/// chain is a view that Flink inlines into the plan of the model that reads
/// it, and lowering a model asks for its reads' contracts, so its work
/// recurses once per model of the chain (about 30 KB of stack each).
pub const MAX_REF_DEPTH: u32 = 1000;
