//! A YAML document as a tree of located nodes.
//!
//! serde-style decoding loses positions; project files need every key and
//! value located so that errors point at the exact line and column.
//! Scalars are resolved with YAML 1.2 core-schema rules (what the original's
//! loader uses): `yes` is a string, `1.0` a float, `~` null. [`Events`]
//! reads a document as a stream, building nodes only where asked, so that
//! a large file need not be held as a tree.

use crate::diagnostic::Span;

pub mod lines;
mod stream;

pub use stream::{Events, Located};

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// How a value is described in "expected X, got Y" errors.
    pub fn describe(&self) -> String {
        match self {
            Value::Null => "nothing (null)".to_string(),
            Value::Bool(b) => format!("the boolean {b}"),
            Value::Int(i) => format!("the integer {i}"),
            Value::Float(f) => format!("the number {f}"),
            Value::Str(s) => format!("the string \"{s}\""),
            Value::Seq(_) => "a list".to_string(),
            Value::Map(_) => "a map".to_string(),
        }
    }
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The text of a scalar as written (for strings that YAML typed otherwise,
    /// e.g. a topic named `123`).
    pub fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::Str(s) => Some(s.clone()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct YamlError {
    pub message: String,
    pub span: Span,
}

/// Parses one YAML document. An empty document is `Null`.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    let mut events = Events::new(text);
    let root = match events.next()? {
        Some(first) => events.node(first)?,
        None => Node { span: Span::new(1, 1, 0), value: Value::Null },
    };
    events.finish()?;
    Ok(root)
}

pub(crate) fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = s.parse::<i128>() {
            return Value::Int(i);
        }
    }
    if let Some(hex) = s.strip_prefix("0x") {
        if let Ok(i) = i128::from_str_radix(hex, 16) {
            return Value::Int(i);
        }
    }
    if let Some(oct) = s.strip_prefix("0o") {
        if let Ok(i) = i128::from_str_radix(oct, 8) {
            return Value::Int(i);
        }
    }
    let looks_float = digits.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && digits.bytes().any(|b| b.is_ascii_digit());
    if looks_float {
        if let Ok(f) = s.parse::<f64>() {
            return Value::Float(f);
        }
    }
    Value::Str(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_resolve_like_yaml_1_2() {
        let n = parse("a: 1\nb: 1.0\nc: \"1\"\nd: yes\ne: ~\nf: [x, 2]\n").unwrap();
        let m = n.as_map().unwrap();
        assert_eq!(m[0].1.value, Value::Int(1));
        assert_eq!(m[1].1.value, Value::Float(1.0));
        assert_eq!(m[2].1.value, Value::Str("1".into()));
        assert_eq!(m[3].1.value, Value::Str("yes".into()));
        assert_eq!(m[4].1.value, Value::Null);
        assert_eq!(m[1].1.span.line, 2);
        assert_eq!(m[1].1.span.col, 4);
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(e.span.line >= 1);
    }
}
