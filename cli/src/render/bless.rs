//! `test --bless`: a fixture's text with its `expect`, `late` and
//! `quarantined` lists rewritten from what the simulator did. Only the
//! lists that differ are rewritten; every other line of the file (comments,
//! `given`, the order of the keys) stays as it was. A list's own comment
//! lines are replaced with it.

use streamform::plan::node::Column;
use streamform::sim::fixture::WrittenEvent;
use streamform::sim::{Change, FixtureReport};
use streamform::yaml::{self, Value};

use super::json::Json;
use super::test::{scalar_json, value_json, Rows};

/// The fixture's new text, or None when nothing differs.
pub fn blessed(text: &str, r: &FixtureReport, rows: Rows) -> Result<Option<String>, String> {
    if let Some(e) = &r.error {
        return Err(format!("the run stopped ({e}); fix that first, there is no output to accept"));
    }
    let mut lists: Vec<(&str, Vec<String>)> = Vec::new();
    if !r.changelog_matches() {
        let mut items = Vec::new();
        rows(&mut |row| items.extend(row.actual.as_ref().map(|c| change_item(&r.columns, c))));
        lists.push(("expect", items));
    }
    for (key, rows) in [("late", &r.late), ("quarantined", &r.quarantined)] {
        if rows.iter().any(|row| row.problem.is_some()) {
            lists.push((key, rows.iter().filter_map(|row| row.actual.as_ref()).map(event_item).collect()));
        }
    }
    if lists.is_empty() {
        return Ok(None);
    }
    let mut out = text.to_string();
    for (key, items) in lists {
        out = replace_list(&out, key, &items)?;
    }
    Ok(Some(out))
}

/// `{op: insert, customer_id: 7, total: "115.50"}`, columns in output order.
fn change_item(columns: &[Column], c: &Change) -> String {
    let mut parts = vec![format!("op: {}", c.op.as_str())];
    parts.extend(columns.iter().zip(&c.row).map(|(col, v)| format!("{}: {}", key_text(&col.name), json_scalar(&cell(v)))));
    format!("{{{}}}", parts.join(", "))
}

/// A decimal at its column's scale (`"40.00"`), as people write them.
fn cell(v: &streamform::sim::Value) -> Json {
    match v {
        streamform::sim::Value::Decimal(d) => Json::Str(d.to_scaled_string()),
        other => value_json(other),
    }
}

/// A late or quarantined event as the simulator saw it written.
fn event_item(e: &WrittenEvent) -> String {
    let parts: Vec<String> = e.iter().map(|(k, v)| format!("{}: {}", key_text(k), json_scalar(&scalar_json(v)))).collect();
    format!("{{{}}}", parts.join(", "))
}

/// A YAML flow scalar for a JSON value: strings plain when YAML reads them
/// back as the same string, else double-quoted (JSON's quoting is YAML's).
fn json_scalar(j: &Json) -> String {
    match j {
        Json::Str(s) if plain(s) => s.clone(),
        other => other.compact(),
    }
}

fn key_text(k: &str) -> String {
    if plain(k) {
        k.to_string()
    } else {
        Json::Str(k.to_string()).compact()
    }
}

/// A word YAML reads as this string: no number, boolean or null lookalike.
fn plain(s: &str) -> bool {
    let word = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let special = matches!(s.to_ascii_lowercase().as_str(), "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n");
    word && !special
}

/// `text` with the top-level list `key` replaced by `items` (appended at
/// the end when the file has none). The list's lines run from its key to
/// the next top-level key, less the blank and comment lines just before
/// that key, which belong to it.
fn replace_list(text: &str, key: &str, items: &[String]) -> Result<String, String> {
    let root = yaml::parse(text).map_err(|e| format!("the fixture is not valid YAML: {}", e.message))?;
    let Value::Map(entries) = &root.value else { return Err("the fixture is not a map".into()) };
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<(usize, &str)> = entries.iter().map(|(k, _)| (k.span.line as usize - 1, k.as_str().unwrap_or(""))).collect();
    let Some(i) = starts.iter().position(|(_, k)| *k == key) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&block(key, items, "  - "));
        return Ok(out);
    };
    let start = starts[i].0;
    let mut end = starts.get(i + 1).map_or(lines.len(), |(l, _)| *l);
    while end > start + 1 && { let t = lines[end - 1].trim(); t.is_empty() || t.starts_with('#') } {
        end -= 1;
    }
    // The first item's indent and dash, so the file keeps its style.
    let dash = lines[start + 1..end]
        .iter()
        .find_map(|l| {
            let t = l.trim_start();
            t.starts_with("- ").then(|| format!("{}- ", &l[..l.len() - t.len()]))
        })
        .unwrap_or_else(|| "  - ".to_string());
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.push(block(key, items, &dash).trim_end_matches('\n').to_string());
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut s = out.join("\n");
    s.push('\n');
    Ok(s)
}

fn block(key: &str, items: &[String], dash: &str) -> String {
    if items.is_empty() {
        return format!("{key}: []\n");
    }
    let mut s = format!("{key}:\n");
    for item in items {
        s.push_str(&format!("{dash}{item}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_replaced_in_place_and_the_rest_stays() {
        let text = "# why\nmodel: m\ngiven:\n  - {a: 1}\n# the rows\nexpect:\n    - {op: insert, a: 2}\n    # gone with the list\n    - {op: insert, a: 3}\n\n# late ones\nlate:\n  - {a: 0}\n";
        let out = replace_list(text, "expect", &["{op: insert, a: 1}".into()]).unwrap();
        assert_eq!(out, "# why\nmodel: m\ngiven:\n  - {a: 1}\n# the rows\nexpect:\n    - {op: insert, a: 1}\n\n# late ones\nlate:\n  - {a: 0}\n");
        let added = replace_list("model: m\ngiven: []\n", "quarantined", &["{a: 1, _contract: c}".into()]).unwrap();
        assert_eq!(added, "model: m\ngiven: []\nquarantined:\n  - {a: 1, _contract: c}\n");
        let emptied = replace_list(text, "late", &[]).unwrap();
        assert!(emptied.ends_with("# late ones\nlate: []\n"), "{emptied}");
    }

    #[test]
    fn scalars_read_back_as_what_they_were() {
        assert_eq!(json_scalar(&Json::Str("paid".into())), "paid");
        for s in ["115.50", "true", "no", "2024-01-01T00:00:00Z", "a b", "", "-1"] {
            assert_eq!(json_scalar(&Json::Str(s.into())), Json::Str(s.into()).compact(), "{s}");
        }
        assert_eq!(json_scalar(&Json::Int(7)), "7");
        assert_eq!(json_scalar(&Json::Null), "null");
    }
}
