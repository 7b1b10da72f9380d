//! A pure leaf: the `${VAR}` and `${VAR:-default}` references of
//! `streamform.yml` values, where in the file each one is, and **which
//! values are secret**. Resolving them against an environment is
//! `target.rs`'s; this module knows no environment.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::diagnostic::Span;

/// One `${…}` in a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference<'a> {
    pub var: &'a str,
    pub default: Option<&'a str>,
    /// Byte range of the whole `${…}` in the value.
    pub range: Range<usize>,
}

/// Why a value's `${…}` cannot be read: the byte range in the value, and what is wrong.
pub type Malformed = (Range<usize>, String);

/// Whether a value refers to the environment at all.
pub fn has_reference(value: &str) -> bool {
    value.contains("${")
}

/// The references of a value, in order. Every `${` starts one (there is no
/// escape: no connection setting needs a literal `${`).
pub fn references(value: &str) -> Result<Vec<Reference<'_>>, Malformed> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = value[from..].find("${").map(|i| i + from) {
        let Some(close) = value[i..].find('}').map(|c| c + i) else {
            return Err((i..value.len(), "`${` is not closed by `}`".into()));
        };
        let inner = &value[i + 2..close];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        if !is_variable_name(var) {
            return Err((i..close + 1, format!("`{var}` is not a variable name (letters, digits and `_`, not starting with a digit)")));
        }
        if default.is_some_and(|d| d.contains("${")) {
            return Err((i..close + 1, "a default cannot hold another `${…}`".into()));
        }
        out.push(Reference { var, default, range: i..close + 1 });
        from = close + 1;
    }
    Ok(out)
}

fn is_variable_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic()) && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Every variable a configuration text names, valid references only: the
/// files table reads exactly these from the environment, nothing else.
pub fn referenced_variables(text: &str) -> BTreeSet<String> {
    // One pass over the whole text: a search started on each line of a
    // large `streamform.yml` cost more than the references it finds.
    let mut out = BTreeSet::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("${").map(|i| i + from) {
        // A reference ends at its `}` or, unclosed, at the end of its line.
        let line_end = text[i..].find('\n').map_or(text.len(), |n| i + n);
        let end = text[i..line_end].find('}').map_or(line_end, |c| i + c + 1);
        if let Ok(refs) = references(&text[i..end]) {
            out.extend(refs.iter().map(|r| r.var.to_string()));
        }
        from = end.max(i + 2);
    }
    out
}

/// Where `part` (a piece of the scalar `node_span` holds) is in the file:
/// found in the scalar's source text, else the whole scalar (an escaped
/// quoted scalar whose text differs from its value).
pub fn locate(file_text: &str, node_span: Span, part: &str) -> Span {
    let start = node_span.offset as usize;
    let end = (start + node_span.len as usize).min(file_text.len());
    match file_text.get(start..end).and_then(|src| src.find(part)) {
        Some(i) => Span::at_offset(file_text, start + i, part.len()),
        None => node_span,
    }
}

/// Whether a connector property's name says it holds a credential: such a
/// property must take its value from the environment (`${…}`), never from
/// the file, which is committed.
pub fn names_a_credential(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ["password", "secret", "token", "jaas", "credential", "apikey", "api.key"].iter().any(|w| k.contains(w))
}

/// Whether a connector property's value is secret: every value that refers
/// to the environment. It is written and printed as written (its
/// placeholder, `${KAFKA_SASL_JAAS}`); only `apply` sends it resolved.
/// Connection settings (`gateway`, `bootstrap_servers`, topics) are
/// addresses, not secrets: they are printed resolved.
pub fn is_secret_property(value: &str) -> bool {
    has_reference(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_defaults() {
        let r = references("a${X}b${Y_1:-d:e}").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].var, r[0].default, r[0].range.clone()), ("X", None, 1..5));
        assert_eq!((r[1].var, r[1].default), ("Y_1", Some("d:e")));
        assert_eq!(references("${X:-}").unwrap()[0].default, Some(""));
        assert!(references("plain $HOME").unwrap().is_empty());
    }

    #[test]
    fn malformed_references() {
        assert_eq!(references("x${ABC").unwrap_err().0, 1..6);
        assert!(references("${1A}").unwrap_err().1.contains("not a variable name"));
        assert!(references("${}").is_err());
        assert!(references("${A-b}").is_err());
    }

    #[test]
    fn variables_named_by_a_file() {
        let text = "a: ${A}\nb: \"x ${B:-1} ${C}\"\nc: ${bad name}\nd: ${D";
        assert_eq!(referenced_variables(text).into_iter().collect::<Vec<_>>(), vec!["A", "B", "C"]);
        // A reference does not run past its line.
        let text = "a: ${A\nb: ${B}\r\nc: ${C\r\nd: x}${D}\re: ${E}";
        assert_eq!(referenced_variables(text).into_iter().collect::<Vec<_>>(), vec!["B", "D", "E"]);
    }

    /// The one-pass scan finds what a scan of each line finds.
    #[test]
    fn one_pass_equals_line_by_line() {
        let by_line = |text: &str| {
            let mut out = BTreeSet::new();
            for line in text.lines() {
                let mut rest = line;
                while let Some(i) = rest.find("${") {
                    rest = &rest[i..];
                    let end = rest.find('}').map_or(rest.len(), |c| c + 1);
                    if let Ok(refs) = references(&rest[..end]) {
                        out.extend(refs.iter().map(|r| r.var.to_string()));
                    }
                    rest = &rest[end.max(2)..];
                }
            }
            out
        };
        let pieces = ["${", "}", "A", "b_1", "\n", "\r", "\r\n", " ", ":-", "1", "$", "{", "${A}", "${b_1:-x}"];
        let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        let (mut named, mut texts) = (0, 0);
        for _ in 0..20_000 {
            let text: String = (0..next() % 12).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
            let found = referenced_variables(&text);
            assert_eq!(found, by_line(&text), "{text:?}");
            named += usize::from(!found.is_empty());
            texts += 1;
        }
        // The pieces name variables often enough to test something.
        assert!(named * 20 > texts, "{named} of {texts}");
    }

    #[test]
    fn credentials() {
        assert!(names_a_credential("sasl.jaas.config"));
        assert!(names_a_credential("ssl.keystore.password"));
        assert!(!names_a_credential("sasl.mechanism"));
        assert!(!names_a_credential("security.protocol"));
    }
}
