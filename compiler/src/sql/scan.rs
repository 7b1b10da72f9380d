//! What SQL that does not parse still names: its `source('x')` and
//! `ref('y')` calls, found token by token. The original counts these as
//! the model's reads (for the graph and the unused-source warning) even
//! when it cannot plan the model.

use sqlparser::dialect::GenericDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

/// The sources and the models named, each once, in order met.
pub fn scan_reads(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut sources, mut models) = (Vec::new(), Vec::new());
    let Ok(tokens) = Tokenizer::new(&GenericDialect {}, text).tokenize() else { return (sources, models) };
    let tokens: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_))).collect();
    for w in tokens.windows(4) {
        if let [Token::Word(f), Token::LParen, Token::SingleQuotedString(n), Token::RParen] = w {
            let list = match f.value.to_lowercase().as_str() {
                "source" => &mut sources,
                "ref" => &mut models,
                _ => continue,
            };
            if !list.contains(n) {
                list.push(n.clone());
            }
        }
    }
    (sources, models)
}
