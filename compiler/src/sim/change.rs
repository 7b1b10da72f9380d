//! The simulator's core data: a row of values and one changelog record
//! (`Change`, owned; `Input`, borrowed). Every other module of the
//! simulator reads these; this one reads only [`Value`].

use super::value::Value;

pub type Row = Vec<Value>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeOp {
    Insert,
    Update,
    Delete,
}

impl ChangeOp {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeOp::Insert => "insert",
            ChangeOp::Update => "update",
            ChangeOp::Delete => "delete",
        }
    }
}

/// One changelog record: the after-image (the deleted row for a delete)
/// and, for an update, the row it replaces.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub op: ChangeOp,
    pub row: Row,
    pub before: Option<Row>,
}

impl Change {
    pub fn insert(row: Row) -> Change {
        Change { op: ChangeOp::Insert, row, before: None }
    }

    pub fn input(&self) -> Input<'_> {
        Input { op: self.op, row: &self.row, before: self.before.as_deref() }
    }
}

/// A record as an operator reads it: borrowed, from a source event or
/// the record the operator before wrote.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    pub op: ChangeOp,
    pub row: &'a [Value],
    pub before: Option<&'a [Value]>,
}
