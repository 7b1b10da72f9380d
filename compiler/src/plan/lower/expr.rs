//! Scalar expressions: SQL expressions, columns, literals and casts
//! planned into typed `Expr`s, below or above an aggregate.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::interval::{as_interval, INTERVAL_HELP};
use super::literal::literal;
use super::names::{display_name, ident_name, object_name};
use super::{operand_type, unsupported, Grouping, LowerError, Lowerer, Rel, Result};
use crate::diagnostic::did_you_mean;
use crate::plan::expr::{arithmetic_type, AggCall, AggFunc, BinOp, Expr, Literal};
use crate::plan::func::CALLABLE;
use crate::types::{DataType, Unsupported};
use crate::diagnostic::Code;

impl<'a> Lowerer<'a> {
    /// Plans a scalar expression over `rel`. With `grouping`, the
    /// expression is evaluated above an aggregate: grouped columns and
    /// aggregate calls become columns of the aggregate's output.
    pub(super) fn expr(&self, e: &sql::Expr, rel: &Rel, grouping: Option<&Grouping>) -> Result<Expr> {
        if let Some(g) = grouping {
            if let Some(found) = self.grouped_column(e, rel, g)? {
                return Ok(found);
            }
        }
        let model = self.model;
        Ok(match e {
            sql::Expr::Identifier(id) => self.known_column(std::slice::from_ref(id), rel, e.span())?,
            sql::Expr::CompoundIdentifier(parts) => self.known_column(parts, rel, e.span())?,
            sql::Expr::Nested(inner) => self.expr(inner, rel, grouping)?,
            sql::Expr::Value(v) => self.value(v, e)?,
            sql::Expr::UnaryOp { op, expr } => self.unary(e, *op, expr, rel, grouping)?,
            sql::Expr::BinaryOp { left, op, right } => self.binary(e, left, op, right, rel, grouping)?,
            sql::Expr::IsNull(x) => Expr::IsNull { expr: Box::new(self.expr(x, rel, grouping)?), negated: false },
            sql::Expr::IsNotNull(x) => Expr::IsNull { expr: Box::new(self.expr(x, rel, grouping)?), negated: true },
            sql::Expr::Cast { kind, expr, data_type, format } => {
                if format.is_some() || matches!(kind, sql::CastKind::TryCast | sql::CastKind::SafeCast) {
                    return Err(unsupported(model, "TRY_CAST or CAST with FORMAT", e.span()));
                }
                match cast_type(data_type) {
                    Some(to) => Expr::Cast { expr: Box::new(self.expr(expr, rel, grouping)?), to },
                    // An unknown type: its operand may hold more slips.
                    None => {
                        let kept = self.recover(unsupported(model, format_args!("a cast to {data_type}"), e.span()).help("cast to INT, BIGINT, DOUBLE, DECIMAL(p,s), BOOLEAN, VARCHAR or TIMESTAMP"));
                        let _ = self.expr(expr, rel, grouping);
                        kept
                    }
                }
            }
            sql::Expr::TypedString(ts) => match (&ts.data_type, &ts.value.value) {
                (sql::DataType::Timestamp(None, sql::TimezoneInfo::None), sql::Value::SingleQuotedString(s)) => {
                    Expr::Cast { expr: Box::new(Expr::Literal(Literal::Str(s.clone()))), to: DataType::TimestampNanos }
                }
                _ => return Err(unsupported(model, format_args!("the literal {e}"), e.span())),
            },
            sql::Expr::Function(f) if f.over.is_some() => return Err(super::rank::window_function(model, f, e.span())),
            sql::Expr::Function(f) => match self.scalar_call(f, e, rel, grouping)? {
                Some(call) => call,
                None if AggFunc::is_aggregate(&object_name(&f.name).to_lowercase()) => return Err(self.misplaced_function(f, e)),
                // An unknown function: its arguments may hold more slips.
                None => {
                    let kept = self.recover(self.misplaced_function(f, e));
                    self.argument_slips(f, rel, grouping);
                    kept
                }
            },
            sql::Expr::Case { .. } => self.case(e, rel, grouping)?,
            sql::Expr::In { expr, target: sql::InTarget::List(list), negated, .. } => self.in_list(e, expr, list, *negated, rel, grouping)?,
            sql::Expr::Between { expr, negated, low, high } => self.between(e, expr, low, high, *negated, rel, grouping)?,
            sql::Expr::Like { .. } => self.like(e, rel, grouping)?,
            sql::Expr::Substring { .. } => self.substring(e, rel, grouping)?,
            sql::Expr::Trim { .. } => self.trim(e, rel, grouping)?,
            sql::Expr::Floor { .. } | sql::Expr::Ceil { .. } => self.floor_ceil(e, rel, grouping)?,
            sql::Expr::Extract { .. } => self.extract(e, rel, grouping)?,
            _ => return Err(self.unsupported_expr(e)),
        })
    }

    /// A literal value; an integer beyond int64 is refused rather than
    /// read as a float.
    fn value(&self, v: &sql::ValueWithSpan, e: &sql::Expr) -> Result<Expr> {
        if let sql::Value::Number(n, _) = &v.value {
            if n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<i64>().is_err() {
                return Err(unsupported(self.model, format_args!("the integer {n}, beyond int64"), e.span())
                    .help("integers range from -9223372036854775808 to 9223372036854775807; write a decimal literal (with a `.`) for a float64"));
            }
        }
        Ok(Expr::Literal(literal(&v.value).ok_or_else(|| unsupported(self.model, format_args!("the literal {}", v.value), e.span()))?))
    }

    /// `-1`, `+x`, `NOT x`.
    fn unary(&self, e: &sql::Expr, op: sql::UnaryOperator, expr: &sql::Expr, rel: &Rel, grouping: Option<&Grouping>) -> Result<Expr> {
        let model = self.model;
        Ok(match (op, expr) {
            (sql::UnaryOperator::Minus, sql::Expr::Value(v)) if matches!(v.value, sql::Value::Number(..)) => match literal(&v.value) {
                Some(Literal::Int(i)) => Expr::Literal(Literal::Int(-i)),
                Some(Literal::Float(f)) => Expr::Literal(Literal::Float(-f)),
                _ => unreachable!(),
            },
            (sql::UnaryOperator::Plus, inner) => self.expr(inner, rel, grouping)?,
            (sql::UnaryOperator::Not, inner) => {
                let x = self.expr(inner, rel, grouping)?;
                if !matches!(x.ty(), DataType::Boolean | DataType::Unsupported(Unsupported::Null)) {
                    return Err(LowerError::new(Code::LogicOverNonBoolean, format!("model `{model}` negates `{}`, which is {}, not boolean", x.render(), x.ty()), e.span())
                        .help("NOT applies to a condition: compare first, for example NOT (qty > 0)"));
                }
                Expr::Not(Box::new(x))
            }
            (sql::UnaryOperator::Minus, _) => {
                return Err(unsupported(model, format_args!("the expression (- {})", display_name(expr, &rel.qualifier)), e.span()).help("write `0 - x` instead of `-x`"))
            }
            (op, _) => return Err(unsupported(model, format_args!("the operator {op}"), e.span())),
        })
    }

    /// Comparison, arithmetic and AND/OR, typed.
    fn binary(&self, e: &sql::Expr, left: &sql::Expr, op: &sql::BinaryOperator, right: &sql::Expr, rel: &Rel, grouping: Option<&Grouping>) -> Result<Expr> {
        let model = self.model;
        let bop = match op {
            sql::BinaryOperator::Eq => BinOp::Eq,
            sql::BinaryOperator::NotEq => BinOp::NotEq,
            sql::BinaryOperator::Lt => BinOp::Lt,
            sql::BinaryOperator::LtEq => BinOp::LtEq,
            sql::BinaryOperator::Gt => BinOp::Gt,
            sql::BinaryOperator::GtEq => BinOp::GtEq,
            sql::BinaryOperator::Plus => BinOp::Plus,
            sql::BinaryOperator::Minus => BinOp::Minus,
            sql::BinaryOperator::Multiply => BinOp::Multiply,
            sql::BinaryOperator::Divide => BinOp::Divide,
            sql::BinaryOperator::And => BinOp::And,
            sql::BinaryOperator::Or => BinOp::Or,
            sql::BinaryOperator::Modulo => BinOp::Modulo,
            sql::BinaryOperator::StringConcat => BinOp::Concat,
            other => return Err(unsupported(model, format_args!("the operator {other}"), e.span())),
        };
        if matches!(bop, BinOp::Plus | BinOp::Minus) && (as_interval(left).is_some() || as_interval(right).is_some()) {
            return self.interval_arithmetic(e, bop, left, right, rel, grouping);
        }
        let l = self.expr(left, rel, grouping)?;
        let r = self.expr(right, rel, grouping)?;
        if matches!(bop, BinOp::Modulo | BinOp::Concat) {
            return self.modulo_or_concat(e, bop, l, r);
        }
        let ty = if bop.is_arithmetic() {
            arithmetic_type(bop, operand_type(&l, rel), operand_type(&r, rel)).map_err(|why| {
                LowerError::new(Code::ArithmeticTypeMismatch, format!("model `{model}` computes `{} {} {}`: {why}", l.render(), bop.symbol(), r.render()), e.span())
                    .help("arithmetic works on int32, int64, float64 and decimal; CAST the other side if needed")
            })?
        } else if matches!(bop, BinOp::And | BinOp::Or) {
            for side in [&l, &r] {
                if !matches!(side.ty(), DataType::Boolean | DataType::Unsupported(Unsupported::Null)) {
                    return Err(LowerError::new(Code::LogicOverNonBoolean, format!("model `{model}` uses `{}` in {}, but it is {}, not boolean", side.render(), bop.symbol(), side.ty()), e.span())
                        .help(format!("{} joins conditions: compare it first, for example `{} > 0`", bop.symbol(), side.render())));
                }
            }
            DataType::Boolean
        } else {
            DataType::Boolean
        };
        Ok(Expr::Binary { op: bop, left: Box::new(l), right: Box::new(r), ty })
    }

    /// A function call where only scalars are allowed: an aggregate out of
    /// place, or a function we do not plan.
    fn misplaced_function(&self, f: &sql::Function, e: &sql::Expr) -> LowerError {
        let model = self.model;
        let name = object_name(&f.name).to_lowercase();
        if AggFunc::is_aggregate(&name) {
            if f.over.is_some() {
                return super::rank::window_function(model, f, e.span());
            }
            return LowerError::new(Code::AggregateNotAllowedHere, format!("model `{model}` uses the aggregate {name}() where no aggregate is allowed"), e.span())
                .help("aggregates belong in the SELECT list or HAVING of a grouped query, not in WHERE or GROUP BY");
        }
        let err = LowerError::new(Code::UnsupportedConstruct, format!("model `{model}` uses the function `{name}` (supported: sum, count, min, max, {CALLABLE}), which is not supported yet"), e.span());
        match instead_of(&name) {
            Some(help) => err.help(help),
            None => err,
        }
    }

    /// The error for an expression form we do not plan, with a rewrite
    /// where there is one.
    fn unsupported_expr(&self, e: &sql::Expr) -> LowerError {
        let model = self.model;
        match e {
            sql::Expr::ILike { .. } => unsupported(model, "ILIKE", e.span()).help("write `lower(s) LIKE 'abc%'`"),
            sql::Expr::SimilarTo { .. } | sql::Expr::RLike { .. } => unsupported(model, "SIMILAR TO and regular expressions", e.span()).help("LIKE with `%` and `_` is supported"),
            sql::Expr::IsTrue(_) | sql::Expr::IsFalse(_) | sql::Expr::IsNotTrue(_) | sql::Expr::IsNotFalse(_) | sql::Expr::IsUnknown(_) | sql::Expr::IsNotUnknown(_) => {
                unsupported(model, format_args!("the expression {e}"), e.span()).help("compare with `= true` or use the boolean column directly")
            }
            sql::Expr::Subquery(_) | sql::Expr::In { .. } | sql::Expr::Exists { .. } => {
                unsupported(model, "a subquery expression", e.span()).help("a model reads one relation; move the subquery into an upstream model")
            }
            sql::Expr::Interval(_) => unsupported(model, "an INTERVAL outside `timestamp ± INTERVAL`", e.span()).help(INTERVAL_HELP),
            _ => unsupported(model, format_args!("the expression {e}"), e.span()),
        }
    }

    /// Above an aggregate: a grouped column or an aggregate call.
    fn grouped_column(&self, e: &sql::Expr, out: &Rel, g: &Grouping) -> Result<Option<Expr>> {
        match e {
            sql::Expr::Function(f) => {
                let name = object_name(&f.name).to_lowercase();
                let column = |call: AggCall| {
                    let pos = g.calls.iter().position(|c| c.identity == call.identity).expect("collected before");
                    Expr::Column { index: out.cols.len() - g.calls.len() + pos, name: call.name, ty: call.ty }
                };
                if let Some(func) = AggFunc::parse(&name) {
                    return Ok(Some(column(self.aggregate_call(func, f, g.input)?)));
                }
                if name == "avg" {
                    let (sum, count) = self.avg_calls(f, g.input)?;
                    let (sum, count) = (column(sum), column(count));
                    let ty = crate::plan::func::avg_type(sum.ty()).expect("avg_calls checked the type");
                    return Ok(Some(Expr::Call { func: crate::plan::expr::ScalarFunc::Avg, args: vec![sum, count], ty }));
                }
                Ok(None)
            }
            sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_) => {
                let parts = match e {
                    sql::Expr::Identifier(i) => vec![i.clone()],
                    sql::Expr::CompoundIdentifier(p) => p.clone(),
                    _ => unreachable!(),
                };
                let c = self.known_column(&parts, g.input, e.span())?;
                let Expr::Column { index, name, ty } = c else { return Ok(Some(c)) };
                // Keys lead the aggregate's output in GROUP BY order, each
                // under its output name (over a join, maybe not the input's).
                if let Some(out_idx) = g.keys.iter().position(|k| *k == index) {
                    return Ok(Some(Expr::Column { index: out_idx, name: out.cols[out_idx].name.clone(), ty }));
                }
                Err(LowerError::new(
                    Code::ColumnNotGrouped,
                    format!("model `{}` selects `{name}`, which is neither grouped nor aggregated", self.model),
                    e.span(),
                )
                .help(format!("add `{name}` to GROUP BY, or aggregate it, for example max({name})")))
            }
            _ => Ok(None),
        }
    }

    /// A column of `rel`; an unknown one is kept as an error and planning
    /// goes on (see `Lowerer::recover`).
    fn known_column(&self, parts: &[sql::Ident], rel: &Rel, span: SqlSpan) -> Result<Expr> {
        match self.column(parts, rel, span) {
            Err(e) if e.code == Code::UnknownColumn => Ok(self.recover(e)),
            other => other,
        }
    }

    /// The arguments of a function that is not planned, planned only for
    /// the unknown names in them (kept by `recover`); any other error
    /// there may follow from the function's own, so it is dropped.
    fn argument_slips(&self, f: &sql::Function, rel: &Rel, grouping: Option<&Grouping>) {
        let sql::FunctionArguments::List(list) = &f.args else { return };
        for a in &list.args {
            if let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) = a {
                let _ = self.expr(x, rel, grouping);
            }
        }
    }

    fn column(&self, parts: &[sql::Ident], rel: &Rel, span: SqlSpan) -> Result<Expr> {
        if !rel.sides.is_empty() {
            return self.join_column(parts, rel, span);
        }
        let (qualifier, name) = match parts {
            [n] => (None, ident_name(n)),
            [q, n] => (Some(ident_name(q)), ident_name(n)),
            _ => return Err(unsupported(self.model, "a column name with more than two parts", span)),
        };
        let found = rel.cols.iter().position(|c| c.name == name);
        match (found, &qualifier) {
            (Some(i), None) => Ok(Expr::Column { index: i, name, ty: rel.cols[i].ty }),
            (Some(i), Some(q)) if *q == rel.qualifier => Ok(Expr::Column { index: i, name, ty: rel.cols[i].ty }),
            (None, _) if rel.windowable && (name == "window_start" || name == "window_end") => Err(LowerError::new(
                Code::WindowColumnBelowAggregate,
                format!("model `{}` uses `{name}` before the aggregate", self.model),
                span,
            )
            .help("a window's bounds exist for the aggregate's GROUP BY and what is above it, not for WHERE or a projection below it")),
            _ => {
                let shown = match &qualifier {
                    Some(q) => format!("{q}.{name}"),
                    None => name.clone(),
                };
                let names: Vec<&str> = rel.cols.iter().map(|c| c.name.as_str()).collect();
                let mut help = match did_you_mean(&name, names.iter().copied()) {
                    Some(s) if qualifier.as_deref().is_none_or(|q| q == rel.qualifier) => format!("did you mean `{s}`? "),
                    _ => String::new(),
                };
                if let Some(q) = &qualifier {
                    if *q != rel.qualifier {
                        help.push_str(&format!("the relation here is `{}`; ", rel.qualifier));
                    }
                }
                help.push_str(&format!("the columns are {}", if names.is_empty() { "(none)".to_string() } else { names.join(", ") }));
                if parts[parts.len() - 1].quote_style == Some('"') {
                    help.push_str("; a double-quoted name is a column; write a string in single quotes");
                }
                Err(LowerError::new(Code::UnknownColumn, format!("model `{}` uses the column `{shown}`, which does not exist here", self.model), span).help(help))
            }
        }
    }
}

fn cast_type(t: &sql::DataType) -> Option<DataType> {
    use sql::DataType as D;
    Some(match t {
        D::Int(_) | D::Integer(_) | D::Int32 => DataType::Int32,
        D::BigInt(_) | D::Int64 => DataType::Int64,
        D::Double(_) | D::DoublePrecision | D::Float64 => DataType::Float64,
        D::Float(_) | D::Real => DataType::Unsupported(Unsupported::Float32),
        D::SmallInt(_) => DataType::Unsupported(Unsupported::Int16),
        D::TinyInt(_) => DataType::Unsupported(Unsupported::Int8),
        D::Date => DataType::Unsupported(Unsupported::Date32),
        D::Decimal(info) | D::Numeric(info) => match info {
            sql::ExactNumberInfo::None => DataType::Decimal(38, 10),
            sql::ExactNumberInfo::Precision(p) if (1..=38).contains(p) => DataType::Decimal(*p as u8, 0),
            sql::ExactNumberInfo::PrecisionAndScale(p, s) if (1..=38).contains(p) && *s >= 0 && (*s as u64) <= *p => DataType::Decimal(*p as u8, *s as u8),
            _ => return None,
        },
        D::Boolean | D::Bool => DataType::Boolean,
        // Decided: a cast to text is a string (the original leaked Utf8View).
        D::Varchar(_) | D::String(_) | D::Text | D::Char(_) => DataType::String,
        D::Timestamp(None, sql::TimezoneInfo::None) => DataType::TimestampNanos,
        _ => return None,
    })
}

/// What to write instead of a function other engines have and Streamform
/// does not plan (E0401's help).
fn instead_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "if" | "iif" => "write `CASE WHEN cond THEN a ELSE b END` instead of IF(cond, a, b)",
        "mod" => "write `a % b` instead of MOD(a, b)",
        "ifnull" | "nvl" | "isnull" => "write `COALESCE(x, default)`",
        "substr" => "write `SUBSTRING(s, start, length)`",
        "length" | "len" => "write `CHAR_LENGTH(s)`",
        "proctime" | "now" | "current_timestamp" | "localtimestamp" => {
            "a model computes on event time, not the wall clock: declare `event_time:` on the source and use that column (docs/semantics.md)"
        }
        _ => return None,
    })
}
