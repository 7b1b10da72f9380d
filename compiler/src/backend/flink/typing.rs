//! The types Flink 2.3 infers for the Flink SQL the backend renders, and
//! the expression as Flink computes it: the simulator evaluates that, so a
//! value computed exactly in Flink (a decimal literal times a column) is
//! computed exactly in the simulator too, whatever type the plan records.

use crate::plan::expr::{render_float, BinOp, Expr, Literal};
use crate::types::{DataType, Unsupported};

/// The type Flink infers for the rendered expression (after the casts
/// [`super::expr::render`] inserts below it), in plan vocabulary; `None` when unknown.
pub fn flink_type(e: &Expr) -> Option<DataType> {
    match e {
        // Rendered with a cast to the plan type (see `scalar_into`).
        Expr::Case { ty, .. } | Expr::Call { ty, .. } | Expr::Binary { op: BinOp::Modulo | BinOp::Concat, ty, .. } => Some(*ty),
        Expr::InList { .. } | Expr::Between { .. } | Expr::Like { .. } => Some(DataType::Boolean),
        Expr::Column { ty, .. } => Some(*ty),
        Expr::Literal(l) => literal_type(l),
        Expr::Not(_) | Expr::IsNull { .. } => Some(DataType::Boolean),
        Expr::Cast { expr, to } => match to {
            DataType::Unsupported(Unsupported::Date32) => Some(DataType::Timestamp),
            DataType::Unsupported(_) => flink_type(expr),
            t => Some(*t),
        },
        Expr::Binary { op, ty, .. } if !op.is_arithmetic() => {
            let _ = ty;
            Some(DataType::Boolean)
        }
        Expr::Binary { op, left, right, ty } => {
            // Rendering casts the result to the plan type whenever the two differ.
            let inner = arithmetic(*op, operand_type(left, *ty)?, operand_type(right, *ty)?)?;
            if ty.flink_sql().is_some() {
                Some(*ty)
            } else {
                Some(inner)
            }
        }
    }
}

/// The raw result type of a binary arithmetic node as Flink computes it
/// (before the cast [`super::expr::render`] may add).
pub fn raw_arithmetic_type(e: &Expr) -> Option<DataType> {
    match e {
        Expr::Binary { op, left, right, ty } if op.is_arithmetic() => arithmetic(*op, operand_type(left, *ty)?, operand_type(right, *ty)?),
        other => flink_type(other),
    }
}

fn operand_type(e: &Expr, planned: DataType) -> Option<DataType> {
    let t = flink_type(e)?;
    Some(if planned == DataType::Int64 && t == DataType::Int32 { DataType::Int64 } else { t })
}

/// A float literal as the Flink SQL spells it: with a decimal point, so
/// that Flink reads the DECIMAL the plan's literal was written as (`3.0`,
/// not the INT `3`), or in E notation, a DOUBLE, where that decimal would
/// pass Flink's 38 digits.
pub fn float_literal_text(f: f64) -> String {
    let text = render_float(f);
    if !f.is_finite() {
        return text;
    }
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    match text.contains('.') {
        true if digits <= 38 => text,
        false if digits < 38 => text + ".0",
        _ => format!("{f:E}"),
    }
}

pub(super) fn literal_type(l: &Literal) -> Option<DataType> {
    Some(match l {
        Literal::Int(i) if i32::try_from(*i).is_ok() => DataType::Int32,
        Literal::Int(_) => DataType::Int64,
        Literal::Float(f) => match float_literal_text(*f).trim_start_matches('-').split_once('.') {
            // Flink counts every digit written, a leading `0` too: `0.908`
            // is DECIMAL(4, 3), `1.50` DECIMAL(3, 2).
            Some((int, frac)) => DataType::Decimal((int.len() + frac.len()) as u8, frac.len() as u8),
            None => DataType::Float64,
        },
        Literal::Str(_) => DataType::String,
        Literal::Bool(_) => DataType::Boolean,
        Literal::Null => DataType::Unsupported(Unsupported::Null),
        Literal::Interval(_) => return None,
    })
}

/// Flink's arithmetic result types (LogicalTypeMerging): integers stay
/// integers (INT op INT is INT), DOUBLE wins, decimals widen by Flink's
/// rules and are capped at precision 38 keeping at least 6 digits of scale.
fn arithmetic(op: BinOp, l: DataType, r: DataType) -> Option<DataType> {
    use DataType::*;
    let as_decimal = |t: DataType| match t {
        Int32 => Some((10u32, 0u32)),
        Int64 => Some((19, 0)),
        Decimal(p, s) => Some((p as u32, s as u32)),
        _ => None,
    };
    Some(match (l, r) {
        (Int32, Int32) => Int32,
        (Int32 | Int64, Int32 | Int64) => Int64,
        (Float64, t) | (t, Float64) if t.is_numeric() => Float64,
        (Decimal(..), _) | (_, Decimal(..)) => {
            let ((p1, s1), (p2, s2)) = (as_decimal(l)?, as_decimal(r)?);
            let (p, s) = match op {
                BinOp::Plus | BinOp::Minus => {
                    let s = s1.max(s2);
                    ((p1 - s1).max(p2 - s2) + s + 1, s)
                }
                BinOp::Multiply => (p1 + p2 + 1, s1 + s2),
                _ => {
                    let s = 6.max(s1 + p2 + 1);
                    (p1 - s1 + s2 + s, s)
                }
            };
            let (p, s) = adjust_precision_scale(p, s);
            Decimal(p as u8, s as u8)
        }
        _ => return None,
    })
}

fn adjust_precision_scale(p: u32, s: u32) -> (u32, u32) {
    if p <= 38 {
        return (p, s);
    }
    let int_digits = p - s;
    let min_scale = s.min(6);
    (38, 38u32.saturating_sub(int_digits).max(min_scale))
}


/// `e` rewritten so that evaluating it computes what Flink computes for its
/// rendering: an arithmetic node that Flink computes in DECIMAL while the
/// plan records another type (the original's float64 for `price * 0.908`)
/// is computed at Flink's decimal type, over its literals' exact values, and
/// then cast to the plan's type, as the rendering's CAST does; a decimal
/// literal compared with an exact number is compared exactly.
pub fn computed(e: &Expr) -> Expr {
    match e {
        Expr::Binary { op, left, right, ty } if op.is_arithmetic() => match raw_arithmetic_type(e) {
            Some(raw @ DataType::Decimal(..)) => {
                let exact = Expr::Binary { op: *op, left: Box::new(exact_operand(left)), right: Box::new(exact_operand(right)), ty: raw };
                if raw == *ty || ty.flink_sql().is_none() {
                    exact
                } else {
                    Expr::Cast { expr: Box::new(exact), to: *ty }
                }
            }
            _ => Expr::Binary { op: *op, left: Box::new(computed(left)), right: Box::new(computed(right)), ty: *ty },
        },
        Expr::Binary { op, left, right, ty } if op.is_comparison() && (is_exact(left) || is_exact(right)) => {
            Expr::Binary { op: *op, left: Box::new(exact_operand(left)), right: Box::new(exact_operand(right)), ty: *ty }
        }
        // Flink casts each item of an integer's IN list to the integer's
        // type, truncating: `qty IN (23.9)` holds for 23.
        Expr::InList { expr, list, negated } => match flink_type(expr) {
            Some(t @ (DataType::Int32 | DataType::Int64)) => Expr::InList {
                expr: Box::new(computed(expr)),
                list: list.iter().map(|x| if flink_type(x) == Some(t) { computed(x) } else { Expr::Cast { expr: Box::new(exact_operand(x)), to: t } }).collect(),
                negated: *negated,
            },
            Some(DataType::Decimal(..)) => Expr::InList { expr: Box::new(computed(expr)), list: list.iter().map(exact_operand).collect(), negated: *negated },
            _ => e.map_children(&computed),
        },
        Expr::Between { expr, low, high, negated } if is_exact(expr) => Expr::Between {
            expr: Box::new(computed(expr)),
            low: Box::new(exact_operand(low)),
            high: Box::new(exact_operand(high)),
            negated: *negated,
        },
        other => other.map_children(&computed),
    }
}

/// Whether Flink holds the value as an exact number (an integer or a
/// decimal), so that a decimal literal beside it is not a double.
fn is_exact(e: &Expr) -> bool {
    matches!(flink_type(e), Some(DataType::Int32 | DataType::Int64 | DataType::Decimal(..)))
}

/// An operand as Flink holds it: a float literal that Flink reads as an
/// integer or a decimal (its rendering is `0.908`, not `9.08E-1`) becomes
/// that exact value.
fn exact_operand(e: &Expr) -> Expr {
    match e {
        Expr::Literal(l @ Literal::Float(f)) => match literal_type(l) {
            Some(t @ DataType::Decimal(..)) => Expr::Cast { expr: Box::new(Expr::Literal(Literal::Str(float_literal_text(*f)))), to: t },
            _ => e.clone(),
        },
        other => computed(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::eval::eval;
    use crate::sim::value::Value;

    fn col(index: usize, ty: DataType) -> Expr {
        Expr::Column { index, name: format!("c{index}"), ty }
    }

    fn bin(op: BinOp, l: Expr, r: Expr, ty: DataType) -> Expr {
        Expr::Binary { op, left: Box::new(l), right: Box::new(r), ty }
    }

    fn float(f: f64) -> Expr {
        Expr::Literal(Literal::Float(f))
    }

    #[test]
    fn literals_and_products_have_flinks_types() {
        // As Flink 2.3 types them (checked with its resolved schema).
        assert_eq!(literal_type(&Literal::Float(0.908)), Some(DataType::Decimal(4, 3)));
        assert_eq!(literal_type(&Literal::Float(1.5)), Some(DataType::Decimal(2, 1)));
        assert_eq!(literal_type(&Literal::Float(100.25)), Some(DataType::Decimal(5, 2)));
        // A whole float keeps its point: `3.0 / 8` is no integer division.
        assert_eq!(float_literal_text(3.0), "3.0");
        assert_eq!(literal_type(&Literal::Float(1000.0)), Some(DataType::Decimal(5, 1)));
        assert_eq!(float_literal_text(1e300), "1E300");
        assert_eq!(literal_type(&Literal::Float(1e300)), Some(DataType::Float64));
        assert_eq!(float_literal_text(1.5e-40), "1.5E-40");
        let product = bin(BinOp::Multiply, col(0, DataType::Int64), float(0.908), DataType::Float64);
        assert_eq!(raw_arithmetic_type(&product), Some(DataType::Decimal(24, 3)));
        let product = bin(BinOp::Multiply, col(0, DataType::Decimal(10, 2)), float(0.908), DataType::Float64);
        assert_eq!(raw_arithmetic_type(&product), Some(DataType::Decimal(15, 5)));
        let quotient = bin(BinOp::Divide, col(0, DataType::Int64), float(0.5), DataType::Float64);
        assert_eq!(raw_arithmetic_type(&quotient), Some(DataType::Decimal(26, 6)));
    }

    #[test]
    fn a_decimal_literal_is_computed_exactly() {
        let product = bin(BinOp::Multiply, col(0, DataType::Int64), float(0.908), DataType::Float64);
        assert_eq!(eval(&product, &[Value::Int(15)]).unwrap(), Value::Float(13.620000000000001));
        assert_eq!(eval(&computed(&product), &[Value::Int(15)]).unwrap(), Value::Float(13.62));
        // A double operand: Flink multiplies doubles, and so does the rewrite.
        let doubles = bin(BinOp::Multiply, col(0, DataType::Float64), float(0.1), DataType::Float64);
        assert_eq!(computed(&doubles), doubles);
    }

    #[test]
    fn a_decimal_literal_is_compared_exactly() {
        let rate = || col(0, DataType::Decimal(38, 18));
        let row = [Value::Decimal(crate::sim::decimal::Decimal::parse("0.100000000000000001", 18).unwrap())];
        let gt = bin(BinOp::Gt, rate(), float(0.1), DataType::Boolean);
        assert_eq!(eval(&gt, &row).unwrap(), Value::Bool(false));
        assert_eq!(eval(&computed(&gt), &row).unwrap(), Value::Bool(true));
        let within = Expr::Between { expr: Box::new(rate()), low: Box::new(float(0.05)), high: Box::new(float(0.1)), negated: false };
        assert_eq!(eval(&computed(&within), &row).unwrap(), Value::Bool(false));
        let listed = Expr::InList { expr: Box::new(rate()), list: vec![float(0.1)], negated: false };
        assert_eq!(eval(&computed(&listed), &row).unwrap(), Value::Bool(false));
        // An integer's IN list is cast to the integer, as Flink 2.3 does.
        let listed = Expr::InList { expr: Box::new(col(0, DataType::Int32)), list: vec![float(23.9)], negated: false };
        assert_eq!(eval(&computed(&listed), &[Value::Int(23)]).unwrap(), Value::Bool(true));
        assert_eq!(eval(&computed(&listed), &[Value::Int(24)]).unwrap(), Value::Bool(false));
    }
}
