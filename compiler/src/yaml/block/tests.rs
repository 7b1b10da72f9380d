//! The block reader against the parser: on every document it accepts, it
//! must build exactly the parser's node, spans included.

use super::document;
use crate::yaml::agree::block_document;
use crate::yaml::lines::tests::{KEYS, VALUES};

/// Checks one document; true when the reader took it.
fn same(doc: &str) -> bool {
    block_document(doc).unwrap_or_else(|e| panic!("{e}"))
}

const FLOWS: &[&str] = &["[k]", "[a, b]", "[]", "[ k , j ]", "[a,]", "[\"x\", 'y']", "[1, 2.5, true, ~]", "{}", "{a: 1}", "{a: 1, b: x}", "[[a]]", "[a: b]", "{a: [b]}", "[a] x", "{a: 1}}"];
const TRAILERS: &[&str] = &["", "", "", "", " ", "  ", " # c", "# c", "  #c", " #", " # ü"];
const GAPS: &[&str] = &["\n", "  \n", "# note\n", "   # note\n", "#ü\n", "\n", "  \n", "# note\n", "   # note\n", "#ü\n", "\t\n"];

/// A fixed LCG, so that every run checks the same documents.
struct Pick(u64);

impl Pick {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }

    fn one<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len())]
    }
}

/// A scalar, usually a plain one of a project file.
fn value<'a>(p: &mut Pick) -> &'a str {
    if p.below(4) == 0 {
        p.one(VALUES)
    } else {
        p.one(&["kafka", "upsert", "5s", "1h", "out_m_00001", "decimal(12,2)", "int64", "\"127.0.0.1:9092\"", "'totals-v2'", "12", "x:y", "a,b", "http://h:1/p"])
    }
}

/// A random document near the subset: mostly in it, sometimes one step out.
fn document_text(p: &mut Pick) -> String {
    let mut out = String::new();
    block(p, &mut out, 0, 0);
    out
}

fn block(p: &mut Pick, out: &mut String, indent: usize, depth: usize) {
    for _ in 0..1 + p.below(4) {
        if p.below(8) == 0 {
            out.push_str(&" ".repeat(p.below(indent + 3)));
            out.push_str(p.one(GAPS));
        }
        let pad = if p.below(40) == 0 { indent + 1 } else { indent };
        out.push_str(&" ".repeat(pad));
        let key = if p.below(12) == 0 { p.one(KEYS) } else { p.one(&["a", "b", "m_00001", "sink", "key", "x.y", "k-1", "1", "true", "null"]) };
        out.push_str(key);
        out.push_str(if p.below(30) == 0 { p.one(&[" :", ":x", "::"]) } else { ":" });
        match p.below(10) {
            0..=3 => {
                out.push(' ');
                out.push_str(value(p));
                out.push_str(p.one(TRAILERS));
                out.push('\n');
            }
            4 | 5 => {
                out.push_str(p.one(&[" ", "  "]));
                out.push_str(p.one(FLOWS));
                out.push_str(p.one(TRAILERS));
                out.push('\n');
            }
            6 => {
                out.push_str(p.one(TRAILERS));
                out.push('\n');
            }
            7 if depth < 4 => {
                out.push_str(p.one(TRAILERS));
                out.push('\n');
                let inner = indent + p.one(&["-", "1", "2", "2", "4"]).parse::<usize>().unwrap_or(0);
                for _ in 0..1 + p.below(3) {
                    out.push_str(&" ".repeat(inner));
                    out.push_str(p.one(&["- ", "- ", "-  ", "-", "-x"]));
                    out.push_str(if p.below(3) == 0 { p.one(FLOWS) } else { value(p) });
                    out.push_str(p.one(TRAILERS));
                    out.push('\n');
                }
            }
            _ if depth < 4 => {
                out.push_str(p.one(TRAILERS));
                out.push('\n');
                let inner = indent + 1 + p.below(4);
                block(p, out, inner, depth + 1);
                if p.below(30) == 0 {
                    // A continuation line, or a line between two indentations.
                    out.push_str(&" ".repeat(indent + 1));
                    out.push_str("z\n");
                }
            }
            _ => out.push('\n'),
        }
    }
}

#[test]
fn accepted_documents_are_read_as_the_parser_reads_them() {
    let mut p = Pick(11);
    let (mut accepted, total) = (0, 40_000);
    for _ in 0..total {
        let mut doc = document_text(&mut p);
        if p.below(20) == 0 {
            // Without its last newline.
            doc.pop();
        }
        accepted += same(&doc) as usize;
    }
    // The generator stays near the subset: most documents are in it.
    assert!(accepted > total / 10, "only {accepted} of {total} documents were read");
}

#[test]
fn project_files_are_in_the_subset() {
    let streamform = "name: shop\nversion: 1\n\n# models\nmodels:\n  totals:\n    materialized: upsert\n    key: [customer_id]\n    retention: 1h  # a day is too long\n    sink:\n      connector: kafka\n      topic: 'totals-v2'\n  raw:\n  big_orders:\n    warnings:\n      allow: [W0766]\ntargets:\n  dev:\n    kafka:\n      bootstrap_servers: \"127.0.0.1:9092\"\n      properties:\n        - acks=all\n";
    let sources = "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    key: [order_id]\n    event_time: ts\n    watermark: 5s\n    schema:\n      order_id: int64\n      amount: decimal(12,2)\n      ts: timestamp\n";
    for doc in [streamform, sources] {
        assert!(same(doc), "{doc}");
    }
}

#[test]
fn documents_outside_the_subset_are_left_to_the_parser() {
    for doc in [
        "",
        "# only a comment\n",
        "---\na: 1\n",
        "a: 1\n---\nb: 2\n",
        "  a: 1\n",
        "- a\n",
        "a: &x 1\nb: *x\n",
        "a: |\n  text\n",
        "a: x\n  y\n",
        "a:\n- 1\n",
        "a:\n    b: 1\n  c: 2\n",
        "a:\n  - b: 1\n",
        "a: \"x\\ty\"\n",
        "a: 'it''s'\n",
        "a:\tb\n",
        "a: b\r\n",
        "a: ü\n",
        "\"a\": 1\n",
        "a b: 1\n",
    ] {
        assert_eq!(document(doc), None, "{doc:?}");
    }
}

#[test]
fn control_characters_are_left_to_the_parser() {
    for c in (0u8..32).chain([127]).filter(|&c| c != b'\n') {
        let c = c as char;
        for doc in [format!("a: b{c}c\n"), format!("a: b{c}\n"), format!("a{c}: b\n"), format!("# x{c}\na: 1\n"), format!("a: [b{c}]\n"), format!("a: 'b{c}'\n")] {
            // Tabs are read in comments.
            let expected = c == '\t' && doc.starts_with('#');
            assert_eq!(document(&doc).is_some(), expected, "{doc:?}");
            same(&doc);
        }
    }
}

/// `document_without` reads the document as `document` reads it with the
/// skipped lines blanked: every run of whole lines of generated documents.
#[test]
fn lines_left_out_read_as_blank_lines() {
    let mut p = Pick(11);
    let mut checked = 0;
    for _ in 0..3_000 {
        let doc = document_text(&mut p);
        let starts: Vec<usize> = std::iter::once(0).chain(doc.match_indices('\n').map(|(i, _)| i + 1)).filter(|&i| i <= doc.len()).collect();
        let from = starts[p.below(starts.len())];
        let to = *starts.iter().filter(|&&s| s >= from).nth(p.below(3)).unwrap_or(&doc.len());
        let blanked: String = doc.char_indices().map(|(i, c)| if (from..to).contains(&i) && c != '\n' { ' ' } else { c }).collect();
        let lines_before_end = doc[..to].matches('\n').count() as u32 + u32::from(to == doc.len() && !doc.ends_with('\n') && !doc.is_empty());
        let expected = if doc[from..to].is_ascii() { document(&blanked) } else { None };
        if expected.is_some() {
            // Compared as printed: a `.nan` is not equal to itself.
            assert_eq!(format!("{:?}", super::document_without(&doc, from..to, lines_before_end)), format!("{expected:?}"), "lines {from}..{to} of:\n{doc}");
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} documents read");
}
