//! The fast readers held to the parser: where [`block`] takes a document,
//! or [`lines`] a fixture line, it must build exactly the parser's nodes,
//! spans included. The one comparison the unit tests, the sweep over the
//! test projects and the fuzz targets share.

use super::{block, lines, parse_by_parser, Value};

/// Whether the block reader takes `doc`; an error when it does and its
/// tree is not the parser's.
pub fn block_document(doc: &str) -> Result<bool, String> {
    let Some(fast) = block::document(doc) else { return Ok(false) };
    // Debug text, so that NaN equals NaN.
    let (fast, slow) = (format!("{fast:?}"), parse_by_parser(doc).map(|n| format!("{n:?}")).map_err(|e| e.message));
    match slow {
        Ok(slow) if slow == fast => Ok(true),
        slow => Err(format!("document {doc:?}:\n the block reader: {fast}\n the parser: {slow:?}")),
    }
}

/// Whether the fixture line reader takes `line` as a list's item (under a
/// key at column 1, as in a fixture); an error when it does and its node
/// is not the one the parser reads there.
pub fn fixture_line(line: &str) -> Result<bool, String> {
    let doc = format!("k:\n{line}\n");
    let Some(fast) = lines::flow_map(&doc, 3, 2) else { return Ok(false) };
    let fast = format!("{fast:?}");
    let slow = parse_by_parser(&doc).ok().and_then(|root| match root.value {
        Value::Map(pairs) => match pairs.as_slice() {
            [(_, v)] => match &v.value {
                Value::Seq(items) if items.len() == 1 => Some(format!("{:?}", items[0])),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    });
    match slow {
        Some(slow) if slow == fast => Ok(true),
        slow => Err(format!("line {line:?}:\n the line reader: {fast}\n the parser: {slow:?}")),
    }
}
