//! Code generation for execution engines. Each backend turns the plans of
//! a project into the text an engine runs, as salsa queries.

pub mod flink;
