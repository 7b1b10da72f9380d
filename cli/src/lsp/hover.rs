//! Hover: a column's type and where it comes from; a source's schema; a
//! model's nodes, changelog and state fingerprints (its inspect-plan block).

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};
use streamform::manifest::model_identity;
use streamform::project::{classify_path, source_config, FileKind};
use streamform::{ModelName, SourceName};

use super::position::{offset_at, position_at, relative};
use super::state::World;
use super::syntax::{columns_in_scope, model_of, read_at, word_at, Origin};
use crate::render::inspect::model_block;

pub fn hover(s: &World, p: &HoverParams) -> Option<Hover> {
    let at = &p.text_document_position_params;
    let path = relative(&s.root, &at.text_document.uri)?;
    let text = s.text(&path)?;
    let offset = offset_at(text, at.position);
    let markdown = match classify_path(&path)? {
        FileKind::Model => {
            if let Some(r) = read_at(text, offset) {
                if r.is_source { source_summary(s, &r.name) } else { model_summary(s, &r.name) }
            } else {
                let (_, _, word) = word_at(text, offset)?;
                column_summary(s, &model_of(&path)?, word)
            }
        }
        FileKind::Config => model_summary(s, word_at(text, offset)?.2),
        FileKind::Sources => source_summary(s, word_at(text, offset)?.2),
        FileKind::Fixture => None,
    }?;
    let range = word_at(text, offset).map(|(a, b, _)| lsp_types::Range { start: position_at(text, a), end: position_at(text, b) });
    Some(Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: markdown }), range })
}

/// A source's columns and types.
pub fn source_summary(s: &World, name: &str) -> Option<String> {
    let c = source_config(&s.db, s.files.project, SourceName::new(&s.db, name.to_string())).as_ref()?;
    let mut out = format!("source `{name}` ({})\n\n| column | type |\n|---|---|\n", c.connector.as_str());
    for col in &c.columns {
        out.push_str(&format!("| {} | {} |\n", col.name, col.ty));
    }
    if let Some((et, _)) = &c.event_time {
        out.push_str(&format!("\nevent time: `{et}`\n"));
    }
    Some(out)
}

/// A model's inspect-plan block: nodes, changelog modes and fingerprints.
pub fn model_summary(s: &World, name: &str) -> Option<String> {
    let slice = &model_identity(&s.db, ModelName::new(&s.db, s.files.project, name.to_string())).as_ref()?.slice;
    Some(format!("model `{name}`\n\n```text\n{}```\n", model_block(slice)))
}

/// A column `model` can read: its type and the relation it comes from.
fn column_summary(s: &World, model: &str, word: &str) -> Option<String> {
    let found: Vec<_> = columns_in_scope(s, model).into_iter().filter(|c| c.name.eq_ignore_ascii_case(word)).collect();
    if found.is_empty() {
        return output_column(s, model, word);
    }
    let lines: Vec<String> = found
        .iter()
        .map(|c| match &c.origin {
            Origin::Source(src) => format!("`{}`: {} — from `source('{src}')`", c.name, c.ty),
            Origin::Model(m) => format!("`{}`: {} — from `ref('{m}')`", c.name, c.ty),
        })
        .collect();
    Some(lines.join("\n\n"))
}

/// An output column of `model` (an alias it defines).
fn output_column(s: &World, model: &str, word: &str) -> Option<String> {
    let plan = streamform::model::model_plan(&s.db, ModelName::new(&s.db, s.files.project, model.to_string())).as_ref()?;
    let c = plan.sink().schema.iter().find(|c| c.name.eq_ignore_ascii_case(word))?;
    Some(format!("`{}`: {} — output column of `{model}`", c.name, c.ty))
}
