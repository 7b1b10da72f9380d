//! `source('x')` and `ref('m')` as parsed SQL writes them: in FROM, or as
//! the first argument of a window function (sql/tvf.rs).

use sqlparser::ast as sql;

/// The one quoted name a read call takes, with the value (for its span);
/// `None` for any other arguments.
/// A temporal join's `FOR SYSTEM_TIME AS OF t` (rewritten as a named
/// argument, sql/temporal.rs) may follow the name.
pub fn quoted_name(args: &[sql::FunctionArg]) -> Option<(&str, &sql::ValueWithSpan)> {
    let args = if as_of(args).is_some() { &args[..1] } else { args };
    match args {
        [sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::Value(v)))] => match &v.value {
            sql::Value::SingleQuotedString(s) => Some((s.as_str(), v)),
            _ => None,
        },
        _ => None,
    }
}

/// The time of `ref('m') FOR SYSTEM_TIME AS OF t`: `t`, which the
/// rewrite before parsing passed as the read call's named argument.
pub fn as_of(args: &[sql::FunctionArg]) -> Option<&sql::Expr> {
    match args {
        [_, sql::FunctionArg::Named { name, arg: sql::FunctionArgExpr::Expr(e), .. }] if name.value == super::temporal::AS_OF_ARG => Some(e),
        _ => None,
    }
}

/// The time after `FOR SYSTEM_TIME AS OF` of a read call in FROM.
pub fn factor_as_of(t: &sql::TableFactor) -> Option<&sql::Expr> {
    match t {
        sql::TableFactor::Table { args: Some(a), .. } => as_of(&a.args),
        _ => None,
    }
}

/// A function call's positional argument list; empty for other forms.
pub fn call_args(f: &sql::Function) -> &[sql::FunctionArg] {
    match &f.args {
        sql::FunctionArguments::List(l) => &l.args,
        _ => &[],
    }
}

/// The call a window function reads: its first argument, `TABLE
/// source('x')` with `TABLE` blanked.
pub fn window_input(w: &sql::Function) -> Option<&sql::Function> {
    match call_args(w).first() {
        Some(sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(sql::Expr::Function(read)))) => Some(read),
        _ => None,
    }
}
