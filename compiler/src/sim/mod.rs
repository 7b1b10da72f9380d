//! The simulator: a deterministic in-memory executor of compiled plans,
//! the oracle Flink's output is checked against (spec §6).
//!
//! It executes each model's typed [`ModelPlan`](crate::plan::node::ModelPlan),
//! never the manifest. From the leaves up:
//!
//! - values: exact decimals ([`decimal`]), runtime values ([`value`]),
//!   values as written and their typing against a column ([`scalar`]);
//! - [`change`]: a row and one changelog record, read by everything above;
//! - [`eval`]: the plan's expressions over a row;
//! - keyed state: [`small_slice`] (one-element keys and accumulators held
//!   inline), [`raw_sums`] (integer-keyed SUM/COUNT state held raw) and
//!   [`state`] (the keyed store of an Aggregate node, shaped by its state
//!   fingerprint; [`accumulator`] its arithmetic), [`retract`] (what a group over an updating input keeps
//!   to take a row back), [`rank`] (a Top-N or deduplication, as Flink's
//!   function for it runs, with its store shaped as its fingerprint);
//! - [`record_buf`] (record buffers reused across events), [`operators`]
//!   (the plan's nodes over changelog records) and [`dataflow`] (every model
//!   rooted at one source, with the source's clock);
//! - [`source`]: what the simulator reads of the project (a source's spec,
//!   the chain of models from a source);
//! - [`event`]: typing an event against its source, for fixtures and `run`;
//! - [`fixture`]: fixtures typed, run and compared;
//! - `run`'s input: [`jsonl`] reads a line, [`line_feed`] feeds a source's
//!   lines into its dataflow, [`final_table`] is an upsert model's final
//!   table.

pub mod accumulator;
pub mod change;
pub mod dataflow;
pub mod decimal;
pub mod eval;
pub mod eval_error;
pub mod functions;
pub mod event;
pub mod final_table;
pub mod fixture;
pub mod join;
pub mod jsonl;
pub mod line_feed;
pub mod operators;
pub mod rank;
pub mod raw_sums;
pub mod record_buf;
pub mod retract;
pub mod scalar;
pub mod small_slice;
pub mod source;
pub mod state;
pub mod temporal;
pub mod value;

pub use change::{Change, ChangeOp, Row};
pub use dataflow::{Dataflow, Outcome, SimError, SourceSpec};
pub use fixture::compare::{EventRowReport, FixtureReport, RowReport};
pub use fixture::runner::{fixture_report, fixture_rows, run_fixture};
pub use fixture::typing::fixture_setup;
pub use fixture::FixtureSetup;
pub use source::{inputs_to, source_spec};
pub use value::Value;
