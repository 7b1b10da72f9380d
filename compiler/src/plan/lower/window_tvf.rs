//! A window written as Flink's table-valued function in FROM:
//! `TABLE(TUMBLE(TABLE source('clicks'), DESCRIPTOR(ts), INTERVAL '5' MINUTE))`,
//! `HOP(…, slide, size)`, `SESSION(TABLE … PARTITION BY k, DESCRIPTOR(ts), gap)`.
//! It declares the same window as `window:` in streamform.yml, and plans
//! to the same nodes, ids and digests (sql/tvf.rs makes it parse).

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::interval::{as_interval, interval_ms};
use super::names::{ident_name, object_name};
use super::{unsupported, LowerError, Lowerer, Rel, Result};
use crate::diagnostic::Code;
use crate::duration::Duration;
use crate::sql::calls::call_args;
use crate::sql::tvf::WINDOW_TVFS;
use crate::window::WindowShape;

/// A window the SQL declared: its shape, a session's PARTITION BY
/// columns, and where it is written.
#[derive(Clone, Debug)]
pub(super) struct TvfWindow {
    pub shape: WindowShape,
    pub partition: Option<Vec<String>>,
    pub span: SqlSpan,
}

impl<'a> Lowerer<'a> {
    /// `TABLE(<window function>(…))` in FROM: reads its input, checks the
    /// descriptor is the input's event time, and records the window.
    pub(super) fn window_tvf(&mut self, expr: &'a sql::Expr, alias: Option<&sql::TableAlias>, span: SqlSpan) -> Result<Rel> {
        let model = self.model;
        let sql::Expr::Function(f) = expr else {
            return Err(unsupported(model, "this table function", span).help("window a source with TABLE(TUMBLE(TABLE source('name'), DESCRIPTOR(ts), INTERVAL '5' MINUTE))"));
        };
        let kind = object_name(&f.name).to_lowercase();
        if kind == "cumulate" {
            return Err(unsupported(model, "CUMULATE windows", span).help("use TUMBLE, HOP or SESSION, or `window:` in streamform.yml"));
        }
        if !matches!(kind.as_str(), "tumble" | "hop" | "session") {
            return Err(unsupported(model, format_args!("the table function `{}`", object_name(&f.name)), span).help("the window functions are TUMBLE, HOP and SESSION"));
        }
        if self.settings.window.is_some() {
            return Err(LowerError::new(Code::UnsupportedConstruct, format!("model `{model}` declares a window both in streamform.yml and with {} in its SQL", kind.to_uppercase()), span)
                .help("keep one of them: remove `window:` from the model in streamform.yml, or read the input without the window function"));
        }
        if self.tvf_window.is_some() {
            return Err(unsupported(model, "a second window function", span).help("a model computes one windowed aggregate"));
        }
        let args = tvf_args(model, f, span)?;
        let (input, rest) = args.split_first().ok_or_else(|| usage(model, &kind, span))?;
        let alias_name = alias.map(|a| ident_name(&a.name));
        let mut rel = self.tvf_input(input, alias_name)?;
        let mut rest: &[&sql::Expr] = rest;
        let mut partition = None;
        if let Some((first, more)) = rest.split_first() {
            if let Some(cols) = partition_columns(first) {
                if kind != "session" {
                    return Err(unsupported(model, format_args!("PARTITION BY in {}", kind.to_uppercase()), first.span()).help("only SESSION takes PARTITION BY"));
                }
                partition = Some(cols);
                rest = more;
            }
        }
        let (descriptor, lengths) = rest.split_first().ok_or_else(|| usage(model, &kind, span))?;
        self.check_descriptor(descriptor, &rel)?;
        let ms: Vec<Duration> = lengths.iter().map(|e| self.window_length(e)).collect::<Result<_>>()?;
        let shape = match (kind.as_str(), ms.as_slice()) {
            ("tumble", [size]) => WindowShape::Tumbling { size: *size },
            ("hop", [slide, size]) => WindowShape::Hop { size: *size, slide: *slide },
            ("session", [gap]) => WindowShape::Session { gap: *gap },
            _ => return Err(usage(model, &kind, span)),
        };
        self.check_tvf_shape(shape, span)?;
        self.tvf_window = Some(TvfWindow { shape, partition, span });
        rel.windowable = true;
        Ok(rel)
    }

    /// `TABLE source('x')` or `TABLE ref('m')` (sql/tvf.rs blanked `TABLE`).
    fn tvf_input(&mut self, e: &sql::Expr, alias: Option<String>) -> Result<Rel> {
        let help = "the first argument is the table to window: TABLE source('name') or TABLE ref('model')";
        let kind = match e {
            sql::Expr::Function(f) => Some((object_name(&f.name).to_lowercase(), f)),
            _ => None,
        };
        match kind {
            Some((kind, f)) if kind == "source" || kind == "ref" => self.read_call(&kind, call_args(f), alias, e.span()),
            _ => Err(unsupported(self.model, format_args!("the window input {e}"), e.span()).help(help)),
        }
    }

    /// `DESCRIPTOR(col)`: windows are cut on the input's event time.
    fn check_descriptor(&self, e: &sql::Expr, rel: &Rel) -> Result<()> {
        let model = self.model;
        let col = match e {
            sql::Expr::Function(f) if object_name(&f.name).eq_ignore_ascii_case("descriptor") => match &f.args {
                sql::FunctionArguments::List(l) => match l.args.as_slice() {
                    [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::Identifier(id)))] => ident_name(id),
                    _ => return Err(unsupported(model, format_args!("{e}"), e.span()).help("DESCRIPTOR names one column: DESCRIPTOR(ts)")),
                },
                _ => return Err(unsupported(model, format_args!("{e}"), e.span()).help("DESCRIPTOR names one column: DESCRIPTOR(ts)")),
            },
            _ => return Err(unsupported(model, format_args!("`{e}` where the window's DESCRIPTOR(time column) belongs"), e.span()).help("write DESCRIPTOR(ts), naming the input's event time")),
        };
        match &rel.time {
            None => Err(LowerError::new(Code::WindowInputWithoutEventTime, format!("model `{model}` windows its input by `{col}`, but the input carries no event time"), e.span())
                .help(self.join_time_help().unwrap_or_else(|| "the source must declare `event_time:`, and every model between it and this one must keep that column".to_string()))),
            Some(t) if *t != col => Err(LowerError::new(Code::WindowInputWithoutEventTime, format!("model `{model}` windows its input by `{col}`, but its event time is `{t}`"), e.span())
                .help(format!("write DESCRIPTOR({t}): windows are cut on the event time the watermark follows"))),
            Some(_) => Ok(()),
        }
    }

    fn window_length(&self, e: &sql::Expr) -> Result<Duration> {
        let model = self.model;
        let Some(iv) = as_interval(e) else {
            return Err(unsupported(model, format_args!("`{e}` as a window length"), e.span()).help("write the length as an INTERVAL: INTERVAL '5' MINUTE"));
        };
        let ms = interval_ms(iv).map_err(|why| unsupported(model, format_args!("`{iv}`"), e.span()).help(why))?;
        u64::try_from(ms).map(Duration).map_err(|_| unsupported(model, format_args!("the negative window length `{iv}`"), e.span()).help("a window's length is positive"))
    }

    /// What `window:` in streamform.yml is checked for, checked here.
    fn check_tvf_shape(&self, shape: WindowShape, span: SqlSpan) -> Result<()> {
        let model = self.model;
        if shape.size().or(shape.gap()).is_some_and(|d| d.millis() == 0) {
            return Err(LowerError::new(Code::PlannedZeroWindow, format!("model `{model}` declares a window of length 0s; a window needs a positive length"), span).help("give the window a positive INTERVAL, for example INTERVAL '5' MINUTE"));
        }
        if let (WindowShape::Hop { size, slide }, false) = (shape, shape.slide_fits()) {
            return Err(LowerError::new(Code::BadHopSlide, format!("model `{model}` declares a hop window of size {size} sliding by {slide}; the slide must be positive and divide the size"), span)
                .help("HOP takes the slide, then the size: HOP(TABLE source('x'), DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)"));
        }
        if let (WindowShape::Hop { size, slide }, false) = (shape, shape.windows_fit()) {
            return Err(LowerError::new(Code::TooManyHopWindows, format!("model `{model}` declares a hop window of size {size} sliding by {slide}, which puts each event in {} windows; the limit is {}", shape.windows_per_event(), crate::window::MAX_WINDOWS_PER_EVENT), span)
                .help("slide by a larger INTERVAL (one that divides the size), or use TUMBLE"));
        }
        if self.settings.retention.is_some() {
            return Err(LowerError::new(Code::PlannedWindowWithRetention, format!("model `{model}` declares both a window and retention; a window's state lives until the window closes, so retention has nothing to expire"), span).help("remove `retention` from the model"));
        }
        Ok(())
    }
}

fn usage(model: &str, kind: &str, span: SqlSpan) -> LowerError {
    let example = match kind {
        "hop" => "HOP(TABLE source('x'), DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) (the slide, then the size)",
        "session" => "SESSION(TABLE source('x') PARTITION BY k, DESCRIPTOR(ts), INTERVAL '30' MINUTE)",
        _ => "TUMBLE(TABLE source('x'), DESCRIPTOR(ts), INTERVAL '5' MINUTE)",
    };
    unsupported(model, format_args!("{} with these arguments", kind.to_uppercase()), span).help(format!("write {example}"))
}

/// The call's arguments, all positional.
fn tvf_args<'q>(model: &str, f: &'q sql::Function, span: SqlSpan) -> Result<Vec<&'q sql::Expr>> {
    let sql::FunctionArguments::List(l) = &f.args else { return Err(usage(model, &object_name(&f.name).to_lowercase(), span)) };
    l.args
        .iter()
        .map(|a| match a {
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) => Ok(e),
            other => Err(unsupported(model, format_args!("the window argument `{other}`"), span).help("write the window function's arguments in order, without names")),
        })
        .collect()
}

/// `PARTITION(k, l)`, as sql/tvf.rs rewrote `PARTITION BY k, l`.
fn partition_columns(e: &sql::Expr) -> Option<Vec<String>> {
    let sql::Expr::Function(f) = e else { return None };
    if !object_name(&f.name).eq_ignore_ascii_case("partition") {
        return None;
    }
    let sql::FunctionArguments::List(l) = &f.args else { return None };
    let mut cols = Vec::new();
    for a in &l.args {
        let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(e)) = a else { return None };
        push_columns(e, &mut cols)?;
    }
    Some(cols)
}

fn push_columns(e: &sql::Expr, out: &mut Vec<String>) -> Option<()> {
    match e {
        sql::Expr::Identifier(id) => out.push(ident_name(id)),
        sql::Expr::Nested(inner) => push_columns(inner, out)?,
        sql::Expr::Tuple(items) => items.iter().try_for_each(|i| push_columns(i, out))?,
        _ => return None,
    }
    Some(())
}

/// Where the SQL declares a window, for the checks a window needs.
pub fn declared_window_span(query: &sql::Query) -> Option<SqlSpan> {
    let sql::SetExpr::Select(s) = query.body.as_ref() else { return None };
    s.from.iter().find_map(|t| match &t.relation {
        sql::TableFactor::TableFunction { expr: sql::Expr::Function(f), .. } if WINDOW_TVFS.contains(&object_name(&f.name).to_lowercase().as_str()) => Some(t.relation.span()),
        _ => None,
    })
}
