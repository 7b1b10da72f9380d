//! Invariance of plan identity: what formatting, reordering and key edits
//! may and may not move, and determinism of the outputs.

mod common;

use common::Fixture;
use streamform::manifest::{Manifest, NodeEntry};

const SOURCES: &str = r#"
//- /sources.yml
sources:
  orders:
    connector: kafka
    topic: orders
    schema:
      order_id: int64
      customer_id: int64
      status: string
      qty: int32
      amount: decimal(10,2)
"#;

const CONFIG: &str = r#"
//- /streamform.yml
name: shop
version: 1
models:
  totals:
    materialized: upsert
    key: [customer_id]
    sink: {connector: kafka, topic: totals}
"#;

fn compile(model_sql: &str) -> Manifest {
    compile_with(CONFIG, model_sql)
}

fn compile_with(config: &str, model_sql: &str) -> Manifest {
    let text = format!("{config}{SOURCES}\n//- /models/totals.sql\n{model_sql}\n//- /models/clean.sql\nSELECT order_id, qty FROM source('orders') WHERE qty > 0\n");
    Fixture::with_db(Default::default(), &text).manifest()
}

const BASE: &str = "SELECT customer_id, SUM(amount) AS total, COUNT(*) AS n FROM source('orders') WHERE amount > 0 GROUP BY customer_id HAVING COUNT(*) > 1";

/// Reformatted versions of BASE: whitespace, comments, keyword and
/// function-name case, redundant parentheses.
const REFORMATTED: &[&str] = &[
    "SELECT customer_id,\n       SUM(amount) AS total,\n       COUNT(*) AS n\n  FROM source('orders')\n WHERE amount > 0\n GROUP BY customer_id\nHAVING COUNT(*) > 1\n\n",
    "-- per customer\nSELECT customer_id, /* the spend */ SUM(amount) AS total, COUNT(*) AS n\nFROM source('orders') -- raw\nWHERE amount > 0 GROUP BY customer_id HAVING COUNT(*) > 1",
    "select customer_id, sum(amount) as total, count(*) as n from SOURCE('orders') where amount > 0 group by customer_id having count(*) > 1",
    "SELECT customer_id, SUM((amount)) AS total, COUNT(*) AS n FROM source('orders') WHERE ((amount > 0)) GROUP BY customer_id HAVING (COUNT(*) > 1)",
    "\t SELECT\tcustomer_id ,SUM( amount )AS total ,COUNT( * ) AS n FROM source( 'orders' )WHERE amount>0 GROUP BY customer_id HAVING COUNT(*)>1 ",
];

fn node<'m>(m: &'m Manifest, id: &str) -> &'m NodeEntry {
    m.nodes.iter().find(|n| n.id == id).unwrap_or_else(|| panic!("no node {id}"))
}

fn ids(m: &Manifest) -> Vec<&str> {
    m.nodes.iter().map(|n| n.id.as_str()).collect()
}

#[test]
fn reformatting_moves_nothing() {
    let base = compile(BASE);
    for (i, sql) in REFORMATTED.iter().enumerate() {
        let m = compile(sql);
        // Every id, definition, fingerprint and digest, and the application digest.
        assert_eq!(m, base, "reformatting #{i} changed the manifest:\n{sql}");
    }
}

#[test]
fn reformatting_config_moves_nothing() {
    let base = compile(BASE);
    let reformatted = r#"
//- /streamform.yml
# the shop
name:    shop
version: 1

models:
  totals:
    sink:
      topic: totals      # same sink, block style
      connector: kafka
    key:
      - customer_id
    materialized: upsert
"#;
    assert_eq!(compile_with(reformatted, BASE), base);
}

#[test]
fn reordering_projection_moves_schema_digest_not_ids() {
    let base = compile(BASE);
    // The key column moves; the aggregates keep their relative order.
    let m = compile("SELECT SUM(amount) AS total, COUNT(*) AS n, customer_id FROM source('orders') WHERE amount > 0 GROUP BY customer_id HAVING COUNT(*) > 1");
    assert_eq!(ids(&m), ids(&base));
    let (p0, p1) = (node(&base, "totals::project::0"), node(&m, "totals::project::0"));
    assert_ne!(p1.schema_digest, p0.schema_digest);
    // Below the projection nothing moved: the aggregate's state is the same.
    assert_eq!(node(&m, "totals::aggregate::0"), node(&base, "totals::aggregate::0"));
    assert_eq!(node(&m, "totals::source::0"), node(&base, "totals::source::0"));
    // The sink carries the projection's schema.
    assert_ne!(node(&m, "totals::sink::0").schema_digest, node(&base, "totals::sink::0").schema_digest);
    // The unrelated model is untouched.
    for n in base.nodes.iter().filter(|n| n.model == "clean") {
        assert_eq!(node(&m, &n.id), n);
    }
}

#[test]
fn reordering_aggregates_moves_no_id() {
    let base = compile(BASE);
    let m = compile("SELECT COUNT(*) AS n, SUM(amount) AS total, customer_id FROM source('orders') WHERE amount > 0 GROUP BY customer_id HAVING COUNT(*) > 1");
    assert_eq!(ids(&m), ids(&base));
    assert_ne!(node(&m, "totals::project::0").schema_digest, node(&base, "totals::project::0").schema_digest);
    // Accumulators are listed in first-appearance order (as the original
    // does), so reordering the aggregate calls reorders the state.
    let (a0, a1) = (node(&base, "totals::aggregate::0"), node(&m, "totals::aggregate::0"));
    assert_eq!(a1.definition, "key=[customer_id] aggregates=[count(*), sum(amount)]");
    assert_ne!(a1.state.digest, a0.state.digest);
}

#[test]
fn changing_group_by_key_moves_state_digest_not_node_id() {
    let config = CONFIG.replace("key: [customer_id]", "key: [status]");
    let base = compile(BASE);
    let m = compile_with(&config, "SELECT status, SUM(amount) AS total, COUNT(*) AS n FROM source('orders') WHERE amount > 0 GROUP BY status HAVING COUNT(*) > 1");
    assert_eq!(ids(&m), ids(&base));
    let (a0, a1) = (node(&base, "totals::aggregate::0"), node(&m, "totals::aggregate::0"));
    assert_eq!(a1.id, a0.id);
    assert_ne!(a1.state.digest, a0.state.digest);
    assert_eq!(a1.state.keys.as_deref(), Some(&["status".to_string()][..]));
    assert_ne!(m.application_digest, base.application_digest);
}

#[test]
fn changing_accumulator_or_where_moves_no_id() {
    let base = compile(BASE);
    let no_where = compile("SELECT customer_id, SUM(amount) AS total, COUNT(*) AS n FROM source('orders') GROUP BY customer_id HAVING COUNT(*) > 1");
    // Removing the WHERE removes filter::0 and shifts the HAVING filter's
    // ordinal (ids are positional per kind); every other id stays.
    let kept: Vec<&str> = ids(&base).into_iter().filter(|id| !id.contains("::filter::")).collect();
    let now: Vec<&str> = ids(&no_where).into_iter().filter(|id| !id.contains("::filter::")).collect();
    assert_eq!(now, kept);
    let max = compile("SELECT customer_id, MAX(amount) AS total, COUNT(*) AS n FROM source('orders') WHERE amount > 0 GROUP BY customer_id HAVING COUNT(*) > 1");
    assert_eq!(ids(&max), ids(&base));
    assert_ne!(node(&max, "totals::aggregate::0").state.digest, node(&base, "totals::aggregate::0").state.digest);
}

#[test]
fn alias_is_not_part_of_state() {
    let base = compile(BASE);
    let renamed = compile("SELECT customer_id, SUM(amount) AS spend, COUNT(*) AS n FROM source('orders') WHERE amount > 0 GROUP BY customer_id HAVING COUNT(*) > 1");
    assert_eq!(node(&renamed, "totals::aggregate::0"), node(&base, "totals::aggregate::0"));
    assert_ne!(node(&renamed, "totals::project::0").schema_digest, node(&base, "totals::project::0").schema_digest);
}

fn pretty(m: &streamform::manifest::Manifest) -> String {
    serde_json::to_string_pretty(m).expect("manifests serialize")
}

#[test]
fn outputs_are_deterministic() {
    let text = format!("{CONFIG}{SOURCES}\n//- /models/totals.sql\n{BASE}\n//- /models/clean.sql\nSELECT order_id, qty FROM source('orders') WHERE qty > 0\n");
    let first = pretty(&Fixture::with_db(Default::default(), &text).manifest());
    for _ in 0..5 {
        let again = pretty(&Fixture::with_db(Default::default(), &text).manifest());
        assert_eq!(again, first);
    }
    // The same project loaded with files in another order, in one database.
    let mut parts: Vec<&str> = text.split("\n//- ").collect();
    parts[1..].reverse();
    let shuffled = parts.join("\n//- ");
    let m = Fixture::with_db(Default::default(), &shuffled).manifest();
    assert_eq!(pretty(&m), first);
    // The stored digest is the digest of the document with an empty digest field.
    assert_eq!(streamform::manifest::application_digest(&m), m.application_digest);
}

/// The SQL past the original's subset: every spelling of one expression
/// (keyword and function case, whitespace, a simple CASE or its searched
/// form, `ELSE NULL` or none, SUBSTRING's two syntaxes, parentheses) plans
/// to the same ids, definitions and digests.
#[test]
fn reformatting_past_the_original_moves_nothing() {
    let config = CONFIG.replace("materialized: upsert\n    key: [customer_id]", "materialized: append");
    let variants: &[&str] = &[
        "SELECT order_id, CASE WHEN status = 'a' THEN 1 WHEN status = 'b' THEN 2 END AS rank, COALESCE(status, 'x') AS s, UPPER(TRIM(status)) AS u, SUBSTRING(status FROM 2 FOR 3) AS mid, qty % 2 AS odd, status || '!' AS loud, ROUND(amount, 1) AS r FROM source('orders') WHERE status IN ('a', 'b') AND qty BETWEEN 1 AND 9 AND status NOT LIKE 'z%'",
        "select order_id,\n  case status when 'a' then 1 when 'b' then 2 else null end as rank,\n  coalesce( status , 'x' ) as s,\n  upper(trim(BOTH FROM status)) as u,\n  substring(status, 2, 3) as mid,\n  (qty % 2) as odd,\n  (status || '!') as loud,\n  round(amount, 1) as r\nfrom source('orders')\nwhere (status in ('a','b')) and (qty between 1 and 9) and status not like 'z%'",
    ];
    let base = compile_with(&config, variants[0]);
    assert_eq!(compile_with(&config, variants[1]), base, "reformatting changed the manifest");
    let third = "SELECT order_id, CASE WHEN (status = 'a') THEN 1 WHEN (status = 'b') THEN 2 END AS rank, coalesce(status, 'x') AS s, upper(trim(status)) AS u, substring(status, 2, 3) AS mid, (qty % 2) AS odd, (status || '!') AS loud, round(amount, 1) AS r FROM source('orders') WHERE status IN ('a', 'b') AND qty BETWEEN 1 AND 9 AND status NOT LIKE 'z%'";
    assert_eq!(compile_with(&config, third), base, "the canonical spelling planned differently");
}

/// An INTERVAL's unit, case, plural and parentheses do not move an id or
/// a digest: every spelling of one length has one rendering.
#[test]
fn reformatting_intervals_moves_nothing() {
    let config = CONFIG.replace("materialized: upsert\n    key: [customer_id]", "materialized: append");
    let with_ts = |sql: &str| {
        let sources = SOURCES.replace("      amount: decimal(10,2)\n", "      amount: decimal(10,2)\n      ts: timestamp\n");
        let text = format!("{config}{sources}\n//- /models/totals.sql\n{sql}\n//- /models/clean.sql\nSELECT order_id, qty FROM source('orders') WHERE qty > 0\n");
        Fixture::with_db(Default::default(), &text).manifest()
    };
    let variants = [
        "SELECT order_id, ts + INTERVAL '1' HOUR AS h, ts - INTERVAL '90' MINUTE AS m FROM source('orders') WHERE ts > TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '2' DAY",
        "select order_id, (ts + interval '60' minutes) as h, ts - (INTERVAL '5400' SECOND) as m from source('orders') where ts > timestamp '2024-01-01 00:00:00' + interval '48' hours",
        "SELECT order_id, ts + INTERVAL '3600.000' SECOND AS h, ts - INTERVAL '+90' MINUTE AS m FROM source('orders') WHERE ts > TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '2' DAYS",
    ];
    let base = with_ts(variants[0]);
    let project = node(&base, "totals::project::0");
    assert_eq!(project.definition, "order_id, (ts + INTERVAL '1' HOUR) AS h, (ts - INTERVAL '90' MINUTE) AS m");
    for v in &variants[1..] {
        assert_eq!(with_ts(v), base, "reformatting changed the manifest: {v}");
    }
}

/// An aggregate over an updating input: reformatting it moves nothing, and
/// its retracting accumulators (docs/identity.md) move its state digest
/// from the same aggregate over an append input, not its ids or definition.
#[test]
fn retracting_aggregate_reformatted_moves_nothing() {
    let config = format!("{CONFIG}  by_n:\n    materialized: upsert\n    key: [n]\n");
    let with = |sql: &str| {
        let text = format!("{config}{SOURCES}\n//- /models/totals.sql\n{BASE}\n//- /models/by_n.sql\n{sql}\n//- /models/clean.sql\nSELECT order_id, qty FROM source('orders') WHERE qty > 0\n");
        Fixture::with_db(Default::default(), &text).manifest()
    };
    let base = with("SELECT n, MIN(total) AS lo, SUM(total) AS t FROM ref('totals') GROUP BY n");
    assert_eq!(with("select n,\n  min( total ) as lo, -- smallest\n  sum((total)) as t\nfrom REF('totals')\ngroup by n\n"), base, "reformatting changed the manifest");
    let agg = node(&base, "by_n::aggregate::0");
    let accs: Vec<&str> = agg.state.accumulators.as_deref().unwrap_or(&[]).iter().map(|c| c.name.as_str()).collect();
    assert_eq!(accs, ["min(total) WITH RETRACT", "sum(total) WITH RETRACT", "count(*)"]);
    // The same aggregate over an append model: other accumulators, same ids.
    let text = format!("{config}{SOURCES}\n//- /models/totals.sql\n{BASE}\n//- /models/by_n.sql\nSELECT n, MIN(total) AS lo, SUM(total) AS t FROM ref('clean') GROUP BY n\n//- /models/clean.sql\nSELECT qty AS n, amount AS total FROM source('orders') WHERE qty > 0\n");
    let append = Fixture::with_db(Default::default(), &text).manifest();
    let a = node(&append, "by_n::aggregate::0");
    let accs: Vec<&str> = a.state.accumulators.as_deref().unwrap_or(&[]).iter().map(|c| c.name.as_str()).collect();
    assert_eq!(accs, ["min(total)", "sum(total)"]);
    assert_eq!(a.definition, agg.definition);
    let sorted = |m: &Manifest| {
        let mut v: Vec<String> = ids(m).into_iter().map(String::from).collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&append), sorted(&base), "the same nodes, in another plan order");
}

/// A window written as a window function in FROM plans to the very nodes,
/// ids and digests of the same window in streamform.yml.
#[test]
fn window_function_equals_window_config() {
    let sources = SOURCES.replace("      amount: decimal(10,2)\n", "      amount: decimal(10,2)\n      ts: timestamp\n").replace("    topic: orders\n", "    topic: orders\n    event_time: ts\n    watermark: 5s\n");
    let compile = |window: &str, from: &str| {
        let config = format!("//- /streamform.yml\nname: shop\nversion: 1\nmodels:\n  totals: {{{window}}}\n");
        let sql = format!("SELECT customer_id, window_start, window_end, COUNT(*) AS n, SUM(amount) AS total FROM {from} GROUP BY customer_id, window_start, window_end");
        Fixture::with_db(Default::default(), &format!("{config}{sources}\n//- /models/totals.sql\n{sql}\n")).manifest()
    };
    let pairs = [
        ("window: {type: tumbling, size: 5m}", "TABLE(TUMBLE(TABLE source('orders'), DESCRIPTOR(ts), INTERVAL '5' MINUTE))"),
        ("window: {type: hop, size: 10m, slide: 5m}", "TABLE(HOP(TABLE source('orders'), DESCRIPTOR(ts), INTERVAL '300' SECONDS, INTERVAL '10' MINUTE)) AS w"),
        ("window: {type: session, gap: 30m}", "TABLE(\n  SESSION(TABLE source('orders') PARTITION BY (customer_id), DESCRIPTOR(ts), INTERVAL '30' MINUTE)\n)"),
    ];
    for (config, tvf) in pairs {
        let by_config = compile(config, "source('orders')");
        assert!(node(&by_config, "totals::aggregate::0").state.window.is_some(), "{config} plans a window");
        assert_eq!(compile("", tvf), by_config, "{tvf}");
    }
}

/// A Top-N: reformatting it, or writing its ranked query as a WITH query
/// rather than a derived table, moves nothing; renaming an output column
/// leaves the Rank's state as it is, dropping one the Rank stores moves
/// its state digest (Flink stores only what is read), never its id.
#[test]
fn top_n_reformatted_moves_nothing() {
    let config = CONFIG.replace("key: [customer_id]", "key: [customer_id, rn]");
    let base = compile_with(&config, "SELECT customer_id, rn, order_id, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn FROM source('orders')) WHERE rn <= 3");
    for sql in [
        "select customer_id, rn, order_id, amount\nfrom (\n  select *, row_number() over (partition by CUSTOMER_ID order by amount desc) as RN -- ranked\n  from source('orders')\n) as r\nwhere (r.rn <= 3)",
        "WITH ranked AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn FROM source('orders'))\nSELECT customer_id, rn, order_id, amount FROM ranked WHERE 3 >= rn",
        "SELECT customer_id, rn, order_id, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC NULLS LAST) AS rn FROM source('orders')) WHERE rn < 4",
    ] {
        assert_eq!(compile_with(&config, sql), base, "reformatting changed the manifest:\n{sql}");
    }
    let rank = node(&base, "totals::rank::0");
    assert_eq!(rank.definition, "partition=[customer_id] order=[amount DESC] top=3 number=rn");
    let renamed = compile_with(&config, "SELECT customer_id, rn, order_id AS id, amount AS spent FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn FROM source('orders')) WHERE rn <= 3");
    assert_eq!(node(&renamed, "totals::rank::0").state, rank.state, "renaming an output column moved the Rank's state");
    let dropped = compile_with(&config, "SELECT customer_id, rn, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn FROM source('orders')) WHERE rn <= 3");
    assert_ne!(node(&dropped, "totals::rank::0").state.digest, rank.state.digest, "the stored row lost order_id, so its state moves");
    assert_eq!(ids(&dropped), ids(&base));
}
