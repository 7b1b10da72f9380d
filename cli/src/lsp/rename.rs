//! Renaming a model: every `ref()` that names it, its file, and its entry
//! in `streamform.yml`, with `renamed_from` added so a running job keeps
//! the model's state (`plan` then classifies the change as a rename).

use std::collections::HashMap;

use lsp_types::{
    DocumentChangeOperation, DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier, PrepareRenameResponse, Range, RenameFile, RenameParams, ResourceOp, TextDocumentEdit,
    TextDocumentPositionParams, TextEdit, WorkspaceEdit,
};
use streamform::project::{classify_path, model_config, model_file, model_names, source_names, FileKind, CONFIG_FILE};
use streamform::check::fixtures::fixture;
use streamform::ModelName;

use super::navigate::callers;
use super::position::{offset_at, position_at, range_of, relative, uri};
use super::state::World;
use super::syntax::{read_at, word_at};

/// The model a position names, and the range the editor should select.
fn model_at(s: &World, at: &TextDocumentPositionParams) -> Option<(String, Range)> {
    let path = relative(&s.root, &at.text_document.uri)?;
    let text = s.text(&path)?;
    let offset = offset_at(text, at.position);
    let names = model_names(&s.db, s.files.project);
    match classify_path(&path)? {
        FileKind::Model => {
            let r = read_at(text, offset).filter(|r| !r.is_source)?;
            // Inside the quotes.
            let inner = Range { start: position_at(text, r.span.offset as usize + 1), end: position_at(text, (r.span.offset + r.span.len) as usize - 1) };
            names.binary_search(&r.name).is_ok().then_some((r.name, inner))
        }
        FileKind::Config => {
            let (a, b, w) = word_at(text, offset)?;
            names.binary_search(&w.to_string()).is_ok().then(|| (w.to_string(), Range { start: position_at(text, a), end: position_at(text, b) }))
        }
        _ => None,
    }
}

pub fn prepare(s: &World, p: &TextDocumentPositionParams) -> Option<PrepareRenameResponse> {
    model_at(s, p).map(|(_, r)| PrepareRenameResponse::Range(r))
}

pub fn rename(s: &World, p: &RenameParams) -> Result<Option<WorkspaceEdit>, String> {
    let Some((old, _)) = model_at(s, &p.text_document_position) else { return Ok(None) };
    let new = p.new_name.trim();
    if new.is_empty() || !new.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') || new.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("`{new}` is not a model name: use lowercase letters, digits and _, not starting with a digit"));
    }
    if new == old {
        return Ok(None);
    }
    let (db, project) = (&s.db, s.files.project);
    if model_names(db, project).binary_search(&new.to_string()).is_ok() || source_names(db, project).iter().any(|x| x == new) {
        return Err(format!("`{new}` already names a model or a source"));
    }
    let file = model_file(db, project, &old).ok_or_else(|| format!("model `{old}` has no file"))?;
    let old_path = file.path(db).clone();
    let new_path = format!("{}{new}.sql", &old_path[..old_path.len() - format!("{old}.sql").len()]);

    let mut edits: HashMap<String, Vec<TextEdit>> = HashMap::new();
    for (path, range) in callers(s, &old, false) {
        edits.entry(path).or_default().push(TextEdit { range, new_text: format!("'{new}'") });
    }
    edits.entry(CONFIG_FILE.to_string()).or_default().extend(config_edits(s, &old, new));
    for (path, edit) in fixture_edits(s, &old, new) {
        edits.entry(path).or_default().push(edit);
    }

    let mut ops: Vec<DocumentChangeOperation> = Vec::new();
    let mut paths: Vec<&String> = edits.keys().collect();
    paths.sort();
    for path in paths {
        let e = &edits[path];
        if !e.is_empty() {
            ops.push(DocumentChangeOperation::Edit(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri: uri(&s.root, path), version: None },
                edits: e.iter().cloned().map(OneOf::Left).collect(),
            }));
        }
    }
    ops.push(DocumentChangeOperation::Op(ResourceOp::Rename(RenameFile { old_uri: uri(&s.root, &old_path), new_uri: uri(&s.root, &new_path), options: None, annotation_id: None })));
    Ok(Some(WorkspaceEdit { document_changes: Some(DocumentChanges::Operations(ops)), ..Default::default() }))
}

/// The `streamform.yml` edits: the model's entry renamed with
/// `renamed_from: old` added (kept if already there), or a new entry.
fn config_edits(s: &World, old: &str, new: &str) -> Vec<TextEdit> {
    let Some(text) = s.text(CONFIG_FILE) else { return Vec::new() };
    let cfg = model_config(&s.db, ModelName::new(&s.db, s.files.project, old.to_string()));
    let at_end = |t: &str| {
        let p = position_at(text, text.len());
        let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
        TextEdit { range: Range { start: p, end: p }, new_text: format!("{sep}{t}") }
    };
    let entry = format!("{new}:\n    renamed_from: {old}\n");
    if cfg.span.offset == 0 && cfg.span.line <= 1 {
        // No entry for the model: add one under `models:`, or the section.
        return vec![match line_starting(text, "models:") {
            Some(end) => {
                let p = position_at(text, end);
                TextEdit { range: Range { start: p, end: p }, new_text: format!("\n  {}", entry.trim_end()) }
            }
            None => at_end(&format!("models:\n  {entry}")),
        }];
    }
    let key = range_of(text, Some(cfg.span.with_len(old.len())));
    let mut out = vec![TextEdit { range: key, new_text: new.to_string() }];
    if cfg.renamed_from.is_none() {
        let line_end = text[cfg.span.offset as usize..].find('\n').map_or(text.len(), |i| cfg.span.offset as usize + i);
        let indent = " ".repeat(cfg.span.col.saturating_sub(1) as usize + 2);
        let p = position_at(text, line_end);
        let after_key = text[cfg.span.offset as usize + old.len()..line_end].trim();
        let edit = match after_key {
            // A block mapping (or an empty entry): a line below the key.
            ":" => format!("\n{indent}renamed_from: {old}"),
            // A flow mapping `{...}`: the key goes inside the braces.
            t if t.starts_with(": {") && t.ends_with('}') => {
                let close = text[..line_end].rfind('}').unwrap_or(line_end);
                let p = position_at(text, close);
                let sep = if t[3..t.len() - 1].trim().is_empty() { "" } else { ", " };
                return vec![out.remove(0), TextEdit { range: Range { start: p, end: p }, new_text: format!("{sep}renamed_from: {old}") }];
            }
            _ => return out,
        };
        out.push(TextEdit { range: Range { start: p, end: p }, new_text: edit });
    }
    out
}

/// Each fixture's `model: old`, renamed.
fn fixture_edits(s: &World, old: &str, new: &str) -> Vec<(String, TextEdit)> {
    let mut out = Vec::new();
    for &f in s.files.project.fixture_files(&s.db) {
        let Ok(fx) = fixture(&s.db, f) else { continue };
        let text = f.text(&s.db);
        let at = fx.model_span.offset as usize;
        // The value as written: bare, or quoted.
        let quote = text[at..].chars().next().filter(|c| *c == '"' || *c == '\'');
        let skip = quote.map_or(0, |_| 1);
        if fx.model == old && text[at + skip..].starts_with(old) {
            let span = streamform::diagnostic::Span::at_offset(text, at + skip, old.len());
            out.push((f.path(&s.db).clone(), TextEdit { range: range_of(text, Some(span)), new_text: new.to_string() }));
        }
    }
    out
}

/// The end offset of the first line that is exactly `line` (no indent).
fn line_starting(text: &str, line: &str) -> Option<usize> {
    let mut offset = 0;
    for l in text.split_inclusive('\n') {
        if l.trim_end() == line {
            return Some(offset + l.trim_end().len());
        }
        offset += l.len();
    }
    None
}
