//! A manifest entry's identity texts, rebuilt from what a plan manifest
//! records (for `plan`, `inspect-plan` and digest checks): the same views
//! `text` renders for a plan node, supplied by the entry's fields.

use std::fmt::Display;

use super::text::{schema_text, state_text, ColumnView, JoinSideView, JoinView, RankView, StateView, WindowView};
use crate::manifest::{ColumnEntry, JoinEntry, JoinSideEntry, NodeEntry, StateEntry, WindowEntry};

impl ColumnView for ColumnEntry {
    fn name(&self) -> &str {
        &self.name
    }
    fn ty(&self) -> &dyn Display {
        &self.ty
    }
}

impl WindowView for WindowEntry {
    fn kind(&self) -> &str {
        &self.kind
    }
    fn time(&self) -> &str {
        &self.time
    }
    fn size(&self) -> Option<&dyn Display> {
        self.size.as_ref().map(|s| s as &dyn Display)
    }
    fn slide(&self) -> Option<&dyn Display> {
        self.slide.as_ref().map(|s| s as &dyn Display)
    }
    fn gap(&self) -> Option<&dyn Display> {
        self.gap.as_ref().map(|s| s as &dyn Display)
    }
    fn alignment(&self) -> Option<&str> {
        self.alignment.as_deref()
    }
    fn emission(&self) -> &str {
        &self.emission
    }
}

/// The keyed state an entry records. A field a damaged file lacks reads
/// as empty, so its digest simply fails to match.
pub struct KeyedEntry<'a>(&'a StateEntry);

impl<'a> KeyedEntry<'a> {
    /// `None` for a stateless entry.
    pub fn of(state: &'a StateEntry) -> Option<KeyedEntry<'a>> {
        (state.kind == "keyed").then_some(KeyedEntry(state))
    }
}

impl JoinSideView for JoinSideEntry {
    type Column = ColumnEntry;
    fn keys(&self) -> &[String] {
        &self.keys
    }
    fn stored(&self) -> &[ColumnEntry] {
        &self.stored
    }
    fn unique(&self) -> &[String] {
        &self.unique
    }
}

impl JoinView for JoinEntry {
    type Side = JoinSideEntry;
    fn join_type(&self) -> &str {
        &self.join_type
    }
    fn left(&self) -> &JoinSideEntry {
        &self.left
    }
    fn right(&self) -> &JoinSideEntry {
        &self.right
    }
    fn interval(&self) -> Option<(&str, &str, i64, i64)> {
        self.interval.as_ref().map(|i| (i.left_time.as_str(), i.right_time.as_str(), i.lower_ms, i.upper_ms))
    }
    fn temporal(&self) -> Option<(&str, &str)> {
        self.temporal.as_ref().map(|t| (t.left_time.as_str(), t.right_time.as_str()))
    }
}

impl StateView for KeyedEntry<'_> {
    type Column = ColumnEntry;
    type Window = WindowEntry;
    type Join = JoinEntry;
    fn keys(&self) -> &[String] {
        self.0.keys.as_deref().unwrap_or(&[])
    }
    fn accumulators(&self) -> &[ColumnEntry] {
        self.0.accumulators.as_deref().unwrap_or(&[])
    }
    fn retention(&self) -> &dyn Display {
        match &self.0.retention {
            Some(r) => r,
            None => &"",
        }
    }
    fn window(&self) -> Option<&WindowEntry> {
        self.0.window.as_deref()
    }
    /// A Rank's part: an entry with a `row` (the stored row's columns).
    fn rank(&self) -> Option<RankView<'_, ColumnEntry>> {
        let s = self.0;
        Some(RankView {
            order: s.order.iter().flatten().map(|o| (o.column.as_str(), o.direction.as_str(), o.nulls.as_deref())).collect(),
            top: s.top,
            keep: s.keep.as_deref(),
            strategy: s.strategy.clone(),
            row: s.row.as_deref()?,
        })
    }
    fn join(&self) -> Option<&JoinEntry> {
        self.0.join.as_deref()
    }
}

/// The entry's schema fingerprint text.
pub fn schema_fingerprint_of(n: &NodeEntry) -> String {
    schema_text(&n.schema)
}

/// The entry's state fingerprint text; `None` when it is stateless.
pub fn state_fingerprint_of(n: &NodeEntry) -> Option<String> {
    KeyedEntry::of(&n.state).map(|s| state_text(&s))
}
