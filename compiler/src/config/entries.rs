//! `streamform.yml` decoded entry by entry, for a database that lives
//! across edits (`watch`, the language server): an edit of one model's
//! entry decodes that entry again, not the 10,000 others (at that size the
//! whole file takes about 10 ms to decode, on every edit of it).
//!
//! [`EntryCache::decode_project`] cuts the `models:` section into entries
//! by their lines ([`split`]), decodes each entry's text alone, or takes it
//! from the previous decode when its text is the same, and decodes the rest
//! of the file as if those lines were blank (without reading them). Each
//! entry's spans are counted from its key ([`ProjectConfig::models`] holds
//! them so anyway), so an entry's decode is the same wherever it sits in the
//! file. The result is [`decode_project`]'s, always: whatever this cannot
//! read plainly (a file outside the block subset of [`crate::yaml::block`],
//! an entry with an error, two entries of one name, a `${…}`), it leaves to
//! it.

use std::collections::HashMap;
use std::sync::Arc;

use super::decode::Decoder;
use super::project::{decode_model, decode_project, decode_root, misplaced_setting, ModelConfig, ProjectConfig};
use crate::diagnostic::{Diagnostic, Span};
use crate::yaml::block;

/// The entries of the last decode, by their text.
#[derive(Default)]
pub struct EntryCache {
    /// Each entry with the number of the last decode that used it: what a
    /// decode did not use is dropped at its end, without building the map
    /// again (hashing every entry's text twice).
    entries: HashMap<Box<str>, (Arc<ModelConfig>, u64)>,
    /// The number of the current decode.
    generation: u64,
    /// How many entries the last decode read from their text (for tests).
    decoded: usize,
}

impl EntryCache {
    /// [`decode_project`] of `text`, reading again only the entries of
    /// `models:` that the previous call did not see.
    pub fn decode_project(&mut self, path: &str, text: &str) -> Result<ProjectConfig, Vec<Diagnostic>> {
        self.decoded = 0;
        match split(text).and_then(|s| self.decode_split(path, text, &s)) {
            Some(config) => Ok(config),
            None => decode_project(path, text),
        }
    }

    /// How many entries the last [`EntryCache::decode_project`] decoded
    /// from their text rather than took from the one before.
    pub fn last_decoded(&self) -> usize {
        self.decoded
    }

    fn decode_split(&mut self, path: &str, text: &str, split: &Split) -> Option<ProjectConfig> {
        // The rest's values are checked for `${...}` in `text`; an entry
        // with one is left to the whole decode (`decode_entry`).
        let rest = block::document_without(text, split.section.clone(), split.lines_before_end)?;
        let mut config = decode_root(path, text, &rest).ok()?;
        // The section reads as blank: `models:` is empty in the rest.
        if !config.models.is_empty() {
            return None;
        }
        self.generation += 1;
        let generation = self.generation;
        let mut models = Vec::with_capacity(split.entries.len());
        let mut starts = Vec::with_capacity(split.entries.len());
        for e in &split.entries {
            let chunk = &text[e.start..e.end];
            let model = match self.entries.get_mut(chunk) {
                Some((model, used)) => {
                    *used = generation;
                    model.clone()
                }
                // On a failure what the cache holds stays for the next decode.
                None => {
                    let model = Arc::new(decode_entry(path, chunk)?);
                    self.decoded += 1;
                    self.entries.insert(Box::from(chunk), (model.clone(), generation));
                    model
                }
            };
            // The entry's start: its key (spans relative to it), placed at
            // the key's line and offset in the file.
            starts.push(model.span.placed_at(Span { line: e.line, col: 0, offset: (e.start + split.indent) as u32, len: 0 }));
            models.push(model);
        }
        // Two entries of one name (of one text, too) are the whole decode's error.
        let mut names = std::collections::HashSet::with_capacity(models.len());
        if !models.iter().all(|m| names.insert(m.name.as_str())) {
            return None;
        }
        // What this decode did not use is dropped.
        self.entries.retain(|_, (_, used)| *used == generation);
        config.model_starts = starts;
        config.models = models;
        Some(config)
    }
}

/// One entry of `models:`: its lines, from its key's line to the next
/// entry's (comments and blank lines after it included), in bytes of the
/// file, and the line it starts on (1-based).
struct Entry {
    start: usize,
    end: usize,
    line: u32,
}

/// The file cut at its `models:` section.
struct Split {
    /// The section's entries: from the first entry's line to the start of
    /// the line that ends the section (or the end of the file).
    section: std::ops::Range<usize>,
    /// The number of lines before the section's end.
    lines_before_end: u32,
    entries: Vec<Entry>,
    /// The entries' indentation: where each key starts on its line.
    indent: usize,
}

/// Cuts `text` at the entries of its top-level `models:` block map, or
/// `None` when it has no such section to cut plainly: no `models:` key at
/// the start of a line, a value on its line, an entry less indented than
/// the first, or a section that does not end at a top-level line.
fn split(text: &str) -> Option<Split> {
    let mut offset = 0;
    let mut section: Option<usize> = None; // the entries' indentation once known
    let mut in_section = false;
    let mut entries: Vec<Entry> = Vec::new();
    let mut section_end = None;
    let mut lines = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        lines = i as u32;
        let start = offset;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let content = line.trim_start_matches(' ');
        let blank = content.is_empty() || content.starts_with('#');
        if !in_section {
            in_section = is_models_key(line);
            continue;
        }
        if blank {
            continue;
        }
        let indent = line.len() - content.len();
        // A top-level line ends the section; what follows is the rest's.
        if indent == 0 {
            section_end = Some((start, i as u32));
            break;
        }
        let first = *section.get_or_insert(indent);
        if indent < first {
            return None;
        }
        if indent == first {
            if let Some(last) = entries.last_mut() {
                last.end = start;
            }
            entries.push(Entry { start, end: start, line: i as u32 + 1 });
        }
    }
    // To the end of the file: every line is before it (the last counted
    // whether or not it ends in a line break; none follows it).
    let (end, lines_before_end) = section_end.unwrap_or((text.len(), lines + 1));
    entries.last_mut()?.end = end;
    Some(Split { section: entries[0].start..end, lines_before_end, entries, indent: section? })
}

/// `models:` at the start of a line, with nothing after it but spaces and
/// a comment.
fn is_models_key(line: &str) -> bool {
    line.strip_prefix("models:").is_some_and(|after| after.is_empty() || (after.starts_with(' ') && matches!(after.trim_start_matches(' ').bytes().next(), None | Some(b'#'))))
}

/// One entry's configuration, its spans counted from its key, as
/// [`decode_project`] decodes it in the whole file; `None` for what this
/// leaves to it (see the module doc).
fn decode_entry(path: &str, chunk: &str) -> Option<ModelConfig> {
    if crate::template::has_reference(chunk) {
        return None;
    }
    // At depth 2: the root map is 1, `models:`'s map 2.
    let (key, node) = block::entry(chunk, 2)?;
    let name = key.as_str()?;
    if misplaced_setting(name, &node) {
        return None;
    }
    let mut d = Decoder::new(path);
    let mut m = decode_model(&mut d, name, key.span, &node)?;
    if !d.errors.is_empty() {
        return None;
    }
    let start = m.span;
    m.move_spans(|s| s.relative_to(start));
    Some(m)
}

#[cfg(test)]
mod tests;
