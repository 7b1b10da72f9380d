//! What each model's queries say about the graph of ref()s, on generated
//! graphs with cycles, self-reads and missing models, against plain walks
//! of that graph: whether a model reaches a cycle (and is on one), its upstream sources in
//! the order a depth-first walk meets them, its ref() depth, and the
//! graph's cycles. The queries ask their reads' answers, and salsa settles
//! the models of a cycle; the walks here are what they must agree with.

mod common;

use std::collections::BTreeSet;

use common::Fixture;
use streamform::db::{Database, ModelName};
use streamform::driver::{compile, Work};
use streamform::graph::dependency_graph;
use streamform::model::{lower_model, reaches_cycle, ref_depth, upstream_sources};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

enum Read {
    Source(usize),
    Model(usize),
}

const SOURCES: usize = 3;

fn name(i: usize) -> String {
    format!("m{i:02}")
}

/// A graph of `n` models; a model may read `m{n}`, which does not exist.
fn graph(rng: &mut Rng) -> Vec<Vec<Read>> {
    let n = 2 + rng.below(11) as usize;
    (0..n)
        .map(|_| {
            (0..1 + rng.below(3))
                .map(|_| if rng.below(3) == 0 { Read::Source(rng.below(SOURCES as u64) as usize) } else { Read::Model(rng.below(n as u64 + 1) as usize) })
                .collect()
        })
        .collect()
}

fn fixture(g: &[Vec<Read>]) -> String {
    let mut text = String::from("//- /streamform.yml\nname: graphs\nversion: 1\n//- /sources.yml\nsources:\n");
    for s in 0..SOURCES {
        text.push_str(&format!("  s{s}:\n    connector: kafka\n    topic: s{s}\n    schema: {{id: int64}}\n"));
    }
    for (i, reads) in g.iter().enumerate() {
        let selects: Vec<String> = reads
            .iter()
            .map(|r| match r {
                Read::Source(s) => format!("SELECT id FROM source('s{s}')"),
                Read::Model(m) => format!("SELECT id FROM ref('{}')", name(*m)),
            })
            .collect();
        text.push_str(&format!("//- /models/{}.sql\n{}\n", name(i), selects.join("\nUNION ALL\n")));
    }
    text
}

/// Each model's reads as model_reads has them: in order, once each, refs
/// to a missing model left out.
fn reads(g: &[Vec<Read>]) -> Vec<(Vec<usize>, Vec<usize>)> {
    g.iter()
        .map(|rs| {
            let (mut sources, mut models) = (Vec::new(), Vec::new());
            for r in rs {
                match *r {
                    Read::Source(s) if !sources.contains(&s) => sources.push(s),
                    Read::Model(m) if m < g.len() && !models.contains(&m) => models.push(m),
                    _ => {}
                }
            }
            (sources, models)
        })
        .collect()
}

fn reaches(r: &[(Vec<usize>, Vec<usize>)], m: usize, path: &mut Vec<usize>) -> bool {
    if path.contains(&m) {
        return true;
    }
    path.push(m);
    let found = r[m].1.iter().any(|&x| reaches(r, x, path));
    path.pop();
    found
}

/// Whether following ref()s from `from` reaches `to`.
fn leads_to(r: &[(Vec<usize>, Vec<usize>)], from: usize, to: usize) -> bool {
    let (mut seen, mut stack) = (BTreeSet::new(), vec![from]);
    while let Some(x) = stack.pop() {
        if x == to {
            return true;
        }
        if seen.insert(x) {
            stack.extend(&r[x].1);
        }
    }
    false
}

fn sources_met(r: &[(Vec<usize>, Vec<usize>)], m: usize) -> Vec<String> {
    let (mut out, mut seen, mut stack) = (Vec::new(), BTreeSet::new(), vec![m]);
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        for &s in &r[x].0 {
            if !out.contains(&format!("s{s}")) {
                out.push(format!("s{s}"));
            }
        }
        stack.extend(r[x].1.iter().rev());
    }
    out
}

fn depth(r: &[(Vec<usize>, Vec<usize>)], m: usize) -> u32 {
    r[m].1.iter().map(|&x| depth(r, x) + 1).max().unwrap_or(0)
}

/// The graph's cycles as dependency_graph defines them: from each model
/// left out of the plan order, follow the first read that is left out too
/// until a model repeats.
fn cycles(r: &[(Vec<usize>, Vec<usize>)]) -> Vec<Vec<String>> {
    let n = r.len();
    let stuck: Vec<bool> = (0..n).map(|m| reaches(r, m, &mut Vec::new())).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for start in (0..n).filter(|&m| stuck[m]) {
        let mut path = vec![start];
        let mut cur = start;
        while let Some(&next) = r[cur].1.iter().find(|&&x| stuck[x]) {
            if let Some(pos) = path.iter().position(|&p| p == next) {
                let mut cyc: Vec<String> = path[pos..].iter().rev().map(|&i| name(i)).collect();
                let min = (0..cyc.len()).min_by(|&a, &b| cyc[a].cmp(&cyc[b])).unwrap_or(0);
                cyc.rotate_left(min);
                cyc.push(cyc[0].clone());
                if !out.contains(&cyc) {
                    out.push(cyc);
                }
                break;
            }
            path.push(next);
            cur = next;
        }
    }
    out.sort();
    out
}

#[test]
fn ref_graph_queries_agree_with_walks_of_the_graph() {
    let mut rng = Rng(0x5EED_CAFE);
    for round in 0..300 {
        let g = graph(&mut rng);
        let r = reads(&g);
        let mut f = Fixture::with_db(Database::default(), &fixture(&g));
        // Half the rounds compile first on every core, so that the models
        // of a cycle are met from several threads at once; the others ask
        // in a shuffled order, so that each model may be the one met first.
        let mut order: Vec<usize> = (0..g.len()).collect();
        if round % 2 == 0 {
            compile(&mut f.db, f.project, Work::All);
        } else {
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        for &m in &order {
            let key = ModelName::new(&f.db, f.project, name(m));
            let cyclic = reaches(&r, m, &mut Vec::new());
            let context = format!("round {round}, model {}, graph:\n{}", name(m), fixture(&g));
            assert_eq!(reaches_cycle(&f.db, key), cyclic, "reaches_cycle, {context}");
            assert_eq!(upstream_sources(&f.db, key), &sources_met(&r, m), "upstream_sources, {context}");
            if !cyclic {
                assert_eq!(ref_depth(&f.db, key), depth(&r, m), "ref_depth, {context}");
            } else {
                // The cycle's own error names the models on it; each model
                // above it gets a note.
                let on_cycle = r[m].1.iter().any(|&x| leads_to(&r, x, m));
                assert_eq!(lower_model(&f.db, key).error.is_some(), !on_cycle, "note, {context}");
            }
        }
        assert_eq!(dependency_graph(&f.db, f.project).cycles, cycles(&r), "cycles, round {round}:\n{}", fixture(&g));
    }
}
