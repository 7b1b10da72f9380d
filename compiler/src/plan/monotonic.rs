//! How each column of a node's output may change once emitted: Flink's
//! modified monotonicity (its FlinkRelMdModifiedMonotonicity), read by one
//! decision, a Rank's strategy over an updating input
//! (`plan::rank_strategy`). Where Flink's rule looks further than this
//! (the value range of a SUM's argument, a join of updating inputs), this
//! says "not monotonic" or "may delete", so the Rank retracts: the
//! strategy that ranks any input correctly.

use super::expr::{AggCall, AggFunc, BinOp, Expr};
use super::node::{Changelog, NodeKind, PlanNode, RankKeep, SortKey};

/// How one column's value may change when its row is updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mono {
    /// Never changes (a grouping key; every column of an append stream).
    Constant,
    Increasing,
    Decreasing,
    NotMonotonic,
}

/// Each output column's `Mono`; `None` when the node may delete rows
/// (Flink's null), which no Rank can rank without retracting.
pub type Modified = Option<Vec<Mono>>;

/// The modified monotonicity of node `id`'s output. `nodes` are the
/// model's (`model` names them); an id that is not among them is another
/// model's output, which `upstream` answers.
pub fn of(nodes: &[PlanNode], model: &str, id: &str, upstream: &dyn Fn(&str) -> Modified) -> Modified {
    let Some(node) = nodes.iter().find(|n| n.has_id(model, id)) else { return upstream(id) };
    let width = node.schema.len();
    let input = |i: usize| node.inputs.get(i).and_then(|x| of(nodes, model, x, upstream));
    let constants = |w: usize| Some(vec![Mono::Constant; w]);
    match &node.kind {
        NodeKind::Source(_) => constants(width),
        NodeKind::Sink { .. } => input(0),
        NodeKind::Filter { predicate } => {
            let m = input(0)?;
            if m.iter().all(|x| *x == Mono::Constant) || !retracts(predicate, &m) {
                Some(m)
            } else {
                Some(vec![Mono::NotMonotonic; m.len()])
            }
        }
        NodeKind::Project { items } => {
            let m = input(0)?;
            if m.iter().all(|x| *x == Mono::Constant) {
                return constants(items.len());
            }
            Some(items.iter().map(|(e, _)| column_of(e).map_or(Mono::NotMonotonic, |i| m[i])).collect())
        }
        NodeKind::Aggregate { keys, calls, window, .. } => aggregate(keys, calls, window.is_some(), &input(0)?),
        NodeKind::Rank { partition, order, keep, row, number } => rank(partition, order, *keep, row, *number, width, &input(0)?),
        NodeKind::Union => {
            let all: Vec<Vec<Mono>> = (0..node.inputs.len()).map(input).collect::<Option<_>>()?;
            match all.split_first() {
                Some((head, rest)) if rest.iter().all(|m| m == head) => Some(head.clone()),
                _ => Some(vec![Mono::NotMonotonic; width]),
            }
        }
        // An interval join emits final rows; any other join over updates
        // is left to retract.
        NodeKind::Join { interval: Some(_), .. } => constants(width),
        NodeKind::Join { .. } if node.changelog == Changelog::Append => constants(width),
        NodeKind::Join { .. } => None,
    }
}

/// An unwindowed aggregate's: its keys never change; a COUNT or a MAX only
/// grows and a MIN only shrinks (over updates, only when their argument
/// moves the same way; a count counts regardless).
fn aggregate(keys: &[usize], calls: &[AggCall], windowed: bool, m: &[Mono]) -> Modified {
    // A window aggregate's output is final rows; Flink has no rule for it.
    if windowed || keys.iter().any(|&k| m[k] != Mono::Constant) {
        return None;
    }
    let updating = m.iter().any(|x| *x != Mono::Constant);
    let mut out = vec![Mono::Constant; keys.len()];
    for c in calls {
        let own = match c.func {
            AggFunc::Count | AggFunc::Max => Mono::Increasing,
            AggFunc::Min => Mono::Decreasing,
            AggFunc::Sum => Mono::NotMonotonic,
        };
        let arg = c.arg.as_ref().map(|a| column_of(a).map_or(Mono::NotMonotonic, |i| m[i]));
        out.push(match arg {
            Some(a) if updating && a != own && c.func != AggFunc::Count => Mono::NotMonotonic,
            _ => own,
        });
    }
    Some(out)
}

/// A Rank's: its partition columns and row number never change; a Top-N's
/// first sort column moves the way its order ranks it, when its input's
/// does or never changes.
fn rank(partition: &[usize], order: &[(usize, SortKey)], keep: RankKeep, row: &[usize], number: bool, width: usize, m: &[Mono]) -> Modified {
    let at = |i: usize| row.iter().position(|r| *r == i);
    let mut out = vec![Mono::NotMonotonic; width];
    match keep {
        RankKeep::First | RankKeep::Last if m.iter().any(|x| *x != Mono::Constant) => return None,
        RankKeep::First | RankKeep::Last => {}
        RankKeep::Top(_) => {
            if partition.iter().any(|&p| m[p] != Mono::Constant) {
                return None;
            }
            if number {
                out[width - 1] = Mono::Constant;
            }
            if let Some((i, k)) = order.first() {
                let first = match (m[*i], k.descending) {
                    (Mono::Increasing | Mono::Constant, true) => Mono::Increasing,
                    (Mono::Decreasing | Mono::Constant, false) => Mono::Decreasing,
                    _ => Mono::NotMonotonic,
                };
                if let Some(o) = at(*i) {
                    out[o] = first;
                }
            }
        }
    }
    for p in partition.iter().filter_map(|&p| at(p)) {
        out[p] = Mono::Constant;
    }
    Some(out)
}

/// The input column an item copies, through casts.
fn column_of(e: &Expr) -> Option<usize> {
    match e {
        Expr::Column { index, .. } => Some(*index),
        Expr::Cast { expr, .. } => column_of(expr),
        _ => None,
    }
}

/// Whether a filter over updated columns may drop a row it let through
/// before (Flink's isNeedRetract): a comparison that a column's change can
/// turn false, or any condition on a changing column but `>`/`<` in the
/// direction it moves.
fn retracts(e: &Expr, m: &[Mono]) -> bool {
    let changing = |x: &Expr| column_of(x).map(|i| m[i]).filter(|x| *x != Mono::Constant);
    match e {
        Expr::Column { index, .. } => m[*index] != Mono::Constant,
        Expr::Binary { op: BinOp::And | BinOp::Or, left, right, .. } => retracts(left, m) || retracts(right, m),
        Expr::Binary { op, left, right, .. } => {
            let (l, r) = (changing(left), changing(right));
            let Some(c) = l.or(r) else { return false };
            match op {
                BinOp::Gt | BinOp::GtEq => c != Mono::Increasing,
                BinOp::Lt | BinOp::LtEq => c != Mono::Decreasing,
                BinOp::Eq | BinOp::NotEq => true,
                _ => false,
            }
        }
        Expr::InList { expr, .. } | Expr::Between { expr, .. } => changing(expr).is_some(),
        Expr::Not(x) => retracts(x, m),
        Expr::IsNull { expr, .. } => retracts(expr, m),
        _ => false,
    }
}
