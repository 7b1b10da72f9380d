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

pub fn match_nodes(running: &Manifest, desired: &Manifest, hints: &[ModelHints]) -> Matching {
    let by_id: HashMap<&str, usize> = running.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let running_models: HashSet<&str> = running.models.iter().map(|m| m.name.as_str()).collect();
    let hints: HashMap<&str, &ModelHints> = hints.iter().map(|h| (h.model.as_str(), h)).collect();

    let mut m = Matching {
        desired_to_running: vec![None; desired.nodes.len()],
        running_to_desired: vec![None; running.nodes.len()],
        hinted: vec![false; desired.nodes.len()],
        ..Matching::default()
    };
    let mut warnings: Vec<(usize, Notice)> = Vec::new();
    let claim = |m: &mut Matching, d: usize, r: usize| {
        m.desired_to_running[d] = Some(r);
        m.running_to_desired[r] = Some(d);
    };

    // 1. Explicit node hints.
    for (d, node) in desired.nodes.iter().enumerate() {
        let Some(h) = hints.get(node.model.as_str()) else { continue };
        let Some((_, kind, ordinal)) = split_id(&node.id) else { continue };
        let key = format!("{kind}.{ordinal}");
        let Some((_, was)) = h.nodes.iter().find(|(k, _)| *k == key) else { continue };
        match by_id.get(was.as_str()) {
            Some(&r) if m.running_to_desired[r].is_none() => {
                claim(&mut m, d, r);
                m.hinted[d] = true;
            }
            Some(&r) => {
                let other = &desired.nodes[m.running_to_desired[r].expect("claimed")].id;
                warnings.push((d, Notice::warning(format!("hint for `{}` names `{was}`, which the hint for `{other}` already claims; the hint is unused", node.id))));
            }
            None => warnings.push((d, unused(&node.id, was))),
        }
    }

    // 2. Renamed models.
    for (d, node) in desired.nodes.iter().enumerate() {
        if m.desired_to_running[d].is_some() {
            continue;
        }
        let Some(old) = hints.get(node.model.as_str()).and_then(|h| h.renamed_from.as_deref()) else { continue };
        let Some((_, kind, ordinal)) = split_id(&node.id) else { continue };
        let was = format!("{old}::{kind}::{ordinal}");
        if !running_models.contains(old) {
            // The original warns for every node of a model renamed from
            // a model the running plan does not have.
            warnings.push((d, unused(&node.id, &was)));
            continue;
        }
        if let Some(&r) = by_id.get(was.as_str()) {
            if m.running_to_desired[r].is_none() {
                claim(&mut m, d, r);
            }
        }
    }

    // 3. Plain ids.
    for (d, node) in desired.nodes.iter().enumerate() {
        if m.desired_to_running[d].is_some() {
            continue;
        }
        if let Some(&r) = by_id.get(node.id.as_str()) {
            if m.running_to_desired[r].is_none() {
                claim(&mut m, d, r);
            }
        }
    }

    // Owners of running models.
    for dm in &desired.models {
        if let Some(old) = hints.get(dm.name.as_str()).and_then(|h| h.renamed_from.as_deref()) {
            if running_models.contains(old) && old != dm.name {
                m.owner.entry(old.to_string()).or_insert_with(|| dm.name.clone());
            }
        }
    }
    for dm in &desired.models {
        if running_models.contains(dm.name.as_str()) {
            m.owner.entry(dm.name.clone()).or_insert_with(|| dm.name.clone());
        }
    }

    warnings.sort_by_key(|(d, _)| *d);
    m.warnings = warnings.into_iter().map(|(_, w)| w).collect();
    m
}
