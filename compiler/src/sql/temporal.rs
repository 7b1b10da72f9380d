//! Flink's temporal join in a form sqlparser reads. Flink writes
//! `JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r`; sqlparser reads a
//! table version only before a table function's arguments, and only in
//! some dialects. Before parsing, the read call takes the time as a named
//! argument instead, `ref('rates',     asof_time=>       o.ts)AS r`,
//! written over the same bytes: its `)` becomes `,`, `SYSTEM_TIME` the
//! argument's name and `=>`, the other keywords blanks (comments and line
//! ends between them stay), and the first blank after the time, past
//! comments and line ends, the `)` (or, when there is none, the blank
//! before the time, moving it one column left). Every other span still points at what the user
//! wrote. Lowering reads the argument back (plan/lower/temporal.rs).

use sqlparser::dialect::GenericDialect;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use super::tvf::{line_starts, offset};

/// The named argument a read call's `FOR SYSTEM_TIME AS OF` becomes:
/// with `=>` it is as long as `SYSTEM_TIME`, which it replaces.
pub const AS_OF_ARG: &str = "asof_time";

/// `text` with every `<read call> FOR SYSTEM_TIME AS OF <time>` rewritten;
/// `None` when there is none it can rewrite (the parser then fails, with
/// help on what to write).
pub fn rewrite_temporal(text: &str) -> Option<String> {
    if !text.to_ascii_uppercase().contains("SYSTEM_TIME") {
        return None;
    }
    let tokens = Tokenizer::new(&GenericDialect {}, text).tokenize_with_location().ok()?;
    let lines = line_starts(text);
    let at = |i: usize, end: bool| offset(text, &lines, if end { tokens[i].span.end } else { tokens[i].span.start });
    // Comments and line ends between the keywords stay where they are.
    let code: Vec<usize> = (0..tokens.len()).filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_))).collect();
    let word = |i: usize, w: &str| matches!(&tokens[i].token, Token::Word(x) if x.value.eq_ignore_ascii_case(w));
    let mut out = text.as_bytes().to_vec();
    let mut changed = false;
    for w in 1..code.len().saturating_sub(4) {
        let keywords = ["for", "system_time", "as", "of"];
        if tokens[code[w - 1]].token != Token::RParen || !(0..4).all(|k| word(code[w + k], keywords[k])) {
            continue;
        }
        let Some(last) = time_end(&tokens, &code[w + 4..]) else { continue };
        let spans: Option<Vec<(usize, usize)>> = (0..4).map(|k| Some((at(code[w + k], false)?, at(code[w + k], true)?))).collect();
        let (Some(spans), Some(close), Some(t_start), Some(t_end)) = (spans, at(code[w - 1], false), at(code[w + 4], false), at(last, true)) else { continue };
        let blank = |b: u8| b == b' ' || b == b'\t';
        let mut o = out.clone();
        if let Some(b) = first_blank_after(&tokens, last).and_then(|i| at(i, false)).filter(|&b| o.get(b).copied().is_some_and(blank)) {
            // A blank after the time, past any comments and line ends.
            o[b] = b')';
        } else if blank(o[t_start - 1]) && !text[t_start..t_end].contains('\n') {
            // The time ends its line: it moves one column left.
            o.copy_within(t_start..t_end, t_start - 1);
            o[t_end - 1] = b')';
        } else {
            continue;
        }
        o[close] = b',';
        for (s, e) in &spans {
            o[*s..*e].fill(b' ');
        }
        let head = format!("{AS_OF_ARG}=>");
        let (s, e) = spans[1];
        debug_assert_eq!(e - s, head.len());
        o[s..e].copy_from_slice(head.as_bytes());
        out = o;
        changed = true;
    }
    changed.then(|| String::from_utf8(out).expect("only ASCII bytes were replaced"))
}

/// The first space or tab between token `last` and the next code token.
fn first_blank_after(tokens: &[TokenWithSpan], last: usize) -> Option<usize> {
    use sqlparser::tokenizer::Whitespace;
    tokens[last + 1..]
        .iter()
        .take_while(|t| matches!(t.token, Token::Whitespace(_)))
        .position(|t| matches!(t.token, Token::Whitespace(Whitespace::Space | Whitespace::Tab)))
        .map(|n| last + 1 + n)
}

/// The last token of the time after `AS OF`: a column (`ts`, `o.ts`) or
/// a call without arguments (`PROCTIME()`); `None` for anything else.
fn time_end(tokens: &[TokenWithSpan], rest: &[usize]) -> Option<usize> {
    let is_word = |n: usize| rest.get(n).is_some_and(|&i| matches!(tokens[i].token, Token::Word(_)));
    let is = |n: usize, t: Token| rest.get(n).is_some_and(|&i| tokens[i].token == t);
    if !is_word(0) {
        return None;
    }
    let mut n = 0;
    while is(n + 1, Token::Period) && is_word(n + 2) {
        n += 2;
    }
    if is(n + 1, Token::LParen) && is(n + 2, Token::RParen) {
        n += 2;
    }
    Some(rest[n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_keep_every_offset() {
        let cases = [
            ("JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r ON", "JOIN ref('rates',     asof_time=>       o.ts)AS r ON"),
            ("JOIN ref('rates') for system_time as of o.ts\nON", "JOIN ref('rates',     asof_time=>      o.ts)\nON"),
            ("JOIN ref('r') FOR -- c\n SYSTEM_TIME AS\nOF\n  o.ts\nON", "JOIN ref('r',     -- c\n asof_time=>   \n  \n o.ts)\nON"),
            ("JOIN source('r') FOR SYSTEM_TIME AS OF PROCTIME() r ON", "JOIN source('r',     asof_time=>       PROCTIME())r ON"),
            // The time ends its line and the next begins with a blank.
            ("JOIN ref('r') FOR SYSTEM_TIME AS OF -- c\no.ts\n    AS r ON", "JOIN ref('r',     asof_time=>       -- c\no.ts\n)   AS r ON"),
            ("JOIN ref('r') FOR SYSTEM_TIME AS OF o.ts -- c\nAS r", "JOIN ref('r',     asof_time=>       o.ts)-- c\nAS r"),
        ];
        for (input, want) in cases {
            let got = rewrite_temporal(input).expect("rewritten");
            assert_eq!(got, want);
            assert_eq!(got.len(), input.len());
        }
        assert_eq!(rewrite_temporal("SELECT a FROM source('c')"), None);
        // A time that is not a column or a call is left to the parser.
        assert_eq!(rewrite_temporal("JOIN ref('r') FOR SYSTEM_TIME AS OF o.ts + 1 AS r"), Some("JOIN ref('r',     asof_time=>       o.ts)+ 1 AS r".into()));
    }
}
