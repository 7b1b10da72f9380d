//! A YAML document as a tree of located nodes.
//!
//! serde-style decoding loses positions; project files need every key and
//! value located so that errors point at the exact line and column.
//! Scalars are resolved with YAML 1.2 core-schema rules (what the original's
//! loader uses): `yes` is a string, `1.0` a float, `~` null. [`Events`]
//! reads a document as a stream, building nodes only where asked, so that
//! a large file need not be held as a tree.

use crate::diagnostic::Span;

#[cfg(any(test, feature = "test-support"))]
pub mod agree;
pub mod block;
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
    /// Which limit of docs/limits.md the document passed, if that is the error.
    pub limit: Option<YamlLimit>,
}

/// The limits a YAML document is held to (docs/limits.md), so that no
/// document, however it nests or aliases, overflows a stack or exhausts memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlLimit {
    /// Collections nested deeper than [`MAX_YAML_DEPTH`].
    Depth,
    /// Aliases that repeat more than [`MAX_ALIAS_NODES`] nodes in all.
    Aliases,
    /// A scalar longer than [`crate::limits::MAX_VALUE_BYTES`].
    ValueSize,
}

/// How deep maps and lists may nest, aliases included. Project files nest
/// six levels at most; the YAML reader itself stops flow collections at 255.
/// Every recursive walk of a node (its clone, drop, comparison) is bounded
/// by it.
pub const MAX_YAML_DEPTH: usize = 100;

/// How many nodes aliases may repeat in one document, all aliases together:
/// ten aliases each repeating ten of the previous (a "billion laughs") would
/// otherwise build 10^10 nodes from a few lines.
pub const MAX_ALIAS_NODES: usize = 100_000;

/// Parses one YAML document. An empty document is `Null`.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    match block::document(text) {
        Some(node) => Ok(node),
        None => parse_by_parser(text),
    }
}

/// The YAML parser's reading of any document: what [`parse`] returns,
/// which reads the common shape of a project file faster ([`block`]).
pub fn parse_by_parser(text: &str) -> Result<Node, YamlError> {
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
    fn a_block_scalar_past_the_value_limit_is_located_at_its_indicator() {
        let body = format!("    {}\n", "x".repeat(1000)).repeat(crate::limits::MAX_VALUE_BYTES / 1000);
        for (header, col) in [(">", 5), ("|-", 5), ("|2 # a > comment", 5)] {
            // Blank lines between the header and the content.
            let text = format!("a: 1\nb: {header}\n\n   \n{body}c: 2\n").replace("b: ", "bb: ");
            let e = parse(&text).unwrap_err();
            assert_eq!(e.limit, Some(YamlLimit::ValueSize));
            assert_eq!((e.span.line, e.span.col, e.span.len), (2, col, 1), "{header}");
            assert_eq!(&text[e.span.offset as usize..][..1], &header[..1]);
        }
        // A plain scalar is located at its first character.
        let e = parse(&format!("a: {}\n", "x".repeat(crate::limits::MAX_VALUE_BYTES + 1))).unwrap_err();
        assert_eq!((e.span.line, e.span.col), (1, 4));
    }

    fn nested(levels: usize) -> String {
        // The top-level map is one level; each `[` one more.
        let lists = levels - 1;
        format!("a: {}1{}\n", "[".repeat(lists), "]".repeat(lists))
    }

    #[test]
    fn nesting_is_read_to_the_limit_and_refused_past_it() {
        assert!(parse(&nested(MAX_YAML_DEPTH)).is_ok());
        let e = parse(&nested(MAX_YAML_DEPTH + 1)).unwrap_err();
        assert_eq!(e.limit, Some(YamlLimit::Depth));
        assert_eq!((e.span.line, e.span.col), (1, 4 + MAX_YAML_DEPTH as u32 - 1), "at the first `[` past the limit");
    }

    #[test]
    fn block_nesting_far_past_the_limit_is_refused_without_recursion() {
        // Three million nested block lists once overflowed the stack.
        let text = format!("a:\n  {}x\n", "- ".repeat(3_000_000));
        assert_eq!(parse(&text).unwrap_err().limit, Some(YamlLimit::Depth));
    }

    /// `levels` lines, each aliasing the line above ten times.
    fn laughs(levels: usize) -> String {
        let mut text = "l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n".to_string();
        for i in 1..levels {
            text.push_str(&format!("l{i}: &l{i} [{}]\n", vec![format!("*l{}", i - 1); 10].join(", ")));
        }
        text
    }

    #[test]
    fn aliases_repeat_nodes_up_to_the_limit() {
        // Four lines repeat 110 + 1,110 + 11,110 nodes; nine would repeat
        // over a billion.
        assert!(parse(&laughs(4)).is_ok());
        assert_eq!(parse(&laughs(9)).unwrap_err().limit, Some(YamlLimit::Aliases));
        // Exactly at the limit, and one node past it.
        let at = format!("l0: &l0 [{}]\nl1: *l0\n", vec!["a"; MAX_ALIAS_NODES - 1].join(", "));
        assert!(parse(&at).is_ok());
        let past = format!("l0: &l0 [{}]\nl1: *l0\n", vec!["a"; MAX_ALIAS_NODES].join(", "));
        assert_eq!(parse(&past).unwrap_err().limit, Some(YamlLimit::Aliases));
    }

    #[test]
    fn an_alias_counts_at_the_depth_of_what_it_repeats() {
        let deep = "[".repeat(MAX_YAML_DEPTH - 2) + &"]".repeat(MAX_YAML_DEPTH - 2);
        // The anchored list is at depth 2 and nests MAX - 2 lists: at the limit.
        assert!(parse(&format!("a: &a [{deep}]\n")).is_ok());
        // Repeated one level deeper, it passes the limit.
        let e = parse(&format!("a: &a [{deep}]\nb: [*a]\n")).unwrap_err();
        assert_eq!(e.limit, Some(YamlLimit::Depth));
    }

    #[test]
    fn syntax_errors_are_located() {
        let e = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(e.span.line >= 1);
    }
}
