//! A plan node's identity texts: the views `text` renders, supplied by
//! the plan's columns, windows and keyed state.

use std::fmt::Display;

use super::text::{schema_text, state_text, ColumnView, JoinSideView, JoinView, RankView, StateView, WindowView};
use crate::plan::node::{Column, JoinSideState, JoinState, KeyedState, RankKeep, TimeWindow};
use crate::window::WindowShape;

impl ColumnView for Column {
    fn name(&self) -> &str {
        &self.name
    }
    fn ty(&self) -> &dyn Display {
        &self.ty
    }
}

impl WindowView for TimeWindow {
    fn kind(&self) -> &str {
        TimeWindow::kind(self)
    }
    fn time(&self) -> &str {
        &self.time
    }
    fn size(&self) -> Option<&dyn Display> {
        match &self.shape {
            WindowShape::Tumbling { size } | WindowShape::Hop { size, .. } => Some(size),
            WindowShape::Session { .. } => None,
        }
    }
    fn slide(&self) -> Option<&dyn Display> {
        match &self.shape {
            WindowShape::Hop { slide, .. } => Some(slide),
            _ => None,
        }
    }
    fn gap(&self) -> Option<&dyn Display> {
        match &self.shape {
            WindowShape::Session { gap } => Some(gap),
            _ => None,
        }
    }
    fn alignment(&self) -> Option<&str> {
        TimeWindow::alignment(self)
    }
    fn emission(&self) -> &str {
        TimeWindow::EMISSION
    }
}

impl JoinSideView for JoinSideState {
    type Column = Column;
    fn keys(&self) -> &[String] {
        &self.keys
    }
    fn stored(&self) -> &[Column] {
        &self.stored
    }
    fn unique(&self) -> &[String] {
        &self.unique
    }
}

impl JoinView for JoinState {
    type Side = JoinSideState;
    fn join_type(&self) -> &str {
        self.join_type.as_str()
    }
    fn left(&self) -> &JoinSideState {
        &self.left
    }
    fn right(&self) -> &JoinSideState {
        &self.right
    }
    fn interval(&self) -> Option<(&str, &str, i64, i64)> {
        self.interval.as_ref().map(|i| (i.left_time.as_str(), i.right_time.as_str(), i.lower, i.upper))
    }
    fn temporal(&self) -> Option<(&str, &str)> {
        self.temporal.as_ref().map(|t| (t.left_time.as_str(), t.right_time.as_str()))
    }
}

impl StateView for KeyedState {
    type Column = Column;
    type Window = TimeWindow;
    type Join = JoinState;
    fn keys(&self) -> &[String] {
        &self.keys
    }
    fn accumulators(&self) -> &[Column] {
        &self.accumulators
    }
    fn retention(&self) -> &dyn Display {
        &self.retention
    }
    fn window(&self) -> Option<&TimeWindow> {
        self.window.as_ref()
    }
    fn rank(&self) -> Option<RankView<'_, Column>> {
        let r = self.rank.as_ref()?;
        Some(RankView {
            order: r.order.iter().map(|k| (k.column.as_str(), k.direction(), k.nulls())).collect(),
            top: match r.keep {
                RankKeep::Top(n) => Some(n),
                _ => None,
            },
            keep: r.keep.kept(),
            strategy: r.strategy.text(),
            row: &r.row,
        })
    }
    fn join(&self) -> Option<&JoinState> {
        self.join.as_ref()
    }
}

/// `[name: type, ...]`: a node's schema fingerprint.
pub fn schema_fingerprint(columns: &[Column]) -> String {
    schema_text(columns)
}

/// `aggregate key=[..] accumulators=[..] retention=..[ window=..]`, or a
/// Rank's `rank …` / `deduplicate …`.
pub fn state_fingerprint(state: &KeyedState) -> String {
    state_text(state)
}
