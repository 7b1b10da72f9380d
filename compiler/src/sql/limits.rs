//! How deep a model's syntax tree may nest, checked once right after
//! parsing. sqlparser parses a chain of operators (`a + b + …`, `x IS NULL
//! IS NULL …`) and of set operations (`… UNION ALL …`) in a loop, so its
//! recursion limit never stops them, but every pass after parsing
//! (lowering, sqlparser's `span()`, rendering, the simulator, the Flink
//! SQL) recurses once per level. Bounding the depth here bounds all of
//! them; the walks in this module themselves recurse at most to the limit,
//! and a tree past it is taken apart without recursion before it is dropped.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Ident, Query, SetExpr, Spanned, Statement, Values, Visit, VisitMut, Visitor, VisitorMut};
use sqlparser::tokenizer::Span as SqlSpan;

use crate::limits::MAX_VALUE_BYTES;

/// The deepest an expression may nest: each operator, function call or
/// parenthesis around an operand is one level (`a + b + c` is 3 deep).
/// Far past any written expression (a sum of 500 columns is 500 deep);
/// every pass after parsing fits in a 2 MiB thread stack at this depth,
/// even unoptimized.
pub const MAX_EXPR_DEPTH: usize = 1000;

/// The most set operations (`UNION ALL`, …) one query may chain.
pub const MAX_SET_OPERATIONS: usize = 1000;

/// A text no longer than this passes every limit of this module, so it is
/// not walked: each level of an expression, each set operation and each
/// byte of a value takes at least one byte of text of its own (an
/// operator, a parenthesis, a keyword, a name), so such a text nests at
/// most half as deep as [`MAX_EXPR_DEPTH`]. Most models are this short.
pub const ALWAYS_WITHIN_BYTES: usize = MAX_EXPR_DEPTH / 2;
const _: () = assert!(ALWAYS_WITHIN_BYTES <= MAX_SET_OPERATIONS && ALWAYS_WITHIN_BYTES <= MAX_VALUE_BYTES);

/// Which limit a query passes.
pub enum Exceeded {
    /// An expression nests past [`MAX_EXPR_DEPTH`]; where the too-deep
    /// expression starts, when that is known without a deep walk.
    ExprDepth(Option<SqlSpan>),
    /// A chain of more than [`MAX_SET_OPERATIONS`] set operations; where
    /// the first of its branches starts.
    SetOperations(Option<SqlSpan>),
    /// A string literal longer than [`MAX_VALUE_BYTES`]: where it is, and
    /// its length.
    ValueSize(SqlSpan, usize),
}

/// The first limit the statement passes, if any. Takes a too-deep
/// statement apart (so dropping it needs no deep recursion) before it
/// says so.
pub fn check_depth(statement: &mut Statement) -> Option<Exceeded> {
    let exceeded = match Visit::visit(&*statement, &mut Depth { depth: 0 }) {
        ControlFlow::Break(exceeded) => Some(exceeded),
        ControlFlow::Continue(()) => None,
    };
    if exceeded.is_some() {
        take_apart(statement);
    }
    exceeded
}

/// Stops at the first expression deeper than [`MAX_EXPR_DEPTH`], or
/// before descending a query whose set operations chain past
/// [`MAX_SET_OPERATIONS`], so the walk itself recurses no deeper.
struct Depth {
    depth: usize,
}

impl Visitor for Depth {
    type Break = Exceeded;

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<Exceeded> {
        match set_operations_exceeded(&query.body) {
            Some(at) => ControlFlow::Break(Exceeded::SetOperations(at)),
            None => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<Exceeded> {
        if let Expr::Value(v) = expr {
            let len = v.value.clone().into_string().map_or(0, |s| s.len());
            if len > MAX_VALUE_BYTES {
                return ControlFlow::Break(Exceeded::ValueSize(v.span, len));
            }
        }
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return ControlFlow::Break(Exceeded::ExprDepth(first_leaf_span(expr)));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, _: &Expr) -> ControlFlow<Exceeded> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
}

/// Where the first branch starts when a query's body chains more than
/// [`MAX_SET_OPERATIONS`] set operations, counted without recursion (a
/// chain is a left-deep tree; a parenthesized query is its own query).
fn set_operations_exceeded(body: &SetExpr) -> Option<Option<SqlSpan>> {
    let mut pending: Vec<(&SetExpr, usize)> = vec![(body, 0)];
    while let Some((s, depth)) = pending.pop() {
        if let SetExpr::SetOperation { left, right, .. } = s {
            if depth + 1 > MAX_SET_OPERATIONS {
                return Some(first_select_span(left));
            }
            pending.push((left, depth + 1));
            pending.push((right, depth + 1));
        }
    }
    None
}

/// Where the leftmost branch of a set-operation chain starts.
fn first_select_span(mut s: &SetExpr) -> Option<SqlSpan> {
    loop {
        match s {
            SetExpr::SetOperation { left, .. } => s = left,
            SetExpr::Select(select) => return Some(select.select_token.0.span),
            _ => return None,
        }
    }
}

/// Where an expression starts: its leftmost operand, reached along the
/// operand chain without recursion (sqlparser's `span()` would walk the
/// whole tree recursively).
fn first_leaf_span(mut e: &Expr) -> Option<SqlSpan> {
    loop {
        match e {
            Expr::Identifier(i) => return Some(i.span),
            Expr::CompoundIdentifier(parts) => return parts.first().map(|i| i.span),
            Expr::Value(v) => return Some(v.span),
            Expr::Function(f) => return Some(f.name.span()),
            other => e = chain_operand(other)?,
        }
    }
}

/// The operand an operator of a parsed chain wraps: the expression
/// sqlparser's loop had parsed before it read the operator.
fn chain_operand(e: &Expr) -> Option<&Expr> {
    Some(match e {
        Expr::BinaryOp { left, .. } => left,
        Expr::IsNull(x) | Expr::IsNotNull(x) | Expr::IsTrue(x) | Expr::IsNotTrue(x) | Expr::IsFalse(x) | Expr::IsNotFalse(x) => x,
        Expr::IsUnknown(x) | Expr::IsNotUnknown(x) | Expr::IsDistinctFrom(x, _) | Expr::IsNotDistinctFrom(x, _) => x,
        Expr::In { expr, .. } | Expr::Between { expr, .. } | Expr::Like { expr, .. } => expr,
        Expr::ILike { expr, .. } | Expr::SimilarTo { expr, .. } | Expr::RLike { expr, .. } | Expr::Cast { expr, .. } => expr,
        Expr::Collate { expr, .. } | Expr::UnaryOp { expr, .. } | Expr::Nested(expr) => expr,
        Expr::AtTimeZone { timestamp, .. } => timestamp,
        Expr::CompoundFieldAccess { root, .. } => root,
        Expr::JsonAccess { value, .. } => value,
        Expr::AnyOp { left, .. } | Expr::AllOp { left, .. } => left,
        _ => return None,
    })
}

/// The same operands, to take out of the tree.
fn chain_operands_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match e {
        Expr::BinaryOp { left, right, .. } | Expr::AnyOp { left, right, .. } | Expr::AllOp { left, right, .. } => vec![left, right],
        Expr::IsDistinctFrom(a, b) | Expr::IsNotDistinctFrom(a, b) => vec![a, b],
        Expr::IsNull(x) | Expr::IsNotNull(x) | Expr::IsTrue(x) | Expr::IsNotTrue(x) | Expr::IsFalse(x) | Expr::IsNotFalse(x) => vec![x],
        Expr::IsUnknown(x) | Expr::IsNotUnknown(x) | Expr::Nested(x) => vec![x],
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } | Expr::SimilarTo { expr, pattern, .. } | Expr::RLike { expr, pattern, .. } => {
            vec![expr, pattern]
        }
        Expr::Between { expr, low, high, .. } => vec![expr, low, high],
        Expr::In { expr, .. } | Expr::Cast { expr, .. } | Expr::Collate { expr, .. } | Expr::UnaryOp { expr, .. } => vec![expr],
        Expr::AtTimeZone { timestamp, time_zone } => vec![timestamp, time_zone],
        Expr::CompoundFieldAccess { root, .. } => vec![root],
        Expr::JsonAccess { value, .. } => vec![value],
        _ => Vec::new(),
    }
}

/// Empties a too-deep statement: each chain's operands and each set
/// operation's branches are moved out onto a list and dropped one by one,
/// so no drop recurses along a chain.
fn take_apart(statement: &mut Statement) {
    let mut parts = TakeApart { exprs: Vec::new(), sets: Vec::new() };
    let _ = VisitMut::visit(statement, &mut parts);
    loop {
        if let Some(mut e) = parts.exprs.pop() {
            let _ = VisitMut::visit(&mut e, &mut parts);
        } else if let Some(mut s) = parts.sets.pop() {
            let _ = VisitMut::visit(&mut s, &mut parts);
        } else {
            break;
        }
    }
}

struct TakeApart {
    exprs: Vec<Expr>,
    sets: Vec<SetExpr>,
}

impl VisitorMut for TakeApart {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        // A chain of set operations, flattened before the visit descends it.
        let mut pending = vec![std::mem::replace(query.body.as_mut(), empty_set())];
        while let Some(s) = pending.pop() {
            match s {
                SetExpr::SetOperation { left, right, .. } => pending.extend([*left, *right]),
                other => self.sets.push(other),
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        for operand in chain_operands_mut(expr) {
            self.exprs.push(std::mem::replace(operand, Expr::Identifier(Ident::new(""))));
        }
        ControlFlow::Continue(())
    }
}

fn empty_set() -> SetExpr {
    SetExpr::Values(Values { explicit_row: false, value_keyword: false, rows: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::parser::Parser;

    fn statement(sql: &str) -> Statement {
        Parser::new(&GenericDialect {}).try_with_sql(sql).and_then(|mut p| p.parse_statement()).expect("parses")
    }

    fn chain(terms: usize) -> String {
        format!("SELECT {} AS x FROM t", vec!["a"; terms].join(" + "))
    }

    #[test]
    fn an_expression_at_the_limit_passes_and_one_past_it_does_not() {
        // n terms of `a + …` nest n levels: n - 1 operators and the leaf.
        assert!(check_depth(&mut statement(&chain(MAX_EXPR_DEPTH))).is_none());
        let past = check_depth(&mut statement(&chain(MAX_EXPR_DEPTH + 1)));
        let Some(Exceeded::ExprDepth(Some(at))) = past else { panic!("the depth limit is not reported") };
        assert_eq!((at.start.line, at.start.column), (1, 8), "located at the first operand");
    }

    #[test]
    fn set_operations_at_the_limit_pass_and_one_past_does_not() {
        let union = |n: usize| vec!["SELECT a FROM t"; n + 1].join(" UNION ALL ");
        assert!(check_depth(&mut statement(&union(MAX_SET_OPERATIONS))).is_none());
        assert!(matches!(check_depth(&mut statement(&union(MAX_SET_OPERATIONS + 1))), Some(Exceeded::SetOperations(Some(_)))));
    }

    /// The deepest nesting of expressions in a statement.
    fn deepest(s: &Statement) -> usize {
        struct Deepest {
            depth: usize,
            max: usize,
        }
        impl Visitor for Deepest {
            type Break = ();
            fn pre_visit_expr(&mut self, _: &Expr) -> ControlFlow<()> {
                self.depth += 1;
                self.max = self.max.max(self.depth);
                ControlFlow::Continue(())
            }
            fn post_visit_expr(&mut self, _: &Expr) -> ControlFlow<()> {
                self.depth -= 1;
                ControlFlow::Continue(())
            }
        }
        let mut d = Deepest { depth: 0, max: 0 };
        let _ = Visit::visit(s, &mut d);
        d.max
    }

    #[test]
    fn each_level_takes_a_byte_of_text() {
        // The densest nestings SQL has, each repeated to fill the short
        // text that `parse` does not walk.
        let forms: &[(&str, &str, &str)] = &[
            ("(", "a", ")"),
            ("-", "1", ""),
            ("+-", "a", ""),
            ("-(", "a", ")"),
            ("NOT ", "a", ""),
            ("f(", "a", ")"),
            ("a+", "a", ""),
            ("a*", "a", ""),
            ("", "a", " IS NULL"),
            ("", "a", "::int"),
            ("CAST(", "a", " AS INT)"),
            ("[", "1", "]"),
            ("", "a", "[1]"),
            ("~", "a", ""),
            ("(SELECT ", "a", ")"),
            ("CASE WHEN ", "a", " THEN 1 END"),
            ("", "a", " COLLATE c"),
            ("INTERVAL ", "'1'", " DAY"),
        ];
        for (open, leaf, close) in forms {
            for n in 1..ALWAYS_WITHIN_BYTES {
                let sql = format!("SELECT {}{leaf}{}", open.repeat(n), close.repeat(n));
                if sql.len() > ALWAYS_WITHIN_BYTES {
                    break;
                }
                // Parsed as models are, so the parser's recursion limit applies.
                let Ok(s) = Parser::new(&GenericDialect {}).with_recursion_limit(64).try_with_sql(&sql).and_then(|mut p| p.parse_statement()) else { break };
                assert!(deepest(&s) <= sql.len(), "{sql} nests deeper than its length");
            }
        }
    }

    #[test]
    fn a_huge_chain_is_refused_and_dropped_without_deep_recursion() {
        // Far past what a recursive drop survives on a test thread's stack.
        let mut s = statement(&chain(150_000));
        assert!(matches!(check_depth(&mut s), Some(Exceeded::ExprDepth(_))));
        drop(s);
        let mut s = statement(&vec!["SELECT a FROM t"; 100_000].join(" UNION ALL "));
        assert!(matches!(check_depth(&mut s), Some(Exceeded::SetOperations(_))));
    }
}
