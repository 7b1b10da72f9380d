//! `run`'s input of the sources one dataflow reads, fed into it line by
//! line: a line is blank, a watermark (`{"watermark": …}`, unless the
//! source has a column of that name) or an event, typed by the one
//! event-typing path (sim/event.rs). Counts what became of each source's
//! events. Errors are `run`'s texts for one line; the caller puts the
//! file and line number first.

use std::sync::Arc;

use super::dataflow::{Dataflow, Emit, Outcome, SourceSpec};
use super::event::{type_event, watermark_ms};
use super::jsonl::parse_object;
use super::scalar::Scalar;
use crate::plan::node::ModelPlan;

#[derive(Debug)]
pub struct LineFeed {
    pub flow: Dataflow,
    /// What became of each source's events, in the flow's source order.
    pub counts: Vec<Counts>,
}

/// What became of one source's events.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    /// Events read (watermarks are not events).
    pub events: usize,
    pub processed: usize,
    /// Dropped as late.
    pub late: usize,
    pub quarantined: usize,
    /// Events dropped because their event time is null.
    pub no_time: usize,
}

/// What one line was.
#[derive(Debug)]
pub enum Line {
    Blank,
    Watermark,
    /// An event: its columns as written, and what became of it.
    Event { fields: Vec<(String, Scalar)>, outcome: Outcome },
}

impl LineFeed {
    /// `plans` in dependency order, as [`Dataflow::new`] takes them.
    pub fn new(sources: Vec<SourceSpec>, plans: Vec<Arc<ModelPlan>>) -> LineFeed {
        let counts = vec![Counts::default(); sources.len()];
        LineFeed { flow: Dataflow::new(sources, plans), counts }
    }

    pub fn source(&self, src: usize) -> &SourceSpec {
        &self.flow.sources[src]
    }

    /// Feeds one line of source `src` (its line break may be left on);
    /// each record a model emits goes to `emit` with the model's index in
    /// the plans.
    pub fn push_line(&mut self, src: usize, line: &str, emit: &mut Emit<'_>) -> Result<Line, String> {
        let text = line.trim();
        if text.is_empty() {
            return Ok(Line::Blank);
        }
        let fields = parse_object(text)?;
        if let Some(v) = self.watermark(src, &fields) {
            let ms = watermark_ms(v).map_err(|e| e.message(&v.render()))?;
            self.flow.push_watermark(Some(src), ms, emit).map_err(|e| e.message(None))?;
            return Ok(Line::Watermark);
        }
        self.counts[src].events += 1;
        let row = type_event(&self.flow.sources[src], &fields, |_, _| {}).map_err(|e| e[0].message())?;
        let outcome = self.flow.push_event(src, &row, emit).map_err(|e| e.message(None))?;
        let c = &mut self.counts[src];
        match outcome {
            Outcome::Processed => c.processed += 1,
            Outcome::Late => c.late += 1,
            Outcome::Quarantined(_) => c.quarantined += 1,
            Outcome::NoTime => c.no_time += 1,
        }
        Ok(Line::Event { fields, outcome })
    }

    /// The value of a watermark line: one field, `watermark`, on a source
    /// without a column of that name.
    fn watermark<'f>(&self, src: usize, fields: &'f [(String, Scalar)]) -> Option<&'f Scalar> {
        match fields {
            [(k, v)] if k == "watermark" && self.flow.sources[src].columns.iter().all(|c| c.name != "watermark") => Some(v),
            _ => None,
        }
    }
}
