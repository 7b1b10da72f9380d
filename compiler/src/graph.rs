//! The model dependency graph: plan order and reference cycles.

use std::collections::{BTreeMap, BTreeSet};

use crate::chunks;
use crate::db::{Db, ModelName, Project};
use crate::model::model_reads;
use crate::project::model_names;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DependencyGraph {
    /// Dependency order: Kahn's algorithm taking the smallest ready name.
    /// Models on or downstream of a cycle are left out.
    pub order: Vec<String>,
    /// Each ordered model's position in name order (`model_names`).
    pub positions: Vec<usize>,
    /// Each cycle once, starting at its smallest name, closed (`a, b, a`).
    pub cycles: Vec<Vec<String>>,
}

/// The models read with ref() by one run of models (in name order), only
/// those that exist.
#[salsa::tracked(returns(ref))]
pub(crate) fn run_upstream(db: &dyn Db, project: Project, run: u32) -> Vec<Vec<String>> {
    let names = model_names(db, project);
    names[chunks::range(names.len(), run)]
        .iter()
        .map(|n| {
            let reads = model_reads(db, project, ModelName::new(db, n.clone()));
            reads.models.iter().filter(|m| names.binary_search(m).is_ok()).cloned().collect()
        })
        .collect()
}

#[salsa::tracked(returns(ref))]
pub fn dependency_graph(db: &dyn Db, project: Project) -> DependencyGraph {
    let names = model_names(db, project);
    // upstream model of each model (only refs to existing models count)
    let mut deps: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for run in 0..chunks::count(names.len()) {
        let range = chunks::range(names.len(), run);
        for (n, up) in names[range].iter().zip(run_upstream(db, project, run)) {
            deps.insert(n, up.clone());
        }
    }
    let mut readers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut pending: BTreeMap<&str, usize> = BTreeMap::new();
    for (m, ds) in &deps {
        pending.insert(m, ds.len());
        for d in ds {
            readers.entry(d.as_str()).or_default().push(m);
        }
    }
    let mut ready: BTreeSet<&str> = pending.iter().filter(|(_, c)| **c == 0).map(|(m, _)| *m).collect();
    let mut order = Vec::with_capacity(names.len());
    while let Some(m) = ready.pop_first() {
        order.push(m.to_string());
        for r in readers.get(m).into_iter().flatten() {
            let c = pending.get_mut(r).expect("reader is a model");
            *c -= 1;
            if *c == 0 {
                ready.insert(r);
            }
        }
    }
    let mut cycles: Vec<Vec<String>> = Vec::new();
    if order.len() < names.len() {
        let placed: BTreeSet<&str> = order.iter().map(String::as_str).collect();
        for start in names.iter().filter(|n| !placed.contains(n.as_str())) {
            // Walk upstream until a model repeats; the repeat closes a cycle.
            let mut path: Vec<&str> = vec![start];
            let mut cur: &str = start;
            loop {
                let Some(next) = deps.get(cur).and_then(|d| d.iter().find(|x| !placed.contains(x.as_str()))) else { break };
                if let Some(pos) = path.iter().position(|p| *p == next) {
                    let mut cyc: Vec<String> = path[pos..].iter().rev().map(|s| s.to_string()).collect();
                    let min = cyc.iter().enumerate().min_by(|a, b| a.1.cmp(b.1)).map(|(i, _)| i).unwrap_or(0);
                    cyc.rotate_left(min);
                    cyc.push(cyc[0].clone());
                    if !cycles.contains(&cyc) {
                        cycles.push(cyc);
                    }
                    break;
                }
                path.push(next);
                cur = next;
            }
        }
        cycles.sort();
    }
    let positions = order.iter().map(|m| names.binary_search(m).expect("ordered models are models")).collect();
    DependencyGraph { order, positions, cycles }
}
