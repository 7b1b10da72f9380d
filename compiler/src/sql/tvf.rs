//! Window table-valued functions in a form sqlparser reads. Flink writes
//! `TUMBLE(TABLE source('x'), DESCRIPTOR(ts), INTERVAL '5' MINUTE)` and
//! `SESSION(TABLE t PARTITION BY k, …)`; sqlparser has no `TABLE t`
//! argument and no `PARTITION BY` in a call. Before parsing, `TABLE` is
//! blanked and `PARTITION BY k, l,` becomes `, PARTITION( k, l),`, byte
//! for byte the same length, so every span still points at the text the
//! user wrote. Lowering reads the call back (plan/lower/window_tvf.rs).

use sqlparser::dialect::GenericDialect;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

/// The window functions whose first argument is a table.
pub const WINDOW_TVFS: &[&str] = &["tumble", "hop", "session", "cumulate"];

/// `text` with every window TVF's arguments rewritten; `None` when there
/// is none (or the text does not tokenize: the parser then says why).
pub fn rewrite_window_tvfs(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if !WINDOW_TVFS.iter().any(|f| lower.contains(f)) {
        return None;
    }
    let tokens = Tokenizer::new(&GenericDialect {}, text).tokenize_with_location().ok()?;
    let lines = line_starts(text);
    let at = |l: Location| offset(text, &lines, l);
    let code: Vec<usize> = (0..tokens.len()).filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_))).collect();
    let mut out = text.as_bytes().to_vec();
    let mut changed = false;
    for w in 0..code.len().saturating_sub(2) {
        let (f, open, table) = (&tokens[code[w]], &tokens[code[w + 1]], &tokens[code[w + 2]]);
        let is_tvf = matches!(&f.token, Token::Word(x) if WINDOW_TVFS.contains(&x.value.to_lowercase().as_str()));
        if !(is_tvf && open.token == Token::LParen && matches!(&table.token, Token::Word(x) if x.value.eq_ignore_ascii_case("table"))) {
            continue;
        }
        let (Some(s), Some(e)) = (at(table.span.start), at(table.span.end)) else { continue };
        out[s..e].fill(b' ');
        changed = true;
        partition_by(&tokens, &code[w + 3..], &at, &mut out);
    }
    changed.then(|| String::from_utf8(out).expect("only ASCII bytes were replaced"))
}

/// Within one call (`rest` starts after its `TABLE`), turns `PARTITION BY
/// cols, DESCRIPTOR` into `, PARTITION( cols), DESCRIPTOR` when a space
/// or tab between the last column and DESCRIPTOR can be borrowed (after
/// the comma, also on the next line, or before it).
fn partition_by(tokens: &[TokenWithSpan], rest: &[usize], at: &dyn Fn(Location) -> Option<usize>, out: &mut [u8]) {
    let word = |i: usize, w: &str| matches!(&tokens[i].token, Token::Word(x) if x.value.eq_ignore_ascii_case(w));
    let mut depth = 0usize;
    let mut partition = None;
    for (n, &i) in rest.iter().enumerate() {
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => return,
            Token::RParen => depth -= 1,
            Token::Word(_) if depth == 0 && partition.is_none() && word(i, "partition") && rest.get(n + 1).is_some_and(|&j| word(j, "by")) => {
                partition = Some((i, rest[n + 1]));
            }
            Token::Comma if depth == 0 && partition.is_some() && rest.get(n + 1).is_some_and(|&j| word(j, "descriptor")) => {
                let blank = |t: &TokenWithSpan| matches!(t.token, Token::Whitespace(Whitespace::Space | Whitespace::Tab));
                // The comma becomes `)` and a blank after it (on any line
                // before DESCRIPTOR) the comma; or a blank before it the `)`.
                let after = tokens[i + 1..rest[n + 1]].iter().find(|t| blank(t)).map(|t| (i, t));
                let before = tokens.get(i.wrapping_sub(1)).filter(|t| blank(t));
                let Some((p, by)) = partition else { return };
                let (close, comma) = match (after, before) {
                    (Some((c, sp)), _) => (at(tokens[c].span.start), at(sp.span.start)),
                    (None, Some(sp)) => (at(sp.span.start), at(tokens[i].span.start)),
                    (None, None) => return,
                };
                let (Some(ps), Some(be), Some(close), Some(comma)) = (at(tokens[p].span.start), at(tokens[by].span.end), close, comma) else { return };
                let head = b", PARTITION(";
                if be - ps < head.len() {
                    return;
                }
                out[ps..be].fill(b' ');
                out[ps..ps + head.len()].copy_from_slice(head);
                out[close] = b')';
                out[comma] = b',';
                return;
            }
            _ => {}
        }
    }
}

pub(super) fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// A tokenizer location (1-based line, 1-based column in characters) as a byte offset.
pub(super) fn offset(text: &str, lines: &[usize], l: Location) -> Option<usize> {
    let start = *lines.get((l.line as usize).checked_sub(1)?)?;
    let line = &text[start..];
    let col = (l.column as usize).checked_sub(1)?;
    match line.char_indices().nth(col) {
        Some((b, _)) => Some(start + b),
        None => (line.chars().count() == col).then_some(text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_keep_every_offset() {
        let cases = [
            ("SELECT * FROM TABLE(TUMBLE(TABLE source('c'), DESCRIPTOR(ts), INTERVAL '5' MINUTE))", "SELECT * FROM TABLE(TUMBLE(      source('c'), DESCRIPTOR(ts), INTERVAL '5' MINUTE))"),
            ("FROM TABLE(session(table ref('m') partition by k, l, DESCRIPTOR(ts), x))", "FROM TABLE(session(      ref('m') , PARTITION( k, l),DESCRIPTOR(ts), x))"),
            ("FROM TABLE(SESSION(TABLE t PARTITION  BY (k), DESCRIPTOR(ts), x))", "FROM TABLE(SESSION(      t , PARTITION(  (k)),DESCRIPTOR(ts), x))"),
            // The blank after the comma may be on the next line, or before it.
            ("FROM TABLE(SESSION(TABLE t PARTITION BY k,\n  DESCRIPTOR(ts), x))", "FROM TABLE(SESSION(      t , PARTITION( k)\n, DESCRIPTOR(ts), x))"),
            ("FROM TABLE(SESSION(TABLE t PARTITION BY k, -- c\nDESCRIPTOR(ts), x))", "FROM TABLE(SESSION(      t , PARTITION( k),-- c\nDESCRIPTOR(ts), x))"),
            ("FROM TABLE(SESSION(TABLE t PARTITION BY k ,DESCRIPTOR(ts), x))", "FROM TABLE(SESSION(      t , PARTITION( k),DESCRIPTOR(ts), x))"),
        ];
        for (input, want) in cases {
            let got = rewrite_window_tvfs(input).expect("rewritten");
            assert_eq!(got, want);
            assert_eq!(got.len(), input.len());
        }
        assert_eq!(rewrite_window_tvfs("SELECT 'TUMBLE(TABLE x' FROM source('c')"), None);
        assert_eq!(rewrite_window_tvfs("SELECT a FROM source('c')"), None);
    }
}
