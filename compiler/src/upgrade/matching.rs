//! Which running node each desired node continues.
//!
//! Identity is positional (`<model>::<kind>::<ordinal>`), so by default a
//! desired node continues the running node with its id. Two hints in
//! streamform.yml move that: `nodes."<kind>.<ordinal>".was` names the
//! running node one node continues, and `renamed_from: <old>` makes every
//! node of the model continue `<old>::<kind>::<ordinal>`. A running node
//! is continued by at most one desired node; explicit node hints claim
//! first, then renames, then plain ids. A hint that names nothing in the
//! running plan is unused: a warning, and the node falls back to its id.

use std::collections::{HashMap, HashSet};

use super::{split_id, ModelHints, Notice};
use crate::manifest::Manifest;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Matching {
    /// Desired node index → the running node index it continues.
    pub desired_to_running: Vec<Option<usize>>,
    /// Running node index → the desired node index continuing it.
    pub running_to_desired: Vec<Option<usize>>,
    /// Desired nodes matched through an explicit `nodes:` hint.
    pub hinted: Vec<bool>,
    /// Running model → the desired model its unmatched nodes are reported
    /// under (the model renamed from it, else the model of the same name).
    /// A running model without one is removed.
    pub owner: HashMap<String, String>,
    /// Unused hints, in desired node order.
    pub warnings: Vec<Notice>,
}

fn unused(desired_id: &str, was: &str) -> Notice {
    Notice::warning(format!("hint for `{desired_id}` names `{was}`, which is not in the running plan; the hint is unused"))
}

/// What matching reads, and the matching as it is built.
struct Matcher<'a> {
    desired: &'a Manifest,
    by_id: HashMap<&'a str, usize>,
    running_models: HashSet<&'a str>,
    hints: HashMap<&'a str, &'a ModelHints>,
    m: Matching,
    /// Unused hints, with the desired node they are for.
    warnings: Vec<(usize, Notice)>,
}

pub fn match_nodes(running: &Manifest, desired: &Manifest, hints: &[ModelHints]) -> Matching {
    let mut x = Matcher {
        desired,
        by_id: running.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect(),
        running_models: running.models.iter().map(|m| m.name.as_str()).collect(),
        hints: hints.iter().map(|h| (h.model.as_str(), h)).collect(),
        m: Matching {
            desired_to_running: vec![None; desired.nodes.len()],
            running_to_desired: vec![None; running.nodes.len()],
            hinted: vec![false; desired.nodes.len()],
            ..Matching::default()
        },
        warnings: Vec::new(),
    };
    x.node_hints();
    x.renamed_models();
    x.plain_ids();
    x.owners();
    let Matcher { mut m, mut warnings, .. } = x;
    warnings.sort_by_key(|(d, _)| *d);
    m.warnings = warnings.into_iter().map(|(_, w)| w).collect();
    m
}

impl Matcher<'_> {
    fn claim(&mut self, d: usize, r: usize) {
        self.m.desired_to_running[d] = Some(r);
        self.m.running_to_desired[r] = Some(d);
    }

    /// 1. Explicit node hints claim first.
    fn node_hints(&mut self) {
        for (d, node) in self.desired.nodes.iter().enumerate() {
            let Some(h) = self.hints.get(node.model.as_str()) else { continue };
            let Some((_, kind, ordinal)) = split_id(&node.id) else { continue };
            let key = format!("{kind}.{ordinal}");
            let Some((_, was)) = h.nodes.iter().find(|(k, _)| *k == key) else { continue };
            match self.by_id.get(was.as_str()) {
                Some(&r) if self.m.running_to_desired[r].is_none() => {
                    self.claim(d, r);
                    self.m.hinted[d] = true;
                }
                Some(&r) => {
                    let other = &self.desired.nodes[self.m.running_to_desired[r].expect("claimed")].id;
                    self.warnings.push((d, Notice::warning(format!("hint for `{}` names `{was}`, which the hint for `{other}` already claims; the hint is unused", node.id))));
                }
                None => self.warnings.push((d, unused(&node.id, was))),
            }
        }
    }

    /// 2. Renamed models: `<old>::<kind>::<ordinal>`.
    fn renamed_models(&mut self) {
        for (d, node) in self.desired.nodes.iter().enumerate() {
            if self.m.desired_to_running[d].is_some() {
                continue;
            }
            let Some(old) = self.hints.get(node.model.as_str()).and_then(|h| h.renamed_from.as_deref()) else { continue };
            let Some((_, kind, ordinal)) = split_id(&node.id) else { continue };
            let was = format!("{old}::{kind}::{ordinal}");
            if !self.running_models.contains(old) {
                // The original warns for every node of a model renamed from
                // a model the running plan does not have.
                self.warnings.push((d, unused(&node.id, &was)));
                continue;
            }
            if let Some(&r) = self.by_id.get(was.as_str()) {
                if self.m.running_to_desired[r].is_none() {
                    self.claim(d, r);
                }
            }
        }
    }

    /// 3. Plain ids.
    fn plain_ids(&mut self) {
        for (d, node) in self.desired.nodes.iter().enumerate() {
            if self.m.desired_to_running[d].is_some() {
                continue;
            }
            if let Some(&r) = self.by_id.get(node.id.as_str()) {
                if self.m.running_to_desired[r].is_none() {
                    self.claim(d, r);
                }
            }
        }
    }

    /// Owners of running models: the model renamed from one, else the
    /// model of the same name.
    fn owners(&mut self) {
        for dm in &self.desired.models {
            if let Some(old) = self.hints.get(dm.name.as_str()).and_then(|h| h.renamed_from.as_deref()) {
                if self.running_models.contains(old) && old != dm.name {
                    self.m.owner.entry(old.to_string()).or_insert_with(|| dm.name.clone());
                }
            }
        }
        for dm in &self.desired.models {
            if self.running_models.contains(dm.name.as_str()) {
                self.m.owner.entry(dm.name.clone()).or_insert_with(|| dm.name.clone());
            }
        }
    }
}
