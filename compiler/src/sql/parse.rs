//! Parses a model file into one `SELECT` query.

use std::sync::Arc;

use sqlparser::ast::{Query, Statement};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Span as SqlSpan, Token, Tokenizer, Whitespace};

use super::limits::{self, Exceeded};
use crate::diagnostic::{Code, Span};

#[derive(Clone, Debug)]
pub struct ParseFailure {
    pub code: Code,
    pub message: String,
    pub span: Option<Span>,
    pub help: Option<String>,
}

/// Shared, so that the compile's workers can free a tree they parsed
/// (see `driver::compile`).
pub type ParsedQuery = Result<Arc<Query>, ParseFailure>;

const RECURSION_LIMIT: usize = 64;

/// What to write instead of `JOIN … FOR SYSTEM_TIME AS OF …`.
const TEMPORAL_JOIN_HELP: &str = "an event-time temporal join names the reading side's event-time column after AS OF, right after the read call: `JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency` (the versioned side an upsert model with event time); processing-time lookup joins are not supported";

pub fn parse_model_sql(text: &str) -> ParsedQuery {
    let dialect = GenericDialect {};
    let rewritten = super::tvf::rewrite_window_tvfs(text);
    let sql = rewritten.as_deref().unwrap_or(text);
    let temporal = super::temporal::rewrite_temporal(sql);
    let sql = temporal.as_deref().unwrap_or(sql);
    let parser = Parser::new(&dialect).with_recursion_limit(RECURSION_LIMIT);
    let parsed = match super::tokens::simple_tokens(sql) {
        Some(tokens) => match super::plain::plain_statements(&tokens) {
            Some(statements) => Ok(statements),
            None => parser.with_tokens_with_locations(tokens).parse_statements(),
        },
        None => parser.try_with_sql(sql).and_then(|mut p| p.parse_statements()),
    };
    let statements = match parsed {
        Ok(s) => s,
        Err(e) => {
            let raw = e.to_string();
            let message = raw.strip_prefix("sql parser error: ").unwrap_or(&raw).to_string();
            let (message, span) = split_location(text, &message);
            if let Some(jinja) = jinja(text) {
                return Err(jinja);
            }
            // Flink's temporal and lookup joins are not SQL sqlparser reads.
            let help = text.to_uppercase().contains("FOR SYSTEM_TIME AS OF").then(|| TEMPORAL_JOIN_HELP.to_string());
            return Err(ParseFailure { code: Code::SqlNotOneSelect, message: format!("could not parse the SQL: {message}"), span, help });
        }
    };
    let mut statements = statements;
    // Every statement, so none too deep is dropped whole; a short text
    // cannot pass a limit.
    if sql.len() > limits::ALWAYS_WITHIN_BYTES {
        if let Some(exceeded) = statements.iter_mut().map(limits::check_depth).fold(None, |first, e| first.or(e)) {
            return Err(too_deep(text, exceeded));
        }
    }
    let count = statements.len();
    if count == 0 {
        return Err(ParseFailure {
            code: Code::SqlNotOneSelect,
            message: "the model is empty; it must hold one SELECT statement".into(),
            span: None,
            help: Some("write a query such as SELECT customer_id, SUM(amount) AS total FROM source('orders') GROUP BY customer_id".into()),
        });
    }
    if count > 1 {
        return Err(ParseFailure {
            code: Code::SqlNotOneSelect,
            message: format!("a model must contain exactly one SELECT statement, found {count}"),
            span: None,
            help: Some("split the statements into one file per model under models/".into()),
        });
    }
    // Only a text with `/*+` is tokenized again, to find its hint.
    if text.contains("/*+") {
        if let Some(refused) = hint(text) {
            return Err(refused);
        }
    }
    match statements.into_iter().next() {
        Some(Statement::Query(q)) => Ok(Arc::from(q)),
        Some(other) => {
            let kind = other.to_string().split_whitespace().next().unwrap_or("").to_uppercase();
            Err(ParseFailure {
                code: Code::SqlNotOneSelect,
                message: format!("a model must be one SELECT statement, found {kind}"),
                span: Some(Span::at_offset(text, text.len() - text.trim_start().len(), kind.len())),
                help: Some("a model only reads: Streamform writes its output to the model's sink".into()),
            })
        }
        None => unreachable!(),
    }
}

/// A Flink hint, `/*+ NAME(…) */`: sqlparser reads it as a comment, so it
/// would be dropped without a word. It is refused where it is, with where
/// what it sets belongs: the Flink SQL is written from the plan, which the
/// simulator runs and the identity describes, and a hint (a table's connector
/// options, a state TTL) would change what the job reads or keeps behind
/// both their backs.
fn hint(text: &str) -> Option<ParseFailure> {
    let tokens = Tokenizer::new(&GenericDialect {}, text).tokenize_with_location().ok()?;
    let (body, at) = tokens.iter().find_map(|t| match &t.token {
        Token::Whitespace(Whitespace::MultiLineComment(c)) => c.strip_prefix('+').map(|b| (b, t.span.start)),
        _ => None,
    })?;
    let name = body.trim_start().split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("").to_ascii_uppercase();
    let whole = format!("/*+{body}*/");
    let shown = match () {
        _ if !whole.contains('\n') && whole.chars().count() <= 60 => whole.clone(),
        _ if name.is_empty() => "/*+ … */".to_string(),
        _ => format!("/*+ {name}(…) */"),
    };
    let help = match name.as_str() {
        "OPTIONS" => "a model reads a source as sources.yml declares it: set the source's `topic`, `path`, `format`, `watermark` and `idle_timeout` there, and the Kafka client `properties` and `startup` of a target in streamform.yml; then remove the hint",
        "STATE_TTL" => "set the model's `retention:` in streamform.yml, which Streamform writes as the STATE_TTL hint on Flink; then remove the hint",
        _ => "Streamform writes the Flink SQL itself and passes no hint through: remove it (a comment is `/* … */`, without the `+`)",
    };
    let len = whole.lines().next().map_or(3, |l| l.chars().count());
    Some(ParseFailure {
        code: Code::SqlHint,
        message: format!("`{shown}` is a Flink hint, which a model cannot carry: Streamform writes the Flink SQL from the plan, without it"),
        span: Some(Span::at_line_col(text, at.line, at.column, len as u64)),
        help: Some(help.into()),
    })
}

/// A dbt habit: a Jinja block (`{{ source('x') }}`, `{{ config(…) }}`,
/// `{% … %}`) in a model that does not parse, located at the first one,
/// with what to write instead.
fn jinja(text: &str) -> Option<ParseFailure> {
    let start = [text.find("{{"), text.find("{%")].into_iter().flatten().min()?;
    let close = if text[start..].starts_with("{{") { "}}" } else { "%}" };
    let len = text[start..].find(close).map_or(2, |e| e + 2);
    let block = &text[start..start + len];
    let inner = block.trim_start_matches(['{', '%']).trim_end_matches(['}', '%']).trim();
    let lower = inner.to_ascii_lowercase();
    let help = if lower.starts_with("source(") || lower.starts_with("ref(") {
        format!("Streamform reads `source('…')` and `ref('…')` as SQL: write `{inner}` without the braces")
    } else if lower.starts_with("config(") {
        "a model's settings (materialized, key, sink, window…) go under `models: <name>:` in streamform.yml; remove the block".to_string()
    } else {
        "a model is plain SQL, without templating: write the SQL the template would produce, and put settings in streamform.yml".to_string()
    };
    Some(ParseFailure {
        code: Code::SqlNotOneSelect,
        message: format!("`{block}` is a dbt (Jinja) template, which a model does not use"),
        span: Some(Span::at_offset(text, start, len)),
        help: Some(help),
    })
}

/// The located error for a query past a depth limit. The span is in the
/// rewritten SQL, whose offsets are the text's (see `tvf.rs`).
fn too_deep(text: &str, exceeded: Exceeded) -> ParseFailure {
    let (code, at, message, help) = match exceeded {
        Exceeded::ExprDepth(at) => (
            Code::ExpressionTooDeep,
            at,
            format!("this expression nests deeper than {} levels (each operator is one level)", limits::MAX_EXPR_DEPTH),
            "split it: compute parts of it as columns of a subquery or an upstream model (`SELECT a + b AS ab … `), then combine those",
        ),
        Exceeded::SetOperations(at) => (
            Code::TooManySetOperations,
            at,
            format!("this query chains more than {} set operations", limits::MAX_SET_OPERATIONS),
            "split the UNION ALL: union groups of inputs in upstream models, then union those models",
        ),
        Exceeded::ValueSize(at, len) => (
            Code::ValueTooLarge,
            // Only the opening quote: the literal itself may be a megabyte.
            Some(SqlSpan::new(at.start, at.start)),
            format!("this string literal is {len} bytes, more than the limit of {} (1 MiB)", crate::limits::MAX_VALUE_BYTES),
            "keep large data out of the model: a value past 1 MiB cannot pass through a Kafka topic either",
        ),
    };
    // The rewrite keeps every offset, line and column of the text.
    let span = at.filter(|s| s.start.line > 0).map(|s| {
        let len = if s.end.line == s.start.line && s.end.column > s.start.column { s.end.column - s.start.column } else { 1 };
        Span::at_line_col(text, s.start.line, s.start.column, len)
    });
    ParseFailure { code, message, span, help: Some(help.into()) }
}

/// Moves sqlparser's " at Line: L, Column: C" suffix into a span.
fn split_location(text: &str, message: &str) -> (String, Option<Span>) {
    if let Some(i) = message.rfind(" at Line: ") {
        let loc = &message[i + " at Line: ".len()..];
        let mut parts = loc.split(", Column: ");
        if let (Some(l), Some(c)) = (parts.next(), parts.next()) {
            if let (Ok(l), Ok(c)) = (l.trim().parse::<u64>(), c.trim().parse::<u64>()) {
                let token_len = text.lines().nth(l.saturating_sub(1) as usize).map_or(1, |line| {
                    line.chars().skip(c.saturating_sub(1) as usize).take_while(|ch| !ch.is_whitespace()).count().max(1)
                });
                return (message[..i].to_string(), Some(Span::at_line_col(text, l, c, token_len as u64)));
            }
        }
    }
    // End-of-input errors carry no location: point at the end of the text.
    let end = text.trim_end().len();
    (message.to_string(), Some(Span::at_offset(text, end, 0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_parse_errors_with_location() {
        let e = parse_model_sql("SELEC x FROM source('a')").unwrap_err();
        assert_eq!(e.span.map(|s| (s.line, s.col)), Some((1, 1)));
        assert!(e.message.contains("SELEC"), "{}", e.message);
    }

    #[test]
    fn counts_statements() {
        assert!(parse_model_sql("SELECT 1; SELECT 2").unwrap_err().message.contains("found 2"));
        assert!(parse_model_sql("  -- nothing\n").unwrap_err().message.contains("empty"));
        assert!(parse_model_sql("SELECT a FROM source('x');").is_ok());
    }
}
