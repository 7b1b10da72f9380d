//! `run`: the whole application on the simulator over files.
//!
//! `<input>/<source>.jsonl` in (one JSON object per line; a line
//! `{"watermark": …}` advances the clock); out, for each model,
//! `<model>.changelog.jsonl` and, for upsert models, `<model>.table.jsonl`
//! (the final table), plus `<source>.late.jsonl` / `.quarantined.jsonl`
//! when events were dropped or quarantined. Every file is written to a
//! temporary name and renamed at the end, so a failed run writes nothing.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use streamform::config::Materialized;
use streamform::graph::dependency_graph;
use streamform::plan::node::ModelPlan;
use streamform::sim::fixture::{chain_to, source_spec};
use streamform::sim::jsonl::parse_object;
use streamform::sim::scalar::{type_scalar, Scalar};
use streamform::sim::value::parse_rfc3339_ms;
use streamform::sim::{Change, ChangeOp, Dataflow, Outcome, Row, SimError, SourceSpec, Value};
use streamform::SourceName;

use crate::out::{eprint, print};
use crate::render::json::Json;
use crate::render::test::{change_json, scalar_json, value_json};

pub fn run(project: &str, input: &str, output: &str) -> u8 {
    let loaded = match super::load_checked(project, "running") {
        Ok(l) => l,
        Err(code) => return code,
    };
    let db = &loaded.db;
    let p = loaded.project;
    // Each model belongs to the one source at the root of its ref() chain.
    let mut by_source: BTreeMap<String, Vec<Arc<ModelPlan>>> = BTreeMap::new();
    for name in &dependency_graph(db, p).order {
        if let Some((source, chain)) = chain_to(db, p, name) {
            by_source.entry(source).or_default().push(chain.last().expect("a chain ends at its model").clone());
        }
    }
    if let Err(e) = fs::create_dir_all(output) {
        eprint(&format!("error: could not create the output directory {output}: {e}\n"));
        return 2;
    }
    let mut out = Outputs::new(Path::new(output));
    let mut summary = String::new();
    for (source, plans) in by_source {
        let Some(spec) = source_spec(db, p, SourceName::new(db, source.clone())).clone() else { continue };
        match run_source(Path::new(input), spec, plans, &mut out) {
            Ok(s) => summary.push_str(&s),
            Err(message) => {
                out.discard();
                eprint(&format!("error: {message}\n"));
                eprint("nothing was written\n");
                return 1;
            }
        }
    }
    match out.commit() {
        Ok(n) => {
            print(&summary);
            print(&format!("ok: {n} file{} written to {output}\n", if n == 1 { "" } else { "s" }));
            0
        }
        Err(e) => {
            eprint(&format!("error: {e}\n"));
            2
        }
    }
}

/// Files being written: each to a temporary name beside its final one.
struct Outputs {
    dir: PathBuf,
    pending: Vec<(PathBuf, PathBuf)>,
}

impl Outputs {
    fn new(dir: &Path) -> Outputs {
        Outputs { dir: dir.to_path_buf(), pending: Vec::new() }
    }

    fn create(&mut self, name: &str) -> Result<BufWriter<File>, String> {
        let final_path = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let f = File::create(&tmp).map_err(|e| format!("could not write {}: {e}", tmp.display()))?;
        self.pending.push((tmp, final_path));
        Ok(BufWriter::with_capacity(1 << 16, f))
    }

    fn discard(&mut self) {
        for (tmp, _) in self.pending.drain(..) {
            let _ = fs::remove_file(tmp);
        }
    }

    fn commit(&mut self) -> Result<usize, String> {
        let n = self.pending.len();
        for (tmp, dest) in self.pending.drain(..) {
            fs::rename(&tmp, &dest).map_err(|e| format!("could not rename {} to {}: {e}", tmp.display(), dest.display()))?;
        }
        Ok(n)
    }
}

/// One model's outputs while the run goes on.
struct ModelOut {
    plan: Arc<ModelPlan>,
    changelog: BufWriter<File>,
    records: usize,
    /// Upsert models: the final table, by key.
    table: Option<(Vec<usize>, BTreeMap<Vec<Value>, Row>)>,
}

impl ModelOut {
    fn record(&mut self, c: &Change) -> std::io::Result<()> {
        self.records += 1;
        let columns = &self.plan.sink().schema;
        let mut line = change_json(columns, c).compact();
        line.push('\n');
        self.changelog.write_all(line.as_bytes())?;
        if let Some((key, table)) = &mut self.table {
            let k = |r: &Row| -> Vec<Value> { if key.is_empty() { r.clone() } else { key.iter().map(|&i| r[i].clone()).collect() } };
            match c.op {
                ChangeOp::Insert => {
                    table.insert(k(&c.row), c.row.clone());
                }
                ChangeOp::Update => {
                    if let Some(b) = &c.before {
                        table.remove(&k(b));
                    }
                    table.insert(k(&c.row), c.row.clone());
                }
                ChangeOp::Delete => {
                    table.remove(&k(&c.row));
                }
            }
        }
        Ok(())
    }
}

fn run_source(input: &Path, spec: SourceSpec, plans: Vec<Arc<ModelPlan>>, out: &mut Outputs) -> Result<String, String> {
    let source = spec.name.clone();
    let mut models = Vec::new();
    for plan in &plans {
        let changelog = out.create(&format!("{}.changelog.jsonl", plan.name))?;
        let table = (plan.materialized == Materialized::Upsert).then(|| {
            let schema = &plan.sink().schema;
            let key: Option<Vec<usize>> = plan.key.iter().map(|k| schema.iter().position(|c| &c.name == k)).collect();
            (key.unwrap_or_default(), BTreeMap::new())
        });
        models.push(ModelOut { plan: plan.clone(), changelog, records: 0, table });
    }
    let path = input.join(format!("{source}.jsonl"));
    let display = path.display().to_string();
    let mut flow = Dataflow::new(spec.clone(), plans);
    let (mut events, mut processed) = (0usize, 0usize);
    let mut late: Option<BufWriter<File>> = None;
    let mut quarantined: Option<BufWriter<File>> = None;
    let (mut late_n, mut quarantined_n) = (0usize, 0usize);
    let mut io_error: Option<std::io::Error> = None;
    match File::open(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprint(&format!("warning: no input for source `{source}` ({display}); its models run on no events\n"));
        }
        Err(e) => return Err(format!("could not read {display}: {e}")),
        Ok(f) => {
            let size = f.metadata().map(|m| m.len()).unwrap_or(0);
            let progress = progress_bar(&source, size);
            let mut reader = BufReader::with_capacity(1 << 20, f);
            let mut line = String::new();
            let (mut lineno, mut read) = (0usize, 0u64);
            loop {
                line.clear();
                let n = reader.read_line(&mut line).map_err(|e| format!("could not read {display}: {e}"))?;
                if n == 0 {
                    break;
                }
                lineno += 1;
                read += n as u64;
                if lineno % 65_536 == 0 {
                    if let Some(pb) = &progress {
                        pb.set_position(read);
                    }
                }
                let text = line.trim();
                if text.is_empty() {
                    continue;
                }
                let at = |m: String| format!("{display}:{lineno}: {m}");
                let fields = parse_object(text).map_err(at)?;
                let mut emit = |m: usize, c: &Change| {
                    if let Err(e) = models[m].record(c) {
                        io_error.get_or_insert(e);
                    }
                };
                if let [(k, v)] = fields.as_slice() {
                    if k == "watermark" && spec.columns.iter().all(|c| c.name != "watermark") {
                        let ms = match v {
                            Scalar::Int(i) => i64::try_from(*i).ok(),
                            Scalar::Str(s) => parse_rfc3339_ms(s),
                            _ => None,
                        }
                        .ok_or_else(|| at(format!("watermark {} is neither an RFC 3339 instant nor epoch milliseconds", v.render())))?;
                        flow.push_watermark(ms, &mut emit).map_err(|e| at(sim_error(e, &source)))?;
                        continue;
                    }
                }
                events += 1;
                let row = type_row(&spec, &fields).map_err(at)?;
                match flow.push_event(&row, &mut emit).map_err(|e| at(sim_error(e, &source)))? {
                    Outcome::Processed => processed += 1,
                    Outcome::Late => {
                        late_n += 1;
                        let w = match &mut late {
                            Some(w) => w,
                            None => late.insert(out.create(&format!("{source}.late.jsonl"))?),
                        };
                        writeln!(w, "{}", written_json(&fields, None).compact()).map_err(|e| e.to_string())?;
                    }
                    Outcome::Quarantined(contract) => {
                        quarantined_n += 1;
                        let w = match &mut quarantined {
                            Some(w) => w,
                            None => quarantined.insert(out.create(&format!("{source}.quarantined.jsonl"))?),
                        };
                        writeln!(w, "{}", written_json(&fields, Some(&contract)).compact()).map_err(|e| e.to_string())?;
                    }
                }
                if let Some(e) = io_error.take() {
                    return Err(format!("could not write the changelog: {e}"));
                }
            }
            if let Some(pb) = progress {
                pb.finish_and_clear();
            }
        }
    }
    let mut summary = format!("{source}: {events} event{} read, {processed} processed", if events == 1 { "" } else { "s" });
    if late_n > 0 {
        summary.push_str(&format!(", {late_n} dropped as late"));
    }
    if quarantined_n > 0 {
        summary.push_str(&format!(", {quarantined_n} quarantined"));
    }
    summary.push('\n');
    let width = models.iter().map(|m| m.plan.name.chars().count()).max().unwrap_or(0);
    for m in models {
        summary.push_str(&format!("  {:width$}  {} changelog record{}", m.plan.name, m.records, if m.records == 1 { "" } else { "s" }));
        let mut changelog = m.changelog;
        changelog.flush().map_err(|e| e.to_string())?;
        if let Some((_, table)) = m.table {
            let columns = &m.plan.sink().schema;
            let mut w = out.create(&format!("{}.table.jsonl", m.plan.name))?;
            for row in table.values() {
                let obj = Json::Obj(columns.iter().zip(row).map(|(c, v)| (c.name.clone(), value_json(v))).collect());
                writeln!(w, "{}", obj.compact()).map_err(|e| e.to_string())?;
            }
            w.flush().map_err(|e| e.to_string())?;
            summary.push_str(&format!(", {} row{} in the final table", table.len(), if table.len() == 1 { "" } else { "s" }));
        }
        summary.push('\n');
    }
    for w in [late, quarantined].into_iter().flatten() {
        let mut w = w;
        w.flush().map_err(|e| e.to_string())?;
    }
    Ok(summary)
}

fn progress_bar(source: &str, size: u64) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() || size < (8 << 20) {
        return None;
    }
    let pb = indicatif::ProgressBar::new(size);
    let style = indicatif::ProgressStyle::with_template("{prefix} {bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}").ok()?;
    pb.set_style(style);
    pb.set_prefix(source.to_string());
    Some(pb)
}

fn type_row(spec: &SourceSpec, fields: &[(String, Scalar)]) -> Result<Row, String> {
    let mut row: Row = vec![Value::Null; spec.columns.len()];
    for (name, s) in fields {
        let i = spec
            .columns
            .iter()
            .position(|c| &c.name == name)
            .ok_or_else(|| format!("event has column `{name}`, which source `{}` does not declare", spec.name))?;
        row[i] = type_scalar(name, s, spec.columns[i].ty)?.0;
    }
    Ok(row)
}

fn sim_error(e: SimError, source: &str) -> String {
    match e {
        SimError::MissingTime { column } => format!("the event has no `{column}`; source `{source}` runs on event time, so every event needs one"),
        SimError::Eval(e) => e.to_string(),
    }
}

/// An input event as written, columns sorted, with its contract when quarantined.
fn written_json(fields: &[(String, Scalar)], contract: Option<&str>) -> Json {
    let mut pairs: Vec<(String, Json)> = fields.iter().map(|(k, v)| (k.clone(), scalar_json(v))).collect();
    if let Some(c) = contract {
        pairs.push(("_contract".into(), Json::Str(c.to_string())));
    }
    pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Json::Obj(pairs)
}
