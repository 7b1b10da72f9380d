//! Flink SQL rendering of plan expressions, and the types Flink infers for
//! them, so that the generated SQL can cast where Flink's type would differ
//! from the plan's (Flink's `INT + 1` is INT; the plan says int64).

use std::fmt::Write;

pub use super::typing::{flink_type, raw_arithmetic_type};
use crate::plan::expr::{interval_text, layout_condition, BinOp, Expr, Literal, ScalarFunc};
use crate::plan::func::TrimSide;
use crate::types::{DataType, Unsupported};

/// `` `name` ``, with backquotes inside doubled.
pub fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `'text'`, with quotes inside doubled.
pub fn string_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The Flink type of a plan type; `None` for the types no sink can carry.
pub fn sql_type(t: DataType) -> Option<String> {
    t.flink_sql()
}

/// Renders an expression as Flink SQL: backquoted identifiers, `<>`,
/// `TRUE`/`FALSE`, casts to Flink type names, and a cast wherever Flink
/// would compute another type than the plan records.
pub fn render(e: &Expr) -> String {
    let mut s = String::new();
    render_into(e, &mut s);
    s
}

fn render_into(e: &Expr, out: &mut String) {
    match e {
        Expr::Case { .. } | Expr::Call { .. } | Expr::InList { .. } | Expr::Between { .. } | Expr::Like { .. } => scalar_into(e, out),
        Expr::Binary { op: BinOp::Modulo | BinOp::Concat, .. } => scalar_into(e, out),
        Expr::Column { name, .. } => out.push_str(&ident(name)),
        Expr::Literal(l) => render_literal(l, out),
        Expr::Binary { op, left, right, ty } => {
            let planned = *ty;
            // Flink adds two INTs in 32 bits; where the plan says int64, widen
            // one operand so Flink computes in BIGINT as the plan does.
            let widen = op.is_arithmetic() && planned == DataType::Int64 && flink_type(left) == Some(DataType::Int32) && flink_type(right) == Some(DataType::Int32);
            let widen_left = widen && !matches!(**left, Expr::Literal(_));
            let mut text = String::from("(");
            if widen_left {
                cast_into(left, "BIGINT", &mut text);
            } else {
                render_into(left, &mut text);
            }
            let _ = write!(text, " {} ", flink_symbol(*op));
            if widen && !widen_left {
                cast_into(right, "BIGINT", &mut text);
            } else {
                render_into(right, &mut text);
            }
            text.push(')');
            match (op.is_arithmetic(), raw_arithmetic_type(e), sql_type(planned)) {
                (true, Some(f), Some(t)) if f != planned => {
                    let _ = write!(out, "CAST({text} AS {t})");
                }
                _ => out.push_str(&text),
            }
        }
        Expr::Not(x) => {
            out.push_str("(NOT ");
            render_into(x, out);
            out.push(')');
        }
        Expr::IsNull { expr, negated } => {
            out.push('(');
            render_into(expr, out);
            out.push_str(if *negated { " IS NOT NULL)" } else { " IS NULL)" });
        }
        Expr::Cast { expr, to } => match sql_type(*to) {
            Some(t) => {
                out.push_str("CAST(");
                render_into(expr, out);
                let _ = write!(out, " AS {t})");
            }
            // A date is the instant of its midnight, as the simulator holds
            // it; a sink refuses the type (E0320), but a reader may group,
            // compare or count it, so Flink must compute the same value.
            None if *to == DataType::Unsupported(Unsupported::Date32) => {
                out.push_str("FLOOR(");
                if flink_type(expr) == Some(DataType::Timestamp) {
                    render_into(expr, out);
                } else {
                    out.push_str("CAST(");
                    render_into(expr, out);
                    out.push_str(" AS TIMESTAMP(3))");
                }
                out.push_str(" TO DAY)");
            }
            // A cast to another type Flink cannot carry (FLOAT) is left out,
            // as the original does; build refuses it when the column reaches
            // a sink.
            None => render_into(expr, out),
        },
    }
}

/// The constructs past the original's SQL. Every one that computes a
/// value is cast to the plan's type, so Flink's own inference (MOD's type
/// is its second argument's, CASE's its branches' widest) never differs.
fn scalar_into(e: &Expr, out: &mut String) {
    let text = scalar_text(e);
    match (e.ty(), sql_type(e.ty())) {
        (DataType::Boolean, _) | (_, None) => out.push_str(&text),
        (_, Some(t)) => {
            let _ = write!(out, "CAST({text} AS {t})");
        }
    }
}

fn list_into(args: &[&Expr], text: &mut String) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        render_into(a, text);
    }
}

fn scalar_text(e: &Expr) -> String {
    let mut text = String::new();
    match e {
        Expr::Case { .. } | Expr::InList { .. } | Expr::Between { .. } | Expr::Like { .. } => layout_condition(e, &mut text, &mut |x, out| render_into(x, out)),
        Expr::Call { func, args, ty } => call_text(*func, args, *ty, &mut text),
        Expr::Binary { op: BinOp::Modulo, left, right, .. } => {
            text.push_str("MOD(");
            list_into(&[left, right], &mut text);
            text.push(')');
        }
        Expr::Binary { left, right, .. } => {
            text.push('(');
            list_into(&[left], &mut text);
            text.push_str(" || ");
            list_into(&[right], &mut text);
            text.push(')');
        }
        _ => unreachable!("only the constructs past the original's SQL"),
    }
    text
}

fn call_text(func: ScalarFunc, args: &[Expr], ty: DataType, text: &mut String) {
    match func {
        ScalarFunc::Trim(side) => {
            let side = match side {
                TrimSide::Both => "BOTH",
                TrimSide::Leading => "LEADING",
                TrimSide::Trailing => "TRAILING",
            };
            let _ = write!(text, "TRIM({side} ");
            render_into(&args[1], text);
            text.push_str(" FROM ");
            render_into(&args[0], text);
            text.push(')');
        }
        ScalarFunc::Extract(u) => {
            let _ = write!(text, "EXTRACT({} FROM ", u.name());
            render_into(&args[0], text);
            text.push(')');
        }
        ScalarFunc::FloorTime(u) | ScalarFunc::CeilTime(u) => {
            text.push_str(if matches!(func, ScalarFunc::FloorTime(_)) { "FLOOR(" } else { "CEIL(" });
            render_into(&args[0], text);
            let _ = write!(text, " TO {})", u.name());
        }
        ScalarFunc::Avg => {
            // The sum at AVG's type over the count: Flink divides DECIMAL(38,s)
            // by BIGINT at scale s, rounding once, as the simulator does.
            text.push_str("CAST(");
            render_into(&args[0], text);
            let _ = write!(text, " AS {}) / ", sql_type(ty).unwrap_or_else(|| "DOUBLE".into()));
            render_into(&args[1], text);
        }
        ScalarFunc::Substring => {
            text.push_str("SUBSTRING(");
            render_into(&args[0], text);
            text.push_str(" FROM ");
            render_into(&args[1], text);
            if let Some(len) = args.get(2) {
                text.push_str(" FOR ");
                render_into(len, text);
            }
            text.push(')');
        }
        _ => {
            text.push_str(&func.name().to_uppercase());
            text.push('(');
            list_into(&args.iter().collect::<Vec<_>>(), text);
            text.push(')');
        }
    }
}

fn cast_into(e: &Expr, to: &str, out: &mut String) {
    out.push_str("CAST(");
    render_into(e, out);
    let _ = write!(out, " AS {to})");
}

fn flink_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::NotEq => "<>",
        other => other.symbol(),
    }
}

fn render_literal(l: &Literal, out: &mut String) {
    match l {
        Literal::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Literal::Float(f) => out.push_str(&super::typing::float_literal_text(*f)),
        Literal::Str(s) => out.push_str(&string_literal(s)),
        Literal::Bool(b) => out.push_str(if *b { "TRUE" } else { "FALSE" }),
        Literal::Null => out.push_str("NULL"),
        Literal::Interval(ms) => out.push_str(&interval_text(*ms)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(name: &str, ty: DataType) -> Expr {
        Expr::Column { index: 0, name: name.into(), ty }
    }

    #[test]
    fn renders_flink_spelling() {
        let e = Expr::Binary {
            op: BinOp::NotEq,
            left: Box::new(col("status", DataType::String)),
            right: Box::new(Expr::Literal(Literal::Str("it's".into()))),
            ty: DataType::Boolean,
        };
        assert_eq!(render(&e), "(`status` <> 'it''s')");
        assert_eq!(render(&Expr::Literal(Literal::Bool(true))), "TRUE");
        assert_eq!(render(&Expr::Cast { expr: Box::new(col("x", DataType::Int64)), to: DataType::String }), "CAST(`x` AS STRING)");
    }

    #[test]
    fn casts_where_flink_types_differ() {
        // int32 + 1 is int64 in the plan; Flink would add in INT.
        let e = Expr::Binary { op: BinOp::Plus, left: Box::new(col("qty", DataType::Int32)), right: Box::new(Expr::Literal(Literal::Int(1))), ty: DataType::Int64 };
        assert_eq!(render(&e), "(CAST(`qty` AS BIGINT) + 1)");
        // decimal(10,2) * 2: the plan says decimal(31,2), Flink decimal(21,2).
        let e = Expr::Binary { op: BinOp::Multiply, left: Box::new(col("amount", DataType::Decimal(10, 2))), right: Box::new(Expr::Literal(Literal::Int(2))), ty: DataType::Decimal(31, 2) };
        assert_eq!(render(&e), "CAST((`amount` * 2) AS DECIMAL(31, 2))");
        // Same types: no cast.
        let e = Expr::Binary { op: BinOp::Plus, left: Box::new(col("a", DataType::Int64)), right: Box::new(Expr::Literal(Literal::Int(1))), ty: DataType::Int64 };
        assert_eq!(render(&e), "(`a` + 1)");
    }
}
