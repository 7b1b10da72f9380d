//! Go to definition and find references: `ref('m')` → the model's file,
//! `source('s')` → its entry in sources.yml, a column → the upstream
//! column it comes from, a model → every `ref()` that reads it.

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, Range, ReferenceParams};
use streamform::project::{classify_path, model_file, source_config, FileKind, SOURCES_FILE};
use streamform::sql::scan::scan_located_reads;
use streamform::SourceName;

use super::position::{offset_at, position_at, range_of, relative, uri};
use super::state::World;
use super::syntax::{columns_in_scope, model_of, read_at, word_at, Origin};

/// What a position names.
enum Target {
    Model(String),
    Source(String),
    /// A column as the model at this path reads it.
    Column { model: String, name: String },
}

fn target_at(s: &World, path: &str, text: &str, offset: usize) -> Option<Target> {
    match classify_path(path)? {
        FileKind::Model => {
            if let Some(r) = read_at(text, offset) {
                return Some(if r.is_source { Target::Source(r.name) } else { Target::Model(r.name) });
            }
            let (_, _, w) = word_at(text, offset)?;
            Some(Target::Column { model: model_of(path)?, name: w.to_string() })
        }
        FileKind::Config => Some(Target::Model(word_at(text, offset)?.2.to_string())),
        FileKind::Sources => Some(Target::Source(word_at(text, offset)?.2.to_string())),
        FileKind::Fixture => {
            let _ = s;
            None
        }
    }
}

fn file_start(s: &World, path: &str) -> Location {
    Location { uri: uri(&s.root, path), range: Range::default() }
}

fn model_location(s: &World, name: &str) -> Option<Location> {
    let f = model_file(&s.db, s.files.project, name)?;
    Some(file_start(s, f.path(&s.db)))
}

fn source_location(s: &World, name: &str, column: Option<&str>) -> Option<Location> {
    let c = source_config(&s.db, s.files.project, SourceName::new(&s.db, name.to_string())).as_ref()?;
    let span = match column {
        Some(col) => c.column(col).map_or(c.span, |k| k.span),
        None => c.span,
    };
    Some(Location { uri: uri(&s.root, SOURCES_FILE), range: range_of(s.text(SOURCES_FILE).unwrap_or(""), Some(span)) })
}

/// The first whole-word occurrence of `word` in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word).map(|i| from + i) {
        let ok_before = text[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let ok_after = text[i + word.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if ok_before && ok_after {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

pub fn definition(s: &World, p: &GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let at = &p.text_document_position_params;
    let path = relative(&s.root, &at.text_document.uri)?;
    let text = s.text(&path)?;
    let loc = match target_at(s, &path, text, offset_at(text, at.position))? {
        Target::Model(m) => model_location(s, &m),
        Target::Source(src) => source_location(s, &src, None),
        Target::Column { model, name } => {
            let col = columns_in_scope(s, &model).into_iter().find(|c| c.name.eq_ignore_ascii_case(&name))?;
            match col.origin {
                Origin::Source(src) => source_location(s, &src, Some(&col.name)),
                Origin::Model(up) => {
                    let f = model_file(&s.db, s.files.project, &up)?;
                    let (upath, utext) = (f.path(&s.db), f.text(&s.db));
                    let range = find_word(utext, &col.name).map(|i| Range { start: position_at(utext, i), end: position_at(utext, i + col.name.len()) }).unwrap_or_default();
                    Some(Location { uri: uri(&s.root, upath), range })
                }
            }
        }
    }?;
    Some(GotoDefinitionResponse::Scalar(loc))
}

/// Every `ref('m')` (or `source('s')`) call in the project's models.
pub fn callers(s: &World, name: &str, is_source: bool) -> Vec<(String, Range)> {
    let mut out = Vec::new();
    for &f in s.files.project.model_files(&s.db) {
        let text = f.text(&s.db);
        for r in scan_located_reads(text) {
            if r.is_source == is_source && r.name == name {
                out.push((f.path(&s.db).clone(), range_of(text, Some(r.span))));
            }
        }
    }
    out
}

pub fn references(s: &World, p: &ReferenceParams) -> Option<Vec<Location>> {
    let at = &p.text_document_position;
    let path = relative(&s.root, &at.text_document.uri)?;
    let text = s.text(&path)?;
    let offset = offset_at(text, at.position);
    // In a model's file, away from any ref(): the model itself.
    let target = match (read_at(text, offset), model_of(&path)) {
        (None, Some(m)) if classify_path(&path) == Some(FileKind::Model) => Target::Model(m),
        _ => target_at(s, &path, text, offset)?,
    };
    let (name, is_source) = match target {
        Target::Model(m) => (m, false),
        Target::Source(src) => (src, true),
        Target::Column { .. } => return None,
    };
    let mut out: Vec<Location> = Vec::new();
    if p.context.include_declaration {
        out.extend(if is_source { source_location(s, &name, None) } else { model_location(s, &name) });
    }
    out.extend(callers(s, &name, is_source).into_iter().map(|(path, range)| Location { uri: uri(&s.root, &path), range }));
    Some(out)
}
