//! The tokens of a model's SQL when it is written in the plain subset most
//! models use: ASCII words, whole numbers, quoted strings without quotes or
//! backslashes inside, the common operators and whitespace. They are the
//! tokens and spans sqlparser's tokenizer makes of the same text with the
//! generic dialect, made in a fraction of its time (its per-character
//! dispatch over every dialect's syntax was a tenth of a cold `check`).
//! Text outside the subset (comments, quoted names, escapes, decimals,
//! non-ASCII letters, rarer operators) gets `None`, and the caller
//! tokenizes it with sqlparser. The tests below and the `sql` fuzz target
//! compare the two on every input this accepts.

use std::collections::HashMap;
use std::sync::OnceLock;

use sqlparser::keywords::{Keyword, ALL_KEYWORDS, ALL_KEYWORDS_INDEX};
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace, Word};

/// The tokens of `text`, or `None` when it is not in the subset.
pub fn simple_tokens(text: &str) -> Option<Vec<TokenWithSpan>> {
    let b = text.as_bytes();
    if !text.is_ascii() {
        return None;
    }
    // `COPY … FROM STDIN;` takes what follows the `;` as data.
    if b.contains(&b';') && b.windows(4).any(|w| w.eq_ignore_ascii_case(b"copy")) {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 2);
    let (mut i, mut line, mut col) = (0usize, 1u64, 1u64);
    while i < b.len() {
        let (token, len) = token_at(text, i)?;
        let start = Location::new(line, col);
        for &c in &b[i..i + len] {
            if c == b'\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        out.push(TokenWithSpan::new(
            token,
            Span::new(start, Location::new(line, col)),
        ));
        i += len;
    }
    Some(out)
}

/// The token that starts at byte `i` of `text` and its length in bytes,
/// or `None` when it is not in the subset.
fn token_at(text: &str, i: usize) -> Option<(Token, usize)> {
    let b = text.as_bytes();
    let word_part = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let at = |k: usize| b.get(k).copied();
    Some(match b[i] {
        b' ' => (Token::Whitespace(Whitespace::Space), 1),
        b'\t' => (Token::Whitespace(Whitespace::Tab), 1),
        b'\n' => (Token::Whitespace(Whitespace::Newline), 1),
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
            let end = (i..b.len()).find(|&k| !word_part(b[k])).unwrap_or(b.len());
            // `x'…'`, `n'…'`, `e'…'` and the like are literals; a word
            // with `@`, `$` or `#` in it is one word.
            if matches!(at(end), Some(b'\'' | b'"' | b'@' | b'$' | b'#')) {
                return None;
            }
            let value = text[i..end].to_string();
            (Token::Word(Word { keyword: keyword(&value), value, quote_style: None }), end - i)
        }
        b'0'..=b'9' => {
            let end = (i..b.len())
                .find(|&k| !b[k].is_ascii_digit())
                .unwrap_or(b.len());
            // Decimals, exponents, `0x…`, `1_000`, a number glued to a
            // word or a string.
            if matches!(at(end), Some(c) if word_part(c) || matches!(c, b'.' | b'\'' | b'"' | b'@' | b'$' | b'#'))
            {
                return None;
            }
            (Token::Number(text[i..end].to_string(), false), end - i)
        }
        b'\'' => {
            let close = i + 1 + b[i + 1..].iter().position(|&c| c == b'\'')?;
            // `''` is empty or a quote inside; `'a''b'` too.
            if close == i + 1
                || at(close + 1) == Some(b'\'')
                || b[i + 1..close].iter().any(|&c| c == b'\\' || c == b'\r')
            {
                return None;
            }
            (
                Token::SingleQuotedString(text[i + 1..close].to_string()),
                close + 1 - i,
            )
        }
        b'(' => (Token::LParen, 1),
        b')' => (Token::RParen, 1),
        b',' => (Token::Comma, 1),
        b'+' => (Token::Plus, 1),
        b'*' => (Token::Mul, 1),
        b'%' => (Token::Mod, 1),
        b';' => (Token::SemiColon, 1),
        // `--` starts a comment, `->` is an arrow.
        b'-' if !matches!(at(i + 1), Some(b'-' | b'>')) => (Token::Minus, 1),
        // `/*` starts a comment, `//` is integer division.
        b'/' if !matches!(at(i + 1), Some(b'*' | b'/')) => (Token::Div, 1),
        b'=' if !matches!(at(i + 1), Some(b'=' | b'>')) => (Token::Eq, 1),
        b'!' if at(i + 1) == Some(b'=') => (Token::Neq, 2),
        b'<' => match at(i + 1) {
            Some(b'=') if at(i + 2) != Some(b'>') => (Token::LtEq, 2),
            Some(b'>') => (Token::Neq, 2),
            Some(b'=' | b'<' | b'@') => return None,
            _ => (Token::Lt, 1),
        },
        b'>' => match at(i + 1) {
            Some(b'=') => (Token::GtEq, 2),
            Some(b'>') => return None,
            _ => (Token::Gt, 1),
        },
        // A period between names (`t1.id`); before a digit it starts a
        // number. A number never reaches here: its arm bails on a period.
        b'.' if !matches!(at(i + 1), Some(b'0'..=b'9' | b'_' | b'.')) => (Token::Period, 1),
        _ => return None,
    })
}

/// The keyword an unquoted word is, as sqlparser's tokenizer finds it
/// (there by a binary search over its ~900 keywords, a tenth of its time).
fn keyword(word: &str) -> Keyword {
    const LONGEST: usize = 64;
    static BY_NAME: OnceLock<HashMap<&'static [u8], Keyword>> = OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| ALL_KEYWORDS.iter().map(|k| k.as_bytes()).zip(ALL_KEYWORDS_INDEX.iter().copied()).collect());
    if word.len() > LONGEST {
        return Keyword::NoKeyword;
    }
    let mut upper = [0u8; LONGEST];
    for (u, c) in upper.iter_mut().zip(word.bytes()) {
        *u = c.to_ascii_uppercase();
    }
    by_name.get(&upper[..word.len()]).copied().unwrap_or(Keyword::NoKeyword)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::tokenizer::Tokenizer;

    /// The tokens and spans sqlparser makes of `text`, shown in full (a
    /// token's `==` ignores its span).
    fn sqlparser_tokens(text: &str) -> Option<String> {
        Tokenizer::new(&GenericDialect {}, text)
            .tokenize_with_location()
            .ok()
            .map(|t| format!("{t:?}"))
    }

    /// Checks one text: when it is in the subset, its tokens are sqlparser's.
    fn agrees(text: &str) -> bool {
        match simple_tokens(text) {
            Some(ours) => {
                assert_eq!(
                    Some(format!("{ours:?}")),
                    sqlparser_tokens(text),
                    "the tokens of {text:?} differ"
                );
                true
            }
            None => false,
        }
    }

    #[test]
    fn plain_models_are_in_the_subset() {
        for text in [
            "SELECT k, COUNT(*) AS n, SUM(amt) AS total FROM source('src_007') GROUP BY k",
            "select o.id, o.amount * 2 as doubled\nfrom ref('orders') o\nwhere o.status <> 'void' and o.qty >= 1;\n",
            "SELECT a FROM t WHERE a != 1 OR b <= 2 OR c > 3 OR d < 4 OR e = 5 OR f % 2 = 0 OR g / 2 - 1 + 3 = 0",
            "SELECT 'multi\nline' AS s, x FROM t",
            "SELECT t1.id, src_007.x FROM t1 JOIN src_007 ON t1.id = src_007.id",
        ] {
            assert!(agrees(text), "{text:?} is not in the subset");
        }
    }

    #[test]
    fn text_outside_the_subset_is_left_to_sqlparser() {
        for text in [
            "SELECT a -- comment\nFROM t",
            "SELECT /* c */ a FROM t",
            "SELECT \"Quoted\" FROM t",
            "SELECT 1.5, a FROM t",
            "SELECT 1e5 FROM t",
            "SELECT x'AB' FROM t",
            "SELECT n'text' FROM t",
            "SELECT 'it''s' FROM t",
            "SELECT '' FROM t",
            "SELECT 'a\\b' FROM t",
            "SELECT a::int FROM t",
            "SELECT a FROM t WHERE a <=> b",
            "SELECT a FROM t WHERE a << 2",
            "SELECT a->b FROM t",
            "SELECT a // 2 FROM t",
            "SELECT a FROM t WHERE b == 1",
            "SELECT f(a => 1) FROM t",
            "SELECT café FROM t",
            "SELECT a\r\nFROM t",
            "COPY t FROM STDIN;\n1\n",
            "SELECT a@b FROM t",
            "SELECT t._a FROM t",
        ] {
            assert!(simple_tokens(text).is_none(), "{text:?} is in the subset");
        }
    }

    #[test]
    fn every_model_of_the_test_data_agrees() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        let mut pending = vec![root];
        let (mut files, mut simple) = (0, 0);
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir)
                .expect("testdata is readable")
                .flatten()
            {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "sql") {
                    let Ok(text) = std::fs::read_to_string(&path) else {
                        continue;
                    };
                    files += 1;
                    simple += usize::from(agrees(&text));
                }
            }
        }
        assert!(
            files > 100 && simple * 2 > files,
            "{simple} of {files} models in the subset"
        );
    }

    #[test]
    fn every_keyword_agrees() {
        assert!(ALL_KEYWORDS.iter().all(|k| k.len() <= 64), "a keyword is longer than the lookup's buffer");
        for k in ALL_KEYWORDS {
            for text in [k.to_string(), k.to_lowercase(), format!("{k}_x"), format!("x{k}")] {
                assert!(agrees(&text) || text.bytes().any(|c| !c.is_ascii_alphanumeric() && c != b'_'), "{text}");
            }
        }
    }

    #[test]
    fn random_text_agrees() {
        // Every character the subset treats specially, and its neighbours.
        let alphabet: &[&str] = &[
            "a", "B", "_", "x", "n", "e", "q", "u", "r", "0", "1", "9", " ", "\n", "\t", "\r", "'",
            "\"", "(", ")", ",", ".", ";", "+", "-", "*", "/", "%", "=", "!", "<", ">", "@", "$",
            "#", "&", "|", ":", "\\", "`", "[", "é", "SELECT", "copy", "from", "stdin",
        ];
        let mut next = crate::test_rng::xorshift(0x5eed_7012);
        let mut accepted = 0;
        for _ in 0..200_000 {
            let len = next() % 12;
            let text: String = (0..len)
                .map(|_| alphabet[(next() as usize) % alphabet.len()])
                .collect();
            accepted += usize::from(agrees(&text));
        }
        assert!(
            accepted > 10_000,
            "only {accepted} random texts were in the subset"
        );
    }
}
