//! Project configuration files, decoded with locations.

pub(crate) mod decode;
pub mod entries;
pub mod project;
pub mod sources;

pub use project::{decode_project, AllowEntry, Connector, Delivery, Format, Materialized, ModelConfig, ProjectConfig, SinkConfig, Target};
pub use sources::{decode_sources, Contract, ContractRule, LatePolicy, SourceConfig};
