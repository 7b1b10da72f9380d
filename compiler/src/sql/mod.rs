//! Model SQL: parsing with sqlparser. Knows nothing about salsa.

pub mod calls;
pub mod limits;
pub mod parse;
pub mod plain;
pub mod scan;
pub mod temporal;
pub mod tokens;
pub mod tvf;
