//! `init`: writes a small working project (the same as examples/shop/).
//!
//! Every file is written to a temporary name beside it and then linked or
//! renamed into place, so a reader never sees half a file, and nothing that
//! exists is overwritten.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::out::{eprint, print};

/// The files `init` writes, project-relative, in the order they are written
/// (streamform.yml last: a directory with one is a project).
const FILES: &[(&str, &str)] = &[
    (
        "sources.yml",
        r#"# yaml-language-server: $schema=.schemas/sources.json
# The streams models read with source('…'): see `streamform schema sources`.
sources:
  orders:
    connector: kafka
    topic: orders
    key: [customer_id]
    schema:
      order_id: int64
      customer_id: int64
      amount: decimal(10,2)
      status: string
      ts: timestamp
    event_time: ts
    watermark: 5s
    contracts:
      - name: ids_present
        not_null: [order_id, customer_id]
      - name: positive_amount
        check: amount > 0
    quarantine:
      topic: orders-quarantine
"#,
    ),
    (
        "models/big_spenders.sql",
        r#"-- Customers who have spent more than 100.
SELECT customer_id, total_spend
FROM ref('customer_totals')
WHERE total_spend > 100
"#,
    ),
    (
        "models/customer_totals.sql",
        r#"-- What each customer has spent so far.
SELECT customer_id, SUM(amount) AS total_spend, COUNT(*) AS order_count
FROM ref('paid_orders')
GROUP BY customer_id
"#,
    ),
    (
        "models/paid_orders.sql",
        r#"-- Orders that were paid for.
SELECT order_id, customer_id, amount, ts
FROM source('orders')
WHERE status = 'paid'
"#,
    ),
    (
        "tests/big_spenders.yml",
        r#"# yaml-language-server: $schema=../.schemas/fixture.json
# A customer becomes a big spender once their total passes 100. The third
# order arrives after the watermark (5s behind the latest event) passed its
# timestamp, so it is dropped as late.
model: big_spenders
given:
  - {order_id: 1, customer_id: 7, amount: "40.00", status: paid, ts: "2024-01-01T00:00:00Z"}
  - {order_id: 2, customer_id: 7, amount: "75.50", status: paid, ts: "2024-01-01T00:00:10Z"}
  - {order_id: 3, customer_id: 7, amount: "20.00", status: paid, ts: "2024-01-01T00:00:01Z"}
expect:
  - {op: insert, customer_id: 7, total_spend: "115.50"}
late:
  - {order_id: 3, customer_id: 7, amount: "20.00", status: paid, ts: "2024-01-01T00:00:01Z"}
"#,
    ),
    (
        "tests/customer_totals.yml",
        r#"# yaml-language-server: $schema=../.schemas/fixture.json
# Events for source `orders`, and the changelog customer_totals must emit.
model: customer_totals
given:
  - {order_id: 1, customer_id: 7, amount: "40.00", status: paid, ts: "2024-01-01T00:00:00Z"}
  - {order_id: 2, customer_id: 7, amount: "75.50", status: paid, ts: "2024-01-01T00:00:01Z"}
  - {order_id: 3, customer_id: 8, amount: "12.00", status: pending, ts: "2024-01-01T00:00:02Z"}
  - {order_id: 4, customer_id: 8, amount: "-5.00", status: paid, ts: "2024-01-01T00:00:03Z"}
expect:
  - {op: insert, customer_id: 7, total_spend: "40.00", order_count: 1}
  - {op: update, customer_id: 7, total_spend: "115.50", order_count: 2}
quarantined:
  - {order_id: 4, customer_id: 8, amount: "-5.00", status: paid, ts: "2024-01-01T00:00:03Z", _contract: positive_amount}
"#,
    ),
    (
        ".gitignore",
        r#"# What `streamform build` writes, and the deployment state `apply` keeps.
build/
.streamform/
"#,
    ),
    (
        "streamform.yml",
        r#"# yaml-language-server: $schema=.schemas/project.json
# A Streamform project: see `streamform schema project` for every key.
name: {name}
version: 1

models:
  customer_totals:
    materialized: upsert
    key: [customer_id]
    sink: {connector: kafka, topic: customer-totals}
  big_spenders:
    materialized: upsert
    key: [customer_id]
    sink: {connector: kafka, topic: big-spenders}

targets:
  dev:
    backend: flink
    flink:
      gateway: http://localhost:8083
    kafka:
      bootstrap_servers: localhost:9092
"#,
    ),
];

pub fn run(dir: &str) -> u8 {
    let root = Path::new(dir);
    let name = project_name(root);
    let config = root.join("streamform.yml");
    if config.exists() {
        eprint(&format!(
            "error: {} already exists; init does not overwrite a project\n  help: run `streamform init <new-dir>` to create one beside it\n",
            config.display()
        ));
        return 2;
    }
    let files = files();
    let taken: Vec<&str> = files.iter().map(|(p, _)| *p).filter(|p| root.join(p).exists()).collect();
    if !taken.is_empty() {
        eprint(&format!(
            "error: init would overwrite {} in {dir}\n  help: run `streamform init` in an empty directory\n",
            taken.join(", ")
        ));
        return 2;
    }
    let mut written: Vec<PathBuf> = Vec::new();
    for (rel, text) in &files {
        let dest = root.join(rel);
        let text = text.replace("{name}", &yaml_scalar(&name));
        if let Err(e) = write_new(&dest, &text) {
            eprint(&format!("error: could not write {}: {e}\n", dest.display()));
            for w in written.iter().rev() {
                let _ = fs::remove_file(w);
            }
            return 2;
        }
        written.push(dest);
    }
    print(&summary(dir, &name));
    0
}

/// The files to write: the project's, then, for editors whose YAML
/// language server validates as you type (the `yaml-language-server`
/// comment atop each file points at them), the JSON Schemas of the
/// project, sources and fixture files; `streamform schema DOC` refreshes
/// them. streamform.yml comes last: a directory with one is a project.
fn files() -> Vec<(&'static str, &'static str)> {
    let schemas = [(".schemas/project.json", "project"), (".schemas/sources.json", "sources"), (".schemas/fixture.json", "fixture")];
    let mut out: Vec<(&str, &str)> = schemas.iter().filter_map(|(path, doc)| Some((*path, streamform::schemas::find(doc)?.schema))).collect();
    out.extend(FILES.iter().copied());
    out
}

/// The project is named after its directory (`init orders-app` makes
/// `orders-app`), as `cargo new` does; `shop` when the directory has no
/// usable name (`/`).
fn project_name(root: &Path) -> String {
    let abs = if root.is_absolute() { root.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(root) };
    let name = abs.components().filter_map(|c| match c {
        std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
        std::path::Component::ParentDir => Some("..".into()),
        _ => None,
    });
    // Resolve `..` lexically: `init ..` names the parent.
    let mut parts: Vec<String> = Vec::new();
    for n in name {
        if n == ".." {
            parts.pop();
        } else {
            parts.push(n);
        }
    }
    parts.pop().filter(|n| !n.trim().is_empty()).unwrap_or_else(|| "shop".into())
}

/// `name` as a YAML scalar: plain when it is a simple word, else quoted.
fn yaml_scalar(name: &str) -> String {
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !matches!(name.to_ascii_lowercase().as_str(), "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n");
    if plain {
        name.to_string()
    } else {
        serde_json::to_string(name).unwrap_or_else(|_| "\"shop\"".into())
    }
}

fn summary(dir: &str, name: &str) -> String {
    let mut s = format!("created project `{name}` in {dir}\n\n");
    let mut files: Vec<&str> = files().iter().map(|(p, _)| *p).collect();
    files.sort_by_key(|p| (p.contains('/'), *p != "streamform.yml", *p == ".gitignore", p.starts_with(".schemas/"), *p));
    for f in files {
        s.push_str(&format!("  {f}\n"));
    }
    let project = if dir == "." { String::new() } else { format!(" --project {dir}") };
    s.push_str("\nnext:\n");
    for cmd in ["check", "test", "graph", "inspect-plan"] {
        s.push_str(&format!("  streamform {cmd}{project}\n"));
    }
    s
}

/// Writes `text` to `dest`, which must not exist, through a temporary file
/// in the same directory.
fn write_new(dest: &Path, text: &str) -> io::Result<()> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent)?;
    let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        drop(f);
        // A hard link fails when `dest` exists, where a rename would replace it.
        match fs::hard_link(&tmp, dest) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            Err(_) if !dest.exists() => fs::rename(&tmp, dest),
            Err(e) => Err(e),
        }
    })();
    let _ = fs::remove_file(&tmp);
    result
}
