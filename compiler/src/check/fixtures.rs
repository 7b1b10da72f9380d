//! Fixture files (`tests/**/*.yml`), decoded as far as `check` needs:
//! the model, the given events, the expected rows, late and quarantined
//! records, each located. Malformed files stop the project from loading.

use crate::db::{Db, SourceFile};
use crate::diagnostic::{did_you_mean, Diagnostic, Span};
use crate::yaml::{self, Node, Value};
use crate::diagnostic::Code;

const FIXTURE_KEYS: &[&str] = &["model", "given", "expect", "late", "quarantined"];
const OPS: &[&str] = &["insert", "update", "delete"];

/// One row of column values as written (scalars only), with the key spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub span: Span,
    pub columns: Vec<(String, Span, Node)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum GivenItem {
    Event(Row),
    Watermark { value: Node, span: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub op: String,
    pub row: Row,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fixture {
    pub path: String,
    pub model: String,
    pub model_span: Span,
    pub given: Vec<GivenItem>,
    pub expect: Vec<Expectation>,
    pub late: Vec<Row>,
    pub quarantined: Vec<Row>,
}

/// The decoded fixture, or why it is malformed (a load error).
#[salsa::tracked(returns(ref))]
pub fn fixture(db: &dyn Db, file: SourceFile) -> Result<Fixture, Vec<Diagnostic>> {
    decode_fixture(file.path(db), file.text(db))
}

fn err(path: &str, span: Span, message: String, help: Option<String>) -> Diagnostic {
    let mut d = Diagnostic::error(Code::MalformedFixture, format!("malformed fixture {path}: {message}")).at(path, Some(span));
    d.help = help;
    d
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) => "a number",
        Value::Str(_) => "a string",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a map",
    }
}

pub fn decode_fixture(path: &str, text: &str) -> Result<Fixture, Vec<Diagnostic>> {
    let root = yaml::parse(text).map_err(|e| {
        vec![Diagnostic::error(Code::InvalidYaml, format!("{path} is not valid YAML: {}", e.message)).at(path, Some(e.span))]
    })?;
    let mut errors = Vec::new();
    let Value::Map(pairs) = &root.value else {
        let what = if root.value == Value::Null { "the file is empty".to_string() } else { format!("expected a map, found {}", kind(&root.value)) };
        return Err(vec![err(path, root.span, what, Some("a fixture names its `model` and lists `given` events and `expect`ed rows".into()))]);
    };
    let mut fx = Fixture { path: path.to_string(), model: String::new(), model_span: root.span, given: Vec::new(), expect: Vec::new(), late: Vec::new(), quarantined: Vec::new() };
    let mut have_model = false;
    for (k, v) in pairs {
        let Some(key) = k.as_str() else {
            errors.push(err(path, k.span, format!("a key is {}, not a name", kind(&k.value)), None));
            continue;
        };
        match key {
            "model" => match v.scalar_text() {
                Some(m) => {
                    fx.model = m;
                    fx.model_span = v.span;
                    have_model = true;
                }
                None => errors.push(err(path, v.span, format!("`model` must be a model name, found {}", kind(&v.value)), None)),
            },
            "given" => {
                for (i, item) in list(path, v, "given", &mut errors).iter().enumerate() {
                    if let Some(g) = given_item(path, i, item, &mut errors) {
                        fx.given.push(g);
                    }
                }
            }
            "expect" => {
                for (i, item) in list(path, v, "expect", &mut errors).iter().enumerate() {
                    fx.expect.extend(expectation(path, i, item, &mut errors));
                }
            }
            "late" | "quarantined" => {
                let rows = list(path, v, key, &mut errors).iter().enumerate().filter_map(|(i, item)| row(path, &format!("{key}[{i}]"), item, &mut errors)).collect();
                if key == "late" {
                    fx.late = rows;
                } else {
                    fx.quarantined = rows;
                }
            }
            other => errors.push(unknown_key(path, other, k.span)),
        }
    }
    if !have_model && errors.is_empty() {
        errors.push(err(path, root.span, "it names no `model`".into(), Some("add `model: <name>`, the model whose output the fixture checks".into())));
    }
    if errors.is_empty() {
        Ok(fx)
    } else {
        Err(errors)
    }
}

/// `expect[i]`: a row with its `op` taken out.
fn expectation(path: &str, i: usize, item: &Node, errors: &mut Vec<Diagnostic>) -> Option<Expectation> {
    let w = format!("expect[{i}]");
    let mut row = row(path, &w, item, errors)?;
    let Some(pos) = row.columns.iter().position(|(c, _, _)| c == "op") else {
        errors.push(err(path, item.span, format!("{w}: missing `op` (one of: insert, update, delete)"), Some("add `op: insert` (or update, delete) to the row".into())));
        return None;
    };
    let (_, _, opv) = row.columns.remove(pos);
    let op = opv.scalar_text().unwrap_or_default();
    if !OPS.contains(&op.as_str()) {
        let help = match did_you_mean(&op, OPS.iter().copied()) {
            Some(s) => format!("did you mean `{s}`? the ops are insert, update (with the row after the change) and delete"),
            None => "the ops are insert, update (with the row after the change) and delete".into(),
        };
        errors.push(err(path, opv.span, format!("{w}: unknown op `{op}`"), Some(help)));
        return None;
    }
    Some(Expectation { op, row })
}

fn unknown_key(path: &str, key: &str, span: Span) -> Diagnostic {
    let list = FIXTURE_KEYS.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
    let help = match did_you_mean(key, FIXTURE_KEYS.iter().copied()) {
        Some(s) => format!("did you mean `{s}`? a fixture takes {list}"),
        None => format!("a fixture takes {list}"),
    };
    Diagnostic::error(Code::UnknownFixtureKey, format!("unknown key `{key}` in fixture {path}")).at(path, Some(span.with_len(key.len()))).help(help)
}

fn list<'n>(path: &str, v: &'n Node, what: &str, errors: &mut Vec<Diagnostic>) -> &'n [Node] {
    match &v.value {
        Value::Seq(items) => items,
        Value::Null => &[],
        other => {
            errors.push(err(path, v.span, format!("`{what}` must be a list, found {}", kind(other)), Some(format!("write `{what}:` followed by `- {{column: value, …}}` items"))));
            &[]
        }
    }
}

fn given_item(path: &str, i: usize, item: &Node, errors: &mut Vec<Diagnostic>) -> Option<GivenItem> {
    let w = format!("given[{i}]");
    if let Value::Map(pairs) = &item.value {
        if let [(k, v)] = pairs.as_slice() {
            match (k.as_str(), &v.value) {
                (Some("event"), Value::Map(_)) => return row(path, &w, v, errors).map(GivenItem::Event),
                (Some("watermark"), _) => {
                    if !valid_watermark(v) {
                        errors.push(
                            Diagnostic::error(Code::BadFixtureWatermark, format!("malformed fixture {path}: {w}: watermark `{}` is neither an RFC 3339 instant in UTC nor epoch milliseconds", v.scalar_text().unwrap_or_default()))
                                .at(path, Some(v.span))
                                .help("write an instant such as 2026-08-30T10:00:00Z, or an integer of milliseconds since the epoch"),
                        );
                        return None;
                    }
                    return Some(GivenItem::Watermark { value: v.clone(), span: item.span });
                }
                _ => {}
            }
        }
    }
    row(path, &w, item, errors).map(GivenItem::Event)
}

fn valid_watermark(v: &Node) -> bool {
    match &v.value {
        Value::Int(_) => true,
        Value::Str(s) => {
            let b = s.as_bytes();
            // YYYY-MM-DDTHH:MM:SS[.fff]Z
            b.len() >= 20
                && b.last() == Some(&b'Z')
                && b[4] == b'-' && b[7] == b'-' && (b[10] == b'T' || b[10] == b't') && b[13] == b':' && b[16] == b':'
                && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].iter().all(|&i| b[i].is_ascii_digit())
        }
        _ => false,
    }
}

fn row(path: &str, what: &str, item: &Node, errors: &mut Vec<Diagnostic>) -> Option<Row> {
    let Value::Map(pairs) = &item.value else {
        errors.push(err(path, item.span, format!("{what}: expected a map of column values, got {}", kind(&item.value)), Some("write each row as `{column: value, …}`".into())));
        return None;
    };
    let mut out = Row { span: item.span, columns: Vec::new() };
    let mut ok = true;
    for (k, v) in pairs {
        let Some(name) = k.scalar_text() else {
            errors.push(err(path, k.span, format!("{what}: a column name is {}", kind(&k.value)), None));
            ok = false;
            continue;
        };
        if matches!(v.value, Value::Map(_) | Value::Seq(_)) {
            errors.push(err(path, v.span, format!("{what}: column `{name}`: expected a scalar, got {}", kind(&v.value)), Some("column values are numbers, strings, booleans or null".into())));
            ok = false;
            continue;
        }
        out.columns.push((name, k.span, v.clone()));
    }
    ok.then_some(out)
}
