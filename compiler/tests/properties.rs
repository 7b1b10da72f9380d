//! Properties that hold on generated input, not only on hand-written
//! cases (issue 22, item 3):
//! - identity: reformatting a generated model (whitespace, comments,
//!   keyword and function-name case) moves no node id or digest, and a
//!   refused model is refused with the same codes;
//! - the simulator: a model's changelog does not depend on how models are
//!   batched into dataflows (alone with its upstream chain, as `test` runs
//!   it, or beside every model, as `run` runs them), nor on watermarks that
//!   are not ahead of the current one;
//! - documents: the manifest we write reads back to the same manifest and
//!   prints to the same bytes, and any damage to it is refused, syntax and
//!   shape errors with a line and column inside the file.
//!
//! The inputs come from a fixed-seed generator, so a failure names a seed
//! that reproduces it.

#[path = "../fuzz/src/entry.rs"]
#[allow(dead_code)]
mod entry;
#[path = "../fuzz/src/gen.rs"]
#[allow(dead_code)]
mod gen;

use std::path::{Path, PathBuf};

use arbitrary::{Arbitrary, Unstructured};
use streamform::check::{all_load_errors, check_report};
use streamform::db::{Database, Project, SourceName};
use streamform::driver::{self, Work};
use streamform::graph::dependency_graph;
use streamform::manifest::manifest;
use streamform::sim::line_feed::LineFeed;
use streamform::sim::{inputs_to, source_spec, Change};
use streamform::upgrade::reader::{read_running, ReadError};

/// xorshift64*: small, fixed, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// What a compile of one model's project says: its manifest when it plans,
/// else the codes of its diagnostics.
#[derive(Debug, PartialEq)]
enum Outcome {
    Manifest(String),
    Refused(Vec<String>),
}

fn compile(config: &str, sql: &str) -> Outcome {
    let mut db = Database::default();
    let p = entry::project(&db, &[("streamform.yml", config), ("sources.yml", entry::SOURCES), ("models/m.sql", sql)]);
    driver::compile(&mut db, p, Work::All);
    match manifest(&db, p) {
        Ok(m) => Outcome::Manifest(serde_json::to_string_pretty(&m.to_manifest()).expect("serializes")),
        Err(_) => {
            let load = all_load_errors(&db, p);
            assert!(load.is_empty(), "the fixed sources do not load: {load:?}");
            let mut codes: Vec<String> = check_report(&db, p).diagnostics.iter().map(|d| d.code.to_string()).collect();
            codes.sort();
            Outcome::Refused(codes)
        }
    }
}

/// Words whose case SQL ignores: keywords, type names and the functions
/// the generator calls.
const CASELESS: &[&str] = &[
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "AS", "AND", "OR", "NOT", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "IS", "NULL",
    "BETWEEN", "IN", "LIKE", "INTERVAL", "UNION", "ALL", "INTERSECT", "EXCEPT", "JOIN", "ON", "TABLE", "DESCRIPTOR", "OVER", "PARTITION", "ORDER",
    "DESC", "ASC", "TRUE", "FALSE", "DISTINCT", "SECOND", "MINUTE", "HOUR", "DAY", "INT", "BIGINT", "DOUBLE", "DECIMAL", "STRING", "BOOLEAN",
    "TIMESTAMP", "COUNT", "SUM", "MIN", "MAX", "AVG", "ABS", "COALESCE", "UPPER", "LOWER", "SUBSTRING", "ROUND", "FLOOR", "CONCAT", "CHAR_LENGTH",
    "DATE_FORMAT", "ROW_NUMBER", "TUMBLE", "HOP", "SESSION", "SOURCE",
];

/// `sql` reformatted: each run of whitespace becomes other whitespace or a
/// comment, space may follow `(` and `,` and precede `)`, and caseless
/// words change case. Literals, quoted names and comments are kept as
/// written.
fn reformat(sql: &str, rng: &mut Rng) -> String {
    let gap = |rng: &mut Rng| match rng.below(6) {
        0 => " ".to_string(),
        1 => "\n    ".to_string(),
        2 => "\t".to_string(),
        3 => " /* note, (with) 'quotes' */ ".to_string(),
        4 => " -- a comment; SELECT x\n".to_string(),
        _ => "  \n\n ".to_string(),
    };
    let chars: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '-' && chars.get(i + 1) == Some(&'-') {
            // A comment as written, to its line's end.
            while i < chars.len() && chars[i] != '\n' {
                out.push(chars[i]);
                i += 1;
            }
            out.push('\n');
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let start = i;
            i += 2;
            while i < chars.len() && !(chars[i - 1] == '*' && chars[i] == '/' && i > start + 2) {
                i += 1;
            }
            i = (i + 1).min(chars.len());
            out.extend(&chars[start..i]);
        } else if c == '"' || c == '`' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i = (i + 1).min(chars.len());
            out.extend(&chars[start..i]);
        } else if c == '\'' {
            // A literal, '' escapes included.
            let start = i;
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' && chars.get(i + 1) == Some(&'\'') {
                    i += 2;
                } else if chars[i] == '\'' {
                    i += 1;
                    break;
                } else {
                    i += 1;
                }
            }
            out.extend(&chars[start..i]);
        } else if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            out.push_str(&gap(rng));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let caseless = CASELESS.contains(&word.to_ascii_uppercase().as_str());
            // A word after `.` is a column of a qualified name, never a keyword.
            let qualified = start > 0 && chars[start - 1] == '.';
            out.push_str(&match (caseless && !qualified, rng.below(3)) {
                (true, 0) => word.to_ascii_lowercase(),
                (true, 1) => word.to_ascii_uppercase(),
                (true, _) => word.chars().enumerate().map(|(k, ch)| if k % 2 == 0 { ch.to_ascii_uppercase() } else { ch.to_ascii_lowercase() }).collect(),
                (false, _) => word,
            });
        } else {
            if c == ')' && rng.below(3) == 0 {
                out.push(' ');
            }
            out.push(c);
            if (c == '(' || c == ',') && rng.below(3) == 0 {
                out.push_str(&gap(rng));
            }
            i += 1;
        }
    }
    if rng.below(2) == 0 {
        out = format!("-- generated\n{out}\n");
    }
    out
}

/// Generated models: each seed's bytes decoded as a model; only models of
/// a modest size (long chains are the limits' tests, not this one's).
fn generated(count: u64) -> impl Iterator<Item = (u64, gen::Rendered)> {
    (0..count).filter_map(|seed| {
        let mut rng = Rng::new(seed);
        let len = 8 + rng.below(120) as usize;
        let bytes = rng.bytes(len);
        let model = gen::Model::arbitrary(&mut Unstructured::new(&bytes)).ok()?;
        let r = model.render();
        (r.sql.len() < 4_000).then_some((seed, r))
    })
}

/// Runs `f` with the stack the CLI gives a command.
fn with_command_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(driver::STACK_SIZE).spawn(f).expect("spawns").join().expect("no panic");
}

#[test]
fn reformatting_a_generated_model_moves_no_id_or_digest() {
    with_command_stack(reformatting_property);
}

fn reformatting_property() {
    let (mut planned, mut refused) = (0, 0);
    for (seed, r) in generated(1000) {
        let before = compile(&r.config, &r.sql);
        match &before {
            Outcome::Manifest(_) => planned += 1,
            Outcome::Refused(_) => refused += 1,
        }
        let mut rng = Rng::new(seed ^ 0x5EED);
        for _ in 0..3 {
            let text = reformat(&r.sql, &mut rng);
            let after = compile(&r.config, &text);
            assert!(before == after, "seed {seed}: reformatting changed the outcome\n--- model\n{}\n--- reformatted\n{text}\n--- before\n{before:?}\n--- after\n{after:?}", r.sql);
        }
    }
    eprintln!("identity under reformatting: {planned} generated models planned, {refused} refused, each reformatted 3 ways");
    // The generator must keep reaching both sides, or the property says little.
    assert!(planned >= 40 && refused >= 40, "planned {planned}, refused {refused}");
}

/// Every model of every project under testdata/ that plans, reformatted:
/// these carry the forms the generator does not write (joins, unions,
/// ranks, windows in FROM, intervals).
#[test]
fn reformatting_a_testdata_model_moves_no_id_or_digest() {
    with_command_stack(|| {
        let mut reformatted = 0;
        for dir in testdata_projects() {
            let files = project_files(&dir);
            let Some(before) = plan(&files) else { continue };
            // Seeded by the path inside testdata/, so every checkout draws
            // the same reformattings; REFORMAT_SALT draws others.
            let salt: u64 = std::env::var("REFORMAT_SALT").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
            let inside = dir.strip_prefix(&root).expect("under testdata").to_string_lossy().into_owned();
            let seed = inside.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
            let mut rng = Rng::new(seed ^ salt);
            for (i, (path, text)) in files.iter().enumerate() {
                if !path.ends_with(".sql") {
                    continue;
                }
                let mut edited = files.clone();
                edited[i].1 = reformat(text, &mut rng);
                let after = plan(&edited);
                assert!(after.as_ref() == Some(&before), "{}/{path}: reformatting moved the manifest\n--- reformatted\n{}", dir.display(), edited[i].1);
                reformatted += 1;
            }
        }
        eprintln!("identity under reformatting: {reformatted} testdata models");
        assert!(reformatted > 200, "only {reformatted} testdata models reformatted");
    });
}

/// The manifest of a project of these files, as `inspect-plan --json` prints it.
fn plan(files: &[(String, String)]) -> Option<String> {
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let mut db = Database::default();
    let p = entry::project(&db, &refs);
    driver::compile(&mut db, p, Work::Manifest);
    let m = manifest(&db, p).as_ref().ok()?;
    Some(serde_json::to_string_pretty(&m).expect("serializes"))
}

/// The project the simulator properties run: the fuzz targets' fixed
/// project (entry::PROJECT, entry::MODELS), plus models downstream of its
/// models and one over the other source, so flows hold chains. The extra
/// settings continue entry::PROJECT's `models:` map.
const MORE_SETTINGS: &str = "  latest:
    materialized: upsert
    key: [customer]
  big_totals:
    materialized: upsert
    key: [status]
  paid:
    materialized: upsert
    key: [order_id]
";

const MORE_MODELS: &[(&str, &str)] = &[
    ("models/big_totals.sql", "SELECT status, COUNT(*) AS n, MAX(doubled) AS top FROM ref('big') GROUP BY status"),
    ("models/latest.sql", "SELECT customer, total FROM ref('totals') WHERE n > 1"),
    ("models/paid.sql", "SELECT order_id, SUM(paid) AS paid FROM source('payments') GROUP BY order_id"),
];

/// A stream of JSON Lines for `source`, ordered by time with some events
/// late, and watermark lines between some of them.
fn events(source: &str, rng: &mut Rng, n: usize) -> Vec<String> {
    let mut t: i64 = 1_704_067_200_000; // 2024-01-01T00:00:00Z
    let mut lines = Vec::new();
    for i in 0..n {
        t += rng.below(40_000) as i64;
        // One in eight events is out of order, some past the 5 s delay.
        let ts = if rng.below(8) == 0 { t - rng.below(20_000) as i64 } else { t };
        let ts = ts.to_string(); // epoch milliseconds, as `run` reads them
        let cents = rng.below(100_000);
        let amount = format!("\"{}.{:02}\"", cents / 100, cents % 100);
        lines.push(match source {
            "orders" => format!(
                "{{\"id\": {i}, \"customer\": {}, \"qty\": {}, \"amount\": {amount}, \"status\": \"{}\", \"ok\": {}, \"score\": {}.5, \"ts\": {ts}}}",
                rng.below(5),
                rng.below(4) as i64 - 1,
                ["new", "paid", "sent"][rng.below(3) as usize],
                rng.below(2) == 0,
                rng.below(10),
            ),
            _ => format!("{{\"order_id\": {}, \"paid\": {amount}, \"ts\": {ts}}}", rng.below(20)),
        });
        if rng.below(10) == 0 {
            lines.push(format!("{{\"watermark\": {}}}", t - 5_000 + rng.below(3_000) as i64));
        }
    }
    lines
}

/// Feeds `streams` (one per source, by name) into one dataflow of `plans`
/// in turns, a line of each source at a time as `run` reads files, and
/// returns each model's changelog by name.
fn feed(db: &Database, p: Project, sources: &[String], plans: Vec<std::sync::Arc<streamform::plan::node::ModelPlan>>, streams: &[(&str, Vec<String>)]) -> Vec<(String, Vec<String>)> {
    let specs: Vec<_> = sources.iter().map(|s| source_spec(db, p, SourceName::new(db, s.clone())).clone().expect("source spec")).collect();
    let names: Vec<String> = plans.iter().map(|pl| pl.name.clone()).collect();
    let mut out: Vec<Vec<String>> = vec![Vec::new(); names.len()];
    let mut feed = LineFeed::new(specs, plans);
    let longest = streams.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    for i in 0..longest {
        for (src, name) in sources.iter().enumerate() {
            let Some((_, lines)) = streams.iter().find(|(n, _)| n == name) else { continue };
            let Some(line) = lines.get(i) else { continue };
            let mut emit = |m: usize, c: &Change| out[m].push(format!("{c:?}"));
            feed.push_line(src, line, &mut emit).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
    }
    names.into_iter().zip(out).collect()
}

#[test]
fn a_models_changelog_does_not_depend_on_how_flows_are_batched() {
    let config = format!("{}{MORE_SETTINGS}", entry::PROJECT);
    let mut files = vec![("streamform.yml", config.as_str()), ("sources.yml", entry::SOURCES)];
    files.extend_from_slice(entry::MODELS);
    files.extend_from_slice(MORE_MODELS);
    let mut db = Database::default();
    let p = entry::project(&db, &files);
    driver::compile(&mut db, p, Work::Checks);
    assert_eq!(check_report(&db, p).errors(), 0, "{:?}", check_report(&db, p).diagnostics);
    let order = dependency_graph(&db, p).order.clone();
    let mut compared = 0;
    for seed in 0..12 {
        let mut rng = Rng::new(1000 + seed);
        let orders = events("orders", &mut rng, 150);
        let payments = events("payments", &mut rng, 60);
        // Every model in one flow with both sources, as `run` batches them.
        let mut all_plans = Vec::new();
        for name in &order {
            let (_, chain) = inputs_to(&db, p, name).unwrap_or_else(|| panic!("no plans for {name}: {:?}", check_report(&db, p).diagnostics));
            all_plans.push(chain.last().expect("the model").clone());
        }
        let all_sources = vec!["orders".to_string(), "payments".to_string()];
        let streams = [("orders", orders.clone()), ("payments", payments.clone())];
        let together = feed(&db, p, &all_sources, all_plans.clone(), &streams);
        // The same, with watermarks that are not ahead of the stream's.
        let stale: Vec<String> = orders.iter().flat_map(|l| [l.clone(), "{\"watermark\": 1703980800000}".to_string()]).collect();
        let with_stale = feed(&db, p, &all_sources, all_plans, &[("orders", stale), ("payments", payments.clone())]);
        assert_eq!(together, with_stale, "seed {seed}: a watermark behind the current one changed a changelog");
        // Each model alone with its upstream chain, as `test` runs it.
        for name in &order {
            let (sources, chain) = inputs_to(&db, p, name).expect("plans");
            let alone = feed(&db, p, &sources, chain, &streams);
            let (_, mine) = alone.last().expect("the model's own changelog");
            let (_, shared) = together.iter().find(|(n, _)| n == name).expect("in the shared flow");
            assert_eq!(mine, shared, "seed {seed}: model `{name}` alone and beside every model differ");
            compared += 1;
            assert!(!mine.is_empty() || name == "latest", "seed {seed}: model `{name}` emitted nothing; the streams do not exercise it");
        }
    }
    eprintln!("batching: {compared} model changelogs compared");
}

/// Every project under testdata/ (a folder with a streamform.yml), sorted.
fn testdata_projects() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
        entries.sort();
        if entries.iter().any(|p| p.ends_with("streamform.yml")) {
            out.push(dir.to_path_buf());
        }
        for e in entries.into_iter().filter(|p| p.is_dir()) {
            walk(&e, out);
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata"), &mut out);
    out
}

/// A project's streamform.yml, sources.yml and models/**.sql, by relative path.
fn project_files(dir: &Path) -> Vec<(String, String)> {
    fn models(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries {
            let path = e.expect("entry").path();
            let name = format!("{rel}/{}", path.file_name().expect("name").to_string_lossy());
            if path.is_dir() {
                models(&path, &name, out);
            } else if name.ends_with(".sql") {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    out.push((name, text));
                }
            }
        }
    }
    let mut files = Vec::new();
    for name in ["streamform.yml", "sources.yml"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            files.push((name.to_string(), text));
        }
    }
    models(&dir.join("models"), "models", &mut files);
    files
}

/// Every manifest `inspect-plan --json` writes for a project under
/// testdata/: the generator's projects are not enough here, since the
/// manifest must carry every node kind.
fn written_manifests() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut out = Vec::new();
    for dir in testdata_projects() {
        let files = project_files(&dir);
        // As the CLI writes it: serde's pretty printer, a final newline.
        if let Some(mut text) = plan(&files) {
            text.push('\n');
            out.push((dir.strip_prefix(&root).expect("under testdata").display().to_string(), text));
        }
    }
    out
}

#[test]
fn a_written_manifest_reads_back_and_prints_the_same_bytes() {
    let manifests = written_manifests();
    assert!(manifests.len() >= 100, "only {} testdata projects plan", manifests.len());
    for (name, text) in &manifests {
        let doc = read_running(text).unwrap_or_else(|e| panic!("{name}: the manifest we wrote is refused: {e}"));
        let mut again = serde_json::to_string_pretty(doc.manifest()).expect("serializes");
        again.push('\n');
        assert!(again == *text, "{name}: the manifest read back prints differently");
        assert_eq!(read_running(&again).expect("reads again").manifest(), doc.manifest(), "{name}");
    }
}

#[test]
fn a_damaged_manifest_is_refused_with_a_location() {
    let mut refused = 0;
    for (name, text) in written_manifests() {
        let lines = text.lines().count();
        let mut rng = Rng::new(name.len() as u64);
        for k in 0..40 {
            let damaged = damage(&text, &mut rng);
            if damaged == text {
                continue;
            }
            let Err(e) = read_running(&damaged) else {
                // Whitespace damage leaves the same document.
                let reread = read_running(&damaged).expect("read");
                assert_eq!(reread.manifest(), read_running(&text).expect("read").manifest(), "{name} #{k}: a different manifest was accepted:\n{damaged}");
                continue;
            };
            refused += 1;
            match &e {
                ReadError::NotJson { line, column, .. } | ReadError::Malformed { line, column, .. } => {
                    assert!(*line >= 1 && *line <= lines + 1 && *column >= 1, "{name} #{k}: `{e}` points outside the file")
                }
                _ => {}
            }
            assert!(!e.to_string().is_empty());
        }
    }
    assert!(refused > 200, "only {refused} damaged manifests refused");
}

/// One random edit of `text`: a character removed, a digit changed, a
/// field renamed, a string made a number, or the text cut short.
fn damage(text: &str, rng: &mut Rng) -> String {
    let at = |rng: &mut Rng| {
        let mut i = rng.below(text.len() as u64) as usize;
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match rng.below(5) {
        0 => {
            let i = at(rng);
            let mut s = text.to_string();
            s.remove(i);
            s
        }
        1 => {
            // A hex digit of some digest or a digit of a number.
            let digits: Vec<usize> = text.char_indices().filter(|(_, c)| c.is_ascii_hexdigit()).map(|(i, _)| i).collect();
            let i = digits[rng.below(digits.len() as u64) as usize];
            let c = text.as_bytes()[i];
            let new = if c == b'0' { '1' } else { '0' };
            format!("{}{new}{}", &text[..i], &text[i + 1..])
        }
        2 => {
            let keys: Vec<usize> = text.match_indices("\": ").map(|(i, _)| i).collect();
            let i = keys[rng.below(keys.len() as u64) as usize];
            format!("{}_x{}", &text[..i], &text[i..])
        }
        3 => {
            let strings: Vec<usize> = text.match_indices(": \"").map(|(i, _)| i).collect();
            let i = strings[rng.below(strings.len() as u64) as usize] + 2;
            let end = i + 1 + text[i + 1..].find('"').expect("closing quote");
            format!("{}7{}", &text[..i], &text[end + 1..])
        }
        _ => text[..at(rng)].to_string(),
    }
}
