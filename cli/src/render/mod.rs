//! Text renderings of the compiler's documents.

pub mod annotations;
pub mod check;
pub mod bless;
pub mod color;
pub mod diagnostic;
pub mod explain;
pub mod graph;
pub mod inspect;
pub mod json;
pub mod plan;
pub mod test;

use streamform::plan::node::Operator;

/// A manifest operator as text shows it (`aggregate` → `Aggregate`). The
/// manifest reader accepts only known operators; any other is shown as is.
pub fn title(op: &str) -> &str {
    match Operator::parse(op) {
        Some(o) => o.title(),
        None => op,
    }
}
