//! The simulator's throughput on the reference example (customer_metrics:
//! SUM(amount) by customer_id over decimal(38,9)), beside a hand-written
//! HashMap loop doing the same sums, the practical limit.
//!
//! usage: bench_sim sim|loop ROWS KEYS
//! Orders are generated on the fly (never stored), so peak memory shows
//! what the state costs: it should follow KEYS, not ROWS. Prints one line:
//! `<mode> rows=<n> keys=<k> cpu_seconds=<s> rows_per_sec=<r> peak_rss_mb=<m> records=<c>`.

use std::collections::HashMap;
use std::time::Instant;

use streamform::db::{Database, Project, SourceFile, SourceName};
use streamform::sim::decimal::Decimal;
use streamform::sim::{inputs_to, source_spec, Dataflow, Value};

const SOURCES: &str = "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    schema:\n      amount: decimal(38,9)\n      customer_id: int64\n";
const CONFIG: &str = "name: shop\nversion: 1\nmodels:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n    sink: {connector: kafka, topic: customer-metrics}\n";
const MODEL: &str = "SELECT customer_id, SUM(amount) AS total_spend\nFROM source('orders')\nGROUP BY customer_id\n";

/// xorshift64*: cheap, deterministic orders.
struct Orders {
    state: u64,
    keys: u64,
}

impl Orders {
    fn next(&mut self) -> (i64, i128) {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let r = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        // customer, and an amount of up to 10,000.000000000 with nine places.
        ((r % self.keys) as i64, ((r >> 20) % 10_000_000_000_000) as i128)
    }
}

/// CPU time this thread has run, in seconds: the machine may be shared,
/// so wall time would also count other processes' turns.
fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    s.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()).map_or(0.0, |ns| ns / 1e9)
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok()).map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("sim");
    let rows: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10_000_000);
    let keys: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let mut orders = Orders { state: 0x9E37_79B9_7F4A_7C15, keys };
    let (secs, records, check) = match mode {
        "loop" => {
            let start = Instant::now();
            let cpu = cpu_seconds();
            let mut sums: HashMap<i64, i128> = HashMap::new();
            for _ in 0..rows {
                let (c, a) = orders.next();
                *sums.entry(c).or_insert(0) += a;
            }
            let (wall, secs) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
            eprintln!("wall={wall:.3}s");
            (secs, rows, sums.values().sum::<i128>())
        }
        _ => {
            let db = Database::default();
            let file = |p: &str, t: &str| SourceFile::new(&db, p.to_string(), t.to_string());
            let project = Project::new(&db, ".".into(), Some(file("streamform.yml", CONFIG)), Some(file("sources.yml", SOURCES)), vec![file("models/customer_metrics.sql", MODEL)], vec![]);
            let (sources, chain) = inputs_to(&db, project, "customer_metrics").expect("the reference example plans");
            let source = sources[0].clone();
            let spec = source_spec(&db, project, SourceName::new(&db, source)).clone().expect("orders is declared");
            let mut flow = Dataflow::new(vec![spec], chain);
            let mut records = 0u64;
            let mut last = 0i128;
            let start = Instant::now();
            let cpu = cpu_seconds();
            for _ in 0..rows {
                let (c, a) = orders.next();
                // Source columns are sorted by name: amount, customer_id.
                let row = [Value::Decimal(Decimal::new(a, 9)), Value::Int(c)];
                flow.push_event(0, &row, &mut |_, ch| {
                    records += 1;
                    if let Value::Decimal(d) = &ch.row[1] {
                        last = d.mantissa;
                    }
                })
                .expect("no overflow");
            }
            let (wall, secs) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
            eprintln!("wall={wall:.3}s");
            (secs, records, last)
        }
    };
    println!(
        "{mode} rows={rows} keys={keys} cpu_seconds={secs:.3} rows_per_sec={:.0} peak_rss_mb={:.1} records={records} check={}",
        rows as f64 / secs,
        peak_rss_mb(),
        check % 1000
    );
}
