//! The Flink backend: the Flink SQL application a project compiles to.
//!
//! Everything here is a salsa query over the plans: a model's view text is
//! a derived fact of its plan alone, a source's DDL of its configuration and
//! the target, and the script assembles them in the original's order
//! (docs/flink.md describes the mapping).

pub mod ddl;
pub mod expr;
pub mod query;
pub mod script;
pub mod typing;

pub use crate::target::TargetName;
pub use script::{flink_model_query, flink_script, flink_script_selected, reveal, FlinkScript};
