//! The final table of an upsert model: its changelog applied, by key, to
//! a table, as the sink's table holds it once every record has arrived.
//! `run` writes it beside the changelog.

use std::collections::BTreeMap;

use super::change::{Change, ChangeOp, Row};
use super::value::Value;
use crate::config::Materialized;
use crate::plan::node::ModelPlan;

#[derive(Clone, Debug, Default)]
pub struct FinalTable {
    /// The key's positions in the output row; empty when the model's key
    /// does not name output columns, and then the whole row is the key.
    key: Vec<usize>,
    rows: BTreeMap<Vec<Value>, Row>,
}

impl FinalTable {
    /// The table of `plan`, when it is an upsert model.
    pub fn of(plan: &ModelPlan) -> Option<FinalTable> {
        (plan.materialized == Materialized::Upsert).then(|| {
            let schema = &plan.sink().schema;
            let key: Option<Vec<usize>> = plan.key.iter().map(|k| schema.iter().position(|c| &c.name == k)).collect();
            FinalTable { key: key.unwrap_or_default(), rows: BTreeMap::new() }
        })
    }

    /// Applies one changelog record.
    pub fn apply(&mut self, c: &Change) {
        match c.op {
            ChangeOp::Insert => {
                self.rows.insert(self.key_of(&c.row), c.row.clone());
            }
            ChangeOp::Update => {
                if let Some(b) = &c.before {
                    self.rows.remove(&self.key_of(b));
                }
                self.rows.insert(self.key_of(&c.row), c.row.clone());
            }
            ChangeOp::Delete => {
                self.rows.remove(&self.key_of(&c.row));
            }
        }
    }

    fn key_of(&self, r: &Row) -> Vec<Value> {
        if self.key.is_empty() {
            r.clone()
        } else {
            self.key.iter().map(|&i| r[i].clone()).collect()
        }
    }

    /// The rows, in key order.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.values()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}
