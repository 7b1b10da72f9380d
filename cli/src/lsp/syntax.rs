//! What sits under the cursor: a `ref()`/`source()` call (from the
//! compiler's own scanner) or an identifier, and the relations and columns
//! a model can see there.

use streamform::model::named_reads;
use streamform::project::{model_name_of, source_config};
use streamform::sql::scan::{scan_located_reads, NamedRead};
use streamform::{ModelName, SourceName};

use super::state::World;

/// The `ref('m')`/`source('s')` whose quoted name holds `offset`.
pub fn read_at(text: &str, offset: usize) -> Option<NamedRead> {
    scan_located_reads(text).into_iter().find(|r| (r.span.offset as usize..=(r.span.offset + r.span.len) as usize).contains(&offset))
}

/// The identifier that holds `offset`: its byte range and text.
pub fn word_at(text: &str, offset: usize) -> Option<(usize, usize, &str)> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let offset = offset.min(text.len());
    let start = text[..offset].char_indices().rev().take_while(|(_, c)| is_ident(*c)).last().map_or(offset, |(i, _)| i);
    let end = text[offset..].char_indices().find(|(_, c)| !is_ident(*c)).map_or(text.len(), |(i, _)| offset + i);
    (start < end).then(|| (start, end, &text[start..end]))
}

/// The model a project path holds (`models/a/b.sql` → `b`).
pub fn model_of(path: &str) -> Option<String> {
    path.ends_with(".sql").then(|| model_name_of(path))
}

/// Where a column a model can read comes from.
pub enum Origin {
    Source(String),
    Model(String),
}

pub struct ScopeColumn {
    pub name: String,
    pub ty: String,
    pub origin: Origin,
}

/// Every column of every relation `model` reads, in FROM order.
pub fn columns_in_scope(s: &World, model: &str) -> Vec<ScopeColumn> {
    let (db, p) = (&s.db, s.files.project);
    let reads = named_reads(db, ModelName::new(db, p, model.to_string()));
    let mut out = Vec::new();
    for src in &reads.sources {
        if let Some(c) = source_config(db, p, SourceName::new(db, src.clone())) {
            out.extend(c.columns.iter().map(|col| ScopeColumn { name: col.name.clone(), ty: col.ty.to_string(), origin: Origin::Source(src.clone()) }));
        }
    }
    for m in &reads.models {
        if let Some(plan) = streamform::model::model_plan(db, ModelName::new(db, p, m.clone())) {
            out.extend(plan.sink().schema.iter().map(|c| ScopeColumn { name: c.name.clone(), ty: c.ty.to_string(), origin: Origin::Model(m.clone()) }));
        }
    }
    out
}
