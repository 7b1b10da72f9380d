//! The line reader against the parser: on every line it accepts, it must
//! build exactly the parser's node, spans included.

use super::*;
use crate::yaml::agree::fixture_line;

pub(in crate::yaml) const KEYS: &[&str] = &["a", "customer_id", "\"b\"", "'c'", "_x", "a.b", "-k", "op", "1"];
pub(in crate::yaml) const VALUES: &[&str] = &[
    "1", "-1", "1.5", "-.5", "1e3", "0x1F", "0o17", "true", "True", "null", "~", "yes", "\"10.00\"", "'x'", "\"a b\"", "''", "\"\"", "2024-01-01T00:00:00Z",
    "hello world", "a:b", "a: b", "http://x", "-", "- x", ".inf", "-.inf", ".nan", "+1", "1_000", "foo  bar", "\"a\\\"b\"", "'it''s'", "[1]", "{a: 1}", "a#b",
    "a #b", "&x 1", "*x", "!t 1", "?x", ":x", "%x", "@x", "`x", "|", ">", "-0.50", "'-0.50'", "1704067200500", "99999999999999999999999999999999999999999",
    "0.30000000000000004", "x y ", "a?", "a-b", "-x", "+.5", "..", "\"a'b\"", "'a\"b'", "a'b",
    // After a space the parser may start a new scalar: `x -}` is refused.
    "x -", "x -y", "a - b", "x ?", "x :", "x :y", "x ,", "x &y", "x !", "x |", "x %",
];
const SEPS: &[&str] = &[", ", ",", " , ", ",  "];
const TRAILERS: &[&str] = &["}", "} # c", "}#c", "}  ", ",}", ", }", "} x", "}}"];
const INDENTS: &[&str] = &["- ", "  - ", "-  ", "-", " -\t"];

fn check(line: &str, accepted: &mut usize) {
    if fixture_line(line).unwrap_or_else(|e| panic!("{e}")) {
        *accepted += 1;
    }
}

#[test]
fn accepted_lines_are_read_as_the_parser_reads_them() {
    let mut accepted = 0;
    let mut lines = 0;
    for indent in INDENTS {
        for k in KEYS {
            for v in VALUES {
                for t in TRAILERS {
                    check(&format!("{indent}{{{k}: {v}{t}"), &mut accepted);
                    lines += 1;
                }
            }
        }
    }
    // Two and three pairs, picked by a fixed LCG.
    let mut seed: u64 = 7;
    let mut pick = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for _ in 0..20000 {
        let pairs = 2 + pick(2);
        let mut line = format!("{}{{", INDENTS[pick(3)]);
        for p in 0..pairs {
            if p > 0 {
                line.push_str(SEPS[pick(SEPS.len())]);
            }
            line.push_str(&format!("{}: {}", KEYS[pick(KEYS.len())], VALUES[pick(VALUES.len())]));
        }
        line.push_str(TRAILERS[pick(TRAILERS.len())]);
        check(&line, &mut accepted);
        lines += 1;
    }
    // Most generated lines are odd on purpose; the test must still bite.
    assert!(accepted * 10 > lines, "accepted {accepted} of {lines}");
}

#[test]
fn typical_fixture_lines_are_accepted() {
    for line in [
        "- {customer_id: 1, amount: \"10.00\"}",
        "  - {op: update, customer_id: 7, total_spend: '1234.56'}",
        "- {user_id: 1, ts: '2024-01-01T00:00:00Z'}  # first",
        "- {watermark: 2024-01-01T00:00:10Z}",
        "- {}",
    ] {
        let mut n = 0;
        check(line, &mut n);
        assert_eq!(n, 1, "{line}");
    }
}

#[test]
fn entries_split_a_block_map_at_column_one() {
    let text = "model: m\n# note\ngiven:\n- {a: 1}\n  # inside\nexpect: []\n";
    let e = root_entries(text).unwrap();
    assert_eq!(e.iter().map(|e| (&text[e.start..e.end], e.line)).collect::<Vec<_>>(), [("model: m\n# note\n", 1), ("given:\n- {a: 1}\n  # inside\n", 3), ("expect: []\n", 6)]);
    assert_eq!(list_key(text, e[1]), Some(("given", 23)));
    assert_eq!(list_key(text, e[2]), None);
    for flow in ["{model: m}", "---\nmodel: m\n", "%YAML 1.2\n---\nmodel: m\n", "- a\n"] {
        assert_eq!(root_entries(flow), None, "{flow:?}");
    }
}
