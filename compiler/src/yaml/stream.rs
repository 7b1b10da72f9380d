//! A YAML document read as a stream of located events. A caller walks the
//! structure it cares about and asks for a [`Node`] only of the parts it
//! keeps, so a 20 MB fixture is never a tree of every scalar.

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span as MarkedSpan, StrInput};

use super::{resolve_plain, Node, Value, YamlError, YamlLimit, MAX_ALIAS_NODES, MAX_YAML_DEPTH};
use crate::diagnostic::Span;
use crate::limits::MAX_VALUE_BYTES;

/// One event of the document with its span (a scalar on one line, or a
/// flow collection's start, carries its length once it closes).
pub struct Located<'t> {
    pub event: Event<'t>,
    pub span: Span,
    end: Span,
}

impl Located<'_> {
    /// Whether the event opens a map or a list.
    pub fn opens(&self) -> bool {
        matches!(self.event, Event::MappingStart(..) | Event::SequenceStart(..))
    }

    pub fn is_end(&self) -> bool {
        matches!(self.event, Event::MappingEnd | Event::SequenceEnd)
    }

    /// A plain or quoted scalar's text.
    pub fn scalar(&self) -> Option<&str> {
        match &self.event {
            Event::Scalar(s, ..) => Some(s),
            _ => None,
        }
    }
}

pub struct Events<'t> {
    parser: Parser<'t, StrInput<'t>>,
    text: &'t str,
    offsets: CharOffsets<'t>,
    /// Where `text` starts in the file it was cut from: (line - 1, byte offset).
    base: (u32, u32),
    anchors: Vec<(usize, Node)>,
    documents: usize,
    /// An anchor or alias was seen (a later cut of the text may not resolve it).
    pub saw_anchor: bool,
    /// Collections open at the current event.
    depth: usize,
    /// Nodes that aliases have repeated so far.
    repeated: usize,
}

impl<'t> Events<'t> {
    pub fn new(text: &'t str) -> Self {
        Events::cut(text, 0, text.len(), 1)
    }

    /// Reads `file[offset..end]`, which starts at the start of line `line`,
    /// locating spans in the whole file.
    pub fn cut(file: &'t str, offset: usize, end: usize, line: u32) -> Self {
        let text = &file[offset..end];
        Events {
            parser: Parser::new_from_str(text),
            text,
            offsets: CharOffsets::new(text),
            base: (line - 1, offset as u32),
            anchors: Vec::new(),
            documents: 0,
            saw_anchor: false,
            depth: 0,
            repeated: 0,
        }
    }

    fn span_at(&mut self, m: &Marker) -> Span {
        let offset = self.offsets.byte_offset(m.index()) as u32 + self.base.1;
        Span { line: m.line().max(1) as u32 + self.base.0, col: m.col() as u32 + 1, offset, len: 0 }
    }

    /// The next event of the document's content: stream and document
    /// markers are skipped, a second document is an error, `None` at the end.
    pub fn next(&mut self) -> Result<Option<Located<'t>>, YamlError> {
        loop {
            let Some(item) = self.parser.next_event() else { return Ok(None) };
            let (event, span): (Event<'t>, MarkedSpan) = item.map_err(|e| {
                let span = self.span_at(e.marker());
                YamlError { message: e.info().to_string(), span, limit: None }
            })?;
            let mut start = self.span_at(&span.start);
            match event {
                Event::StreamStart | Event::DocumentEnd | Event::Nothing => continue,
                Event::StreamEnd => return Ok(None),
                Event::DocumentStart(_) => {
                    self.documents += 1;
                    if self.documents > 1 {
                        return Err(YamlError { message: "a project file holds one YAML document; found a second `---`".into(), span: start, limit: None });
                    }
                    continue;
                }
                _ => {}
            }
            let end = self.span_at(&span.end);
            if matches!(event, Event::Scalar(..)) && span.end.line() == span.start.line() {
                start.len = end.offset.saturating_sub(start.offset);
            }
            if matches!(event, Event::Alias(_) | Event::Scalar(_, _, 1.., _) | Event::SequenceStart(1.., _) | Event::MappingStart(1.., _)) {
                self.saw_anchor = true;
            }
            // Counted here, as the reader goes, so that no caller builds or
            // walks a tree deeper than the limit.
            match &event {
                Event::Scalar(text, style, ..) if text.len() > MAX_VALUE_BYTES => {
                    let message = format!("this value is {} bytes, more than the limit of {MAX_VALUE_BYTES}", text.len());
                    let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
                    let span = if block { self.block_header(start).unwrap_or(start) } else { start };
                    return Err(YamlError { message, span, limit: Some(YamlLimit::ValueSize) });
                }
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    self.depth += 1;
                    if self.depth > MAX_YAML_DEPTH {
                        return Err(too_deep(start));
                    }
                }
                Event::MappingEnd | Event::SequenceEnd => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            return Ok(Some(Located { event, span: start, end }));
        }
    }

    /// Where a block scalar (`|` or `>`) whose content starts at `content`
    /// begins: its indicator, on the last line before the content that is
    /// not blank. The parser places the scalar at its first content line.
    fn block_header(&self, content: Span) -> Option<Span> {
        let local = (content.offset - self.base.1) as usize;
        let before = self.text.get(..local)?;
        let mut end = before.rfind('\n')?;
        let mut line = content.line;
        loop {
            line -= 1;
            let start = before[..end].rfind('\n').map_or(0, |i| i + 1);
            let text = &before[start..end];
            if !text.trim().is_empty() {
                let code = text.find(" #").map_or(text, |i| &text[..i]);
                let at = code.rfind(['|', '>'])?;
                let col = text[..at].chars().count() as u32 + 1;
                return Some(Span { line, col, offset: (start + at) as u32 + self.base.1, len: 1 });
            }
            end = start.checked_sub(1)?;
        }
    }

    fn expect_next(&mut self) -> Result<Located<'t>, YamlError> {
        let at = Span { line: self.base.0 + 1, col: 1, offset: (self.base.1 as usize + self.text.len()) as u32, len: 0 };
        self.next()?.ok_or(YamlError { message: "the document ends inside a collection".into(), span: at, limit: None })
    }

    /// The node that `first` starts: a scalar, an alias, or a collection
    /// read to its end.
    pub fn node(&mut self, first: Located<'t>) -> Result<Node, YamlError> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut ev = first;
        loop {
            let node = match ev.event {
                Event::Scalar(text, style, anchor, _tag) => {
                    let value = if style == ScalarStyle::Plain { resolve_plain(&text) } else { Value::Str(text.into_owned()) };
                    self.anchored(anchor, Node { span: ev.span, value })
                }
                Event::Alias(id) => match self.anchors.iter().rev().find(|(a, _)| *a == id) {
                    Some((_, n)) => {
                        // Measured before it is copied: a copy past either
                        // limit is never built.
                        let budget = MAX_ALIAS_NODES - self.repeated;
                        match measure(&n.value, MAX_YAML_DEPTH - self.depth, budget) {
                            Ok(nodes) => self.repeated += nodes,
                            Err(limit) => return Err(if limit == YamlLimit::Depth { too_deep(ev.span) } else { too_many_repeated(ev.span) }),
                        }
                        Node { span: ev.span, value: n.value.clone() }
                    }
                    None => return Err(YamlError { message: "alias to an unknown anchor".into(), span: ev.span, limit: None }),
                },
                Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                    let is_map = matches!(ev.event, Event::MappingStart(..));
                    stack.push(Frame { span: ev.span, anchor, items: Vec::new(), is_map });
                    ev = self.expect_next()?;
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let frame = stack.pop().expect("an end closes an open collection");
                    self.close(frame, &ev.end)
                }
                _ => unreachable!("next() yields only content events"),
            };
            match stack.last_mut() {
                Some(frame) => frame.items.push(node),
                None => return Ok(node),
            }
            ev = self.expect_next()?;
        }
    }

    /// Reads past the node that `first` starts, building nothing but
    /// the anchored parts a later alias may name.
    pub fn skip(&mut self, first: Located<'t>) -> Result<(), YamlError> {
        let mut depth = 0usize;
        let mut ev = first;
        loop {
            if matches!(ev.event, Event::Scalar(_, _, 1.., _) | Event::SequenceStart(1.., _) | Event::MappingStart(1.., _)) {
                self.node(ev)?;
            } else if ev.opens() {
                depth += 1;
            } else if ev.is_end() {
                // An end with nothing open (what follows the root of a cut
                // entry) ends the skip too.
                depth = depth.saturating_sub(1);
            }
            if depth == 0 {
                return Ok(());
            }
            ev = self.expect_next()?;
        }
    }

    /// The rest of the document: nothing but its end (a second document is
    /// an error, as is any syntax error after the root).
    pub fn finish(&mut self) -> Result<(), YamlError> {
        while let Some(ev) = self.next()? {
            self.skip(ev)?;
        }
        Ok(())
    }

    /// A collection's frame as a node, ending at `end`.
    fn close(&mut self, mut frame: Frame, end: &Span) -> Node {
        // A flow collection on one line (`{connector: kafka}`) is marked whole.
        let local = (frame.span.offset - self.base.1) as usize;
        if end.line == frame.span.line && matches!(self.text.as_bytes().get(local), Some(b'{' | b'[')) {
            frame.span.len = end.offset.saturating_sub(frame.span.offset);
        }
        let value = if frame.is_map {
            let mut pairs = Vec::with_capacity(frame.items.len() / 2);
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

fn too_deep(span: Span) -> YamlError {
    YamlError { message: format!("maps and lists nest deeper than {MAX_YAML_DEPTH} levels here"), span, limit: Some(YamlLimit::Depth) }
}

fn too_many_repeated(span: Span) -> YamlError {
    YamlError { message: format!("aliases repeat more than {MAX_ALIAS_NODES} nodes in all, this one included"), span, limit: Some(YamlLimit::Aliases) }
}

/// The nodes of `value`, when it nests at most `depth` levels and holds at
/// most `budget` nodes; else the limit it passes. Walks without recursion
/// and stops at the first node past either limit.
fn measure(value: &Value, depth: usize, budget: usize) -> Result<usize, YamlLimit> {
    let mut nodes = 0usize;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, level)) = stack.pop() {
        nodes += 1;
        if nodes > budget {
            return Err(YamlLimit::Aliases);
        }
        let children: Box<dyn Iterator<Item = &Node>> = match v {
            Value::Seq(items) => Box::new(items.iter()),
            Value::Map(pairs) => Box::new(pairs.iter().flat_map(|(k, v)| [k, v])),
            _ => continue,
        };
        if level + 1 > depth {
            return Err(YamlLimit::Depth);
        }
        stack.extend(children.map(|c| (&c.value, level + 1)));
    }
    Ok(nodes)
}

struct Frame {
    span: Span,
    anchor: usize,
    items: Vec<Node>,
    is_map: bool,
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
