//! Completion: model and source names inside `ref('…')`/`source('…')`,
//! otherwise the columns in scope and the supported functions; in
//! `streamform.yml`/`sources.yml`/fixtures, the keys their schema allows.

use std::collections::BTreeMap;

use lsp_types::{CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, Documentation};
use serde_json::Value;
use streamform::plan::func::CALLABLE;
use streamform::project::{classify_path, model_names, source_names, FileKind};

use super::position::{offset_at, relative};
use super::state::World;
use super::syntax::{columns_in_scope, model_of, Origin};

/// The aggregates a model may call, beside [`CALLABLE`].
const AGGREGATES: &[&str] = &["count", "sum", "min", "max", "avg"];

pub fn complete(s: &World, p: &CompletionParams) -> Option<CompletionResponse> {
    let at = &p.text_document_position;
    let path = relative(&s.root, &at.text_document.uri)?;
    let text = s.text(&path)?;
    let offset = offset_at(text, at.position);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let items = match classify_path(&path)? {
        FileKind::Model => match open_call(before) {
            Some("ref") => names(model_names(&s.db, s.files.project).iter().filter(|m| Some(m.as_str()) != model_of(&path).as_deref()), CompletionItemKind::MODULE, "model"),
            Some(_) => names(source_names(&s.db, s.files.project).iter(), CompletionItemKind::STRUCT, "source"),
            None => sql_items(s, &path),
        },
        FileKind::Config => schema_keys("project"),
        FileKind::Sources => schema_keys("sources"),
        FileKind::Fixture => schema_keys("fixture"),
    };
    Some(CompletionResponse::Array(items))
}

/// `ref` or `source` when the cursor is inside the quotes of such a call.
fn open_call(before: &str) -> Option<&'static str> {
    let quote = before.rfind('\'')?;
    let partial = &before[quote + 1..];
    if !partial.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let call = before[..quote].trim_end().strip_suffix('(')?.trim_end().to_ascii_lowercase();
    if call.ends_with("source") {
        Some("source")
    } else if call.ends_with("ref") {
        Some("ref")
    } else {
        None
    }
}

fn names<'a>(it: impl Iterator<Item = &'a String>, kind: CompletionItemKind, what: &str) -> Vec<CompletionItem> {
    it.map(|n| CompletionItem { label: n.clone(), kind: Some(kind), detail: Some(what.to_string()), ..Default::default() }).collect()
}

fn sql_items(s: &World, path: &str) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    if let Some(model) = model_of(path) {
        for c in columns_in_scope(s, &model) {
            if !seen.insert(c.name.clone()) {
                continue;
            }
            let from = match &c.origin {
                Origin::Source(x) => format!("source('{x}')"),
                Origin::Model(x) => format!("ref('{x}')"),
            };
            out.push(CompletionItem { label: c.name, kind: Some(CompletionItemKind::FIELD), detail: Some(format!("{} — {from}", c.ty)), ..Default::default() });
        }
    }
    for f in CALLABLE.split(", ").chain(AGGREGATES.iter().copied()) {
        out.push(CompletionItem { label: f.to_string(), kind: Some(CompletionItemKind::FUNCTION), detail: Some("function".into()), ..Default::default() });
    }
    for (f, what) in [("source", "a source, source('name')"), ("ref", "a model, ref('name')")] {
        out.push(CompletionItem { label: f.to_string(), kind: Some(CompletionItemKind::FUNCTION), detail: Some(what.into()), ..Default::default() });
    }
    out
}

/// Every key the document's JSON Schema names, with its description.
fn schema_keys(doc: &str) -> Vec<CompletionItem> {
    let Some(schema) = streamform::schemas::find(doc).and_then(|d| serde_json::from_str::<Value>(d.schema).ok()) else { return Vec::new() };
    let mut keys: BTreeMap<String, Option<String>> = BTreeMap::new();
    collect_keys(&schema, &mut keys);
    keys.into_iter()
        .map(|(k, d)| CompletionItem { label: k, kind: Some(CompletionItemKind::PROPERTY), documentation: d.map(Documentation::String), ..Default::default() })
        .collect()
}

fn collect_keys(v: &Value, out: &mut BTreeMap<String, Option<String>>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Object(props)) = o.get("properties") {
                for (k, sub) in props {
                    let d = sub.get("description").and_then(Value::as_str).map(str::to_string);
                    let e = out.entry(k.clone()).or_default();
                    if e.is_none() {
                        *e = d;
                    }
                }
            }
            o.values().for_each(|x| collect_keys(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_keys(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::open_call;

    #[test]
    fn inside_a_call() {
        assert_eq!(open_call("FROM ref('cus"), Some("ref"));
        assert_eq!(open_call("FROM source( 'pay"), Some("source"));
        assert_eq!(open_call("FROM source('payments') p"), None);
        assert_eq!(open_call("WHERE x = 'a"), None);
    }
}
