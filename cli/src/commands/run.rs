//! `run`: the whole application on the simulator over files.
//!
//! `<input>/<source>.jsonl` in (one JSON object per line; a line
//! `{"watermark": …}` advances the clock); out, for each model,
//! `<model>.changelog.jsonl` and, for upsert models, `<model>.table.jsonl`
//! (the final table), plus `<source>.late.jsonl` / `.quarantined.jsonl`
//! when events were dropped or quarantined. Every file is written to a
//! temporary name and renamed at the end, so a failed run writes nothing.
//!
//! The simulator reads the lines ([`LineFeed`]: typing, watermarks, error
//! texts) and keeps the final tables ([`FinalTable`]); this file reads
//! and writes the files, shows progress and writes the summary.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use streamform::driver::Work;
use streamform::graph::dependency_graph;
use streamform::plan::node::ModelPlan;
use streamform::sim::final_table::FinalTable;
use streamform::sim::line_feed::{Line, LineFeed};
use streamform::sim::scalar::Scalar;
use streamform::sim::{chain_to, source_spec, Change, Outcome, SourceSpec};
use streamform::SourceName;

use crate::out::{eprint, print};
use crate::render::json::Json;
use crate::render::test::{change_json, event_json, value_json};

pub fn run(project: &str, input: &str, output: &str) -> u8 {
    let loaded = match super::load_checked(project, "running", Work::Checks) {
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
            print(&format!("ok: {n} file{} written to {output}\n", plural(n)));
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
    /// Upsert models only.
    table: Option<FinalTable>,
}

impl ModelOut {
    fn new(plan: &Arc<ModelPlan>, out: &mut Outputs) -> Result<ModelOut, String> {
        let changelog = out.create(&format!("{}.changelog.jsonl", plan.name))?;
        Ok(ModelOut { plan: plan.clone(), changelog, records: 0, table: FinalTable::of(plan) })
    }

    fn record(&mut self, c: &Change) -> std::io::Result<()> {
        self.records += 1;
        let columns = &self.plan.sink().schema;
        let mut line = change_json(columns, c).compact();
        line.push('\n');
        self.changelog.write_all(line.as_bytes())?;
        if let Some(table) = &mut self.table {
            table.apply(c);
        }
        Ok(())
    }

    /// Flushes the changelog and writes the final table; the model's line
    /// of the summary.
    fn finish(self, out: &mut Outputs, width: usize) -> Result<String, String> {
        let mut summary = format!("  {:width$}  {} changelog record{}", self.plan.name, self.records, plural(self.records));
        let mut changelog = self.changelog;
        changelog.flush().map_err(|e| e.to_string())?;
        if let Some(table) = self.table {
            let columns = &self.plan.sink().schema;
            let mut w = out.create(&format!("{}.table.jsonl", self.plan.name))?;
            for row in table.rows() {
                let obj = Json::Obj(columns.iter().zip(row).map(|(c, v)| (c.name.clone(), value_json(v))).collect());
                writeln!(w, "{}", obj.compact()).map_err(|e| e.to_string())?;
            }
            w.flush().map_err(|e| e.to_string())?;
            summary.push_str(&format!(", {} row{} in the final table", table.len(), plural(table.len())));
        }
        summary.push('\n');
        Ok(summary)
    }
}

/// A source's late and quarantined files, each made at its first event.
struct Dropped {
    source: String,
    late: Option<BufWriter<File>>,
    quarantined: Option<BufWriter<File>>,
}

impl Dropped {
    fn write(&mut self, out: &mut Outputs, fields: &[(String, Scalar)], outcome: &Outcome) -> Result<(), String> {
        let (file, kind, contract) = match outcome {
            Outcome::Processed | Outcome::NoTime => return Ok(()),
            Outcome::Late => (&mut self.late, "late", None),
            Outcome::Quarantined(c) => (&mut self.quarantined, "quarantined", Some(c.as_str())),
        };
        let w = match file {
            Some(w) => w,
            None => file.insert(out.create(&format!("{}.{kind}.jsonl", self.source))?),
        };
        writeln!(w, "{}", event_json(fields, contract).compact()).map_err(|e| e.to_string())
    }

    fn flush(self) -> Result<(), String> {
        for mut w in [self.late, self.quarantined].into_iter().flatten() {
            w.flush().map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

fn run_source(input: &Path, spec: SourceSpec, plans: Vec<Arc<ModelPlan>>, out: &mut Outputs) -> Result<String, String> {
    let source = spec.name.clone();
    let mut models = plans.iter().map(|plan| ModelOut::new(plan, out)).collect::<Result<Vec<_>, _>>()?;
    let mut feed = LineFeed::new(spec, plans);
    let mut dropped = Dropped { source: source.clone(), late: None, quarantined: None };
    let path = input.join(format!("{source}.jsonl"));
    let display = path.display().to_string();
    match File::open(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprint(&format!("warning: no input for source `{source}` ({display}); its models run on no events\n"));
        }
        Err(e) => return Err(format!("could not read {display}: {e}")),
        Ok(f) => feed_file(f, &display, &mut feed, &mut models, &mut dropped, out)?,
    }
    let mut summary = format!("{source}: {} event{} read, {} processed", feed.events, plural(feed.events), feed.processed);
    if feed.late > 0 {
        summary.push_str(&format!(", {} dropped as late", feed.late));
    }
    if feed.no_time > 0 {
        summary.push_str(&format!(", {} dropped without event time", feed.no_time));
    }
    if feed.quarantined > 0 {
        summary.push_str(&format!(", {} quarantined", feed.quarantined));
    }
    summary.push('\n');
    let width = models.iter().map(|m| m.plan.name.chars().count()).max().unwrap_or(0);
    for m in models {
        summary.push_str(&m.finish(out, width)?);
    }
    dropped.flush()?;
    Ok(summary)
}

/// Feeds the source's file into the simulator line by line, writing what
/// the models emit and the events dropped or quarantined.
fn feed_file(f: File, display: &str, feed: &mut LineFeed, models: &mut [ModelOut], dropped: &mut Dropped, out: &mut Outputs) -> Result<(), String> {
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let progress = progress_bar(&feed.source().name, size);
    let mut reader = BufReader::with_capacity(1 << 20, f);
    let mut line = String::new();
    let (mut lineno, mut read) = (0usize, 0u64);
    let mut io_error: Option<std::io::Error> = None;
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
        let mut emit = |m: usize, c: &Change| {
            if let Err(e) = models[m].record(c) {
                io_error.get_or_insert(e);
            }
        };
        if let Line::Event { fields, outcome } = feed.push_line(&line, &mut emit).map_err(|m| format!("{display}:{lineno}: {m}"))? {
            dropped.write(out, &fields, &outcome)?;
            if let Some(e) = io_error.take() {
                return Err(format!("could not write the changelog: {e}"));
            }
        }
    }
    if let Some(pb) = progress {
        pb.finish_and_clear();
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
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
