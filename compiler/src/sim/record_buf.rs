//! Record buffers reused across events: each model builds its records in
//! the same few vectors, so a steady stream of events allocates no rows.

use super::change::{Change, ChangeOp, Row};
use super::value::Value;

/// One record under construction; its vectors keep their capacity from
/// one record to the next.
#[derive(Debug)]
pub struct RecordBuf {
    pub change: Change,
    /// The before-image's vector while the record has none.
    spare: Row,
}

impl Default for RecordBuf {
    fn default() -> RecordBuf {
        RecordBuf { change: Change::insert(Row::new()), spare: Row::new() }
    }
}

impl RecordBuf {
    /// Starts a record of `op`: the row empty, and for an update an empty
    /// before-image.
    #[inline(always)]
    pub fn start(&mut self, op: ChangeOp) -> &mut Change {
        self.change.row.clear();
        match &mut self.change.before {
            Some(b) if op == ChangeOp::Update => b.clear(),
            _ => self.set_op(op),
        }
        self.change.op = op;
        &mut self.change
    }

    /// Changes the record's op, adding or putting away its before-image
    /// (only an update has one).
    #[inline]
    pub fn set_op(&mut self, op: ChangeOp) {
        self.change.op = op;
        match (op == ChangeOp::Update, self.change.before.is_some()) {
            (true, false) => self.change.before = Some(std::mem::take(&mut self.spare)),
            (false, true) => {
                self.spare = self.change.before.take().expect("present");
                self.spare.clear();
            }
            _ => {}
        }
    }

    /// Makes the record `op` of a copy of `row`.
    #[inline]
    pub fn copy(&mut self, op: ChangeOp, row: &[Value]) -> &mut Change {
        let change = self.start(op);
        change.row.extend_from_slice(row);
        change
    }
}
