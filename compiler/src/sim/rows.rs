//! Row buffers reused across events: each event's records are built in
//! vectors handed back once the records have been emitted, so a steady
//! stream of events allocates no rows of its own.

use super::operators::Row;

/// Cleared rows, ready to be filled again.
#[derive(Debug, Default)]
pub struct RowPool {
    spare: Vec<Row>,
}

/// Enough for the records of one event through a chain of models; more
/// would only hold memory.
const KEEP: usize = 64;

impl RowPool {
    /// An empty row, with the capacity of an earlier one when there is one.
    pub fn take(&mut self) -> Row {
        self.spare.pop().unwrap_or_default()
    }

    /// Hands a row back; its values are dropped now.
    pub fn give(&mut self, mut row: Row) {
        if self.spare.len() < KEEP && row.capacity() > 0 {
            row.clear();
            self.spare.push(row);
        }
    }
}
