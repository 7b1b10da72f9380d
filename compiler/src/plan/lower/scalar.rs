//! The SQL past the original's subset, planned into typed `Expr`s: CASE,
//! IN, BETWEEN, LIKE, `%`, `||` and the scalar functions (plan/func.rs),
//! each typed by docs/types.md and normalised so that two spellings of one
//! expression plan alike (a simple CASE is a searched one; `ELSE NULL` is
//! no ELSE; `SUBSTRING(s FROM a FOR b)` is `substring(s, a, b)`).

use sqlparser::ast::{self as sql, Spanned};

use super::{Grouping, LowerError, Lowerer, Rel, Result};
use crate::diagnostic::Code;
use crate::plan::expr::{BinOp, Expr, Literal, ScalarFunc};
use crate::plan::func::{common_type, date_pattern_ok, TimeUnit, TrimSide, CALLABLE};
use crate::types::{DataType, Unsupported};

const NULL: DataType = DataType::Unsupported(Unsupported::Null);

impl<'a> Lowerer<'a> {
    fn mismatch(&self, what: String, e: &sql::Expr, help: &str) -> LowerError {
        LowerError::new(Code::ScalarOperandMismatch, format!("model `{}` {what}", self.model), e.span()).help(help.to_string())
    }

    /// `CASE [x] WHEN … THEN … [ELSE …] END`.
    pub(super) fn case(&self, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let sql::Expr::Case { operand, conditions, else_result, .. } = e else { unreachable!("a CASE") };
        let operand = operand.as_deref().map(|o| self.expr(o, rel, g)).transpose()?;
        let mut branches = Vec::new();
        for w in conditions {
            let value = self.expr(&w.condition, rel, g)?;
            let cond = match &operand {
                Some(x) => {
                    self.comparable(&[x, &value], e, "compares its CASE operand with each WHEN")?;
                    Expr::Binary { op: BinOp::Eq, left: Box::new(x.clone()), right: Box::new(value), ty: DataType::Boolean }
                }
                None if matches!(value.ty(), DataType::Boolean | NULL) => value,
                None => return Err(self.mismatch(format!("uses `{}`, which is {}, as a CASE condition", value.render(), value.ty()), &w.condition, "a WHEN of a searched CASE is a condition: compare first, for example WHEN qty > 0")),
            };
            branches.push((cond, self.expr(&w.result, rel, g)?));
        }
        let otherwise = else_result.as_deref().map(|x| self.expr(x, rel, g)).transpose()?.filter(|x| !matches!(x, Expr::Literal(Literal::Null)));
        let types: Vec<DataType> = branches.iter().map(|(_, r)| r.ty()).chain(otherwise.iter().map(Expr::ty)).collect();
        let ty = common_type(&types).map_err(|why| self.mismatch(format!("has CASE results of no common type: {why}"), e, "CAST the results to one type"))?;
        Ok(Expr::Case { branches, otherwise: otherwise.map(Box::new), ty })
    }

    /// Fails unless the expressions can be compared with one another.
    fn comparable(&self, xs: &[&Expr], e: &sql::Expr, what: &str) -> Result<()> {
        let types: Vec<DataType> = xs.iter().map(|x| x.ty()).collect();
        let strings_and_times = types.iter().all(|&t| matches!(t, DataType::String | NULL) || t.is_timestamp());
        if strings_and_times || common_type(&types).is_ok() {
            return Ok(());
        }
        Err(self.mismatch(format!("{what}, but {} have no common type", types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" and ")), e, "CAST one side so both are numbers, strings, booleans or timestamps"))
    }

    /// `x [NOT] IN (a, b)`.
    pub(super) fn in_list(&self, e: &sql::Expr, x: &sql::Expr, list: &[sql::Expr], negated: bool, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let x = self.expr(x, rel, g)?;
        let list = list.iter().map(|i| self.expr(i, rel, g)).collect::<Result<Vec<_>>>()?;
        self.comparable(&std::iter::once(&x).chain(&list).collect::<Vec<_>>(), e, "tests IN")?;
        Ok(Expr::InList { expr: Box::new(x), list, negated })
    }

    /// `x [NOT] BETWEEN a AND b`.
    pub(super) fn between(&self, e: &sql::Expr, x: &sql::Expr, low: &sql::Expr, high: &sql::Expr, negated: bool, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let (x, low, high) = (self.expr(x, rel, g)?, self.expr(low, rel, g)?, self.expr(high, rel, g)?);
        self.comparable(&[&x, &low, &high], e, "tests BETWEEN")?;
        Ok(Expr::Between { expr: Box::new(x), low: Box::new(low), high: Box::new(high), negated })
    }

    /// `s [NOT] LIKE p [ESCAPE 'c']`.
    pub(super) fn like(&self, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let sql::Expr::Like { negated, any, expr, pattern, escape_char } = e else { unreachable!("a LIKE") };
        if *any {
            return Err(super::unsupported(self.model, "LIKE ANY", e.span()).help("write `s LIKE 'a%' OR s LIKE 'b%'`"));
        }
        let (s, p) = (self.expr(expr, rel, g)?, self.expr(pattern, rel, g)?);
        for side in [&s, &p] {
            if !matches!(side.ty(), DataType::String | NULL) {
                return Err(self.mismatch(format!("matches `{}`, which is {}, with LIKE", side.render(), side.ty()), e, "LIKE matches strings; CAST the value AS VARCHAR"));
            }
        }
        let escape = match escape_char.as_deref() {
            None => None,
            Some(x) => match self.expr(x, rel, g)? {
                Expr::Literal(Literal::Str(c)) if c.chars().count() == 1 => c.chars().next(),
                _ => return Err(self.mismatch("gives LIKE an ESCAPE that is not one character".into(), x, "write ESCAPE '!' (one character in single quotes)")),
            },
        };
        Ok(Expr::Like { expr: Box::new(s), pattern: Box::new(p), escape, negated: *negated })
    }

    /// `a % b` on integers and `a || b` on strings.
    pub(super) fn modulo_or_concat(&self, e: &sql::Expr, op: BinOp, l: Expr, r: Expr) -> Result<Expr> {
        let (lt, rt) = (l.ty(), r.ty());
        let ty = match op {
            BinOp::Modulo => match (lt, rt) {
                (DataType::Int32 | NULL, DataType::Int32 | NULL) => DataType::Int32,
                (DataType::Int32 | DataType::Int64 | NULL, DataType::Int32 | DataType::Int64 | NULL) => DataType::Int64,
                _ => return Err(self.mismatch(format!("computes `{} % {}` over {lt} and {rt}", l.render(), r.render()), e, "`%` takes integers; CAST a decimal AS BIGINT first")),
            },
            _ => {
                if !matches!(lt, DataType::String | NULL) || !matches!(rt, DataType::String | NULL) {
                    return Err(self.mismatch(format!("joins `{}` and `{}` with `||`, over {lt} and {rt}", l.render(), r.render()), e, "`||` joins strings; CAST the other side AS VARCHAR"));
                }
                DataType::String
            }
        };
        Ok(Expr::Binary { op, left: Box::new(l), right: Box::new(r), ty })
    }

    /// A scalar function called as `name(args)`; `None` when `name` is none.
    pub(super) fn scalar_call(&self, f: &sql::Function, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Option<Expr>> {
        let name = super::names::object_name(&f.name).to_lowercase();
        let Some(func) = ScalarFunc::parse(&name) else { return Ok(None) };
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(self.mismatch(format!("calls {name} without arguments"), e, "write the arguments in parentheses"));
        };
        if list.duplicate_treatment.is_some() || f.filter.is_some() || f.over.is_some() || !list.clauses.is_empty() {
            return Err(super::unsupported(self.model, format_args!("DISTINCT, FILTER, OVER or clauses in the scalar function {name}()"), e.span()));
        }
        let mut args = Vec::new();
        for a in &list.args {
            match a {
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => args.push(self.expr(x, rel, g)?),
                _ => return Err(self.mismatch(format!("passes {a} to {name}()"), e, "pass plain expressions")),
            }
        }
        self.typed_call(func, args, e).map(Some)
    }

    /// `SUBSTRING(s FROM a [FOR b])` and `SUBSTRING(s, a [, b])`.
    pub(super) fn substring(&self, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let sql::Expr::Substring { expr, substring_from, substring_for, .. } = e else { unreachable!("a SUBSTRING") };
        let Some(from) = substring_from else {
            return Err(self.mismatch("calls substring() without a start".into(), e, "write SUBSTRING(s FROM 1 FOR 3) or substring(s, 1, 3)"));
        };
        let mut args = vec![self.expr(expr, rel, g)?, self.expr(from, rel, g)?];
        if let Some(len) = substring_for {
            args.push(self.expr(len, rel, g)?);
        }
        self.typed_call(ScalarFunc::Substring, args, e)
    }

    /// `TRIM([BOTH|LEADING|TRAILING] ['x' FROM] s)`.
    pub(super) fn trim(&self, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let sql::Expr::Trim { expr, trim_where, trim_what, trim_characters } = e else { unreachable!("a TRIM") };
        if trim_characters.is_some() {
            return Err(super::unsupported(self.model, "TRIM(s, characters)", e.span()).help("write TRIM(BOTH 'x' FROM s)"));
        }
        let side = match trim_where {
            Some(sql::TrimWhereField::Leading) => TrimSide::Leading,
            Some(sql::TrimWhereField::Trailing) => TrimSide::Trailing,
            _ => TrimSide::Both,
        };
        let what = match trim_what {
            Some(w) => self.expr(w, rel, g)?,
            None => Expr::Literal(Literal::Str(" ".into())),
        };
        self.typed_call(ScalarFunc::Trim(side), vec![self.expr(expr, rel, g)?, what], e)
    }

    /// `FLOOR(x)`, `CEIL(x)`, and on timestamps `FLOOR(ts TO unit)`.
    pub(super) fn floor_ceil(&self, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let (floor, x, field) = match e {
            sql::Expr::Floor { expr, field } => (true, expr, field),
            sql::Expr::Ceil { expr, field } => (false, expr, field),
            _ => unreachable!("FLOOR or CEIL"),
        };
        let func = match field {
            sql::CeilFloorKind::DateTimeField(sql::DateTimeField::NoDateTime) if floor => ScalarFunc::Floor,
            sql::CeilFloorKind::DateTimeField(sql::DateTimeField::NoDateTime) => ScalarFunc::Ceil,
            sql::CeilFloorKind::DateTimeField(f) => {
                let u = self.time_unit(f, e)?;
                if floor {
                    ScalarFunc::FloorTime(u)
                } else {
                    ScalarFunc::CeilTime(u)
                }
            }
            sql::CeilFloorKind::Scale(_) => return Err(self.mismatch(format!("calls {}() with a scale", if floor { "floor" } else { "ceil" }), e, "use round(x, digits) to keep digits")),
        };
        self.typed_call(func, vec![self.expr(x, rel, g)?], e)
    }

    /// `EXTRACT(unit FROM ts)`.
    pub(super) fn extract(&self, e: &sql::Expr, rel: &Rel, g: Option<&Grouping>) -> Result<Expr> {
        let sql::Expr::Extract { field, expr, .. } = e else { unreachable!("an EXTRACT") };
        let u = self.time_unit(field, e)?;
        self.typed_call(ScalarFunc::Extract(u), vec![self.expr(expr, rel, g)?], e)
    }

    fn time_unit(&self, f: &sql::DateTimeField, e: &sql::Expr) -> Result<TimeUnit> {
        Ok(match f {
            sql::DateTimeField::Year => TimeUnit::Year,
            sql::DateTimeField::Quarter => TimeUnit::Quarter,
            sql::DateTimeField::Month => TimeUnit::Month,
            sql::DateTimeField::Day => TimeUnit::Day,
            sql::DateTimeField::Hour => TimeUnit::Hour,
            sql::DateTimeField::Minute => TimeUnit::Minute,
            sql::DateTimeField::Second => TimeUnit::Second,
            other => return Err(super::unsupported(self.model, format_args!("the time unit {other}"), e.span()).help("the units are YEAR, QUARTER, MONTH, DAY, HOUR, MINUTE and SECOND")),
        })
    }

    /// Checks the number and types of `args` and types the call.
    fn typed_call(&self, func: ScalarFunc, args: Vec<Expr>, e: &sql::Expr) -> Result<Expr> {
        let name = func.name();
        let (min, max) = match func {
            ScalarFunc::Coalesce | ScalarFunc::Concat => (1, usize::MAX),
            ScalarFunc::NullIf | ScalarFunc::Trim(_) | ScalarFunc::DateFormat => (2, 2),
            ScalarFunc::Substring => (2, 3),
            ScalarFunc::Round => (1, 2),
            _ => (1, 1),
        };
        if args.len() < min || args.len() > max {
            let takes = if min == max { format!("{min}") } else if max == usize::MAX { format!("at least {min}") } else { format!("{min} or {max}") };
            return Err(self.mismatch(format!("calls {name}() with {} arguments", args.len()), e, &format!("{name}() takes {takes}; the scalar functions are {CALLABLE} (docs/types.md)")));
        }
        let digits = match (func, args.get(1)) {
            (ScalarFunc::Round, Some(Expr::Literal(Literal::Int(d)))) => *d,
            (ScalarFunc::Round, Some(_)) => return Err(self.mismatch("rounds to digits that are not an integer literal".into(), e, "write round(x, 2)")),
            _ => 0,
        };
        if func == ScalarFunc::DateFormat {
            match &args[1] {
                Expr::Literal(Literal::Str(p)) if date_pattern_ok(p) => {}
                _ => return Err(self.mismatch("formats a date with a pattern outside yyyy, MM, dd, HH, mm, ss and SSS".into(), e, "write a pattern literal such as 'yyyy-MM-dd HH:mm:ss'; other letters are not supported")),
            }
        }
        let types: Vec<DataType> = args.iter().map(Expr::ty).collect();
        let ty = func.result_type(&types, digits).map_err(|why| self.mismatch(format!("calls {name}(): {why}"), e, "CAST the argument to the type the function takes (docs/types.md)"))?;
        Ok(Expr::Call { func, args, ty })
    }
}
