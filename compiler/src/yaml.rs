//! A YAML document as a tree of located nodes.
//!
//! serde-style decoding loses positions; project files need every key and
//! value located so that errors point at the exact line and column.
//! Scalars are resolved with YAML 1.2 core-schema rules (what the original's
//! loader uses): `yes` is a string, `1.0` a float, `~` null.

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span as MarkedSpan};

use crate::diagnostic::Span;

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
    let mut tree = Tree::new(text);
    for item in Parser::new_from_str(text) {
        let (event, span) = item.map_err(|e| YamlError { message: e.info().to_string(), span: tree.span_at(e.marker()) })?;
        tree.push(event, span)?;
    }
    Ok(tree.root.unwrap_or(Node { span: Span::new(1, 1, 0), value: Value::Null }))
}

/// The tree as parser events build it: open collections on a stack,
/// anchored nodes for aliases, the root once it closes.
struct Tree<'t> {
    text: &'t str,
    offsets: CharOffsets<'t>,
    stack: Vec<Frame>,
    anchors: Vec<(usize, Node)>,
    root: Option<Node>,
    documents: usize,
}

struct Frame {
    span: Span,
    anchor: usize,
    items: Vec<Node>,
    is_map: bool,
}

impl<'t> Tree<'t> {
    fn new(text: &'t str) -> Self {
        Tree { text, offsets: CharOffsets::new(text), stack: Vec::new(), anchors: Vec::new(), root: None, documents: 0 }
    }

    fn span_at(&mut self, m: &Marker) -> Span {
        Span { line: m.line().max(1) as u32, col: m.col() as u32 + 1, offset: self.offsets.byte_offset(m.index()) as u32, len: 0 }
    }

    /// One parser event: a scalar or alias becomes a node, a collection
    /// opens or closes, a second document is an error.
    fn push(&mut self, event: Event<'_>, span: MarkedSpan) -> Result<(), YamlError> {
        let mut sp = self.span_at(&span.start);
        if matches!(event, Event::Scalar(..)) && span.end.line() == span.start.line() {
            let end = self.span_at(&span.end);
            sp.len = end.offset.saturating_sub(sp.offset);
        }
        let node = match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(YamlError { message: "a project file holds one YAML document; found a second `---`".into(), span: sp });
                }
                return Ok(());
            }
            Event::Scalar(text_value, style, anchor, _tag) => {
                let value = if style == ScalarStyle::Plain { resolve_plain(&text_value) } else { Value::Str(text_value.into_owned()) };
                self.anchored(anchor, Node { span: sp, value })
            }
            Event::Alias(id) => match self.anchors.iter().rev().find(|(a, _)| *a == id) {
                Some((_, n)) => Node { span: sp, value: n.value.clone() },
                None => return Err(YamlError { message: "alias to an unknown anchor".into(), span: sp }),
            },
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let is_map = matches!(event, Event::MappingStart(..));
                self.stack.push(Frame { span: sp, anchor, items: Vec::new(), is_map });
                return Ok(());
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(&span.end),
            _ => return Ok(()),
        };
        match self.stack.last_mut() {
            Some(frame) => frame.items.push(node),
            None => self.root = Some(node),
        }
        Ok(())
    }

    /// The innermost open collection, ending at `end`, as a node.
    fn close(&mut self, end: &Marker) -> Node {
        let mut frame = self.stack.pop().expect("balanced events");
        // A flow collection on one line (`{connector: kafka}`) is marked whole.
        let end = self.span_at(end);
        if end.line == frame.span.line && matches!(self.text.as_bytes().get(frame.span.offset as usize), Some(b'{' | b'[')) {
            frame.span.len = end.offset.saturating_sub(frame.span.offset);
        }
        let value = if frame.is_map {
            let mut pairs = Vec::new();
            let mut it = frame.items.into_iter();
            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                pairs.push((k, v));
            }
            Value::Map(pairs)
        } else {
            Value::Seq(frame.items)
        };
        self.anchored(frame.anchor, Node { span: frame.span, value })
    }

    /// `node`, remembered for aliases when it carries an anchor.
    fn anchored(&mut self, anchor: usize, node: Node) -> Node {
        if anchor > 0 {
            self.anchors.push((anchor, node.clone()));
        }
        node
    }
}

/// saphyr's markers count characters; spans also carry a byte offset.
/// Markers arrive mostly in increasing order, so a cursor makes the
/// conversion linear overall.
struct CharOffsets<'t> {
    text: &'t str,
    ascii: bool,
    chars: usize,
    bytes: usize,
}

impl<'t> CharOffsets<'t> {
    fn new(text: &'t str) -> Self {
        CharOffsets { text, ascii: text.is_ascii(), chars: 0, bytes: 0 }
    }

    fn byte_offset(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        if char_index < self.chars {
            self.chars = 0;
            self.bytes = 0;
        }
        for ch in self.text[self.bytes..].chars() {
            if self.chars == char_index {
                break;
            }
            self.chars += 1;
            self.bytes += ch.len_utf8();
        }
        self.bytes
    }
}

fn resolve_plain(s: &str) -> Value {
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
