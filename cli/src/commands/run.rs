//! `run`: the whole application on the simulator over files.
//!
//! `<input>/<source>.jsonl` in (one JSON object per line; a line
//! `{"watermark": …}` advances the clock; the files of the sources one
//! model reads are read in turns, a line of each in source-name order); out, for each model,
//! `<model>.changelog.jsonl` and, for upsert models, `<model>.table.jsonl`
//! (the final table), plus `<source>.late.jsonl` / `.quarantined.jsonl`
//! when events were dropped or quarantined. Every file is written to a
//! temporary name and renamed at the end, so a failed run writes nothing.
//!
//! The simulator reads the lines ([`LineFeed`]: typing, watermarks, error
//! texts) and keeps the final tables ([`FinalTable`]); this file reads
//! and writes the files, shows progress and writes the summary.

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
use streamform::sim::{inputs_to, source_spec, Change, Outcome, SourceSpec};
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
    if let Err(code) = check_input(Path::new(input), streamform::project::source_names(db, p)) {
        return code;
    }
    // Models that share a source run in one dataflow, with every source
    // upstream of them; a dataflow is named by its sources.
    let mut flows: Vec<(Vec<String>, Vec<Arc<ModelPlan>>)> = Vec::new();
    for name in &dependency_graph(db, p).order {
        if let Some((sources, chain)) = inputs_to(db, p, name) {
            let plan = chain.last().expect("the inputs end at the model").clone();
            let mut group: (Vec<String>, Vec<Arc<ModelPlan>>) = (sources, vec![plan]);
            // Merged in dependency order, so each flow's plans stay in it.
            while let Some(i) = flows.iter().position(|(s, _)| s.iter().any(|x| group.0.contains(x))) {
                let (s, mut plans) = flows.remove(i);
                for x in s {
                    if !group.0.contains(&x) {
                        group.0.push(x);
                    }
                }
                plans.append(&mut group.1);
                group.1 = plans;
            }
            flows.push(group);
        }
    }
    let order = &dependency_graph(db, p).order;
    for f in &mut flows {
        f.0.sort();
        f.1.sort_by_key(|plan| order.iter().position(|m| *m == plan.name));
    }
    flows.sort_by(|a, b| a.0.cmp(&b.0));
    if let Err(e) = fs::create_dir_all(output) {
        eprint(&format!("error: could not create the output directory {output}: {e}\n"));
        return 2;
    }
    let mut out = Outputs::new(Path::new(output));
    let mut summary = String::new();
    for (sources, plans) in flows {
        let Some(specs) = sources.iter().map(|s| source_spec(db, p, SourceName::new(db, s.clone())).clone()).collect::<Option<Vec<_>>>() else { continue };
        match run_flow(Path::new(input), specs, plans, &mut out) {
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

/// The input directory must exist, and each `<name>.jsonl` in it must name
/// a source: a misspelt file would otherwise be skipped, and its models
/// run on no events. What `run` itself writes (`<source>.late.jsonl`,
/// `<model>.changelog.jsonl`, …) may share the directory.
fn check_input(input: &Path, sources: &[String]) -> Result<(), u8> {
    let entries = match fs::read_dir(input) {
        Ok(e) => e,
        Err(e) => {
            let why = if e.kind() == std::io::ErrorKind::NotFound { "it does not exist".to_string() } else { e.to_string() };
            eprint(&format!(
                "error: cannot read the input directory {}: {why}\n  help: --input names a directory with one `<source>.jsonl` per source ({})\n",
                input.display(),
                sources.join(", ")
            ));
            return Err(2);
        }
    };
    let mut stray: Vec<(String, Option<String>)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".jsonl") else { continue };
        // Outputs of a run: `<name>.changelog.jsonl`, `<source>.late.jsonl`, ….
        if stem.contains('.') || sources.iter().any(|s| s == stem) {
            continue;
        }
        let guess = streamform::diagnostic::did_you_mean(stem, sources.iter().map(String::as_str)).map(str::to_string);
        stray.push((name, guess));
    }
    stray.sort();
    let mut typo = false;
    for (name, guess) in &stray {
        match guess {
            Some(g) => {
                typo = true;
                eprint(&format!("error: {} matches no source\n  help: did you mean `{g}.jsonl`? the sources are {}\n", input.join(name).display(), sources.join(", ")));
            }
            None => eprint(&format!("warning: {} matches no source and is not read (the sources are {})\n", input.join(name).display(), sources.join(", "))),
        }
    }
    if typo {
        eprint("nothing was run\n");
        return Err(2);
    }
    Ok(())
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

fn run_flow(input: &Path, specs: Vec<SourceSpec>, plans: Vec<Arc<ModelPlan>>, out: &mut Outputs) -> Result<String, String> {
    let mut models = plans.iter().map(|plan| ModelOut::new(plan, out)).collect::<Result<Vec<_>, _>>()?;
    let mut dropped: Vec<Dropped> = specs.iter().map(|s| Dropped { source: s.name.clone(), late: None, quarantined: None }).collect();
    let mut files: Vec<Option<Input>> = Vec::with_capacity(specs.len());
    for spec in &specs {
        let path = input.join(format!("{}.jsonl", spec.name));
        let display = path.display().to_string();
        match File::open(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprint(&format!("warning: no input for source `{}` ({display}); its models run on no events\n", spec.name));
                files.push(None);
            }
            Err(e) => return Err(format!("could not read {display}: {e}")),
            Ok(f) => {
                // One file alone shows its progress; files read in turns do not.
                let size = f.metadata().map(|m| m.len()).unwrap_or(0);
                let progress = if specs.len() == 1 { progress_bar(&spec.name, size) } else { None };
                files.push(Some(Input { reader: BufReader::with_capacity(1 << 20, f), display, lineno: 0, read: 0, progress }));
            }
        }
    }
    let mut feed = LineFeed::new(specs, plans);
    feed_files(&mut files, &mut feed, &mut models, &mut dropped, out)?;
    let mut summary = String::new();
    for (src, c) in feed.counts.iter().enumerate() {
        summary.push_str(&format!("{}: {} event{} read, {} processed", feed.source(src).name, c.events, plural(c.events), c.processed));
        if c.late > 0 {
            summary.push_str(&format!(", {} dropped as late", c.late));
        }
        if c.no_time > 0 {
            summary.push_str(&format!(", {} dropped without event time", c.no_time));
        }
        if c.quarantined > 0 {
            summary.push_str(&format!(", {} quarantined", c.quarantined));
        }
        summary.push('\n');
    }
    let width = models.iter().map(|m| m.plan.name.chars().count()).max().unwrap_or(0);
    for m in models {
        summary.push_str(&m.finish(out, width)?);
    }
    for d in dropped {
        d.flush()?;
    }
    Ok(summary)
}

/// One source's file as it is read.
struct Input {
    reader: BufReader<File>,
    display: String,
    lineno: usize,
    read: u64,
    progress: Option<indicatif::ProgressBar>,
}

/// Feeds the sources' files into the simulator a line of each in turn
/// (source-name order; a file that ends drops out), writing what the
/// models emit and the events dropped or quarantined.
fn feed_files(files: &mut [Option<Input>], feed: &mut LineFeed, models: &mut [ModelOut], dropped: &mut [Dropped], out: &mut Outputs) -> Result<(), String> {
    let mut line = String::new();
    let mut io_error: Option<std::io::Error> = None;
    while files.iter().any(Option::is_some) {
        for src in 0..files.len() {
            let Some(f) = &mut files[src] else { continue };
            line.clear();
            let n = f.reader.read_line(&mut line).map_err(|e| format!("could not read {}: {e}", f.display))?;
            if n == 0 {
                if let Some(pb) = files[src].take().and_then(|f| f.progress) {
                    pb.finish_and_clear();
                }
                continue;
            }
            f.lineno += 1;
            f.read += n as u64;
            if f.lineno % 65_536 == 0 {
                if let Some(pb) = &f.progress {
                    pb.set_position(f.read);
                }
            }
            let mut emit = |m: usize, c: &Change| {
                if let Err(e) = models[m].record(c) {
                    io_error.get_or_insert(e);
                }
            };
            if let Line::Event { fields, outcome } = feed.push_line(src, &line, &mut emit).map_err(|m| format!("{}:{}: {m}", f.display, f.lineno))? {
                dropped[src].write(out, &fields, &outcome)?;
                if let Some(e) = io_error.take() {
                    return Err(format!("could not write the changelog: {e}"));
                }
            }
        }
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
