//! A source contract's `check:` predicate, planned as a boolean
//! expression over the source's columns.

use super::{Inputs, Lowerer, ModelSettings, Rel, RelCol, SourceInput, Upstream};
use crate::config::Materialized;
use crate::plan::expr::Expr;
use crate::plan::changelog;
use crate::plan::node::Column;
use crate::types::DataType;

/// Plans a contract's `check:` predicate over a source's columns.
pub fn plan_check(source: &str, columns: &[Column], text: &str) -> std::result::Result<Expr, String> {
    let dialect = sqlparser::dialect::GenericDialect {};
    let parsed = sqlparser::parser::Parser::new(&dialect).try_with_sql(text).and_then(|mut p| {
        let e = p.parse_expr()?;
        p.expect_token(&sqlparser::tokenizer::Token::EOF)?;
        Ok(e)
    });
    let e = parsed.map_err(|e| e.to_string().trim_start_matches("sql parser error: ").to_string())?;
    struct NoInputs;
    impl Inputs for NoInputs {
        fn source(&self, _: &str) -> Option<SourceInput> {
            None
        }
        fn model(&self, _: &str) -> Upstream {
            Upstream::Missing
        }
        fn source_names(&self) -> Vec<String> {
            Vec::new()
        }
        fn model_names(&self) -> Vec<String> {
            Vec::new()
        }
    }
    let settings = ModelSettings { materialized: Materialized::Append, key: Vec::new(), key_declared: false, sink: None, retention: None, window: None };
    let l = Lowerer::new(source, &settings, &NoInputs);
    let rel = Rel {
        qualifier: source.to_string(),
        cols: columns.iter().map(|c| RelCol::new(c.name.clone(), c.ty)).collect(),
        input_id: String::new(),
        changelog: changelog::source(),
        bounded: false,
        time: None,
        windowable: false,
        sides: Vec::new(),
    };
    let planned = l.expr(&e, &rel, None);
    // A check is one expression: its first error is the one reported.
    let planned = match l.take_recovered().into_iter().next() {
        Some(first) => Err(first),
        None => planned,
    }
    .map_err(|e| e.message.replace(&format!("model `{source}` "), ""))?;
    match planned.ty() {
        DataType::Boolean => Ok(planned),
        t => Err(format!("it is {t}, not boolean")),
    }
}
