//! Plans: typed expressions, operator nodes, the changelog mode of each
//! node, and lowering from SQL.

pub mod changelog;
pub mod expr;
pub mod func;
pub mod lower;
pub mod monotonic;
pub mod node;
pub mod rank_strategy;
