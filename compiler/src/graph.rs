//! The model dependency graph: plan order and reference cycles.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::db::{Db, Project};
use crate::model::read_models;
use crate::project::{model_names, model_segments, segment_keys};

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

/// The models read with ref() by one segment of models (in name order);
/// refs to models that do not exist are left out. Names, not positions, so
/// that a model added elsewhere leaves it equal.
#[salsa::tracked(returns(ref))]
pub(crate) fn segment_upstream(db: &dyn Db, project: Project, segment: u32) -> Vec<Vec<String>> {
    segment_keys(db, project, segment)
        .iter()
        .map(|&key| read_models(db, key).map(|m| m.text(db).clone()).collect())
        .collect()
}

#[salsa::tracked(returns(ref))]
pub fn dependency_graph(db: &dyn Db, project: Project) -> DependencyGraph {
    // Models by their position in name order, so "the smallest ready name"
    // is the smallest ready index.
    let names = model_names(db, project);
    let n = names.len();
    // upstream models of each model
    let mut deps: Vec<Vec<usize>> = Vec::with_capacity(n);
    for segment in 0..model_segments(db, project) {
        let position = |m: &String| names.binary_search(m).expect("segment_upstream keeps models that exist");
        deps.extend(segment_upstream(db, project, segment).iter().map(|ms| ms.iter().map(position).collect::<Vec<_>>()));
    }
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pending: Vec<usize> = deps.iter().map(Vec::len).collect();
    for (m, ds) in deps.iter().enumerate() {
        for &d in ds {
            readers[d].push(m);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&m| pending[m] == 0).map(Reverse).collect();
    let mut positions = Vec::with_capacity(n);
    while let Some(Reverse(m)) = ready.pop() {
        positions.push(m);
        for &r in &readers[m] {
            pending[r] -= 1;
            if pending[r] == 0 {
                ready.push(Reverse(r));
            }
        }
    }
    let mut cycles: Vec<Vec<String>> = Vec::new();
    if positions.len() < n {
        let mut placed = vec![false; n];
        for &m in &positions {
            placed[m] = true;
        }
        // Each walk follows the first unplaced read, so the walks from
        // every start form a functional graph: a walk that meets a model
        // an earlier walk went through ends where that one did, and stops.
        // `walk[m]` is the start of the walk that met m, `at[m]` its place.
        let (mut walk, mut at) = (vec![usize::MAX; n], vec![0; n]);
        for start in (0..n).filter(|&m| !placed[m]) {
            if walk[start] != usize::MAX {
                continue;
            }
            // Walk upstream until a model repeats; the repeat closes a cycle.
            let mut path: Vec<usize> = vec![start];
            walk[start] = start;
            let mut cur = start;
            while let Some(&next) = deps[cur].iter().find(|&&x| !placed[x]) {
                if walk[next] != usize::MAX && walk[next] != start {
                    break;
                }
                if walk[next] == start {
                    let pos = at[next];
                    let mut cyc: Vec<String> = path[pos..].iter().rev().map(|&i| names[i].clone()).collect();
                    let min = cyc.iter().enumerate().min_by(|a, b| a.1.cmp(b.1)).map(|(i, _)| i).unwrap_or(0);
                    cyc.rotate_left(min);
                    cyc.push(cyc[0].clone());
                    if !cycles.contains(&cyc) {
                        cycles.push(cyc);
                    }
                    break;
                }
                walk[next] = start;
                at[next] = path.len();
                path.push(next);
                cur = next;
            }
        }
        cycles.sort();
    }
    let order = positions.iter().map(|&i| names[i].clone()).collect();
    DependencyGraph { order, positions, cycles }
}
