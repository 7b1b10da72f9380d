//! The SELECT of each model's view: one derived table per plan node,
//! aliased `t<N>` with N = the node's position in the model (Source
//! counted) + 2, as the original names them.

use super::expr::{ident, render, sql_type};
use crate::duration::Duration;
use crate::plan::expr::{AggCall, AggFunc, Expr};
use crate::plan::node::{Column, JoinType, ModelPlan, NodeKind, PlanNode, RankKeep, Retention, TimeWindow};
use crate::types::DataType;
use crate::window::WindowShape;

/// A model's view, and the view a windowed aggregate reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModelQuery {
    /// `SELECT …` of `<model>__window_input`, when the model is windowed.
    pub window_input: Option<String>,
    /// `SELECT …` of the model's view.
    pub view: String,
}

/// The relation a node reads: a table or view name, or a derived table.
struct Relation {
    /// As it appears after FROM.
    from: String,
    /// The name a STATE_TTL hint uses for it.
    hint_name: String,
}

/// A relation a node reads, as the walk over the plan has made it.
struct Made {
    rel: Relation,
    /// The names of its columns in the SQL: an aggregate may compute two
    /// calls that render alike (`COUNT(*)`, `COUNT(1)`), which get
    /// distinct aliases here.
    names: Vec<String>,
    schema: Vec<Column>,
}

/// Renders the model's plan: each node reads the relation its input made
/// (a source's table, an upstream model's view, or an earlier node's
/// derived table); `upstream` gives the columns of a model it reads.
/// `job_ttl`: the job sets `table.exec.state.ttl` (for its Top-N and
/// deduplications), so an aggregate that keeps its state forever says so
/// with a `0s` hint.
pub fn model_query(plan: &ModelPlan, upstream: &dyn Fn(&str) -> Vec<Column>, job_ttl: bool) -> ModelQuery {
    let view_name = &plan.name;
    let mut window_input = None;
    let mut made: Vec<(String, Made)> = Vec::new();
    let last = plan.nodes.iter().rposition(|n| !matches!(n.kind, NodeKind::Source(_) | NodeKind::Sink { .. }));
    let mut view = String::new();
    // What node input `id` is: an earlier node's relation, or a model's view.
    let input_of = |made: &mut Vec<(String, Made)>, id: &str| -> Made {
        if let Some(pos) = made.iter().position(|(n, _)| n == id) {
            return made.remove(pos).1;
        }
        let model = id.strip_suffix("::sink::0").unwrap_or(id);
        let schema = upstream(model);
        Made { rel: Relation { from: ident(model), hint_name: model.to_string() }, names: schema.iter().map(|c| c.name.clone()).collect(), schema }
    };
    for (pos, node) in plan.nodes.iter().enumerate() {
        let (names, select) = match &node.kind {
            NodeKind::Source(read) => {
                let names = node.schema.iter().map(|c| c.name.clone()).collect();
                made.push((node.id(view_name), Made { rel: Relation { from: ident(&read.source), hint_name: read.source.clone() }, names, schema: node.schema.clone() }));
                continue;
            }
            NodeKind::Sink { .. } => continue,
            NodeKind::Union => {
                let branches: Vec<Made> = node.inputs.iter().map(|id| input_of(&mut made, id)).collect();
                let selects: Vec<String> = branches
                    .iter()
                    .map(|b| {
                        let list: Vec<String> = node.schema.iter().zip(&b.names).map(|(c, n)| union_column(c, n)).collect();
                        format!("SELECT {} FROM {}", list.join(", "), b.rel.from)
                    })
                    .collect();
                (node.schema.iter().map(|c| c.name.clone()).collect(), selects.join(" UNION ALL "))
            }
            NodeKind::Join { .. } => {
                let sides: Vec<Made> = node.inputs.iter().map(|id| input_of(&mut made, id)).collect();
                (node.schema.iter().map(|c| c.name.clone()).collect(), join_select(node, &sides[0], &sides[1]))
            }
            _ => {
                let input = input_of(&mut made, node.inputs.first().map(String::as_str).unwrap_or_default());
                node_select(view_name, node, pos, &input, &mut window_input, job_ttl)
            }
        };
        if Some(pos) == last {
            view = select;
            break;
        }
        let alias = format!("t{}", pos + 2);
        made.push((node.id(view_name), Made { rel: Relation { from: format!("({select}) AS {alias}"), hint_name: alias }, names, schema: node.schema.clone() }));
    }
    ModelQuery { window_input, view }
}

/// The SELECT of one Filter, Project or Aggregate node over `input`, and
/// the names of its output columns in the SQL.
fn node_select(view_name: &str, node: &PlanNode, pos: usize, input: &Made, window_input: &mut Option<String>, job_ttl: bool) -> (Vec<String>, String) {
    let (rel, names) = (&input.rel, &input.names);
    match &node.kind {
        NodeKind::Filter { predicate } => (names.clone(), format!("SELECT * FROM {} WHERE {}", rel.from, render(&renamed(predicate, names)))),
        NodeKind::Project { items } => {
            let list: Vec<String> = items.iter().map(|(e, name)| project_item(&renamed(e, names), name)).collect();
            (items.iter().map(|(_, n)| n.clone()).collect(), format!("SELECT {} FROM {}", list.join(", "), rel.from))
        }
        NodeKind::Aggregate { keys: key_idx, calls, window, .. } => {
            let input_schema = &input.schema;
            // Keys index the aggregate's input (window bounds follow its columns).
            let keys: Vec<String> = key_idx
                .iter()
                .map(|k| match input_schema.get(*k) {
                    Some(c) => ident(&c.name),
                    None => ident(if *k == input_schema.len() { "window_start" } else { "window_end" }),
                })
                .collect();
            let mut out_names: Vec<String> = node.schema.iter().map(|c| c.name.clone()).collect();
            for i in 0..out_names.len() {
                let mut n = 2;
                while out_names[..i].contains(&out_names[i]) {
                    out_names[i] = format!("{}__{n}", node.schema[i].name);
                    n += 1;
                }
            }
            let first_call = out_names.len() - calls.len();
            // A key named otherwise than its input column (over a join) is renamed.
            let mut list: Vec<String> = keys.iter().zip(&out_names).map(|(k, n)| if *k == ident(n) { k.clone() } else { format!("{k} AS {}", ident(n)) }).collect();
            list.extend(calls.iter().enumerate().map(|(j, c)| {
                let call = AggCall { arg: c.arg.as_ref().map(|a| renamed(a, names)), filter: c.filter.as_ref().map(|f| renamed(f, names)), ..c.clone() };
                format!("{} AS {}", aggregate_call(&call), ident(&out_names[first_call + j]))
            }));
            let from = match window {
                Some(w) => {
                    let input_cols: Vec<String> = input_schema.iter().map(|c| ident(&c.name)).collect();
                    let data_key_names: Vec<&str> = key_idx.iter().filter_map(|k| input_cols.get(*k)).map(String::as_str).collect();
                    *window_input = Some(format!("SELECT {} FROM {}", input_cols.join(", "), rel.from));
                    let input = ident(&format!("{view_name}__window_input"));
                    window_table(w, &input, &data_key_names)
                }
                None => rel.from.clone(),
            };
            let hint = ttl_hint(node.state.as_ref().map(|s| s.retention), &rel.hint_name, job_ttl);
            let group_by = if keys.is_empty() { String::new() } else { format!(" GROUP BY {}", keys.join(", ")) };
            (out_names, format!("SELECT {hint}{} FROM {from}{group_by}", list.join(", ")))
        }
        NodeKind::Rank { .. } => {
            let mut out_names = names.clone();
            let select = rank_select(&rel.from, &mut out_names, node, pos + 2);
            (out_names, select)
        }
        NodeKind::Source(_) | NodeKind::Sink { .. } | NodeKind::Union | NodeKind::Join { .. } => unreachable!("rendered by model_query"),
    }
}

/// A join: `SELECT l.a AS a, …, r.k AS k0 FROM L AS l JOIN R AS r ON l.k
/// = r.k`, each side's stored columns under the node's names; the
/// residual condition a WHERE over that (Flink pulls it into the join),
/// and retention a STATE_TTL hint naming both sides. An interval join's
/// time bounds are in ON, over the two event times as Flink must see them
/// to plan an interval join; its output casts them to plain timestamps, as
/// the plan gives a join's output no event time (and a sink takes one);
/// a temporal join's two time attributes likewise.
fn join_select(node: &crate::plan::node::PlanNode, left: &Made, right: &Made) -> String {
    let NodeKind::Join { join_type, left_stored, right_stored, left_keys, right_keys, residual, interval, temporal } = &node.kind else { unreachable!("a join") };
    // A derived table is named by its alias; a table or view gets one.
    let side = |m: &Made, alias: &str| -> (String, String) {
        if m.rel.from.starts_with('(') {
            (m.rel.from.clone(), m.rel.hint_name.clone())
        } else {
            (format!("{} AS {}", m.rel.from, ident(alias)), alias.to_string())
        }
    };
    let ((mut lf, mut lq), (mut rf, mut rq)) = (side(left, "l"), side(right, "r"));
    let lw = left_stored.len();
    // An outer join's residual condition stays in ON, over the output's
    // names: each side is then selected under them first.
    let renamed = *join_type != JoinType::Inner && residual.is_some();
    if renamed {
        let rename = |from: &str, q: &str, m: &Made, stored: &[usize], offset: usize, alias: &str| -> (String, String) {
            let cols: Vec<String> = stored.iter().enumerate().map(|(i, s)| format!("{}.{} AS {}", ident(q), ident(&m.names[*s]), ident(&node.schema[i + offset].name))).collect();
            (format!("(SELECT {} FROM {from}) AS {}", cols.join(", "), ident(alias)), alias.to_string())
        };
        (lf, lq) = rename(&lf, &lq, left, left_stored, 0, "l");
        (rf, rq) = rename(&rf, &rq, right, right_stored, lw, "r");
    }
    let col = |out: usize| -> String {
        let (q, name) = match (renamed, out < lw) {
            (true, true) => (&lq, &node.schema[out].name),
            (true, false) => (&rq, &node.schema[out].name),
            (false, true) => (&lq, &left.names[left_stored[out]]),
            (false, false) => (&rq, &right.names[right_stored[out - lw]]),
        };
        format!("{}.{}", ident(q), ident(name))
    };
    // The left side's event time stays a time attribute (what windows
    // downstream read, as on Flink); the right side's is cast to a plain
    // timestamp: Flink refuses to write more than one into a sink.
    let time = |i: usize| interval.is_some_and(|b| i == b.right_time) || temporal.is_some_and(|t| i == t.right_time);
    let list: Vec<String> = node
        .schema
        .iter()
        .enumerate()
        .map(|(i, c)| match time(i) {
            true => format!("CAST({} AS TIMESTAMP(3)) AS {}", col(i), ident(&c.name)),
            false => format!("{} AS {}", col(i), ident(&c.name)),
        })
        .collect();
    let mut on: Vec<String> = left_keys.iter().zip(right_keys).map(|(l, r)| format!("{} = {}", col(*l), col(*r))).collect();
    if let Some(b) = interval {
        let (l, r) = (col(b.left_time), col(b.right_time));
        let shifted = |ms: i64| match ms {
            0 => l.clone(),
            ms if ms > 0 => format!("{l} + {}", bound_interval(ms)),
            ms => format!("{l} - {}", bound_interval(-ms)),
        };
        on.push(format!("{r} >= {}", shifted(b.lower)));
        on.push(format!("{r} <= {}", shifted(b.upper)));
    }
    let hint = match node.state.as_ref().map(|s| s.retention) {
        Some(Retention::After(d)) => {
            let ttl = super::expr::string_literal(&d.to_string());
            format!("/*+ STATE_TTL({} = {ttl}, {} = {ttl}) */ ", super::expr::string_literal(&lq), super::expr::string_literal(&rq))
        }
        _ => String::new(),
    };
    if let (true, Some(r)) = (renamed, residual) {
        on.push(render(r));
    }
    // A temporal join reads the versioned model's view by name, as of the
    // left side's event time (lowering refuses what would need renaming).
    if let Some(t) = temporal {
        rf = format!("{} FOR SYSTEM_TIME AS OF {} AS {}", right.rel.from, col(t.left_time), ident(&rq));
    }
    let select = format!("SELECT {hint}{} FROM {lf} {} {rf} ON {}", list.join(", "), join_type.sql(), on.join(" AND "));
    match residual {
        Some(r) if !renamed => format!("SELECT * FROM ({select}) AS {} WHERE {}", ident("j"), render(r)),
        _ => select,
    }
}

/// A positive interval join bound: the canonical INTERVAL, or with a
/// millisecond part `INTERVAL 'D HH:MM:SS.fff' DAY TO SECOND(3)`, since Flink
/// takes no leading precision on a fractional SECOND interval.
fn bound_interval(ms: i64) -> String {
    if ms % 1000 == 0 {
        return crate::plan::expr::interval_text(ms);
    }
    let (d, h, m, s, f) = (ms / 86_400_000, ms / 3_600_000 % 24, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let digits = d.to_string().len();
    let day = if digits > 2 { format!("DAY({digits})") } else { "DAY".to_string() };
    format!("INTERVAL '{d} {h:02}:{m:02}:{s:02}.{f:03}' {day} TO SECOND(3)")
}

/// One column of a union's input, named `name` there. A string is cast:
/// Flink types a literal `'eu'` as CHAR(2), and a union of CHAR(2) and
/// CHAR(3) as CHAR(3), where the plan has one string type.
fn union_column(c: &Column, name: &str) -> String {
    match (c.ty, sql_type(c.ty)) {
        (DataType::String, Some(t)) => format!("CAST({} AS {t}) AS {}", ident(name), ident(&c.name)),
        _ if name == c.name => ident(name),
        _ => format!("{} AS {}", ident(name), ident(&c.name)),
    }
}

/// A Rank in Flink's Top-N shape, which Flink plans as its Rank or, ordered
/// by the event time with one row kept, its Deduplicate: the row's columns
/// and the row number over `from` (whose columns are `names`), kept to the
/// range. Only the row's columns enter the ranking query, so Flink stores
/// exactly the row the state fingerprint names. Returns the SELECT; `names`
/// become its columns.
fn rank_select(from: &str, names: &mut Vec<String>, node: &PlanNode, alias: usize) -> String {
    let NodeKind::Rank { partition, order, keep, row, number } = &node.kind else { unreachable!("a Rank") };
    let number = number.then(|| node.schema.last().map(|c| c.name.as_str())).flatten();
    let col = |i: usize| ident(&names[i]);
    let row_names: Vec<String> = row.iter().map(|&i| names[i].clone()).collect();
    // The row number's name: the query's own, or one no row column has.
    let rn = match number {
        Some(n) => n.to_string(),
        None => (1..).map(|k| if k == 1 { "rn".to_string() } else { format!("rn__{k}") }).find(|c| !row_names.contains(c)).expect("a free name"),
    };
    let listed: Vec<String> = row.iter().map(|&i| col(i)).collect();
    let by = if partition.is_empty() { String::new() } else { format!("PARTITION BY {} ", partition.iter().map(|&i| col(i)).collect::<Vec<_>>().join(", ")) };
    let order_by: Vec<String> = order
        .iter()
        .map(|(i, k)| match k.nulls() {
            Some(nulls) => format!("{} {} {nulls}", col(*i), k.direction()),
            None => format!("{} {}", col(*i), k.direction()),
        })
        .collect();
    let range = match RankKeep::rows(*keep) {
        1 => format!("{} = 1", ident(&rn)),
        n => format!("{} <= {n}", ident(&rn)),
    };
    let ranked = format!("SELECT {}, ROW_NUMBER() OVER ({by}ORDER BY {}) AS {} FROM {from}", listed.join(", "), order_by.join(", "), ident(&rn));
    let mut outer = listed;
    if number.is_some() {
        outer.push(ident(&rn));
    }
    *names = row_names.into_iter().chain(number.map(str::to_string)).collect();
    format!("SELECT {} FROM ({ranked}) AS t{alias}n WHERE {range}", outer.join(", "))
}

/// An aggregate's STATE_TTL hint on the relation it reads (`hint_name`):
/// its retention; or, in a job whose `table.exec.state.ttl` is set, `0s`
/// (no expiry) when it keeps its state forever. A window's state ends with
/// the window.
fn ttl_hint(retention: Option<Retention>, hint_name: &str, job_ttl: bool) -> String {
    let ttl = match retention {
        Some(Retention::After(d)) => d.to_string(),
        Some(Retention::Unbounded) if job_ttl => "0s".to_string(),
        _ => return String::new(),
    };
    format!("/*+ STATE_TTL({} = {}) */ ", super::expr::string_literal(hint_name), super::expr::string_literal(&ttl))
}

/// `e` with each column named as the relation's SQL names it.
fn renamed(e: &Expr, names: &[String]) -> Expr {
    e.map_columns(&|index, name, ty| Expr::Column { index, name: names.get(index).cloned().unwrap_or_else(|| name.to_string()), ty })
}

fn project_item(e: &Expr, name: &str) -> String {
    match e {
        Expr::Column { name: c, .. } if c == name => ident(c),
        other => format!("{} AS {}", render_planned(other), ident(name)),
    }
}

/// `e` rendered with a cast to its plan type where Flink would type it
/// otherwise (`0.5` is DECIMAL(2, 1) to Flink, float64 to the plan), so a
/// view's columns and an aggregate's arguments have the plan's types.
fn render_planned(e: &Expr) -> String {
    match (super::typing::flink_type(e), sql_type(e.ty())) {
        (Some(f), Some(t)) if f != e.ty() => format!("CAST({} AS {t})", render(e)),
        _ => render(e),
    }
}

/// `SUM(`amount`)`; a sum over int32 adds in BIGINT, the plan's accumulator
/// type (Flink's SUM(INT) is INT).
fn aggregate_call(c: &AggCall) -> String {
    let call = unfiltered_call(c);
    match &c.filter {
        None => call,
        Some(f) => format!("{call} FILTER (WHERE {})", render(f)),
    }
}

fn unfiltered_call(c: &AggCall) -> String {
    let func = c.func.name().to_uppercase();
    match &c.arg {
        None => format!("{func}(*)"),
        Some(arg) => {
            let mut a = render_planned(arg);
            if c.func == AggFunc::Sum && arg.ty() == DataType::Int32 && c.ty == DataType::Int64 {
                a = format!("CAST({a} AS {})", sql_type(DataType::Int64).expect("BIGINT"));
            }
            format!("{func}({}{a})", if c.distinct { "DISTINCT " } else { "" })
        }
    }
}

/// `INTERVAL '5' SECOND`, from the canonical duration (`1500ms` →
/// `'1.500' SECOND`, `0s` → `'0' DAY`).
pub fn interval(d: Duration) -> String {
    let (n, unit) = d.canonical_parts();
    match unit {
        _ if d.millis() == 0 => "INTERVAL '0' DAY".to_string(),
        "d" => format!("INTERVAL '{n}' DAY"),
        "h" => format!("INTERVAL '{n}' HOUR"),
        "m" => format!("INTERVAL '{n}' MINUTE"),
        "s" => format!("INTERVAL '{n}' SECOND"),
        _ => format!("INTERVAL '{}.{:03}' SECOND", n / 1000, n % 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        for (ms, want) in [(0, "INTERVAL '0' DAY"), (1500, "INTERVAL '1.500' SECOND"), (250, "INTERVAL '0.250' SECOND"), (61_000, "INTERVAL '61' SECOND"), (5_400_000, "INTERVAL '90' MINUTE"), (86_400_000, "INTERVAL '1' DAY")] {
            assert_eq!(interval(Duration(ms)), want);
        }
    }
}

/// The window TVF an aggregate reads from.
fn window_table(w: &TimeWindow, input: &str, data_keys: &[&str]) -> String {
    match w.shape {
        WindowShape::Tumbling { size } => format!("TABLE(TUMBLE(TABLE {input}, DESCRIPTOR({}), {}))", ident(&w.time), interval(size)),
        WindowShape::Hop { size, slide } => format!("TABLE(HOP(TABLE {input}, DESCRIPTOR({}), {}, {}))", ident(&w.time), interval(slide), interval(size)),
        // A session per group: Flink's sessions span the whole partition.
        WindowShape::Session { gap } => {
            let by = if data_keys.is_empty() { String::new() } else { format!(" PARTITION BY {}", data_keys.join(", ")) };
            format!("TABLE(SESSION(TABLE {input}{by}, DESCRIPTOR({}), {}))", ident(&w.time), interval(gap))
        }
    }
}
