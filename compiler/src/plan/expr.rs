//! Typed scalar expressions, their result types and canonical rendering.
//!
//! Rendering is the identity-bearing text of definitions: every binary
//! operation parenthesised, columns unqualified, functions lowercase,
//! literals printed shortest. Types follow the rules in docs/types.md.

use std::fmt::Write;

pub use super::func::ScalarFunc;
use super::func::TrimSide;
use crate::types::{DataType, Unsupported};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Plus,
    Minus,
    Multiply,
    Divide,
    And,
    Or,
    /// `%`, on integers.
    Modulo,
    /// `||`, on strings.
    Concat,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Eq => "=",
            BinOp::NotEq => "!=",
            BinOp::Lt => "<",
            BinOp::LtEq => "<=",
            BinOp::Gt => ">",
            BinOp::GtEq => ">=",
            BinOp::Plus => "+",
            BinOp::Minus => "-",
            BinOp::Multiply => "*",
            BinOp::Divide => "/",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Modulo => "%",
            BinOp::Concat => "||",
        }
    }

    pub fn is_arithmetic(self) -> bool {
        matches!(self, BinOp::Plus | BinOp::Minus | BinOp::Multiply | BinOp::Divide)
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::LtEq | BinOp::Gt | BinOp::GtEq)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Null,
    /// A day-time INTERVAL, in milliseconds; only ever an operand of
    /// `timestamp ± interval` (lowering refuses it elsewhere).
    Interval(i64),
}

impl Literal {
    pub fn ty(&self) -> DataType {
        match self {
            Literal::Int(_) => DataType::Int64,
            Literal::Float(_) => DataType::Float64,
            Literal::Str(_) => DataType::String,
            Literal::Bool(_) => DataType::Boolean,
            Literal::Null => DataType::Unsupported(Unsupported::Null),
            Literal::Interval(_) => DataType::Unsupported(Unsupported::Interval),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A column of the input relation, by position.
    Column { index: usize, name: String, ty: DataType },
    Literal(Literal),
    Binary { op: BinOp, left: Box<Expr>, right: Box<Expr>, ty: DataType },
    Not(Box<Expr>),
    IsNull { expr: Box<Expr>, negated: bool },
    Cast { expr: Box<Expr>, to: DataType },
    /// A searched CASE (a simple CASE is planned as one): the first branch
    /// whose condition is TRUE, else `otherwise`, else NULL.
    Case { branches: Vec<(Expr, Expr)>, otherwise: Option<Box<Expr>>, ty: DataType },
    /// A scalar function (plan/func.rs).
    Call { func: ScalarFunc, args: Vec<Expr>, ty: DataType },
    InList { expr: Box<Expr>, list: Vec<Expr>, negated: bool },
    Between { expr: Box<Expr>, low: Box<Expr>, high: Box<Expr>, negated: bool },
    Like { expr: Box<Expr>, pattern: Box<Expr>, escape: Option<char>, negated: bool },
}

impl Expr {
    pub fn ty(&self) -> DataType {
        match self {
            Expr::Column { ty, .. } => *ty,
            Expr::Literal(l) => l.ty(),
            Expr::Binary { ty, .. } => *ty,
            Expr::Not(_) | Expr::IsNull { .. } => DataType::Boolean,
            Expr::Cast { to, .. } => *to,
            Expr::Case { ty, .. } | Expr::Call { ty, .. } => *ty,
            Expr::InList { .. } | Expr::Between { .. } | Expr::Like { .. } => DataType::Boolean,
        }
    }

    /// The direct sub-expressions, in order.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column { .. } | Expr::Literal(_) => Vec::new(),
            Expr::Binary { left, right, .. } => vec![left, right],
            Expr::Not(e) | Expr::IsNull { expr: e, .. } | Expr::Cast { expr: e, .. } => vec![e],
            Expr::Case { branches, otherwise, .. } => branches.iter().flat_map(|(c, r)| [c, r]).chain(otherwise.as_deref()).collect(),
            Expr::Call { args, .. } => args.iter().collect(),
            Expr::InList { expr, list, .. } => std::iter::once(&**expr).chain(list).collect(),
            Expr::Between { expr, low, high, .. } => vec![expr, low, high],
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
        }
    }

    /// The canonical rendering used in definitions and fingerprints.
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.render_into(&mut s);
        s
    }

    fn render_into(&self, out: &mut String) {
        match self {
            Expr::Column { name, .. } => out.push_str(name),
            Expr::Literal(l) => render_literal(l, out),
            Expr::Binary { op, left, right, .. } => {
                out.push('(');
                left.render_into(out);
                let _ = write!(out, " {} ", op.symbol());
                right.render_into(out);
                out.push(')');
            }
            Expr::Not(e) => {
                out.push_str("(NOT ");
                e.render_into(out);
                out.push(')');
            }
            Expr::IsNull { expr, negated } => {
                out.push('(');
                expr.render_into(out);
                out.push_str(if *negated { " IS NOT NULL)" } else { " IS NULL)" });
            }
            Expr::Cast { expr, to } => {
                out.push_str("CAST(");
                expr.render_into(out);
                let _ = write!(out, " AS {to})");
            }
            Expr::Call { func, args, .. } => render_call(*func, args, out),
            Expr::Case { .. } | Expr::InList { .. } | Expr::Between { .. } | Expr::Like { .. } => {
                layout_condition(self, out, &mut |e, out| e.render_into(out));
            }
        }
    }

    /// A copy with every column replaced by what `f` makes of it.
    pub fn map_columns(&self, f: &dyn Fn(usize, &str, DataType) -> Expr) -> Expr {
        match self {
            Expr::Column { index, name, ty } => f(*index, name, *ty),
            other => other.map_children(&|c| c.map_columns(f)),
        }
    }

    /// A copy of this node with each direct sub-expression replaced by
    /// what `f` makes of it.
    pub fn map_children(&self, f: &dyn Fn(&Expr) -> Expr) -> Expr {
        let m = |e: &Expr| Box::new(f(e));
        match self {
            Expr::Column { .. } | Expr::Literal(_) => self.clone(),
            Expr::Binary { op, left, right, ty } => Expr::Binary { op: *op, left: m(left), right: m(right), ty: *ty },
            Expr::Not(x) => Expr::Not(m(x)),
            Expr::IsNull { expr, negated } => Expr::IsNull { expr: m(expr), negated: *negated },
            Expr::Cast { expr, to } => Expr::Cast { expr: m(expr), to: *to },
            Expr::Case { branches, otherwise, ty } => Expr::Case { branches: branches.iter().map(|(c, r)| (f(c), f(r))).collect(), otherwise: otherwise.as_deref().map(m), ty: *ty },
            Expr::Call { func, args, ty } => Expr::Call { func: *func, args: args.iter().map(f).collect(), ty: *ty },
            Expr::InList { expr, list, negated } => Expr::InList { expr: m(expr), list: list.iter().map(f).collect(), negated: *negated },
            Expr::Between { expr, low, high, negated } => Expr::Between { expr: m(expr), low: m(low), high: m(high), negated: *negated },
            Expr::Like { expr, pattern, escape, negated } => Expr::Like { expr: m(expr), pattern: m(pattern), escape: *escape, negated: *negated },
        }
    }

    /// Visits every column reference.
    pub fn columns(&self, f: &mut impl FnMut(usize, &str)) {
        match self {
            Expr::Column { index, name, .. } => f(*index, name),
            other => other.children().into_iter().for_each(|c| c.columns(f)),
        }
    }
}

/// CASE, IN, BETWEEN and LIKE laid out in SQL's keywords, each operand by
/// `child`: the one layout of definitions and of the Flink SQL, which
/// differ only in how operands are spelled.
pub fn layout_condition(e: &Expr, out: &mut String, child: &mut dyn FnMut(&Expr, &mut String)) {
    match e {
        Expr::Case { branches, otherwise, .. } => {
            out.push_str("CASE");
            for (c, r) in branches {
                out.push_str(" WHEN ");
                child(c, out);
                out.push_str(" THEN ");
                child(r, out);
            }
            if let Some(o) = otherwise {
                out.push_str(" ELSE ");
                child(o, out);
            }
            out.push_str(" END");
        }
        Expr::InList { expr, list, negated } => {
            out.push('(');
            child(expr, out);
            out.push_str(if *negated { " NOT IN (" } else { " IN (" });
            for (i, e) in list.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                child(e, out);
            }
            out.push_str("))");
        }
        Expr::Between { expr, low, high, negated } => {
            out.push('(');
            child(expr, out);
            out.push_str(if *negated { " NOT BETWEEN " } else { " BETWEEN " });
            child(low, out);
            out.push_str(" AND ");
            child(high, out);
            out.push(')');
        }
        Expr::Like { expr, pattern, escape, negated } => {
            out.push('(');
            child(expr, out);
            out.push_str(if *negated { " NOT LIKE " } else { " LIKE " });
            child(pattern, out);
            if let Some(c) = escape {
                out.push_str(" ESCAPE ");
                child(&Expr::Literal(Literal::Str(c.to_string())), out);
            }
            out.push(')');
        }
        _ => unreachable!("CASE, IN, BETWEEN or LIKE"),
    }
}

/// `name(a, b)`; a trim of other than spaces from both ends says which
/// (`trim(LEADING 'x' FROM s)`).
fn render_call(func: ScalarFunc, args: &[Expr], out: &mut String) {
    let unit = match func {
        ScalarFunc::Extract(u) | ScalarFunc::FloorTime(u) | ScalarFunc::CeilTime(u) => Some(u),
        _ => None,
    };
    if let Some(u) = unit {
        // `extract(YEAR FROM ts)`, `floor(ts TO HOUR)`.
        out.push_str(func.name());
        out.push('(');
        if matches!(func, ScalarFunc::Extract(_)) {
            let _ = write!(out, "{} FROM ", u.name());
            args[0].render_into(out);
        } else {
            args[0].render_into(out);
            let _ = write!(out, " TO {}", u.name());
        }
        out.push(')');
        return;
    }
    if let ScalarFunc::Trim(side) = func {
        let spaces = matches!(args.get(1), Some(Expr::Literal(Literal::Str(s))) if s == " ");
        out.push_str("trim(");
        if side != TrimSide::Both || !spaces {
            out.push_str(match side {
                TrimSide::Both => "BOTH ",
                TrimSide::Leading => "LEADING ",
                TrimSide::Trailing => "TRAILING ",
            });
            args[1].render_into(out);
            out.push_str(" FROM ");
        }
        args[0].render_into(out);
        out.push(')');
        return;
    }
    out.push_str(func.name());
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        a.render_into(out);
    }
    out.push(')');
}

fn render_literal(l: &Literal, out: &mut String) {
    match l {
        Literal::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Literal::Float(f) => out.push_str(&render_float(*f)),
        Literal::Str(s) => {
            out.push('\'');
            out.push_str(&s.replace('\'', "''"));
            out.push('\'');
        }
        Literal::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Literal::Null => out.push_str("NULL::unsupported(Null)"),
        Literal::Interval(ms) => out.push_str(&interval_text(*ms)),
    }
}

/// An interval in its one canonical form, which Flink reads too: the
/// largest unit that divides it, with the digits of precision Flink needs
/// past two (`INTERVAL '90' MINUTE`, `INTERVAL '1' HOUR`, `INTERVAL
/// '100' DAY(3)`, `INTERVAL '1.250' SECOND`).
pub fn interval_text(ms: i64) -> String {
    let (n, frac, unit) = interval_parts(ms);
    let sign = if ms < 0 { "-" } else { "" };
    let digits = n.to_string().len();
    let precision = if digits > 2 { format!("({digits})") } else { String::new() };
    format!("INTERVAL '{sign}{n}{frac}' {unit}{precision}")
}

/// Flink's day-time intervals hold at most six digits in their unit.
pub fn interval_fits(ms: i64) -> bool {
    interval_parts(ms).0 < 1_000_000
}

/// The magnitude in its unit, the millisecond fraction (`.250`), the unit.
fn interval_parts(ms: i64) -> (u64, String, &'static str) {
    let abs = ms.unsigned_abs();
    let units = [(86_400_000, "DAY"), (3_600_000, "HOUR"), (60_000, "MINUTE"), (1000, "SECOND")];
    match units.iter().find(|(u, _)| abs != 0 && abs % u == 0) {
        Some((u, name)) => (abs / u, String::new(), name),
        None if abs % 1000 == 0 => (0, String::new(), "SECOND"),
        None => (abs / 1000, format!(".{:03}", abs % 1000), "SECOND"),
    }
}

/// Shortest round-trip form, without a trailing `.0` (`1e3` → `1000`).
pub fn render_float(f: f64) -> String {
    format!("{f}")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFunc {
    Count,
    Sum,
    Min,
    Max,
}

impl AggFunc {
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Count => "count",
            AggFunc::Sum => "sum",
            AggFunc::Min => "min",
            AggFunc::Max => "max",
        }
    }

    /// Whether `lower` names an aggregate: one of these, or `avg`, which
    /// is stored as a sum and a count (see [`AggFunc::parse`]).
    pub fn is_aggregate(lower: &str) -> bool {
        lower == "avg" || AggFunc::parse(lower).is_some()
    }

    pub fn parse(lower: &str) -> Option<AggFunc> {
        Some(match lower {
            "count" => AggFunc::Count,
            "sum" => AggFunc::Sum,
            "min" => AggFunc::Min,
            "max" => AggFunc::Max,
            _ => return None,
        })
    }

    /// The accumulator type: Streamform's rule (seed 001).
    pub fn accumulator_type(self, arg: Option<DataType>) -> Result<DataType, String> {
        match (self, arg) {
            (AggFunc::Count, _) => Ok(DataType::Int64),
            (AggFunc::Sum, Some(DataType::Int32 | DataType::Int64)) => Ok(DataType::Int64),
            (AggFunc::Sum, Some(DataType::Decimal(_, s))) => Ok(DataType::Decimal(38, s)),
            (AggFunc::Sum, Some(DataType::Float64)) => Ok(DataType::Float64),
            (AggFunc::Sum, Some(t)) => Err(format!("sum() adds numbers, but its argument is {t}")),
            (AggFunc::Min | AggFunc::Max, Some(t)) => Ok(t),
            (_, None) => Err(format!("{}(*) is not a function; use count(*)", self.name())),
        }
    }
}

/// One aggregate call, named by its rendering (`sum(amount)`, `count(*)`).
#[derive(Clone, Debug, PartialEq)]
pub struct AggCall {
    pub func: AggFunc,
    /// `None` for `count(*)` (and `count(1)`).
    pub arg: Option<Expr>,
    /// `FILTER (WHERE …)`: only rows where it is TRUE are aggregated.
    pub filter: Option<Expr>,
    /// `count(DISTINCT x)`, `sum(DISTINCT x)`: each value once per group,
    /// so the state holds the values seen.
    pub distinct: bool,
    pub name: String,
    pub ty: DataType,
    /// What makes two calls one accumulator: the call as written, up to
    /// case and qualifiers. `count(1)` and `count(*)` are both named
    /// `count(*)` but are two accumulators, as in the original.
    pub identity: String,
}

impl AggCall {
    /// `count(*)` with no filter and no DISTINCT: the number of rows, which
    /// a retracting aggregate's group is deleted at when it reaches 0.
    pub fn counts_rows(&self) -> bool {
        self.func == AggFunc::Count && self.arg.is_none() && self.filter.is_none() && !self.distinct
    }

    pub fn render(func: AggFunc, arg: Option<&Expr>) -> String {
        match arg {
            None => [func.name(), "(*)"].concat(),
            Some(a) => [func.name(), "(", &a.render(), ")"].concat(),
        }
    }

    /// The rendering with DISTINCT and its filter:
    /// `count(DISTINCT qty) FILTER (WHERE (qty > 0))`.
    pub fn render_filtered(func: AggFunc, arg: Option<&Expr>, filter: Option<&Expr>, distinct: bool) -> String {
        let call = match (arg, distinct) {
            (Some(a), true) => format!("{}(DISTINCT {})", func.name(), a.render()),
            _ => AggCall::render(func, arg),
        };
        match filter {
            None => call,
            Some(f) => format!("{call} FILTER (WHERE {})", f.render()),
        }
    }
}

/// The result type of arithmetic, or the reason there is none.
pub fn arithmetic_type(op: BinOp, l: DataType, r: DataType) -> Result<DataType, String> {
    use DataType::*;
    let as_decimal = |t: DataType| match t {
        Int32 => Some((10u8, 0u8)),
        Int64 => Some((20, 0)),
        Decimal(p, s) => Some((p, s)),
        _ => None,
    };
    let cap = |p: u32| p.min(38) as u8;
    match (l, r) {
        (Int32, Int32) => Ok(Int32),
        (Int32 | Int64, Int32 | Int64) => Ok(Int64),
        (Float64, t) | (t, Float64) if t.is_numeric() => Ok(Float64),
        (Timestamp, Timestamp) if op == BinOp::Minus => Ok(Unsupported(crate::types::Unsupported::DurationMs)),
        // An INTERVAL moves a timestamp and keeps its type.
        (Timestamp | TimestampNanos, Unsupported(crate::types::Unsupported::Interval)) if matches!(op, BinOp::Plus | BinOp::Minus) => Ok(l),
        (Unsupported(crate::types::Unsupported::Interval), Timestamp | TimestampNanos) if op == BinOp::Plus => Ok(r),
        (Decimal(..), _) | (_, Decimal(..)) if l.is_numeric() && r.is_numeric() => {
            let ((p1, s1), (p2, s2)) = (as_decimal(l).unwrap(), as_decimal(r).unwrap());
            let (p1, s1, p2, s2) = (p1 as u32, s1 as u32, p2 as u32, s2 as u32);
            Ok(match op {
                BinOp::Plus | BinOp::Minus => {
                    let s = s1.max(s2);
                    Decimal(cap((p1 - s1).max(p2 - s2) + s + 1), s.min(38) as u8)
                }
                BinOp::Multiply => Decimal(cap(p1 + p2 + 1), (s1 + s2).min(38) as u8),
                _ => {
                    let s = (s1 + 4).min(38);
                    Decimal(cap(p1 - s1 + s2 + s), s as u8)
                }
            })
        }
        _ => Err(format!("cannot apply `{}` to {l} and {r}", op.symbol())),
    }
}

/// DataFusion's display name of an expression, which the original uses as
/// the column name of an unaliased non-column select item.
pub fn display_name_literal(l: &Literal) -> String {
    match l {
        Literal::Int(i) => format!("Int64({i})"),
        Literal::Float(f) => format!("Float64({})", render_float(*f)),
        Literal::Str(s) => format!("Utf8(\"{s}\")"),
        Literal::Bool(b) => format!("Boolean({b})"),
        Literal::Null => "NULL".into(),
        Literal::Interval(ms) => interval_text(*ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn intervals_render_in_their_largest_unit() {
        let cases = [
            (3_600_000, "INTERVAL '1' HOUR"),
            (5_400_000, "INTERVAL '90' MINUTE"),
            (-172_800_000, "INTERVAL '-2' DAY"),
            (8_640_000_000, "INTERVAL '100' DAY(3)"),
            (1_250, "INTERVAL '1.250' SECOND"),
            (100_500, "INTERVAL '100.500' SECOND(3)"),
            (1, "INTERVAL '0.001' SECOND"),
            (0, "INTERVAL '0' SECOND"),
        ];
        for (ms, text) in cases {
            assert_eq!(interval_text(ms), text, "{ms} ms");
        }
        assert!(interval_fits(999_999 * 86_400_000));
        assert!(!interval_fits(1_000_000 * 1000 + 1));
    }

    #[test]
    fn decimal_arithmetic_types() {
        assert_eq!(arithmetic_type(BinOp::Multiply, Decimal(10, 2), Int64), Ok(Decimal(31, 2)));
        assert_eq!(arithmetic_type(BinOp::Divide, Decimal(10, 2), Int64), Ok(Decimal(14, 6)));
        assert_eq!(arithmetic_type(BinOp::Multiply, Decimal(10, 2), Decimal(10, 2)), Ok(Decimal(21, 4)));
        assert_eq!(arithmetic_type(BinOp::Plus, Decimal(10, 2), Int32), Ok(Decimal(13, 2)));
        assert_eq!(arithmetic_type(BinOp::Divide, Decimal(10, 2), Decimal(10, 2)), Ok(Decimal(16, 6)));
        assert_eq!(arithmetic_type(BinOp::Minus, Decimal(10, 2), Float64), Ok(Float64));
        assert_eq!(arithmetic_type(BinOp::Divide, Int32, Int64), Ok(Int64));
        assert!(arithmetic_type(BinOp::Plus, String, Int64).is_err());
    }

    #[test]
    fn floats_render_shortest() {
        assert_eq!(render_float(1.50), "1.5");
        assert_eq!(render_float(1e3), "1000");
        assert_eq!(render_float(-1.5), "-1.5");
        assert_eq!(render_float(0.10), "0.1");
    }
}
