//! Plans: typed expressions, operator nodes, and lowering from SQL.

pub mod expr;
pub mod lower;
pub mod node;
