//! Text renderings of the compiler's documents.

pub mod check;
pub mod diagnostic;
pub mod explain;
pub mod graph;
pub mod inspect;
pub mod json;
pub mod plan;
pub mod test;
