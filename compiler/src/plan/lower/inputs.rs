//! What lowering reads besides the SQL: the model's settings, and the
//! sources and upstream models it may name (the `Inputs` trait).

use crate::config::{Connector, Materialized};
use crate::duration::Duration;
use crate::plan::node::{Changelog, Column};
use crate::window::WindowShape;

/// What the model's configuration contributes to its plan.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModelSettings {
    pub materialized: Materialized,
    pub key: Vec<String>,
    pub key_declared: bool,
    /// `"<materialized> <connector> <target>"` tail of the Sink definition.
    pub sink: Option<(Connector, String)>,
    pub retention: Option<Duration>,
    pub window: Option<WindowShape>,
}

/// A source as a model sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceInput {
    pub connector: Connector,
    pub columns: Vec<Column>,
    pub time: Option<String>,
    /// False when the source's contracts do not compile.
    pub contracts_ok: bool,
    /// The contracts that are part of the plan: (name, rendered predicate).
    pub contracts: Vec<(String, String)>,
    pub quarantine: Option<String>,
}

/// A model's output as its readers see it: the Sink's contract.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UpstreamModel {
    pub schema: Vec<Column>,
    pub changelog: Changelog,
    pub bounded: bool,
    pub time: Option<String>,
    /// How its columns change once written (`plan::monotonic`).
    pub modified: crate::plan::monotonic::Modified,
    /// It has no time attribute because a regular join dropped it (E0408 says so).
    pub time_lost_at_join: bool,
}

pub enum Upstream {
    Ok(UpstreamModel),
    Missing,
    /// The model exists but has no plan (its own errors say why).
    Broken,
    Cycle,
}

pub trait Inputs {
    fn source(&self, name: &str) -> Option<SourceInput>;
    fn model(&self, name: &str) -> Upstream;
    fn source_names(&self) -> Vec<String>;
    fn model_names(&self) -> Vec<String>;
}
