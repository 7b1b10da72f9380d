//! The simulator: a deterministic in-memory executor of compiled plans,
//! the oracle Flink's output is checked against (spec §6).
//!
//! It executes each model's typed [`ModelPlan`](crate::plan::node::ModelPlan),
//! never the manifest, with exact values ([`decimal`], [`value`]), an
//! evaluator for the plan's expressions ([`eval`]), keyed state shaped by
//! each node's state fingerprint ([`state`], [`small`]; integer-keyed sums
//! and counts held raw, [`sums`]), operators over changelog records
//! ([`operators`], their buffers reused by [`rows`]) and the per-source
//! dataflow with its clock ([`dataflow`]). Fixtures are typed and run by
//! [`fixture`] and compared by [`compare`]; [`jsonl`] reads
//! `streamform run`'s input lines.

pub mod compare;
pub mod dataflow;
pub mod decimal;
pub mod eval;
pub mod fixture;
pub mod jsonl;
pub mod operators;
pub mod rows;
pub mod scalar;
pub mod small;
pub mod state;
pub mod sums;
pub mod value;

pub use compare::{EventRowReport, FixtureReport, RowReport};
pub use dataflow::{Dataflow, Outcome, SimError, SourceSpec};
pub use fixture::{fixture_report, run_fixture, source_spec, typed_fixture, TypedFixture};
pub use operators::{Change, ChangeOp, Row};
pub use value::Value;
