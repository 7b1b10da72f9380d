//! In-process incremental benchmark: load a project directory into a
//! database, compute the manifest, then edit one model at a time and
//! recompute. Prints cold and per-edit timings.
//!
//! usage: cargo run --release -p streamform-compiler --example bench_incremental -- DIR [EDITS]

use std::time::{Duration, Instant};

use salsa::{Durability, Setter};
use streamform::db::{Database, Project, SourceFile};
use streamform::check::check_report;
use streamform::driver::{self, Work};
use streamform::manifest::manifest;

fn read_models(dir: &std::path::Path, rel: &str, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir.join(rel)) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let rel = format!("{rel}/{name}");
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            read_models(dir, &rel, out);
        } else if name.ends_with(".sql") {
            out.push((rel.clone(), std::fs::read_to_string(e.path()).expect("readable model")));
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// BENCH_THREADS=N (N > 1): after each edit, bring the whole-project
/// queries up to date with the driver, on every core, as watch does.
fn refresh(db: &Database, project: Project) {
    let threads: u32 = std::env::var("BENCH_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
    if threads > 1 {
        driver::refresh(db, project, Work::All);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: bench_incremental DIR [EDITS]"));
    let edits: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(21);

    let t0 = Instant::now();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok().map(|t| (f.to_string(), t));
    let config = read("streamform.yml");
    let sources = read("sources.yml");
    let mut models = Vec::new();
    read_models(&dir, "models", &mut models);
    models.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let read_time = t0.elapsed();

    // BENCH_LOG=1: after each scenario, which queries the last edit re-ran.
    let log = std::env::var_os("BENCH_LOG").is_some();
    let mut db = if log { Database::with_execution_log() } else { Database::default() };
    let t1 = Instant::now();
    // BENCH_DURABILITY=1: configuration HIGH, the file set and model text
    // MEDIUM, and a model file demoted to LOW when it is first edited (the
    // rust-analyzer pattern), so that after an edit only the edited model's
    // queries need deep verification.
    let durable = std::env::var_os("BENCH_DURABILITY").is_some();
    let (high, medium) = if durable { (Durability::HIGH, Durability::MEDIUM) } else { (Durability::LOW, Durability::LOW) };
    let mk = |db: &Database, f: Option<(String, String)>| f.map(|(p, t)| SourceFile::builder(p, t).durability(high).new(db));
    let config = mk(&db, config);
    let sources = mk(&db, sources);
    let files: Vec<SourceFile> =
        models.iter().map(|(p, t)| SourceFile::builder(p.clone(), t.clone()).path_durability(high).text_durability(medium).new(&db)).collect();
    let project = Project::builder(".".into(), config, sources, files.clone(), Vec::new()).durability(medium).new(&db);
    driver::compile(&mut db, project, Work::All);
    let digest = match manifest(&db, project) {
        Ok(m) => m.application_digest.clone(),
        Err(e) => panic!("project does not compile: {e:?}"),
    };
    let cold = t1.elapsed();
    if log {
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for q in db.take_executed() {
            *counts.entry(q.split('(').next().unwrap_or(&q).to_string()).or_default() += 1;
        }
        println!("cold run executed: {counts:?}");
    }
    println!("models: {}", files.len());
    assert!(!files.is_empty(), "no models under {}/models", dir.display());
    println!("read files: {}", ms(read_time));
    println!("cold check report + manifest (in process): {}", ms(cold));

    // Edit models spread over the project; alternate between two texts so
    // every edit really changes something.
    let mut run = |label: &str, same_model: bool, change: &dyn Fn(&str) -> String| {
        let mut times = Vec::new();
        let mut checks = Vec::new();
        for i in 0..edits {
            let pick = if same_model { 0 } else { i * 7919 };
            let file = files[(pick + files.len() / 2) % files.len()];
            let old = file.text(&db).to_string();
            let new = change(&old);
            let t = Instant::now();
            file.set_text(&mut db).with_durability(Durability::LOW).to(new);
            refresh(&db, project);
            let _ = check_report(&db, project);
            checks.push(t.elapsed());
            let t = Instant::now();
            let m = manifest(&db, project).as_ref().map(|m| m.application_digest.len()).unwrap_or(0);
            times.push(t.elapsed());
            assert!(m > 0);
            let ran = db.take_executed();
            if log && i + 1 == edits {
                let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
                for q in &ran {
                    *counts.entry(q.split('(').next().unwrap_or(q)).or_default() += 1;
                }
                println!("  re-ran: {counts:?}");
            }
            // Restore (not timed).
            file.set_text(&mut db).to(old);
            let _ = manifest(&db, project);
            let _ = db.take_executed();
        }
        let which = if same_model { "one model edited repeatedly" } else { "a different model each time" };
        let stats = |v: &Vec<Duration>| {
            format!("median {} (min {}, max {})", ms(median(v.clone())), ms(*v.iter().min().unwrap()), ms(*v.iter().max().unwrap()))
        };
        println!("{label} ({which}, {edits} edits): check report {}; then manifest {}", stats(&checks), stats(&times));
    };
    let whitespace = |t: &str| format!("  {t}\n");
    let logic = |t: &str| {
        // Change the WHERE/HAVING constant, or add a filter.
        if let Some(p) = t.rfind("> ") {
            format!("{}> 1000{}", &t[..p], &t[p + 2..].trim_start_matches(|c: char| c.is_ascii_digit()))
        } else {
            t.to_string()
        }
    };
    // BENCH_ONLY=logic|whitespace: one kind of edit (to profile it).
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let sames: &[bool] = if std::env::var_os("BENCH_SAME_ONLY").is_some() { &[true] } else { &[true, false] };
    for &same_model in sames {
        if only.is_empty() || only == "whitespace" {
            run("incremental re-check, whitespace edit", same_model, &whitespace);
        }
        if only.is_empty() || only == "logic" {
            run("incremental re-check, logic edit", same_model, &logic);
        }
    }
    if only.is_empty() || only == "add" {
        // A model added, then removed: the file list changes.
        let mut add_times = Vec::new();
        let mut remove_times = Vec::new();
        for i in 0..edits.min(5) {
            let text = files[i].text(&db).to_string();
            let new = SourceFile::builder(format!("models/zz_added_{i}.sql"), text).path_durability(high).text_durability(Durability::LOW).new(&db);
            let mut with = files.clone();
            with.push(new);
            let t = Instant::now();
            project.set_model_files(&mut db).to(with);
            let _ = check_report(&db, project);
            let _ = manifest(&db, project);
            add_times.push(t.elapsed());
            let ran = db.take_executed();
            let t = Instant::now();
            project.set_model_files(&mut db).to(files.clone());
            let _ = check_report(&db, project);
            let _ = manifest(&db, project);
            remove_times.push(t.elapsed());
            if log && i == 0 {
                let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
                for q in &ran {
                    *counts.entry(q.split('(').next().unwrap_or(q)).or_default() += 1;
                }
                println!("  re-ran after an add: {counts:?}");
            }
            let _ = db.take_executed();
        }
        println!("model added: check report + manifest median {}; removed: median {}", ms(median(add_times)), ms(median(remove_times)));
    }
    let after = manifest(&db, project).as_ref().map(|m| m.application_digest.clone()).unwrap_or_default();
    assert_eq!(after, digest, "restoring every edit restores the digest");
}
