//! What SQL that does not parse still names: its `source('x')` and
//! `ref('y')` calls, found token by token. The original counts these as
//! the model's reads (for the graph and the unused-source warning) even
//! when it cannot plan the model.

use sqlparser::dialect::GenericDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use crate::diagnostic::Span;

/// A `source('x')` or `ref('y')` call and where its quoted name is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedRead {
    pub is_source: bool,
    pub name: String,
    /// The quoted name, quotes included.
    pub span: Span,
}

/// Every `source('x')` / `ref('y')` call of the text, in order, located,
/// also in text that does not parse (an editor's buffer mid-edit).
pub fn scan_located_reads(text: &str) -> Vec<NamedRead> {
    let mut out = Vec::new();
    let Ok(tokens) = Tokenizer::new(&GenericDialect {}, text).tokenize_with_location() else { return out };
    let tokens: Vec<_> = tokens.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))).collect();
    for w in tokens.windows(4) {
        if let (Token::Word(f), Token::LParen, Token::SingleQuotedString(n), Token::RParen) = (&w[0].token, &w[1].token, &w[2].token, &w[3].token) {
            let kind = f.value.to_lowercase();
            if kind == "source" || kind == "ref" {
                let (start, end) = (w[2].span.start, w[2].span.end);
                let len = if start.line == end.line { end.column.saturating_sub(start.column) } else { 0 };
                out.push(NamedRead { is_source: kind == "source", name: n.clone(), span: Span::at_line_col(text, start.line, start.column, len) });
            }
        }
    }
    out
}

/// The sources and the models named, each once, in order met.
pub fn scan_reads(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut sources, mut models) = (Vec::new(), Vec::new());
    for r in scan_located_reads(text) {
        let list = if r.is_source { &mut sources } else { &mut models };
        if !list.contains(&r.name) {
            list.push(r.name);
        }
    }
    (sources, models)
}
