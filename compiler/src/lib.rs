//! Streamform's compiler: project files in, typed plans, identities and
//! manifests out. Every derived fact is a salsa query over the inputs in
//! [`db`]. This crate does no I/O and never prints.

pub mod backend;
pub mod check;
pub mod config;
pub mod db;
pub mod delivery;
pub mod deploy;
pub mod diagnostic;
pub mod driver;
pub mod duration;
pub mod flink_uids;
pub mod graph;
pub mod graph_doc;
pub mod identity;
pub mod limits;
pub mod manifest;
pub mod model;
pub mod plan;
pub mod pretty_json;
pub mod project;
pub mod schemas;
pub mod segments;
pub mod select;
pub mod sink;
pub mod sim;
pub mod source;
pub mod sql;
pub mod target;
pub mod template;
#[cfg(test)]
mod test_rng;
#[cfg(feature = "test-support")]
pub mod testing;
pub mod types;
pub mod upgrade;
pub mod warnings;
pub mod window;
pub mod yaml;

pub use db::{Database, Db, Environment, ModelName, ModelSlot, Project, SourceFile, SourceName};
