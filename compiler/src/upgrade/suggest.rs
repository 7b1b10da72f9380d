//! Help the original does not give: a removed model that looks renamed, a
//! node whose ordinal shifted, and the readers of an output that changed.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::matching::Matching;
use super::{split_id, Change, ModelDiff, ModelHints, Notice, PlanDiff};
use crate::manifest::{Manifest, NodeEntry};

/// Per model, `kind::ordinal` → state digest of its keyed nodes.
fn keyed_digests(nodes: &[NodeEntry]) -> HashMap<&str, BTreeMap<String, &str>> {
    let mut out: HashMap<&str, BTreeMap<String, &str>> = HashMap::new();
    for n in nodes {
        let (Some((_, kind, ordinal)), Some(digest)) = (split_id(&n.id), n.state.digest.as_deref()) else { continue };
        out.entry(n.model.as_str()).or_default().insert(format!("{kind}::{ordinal}"), digest);
    }
    out
}

/// Whether two nodes do the same thing: same operator, definition, schema
/// and state.
fn same_node(a: &NodeEntry, b: &NodeEntry) -> bool {
    a.operator == b.operator && a.definition == b.definition && a.schema_digest == b.schema_digest && a.state == b.state
}

fn models_with(diff: &PlanDiff, change: Change) -> impl Iterator<Item = &ModelDiff> {
    diff.models.iter().filter(move |m| m.change == Some(change))
}

pub(crate) fn suggestions(running: &Manifest, desired: &Manifest, hints: &[ModelHints], m: &Matching, diff: &PlanDiff) -> Vec<Notice> {
    let mut help = renamed_models(running, desired, diff);
    help.extend(moved_nodes(running, desired, hints, m, diff));
    help.extend(reader_notes(desired, diff));
    help
}

/// Removed models whose state an added model holds.
fn renamed_models(running: &Manifest, desired: &Manifest, diff: &PlanDiff) -> Vec<Notice> {
    let mut help = Vec::new();
    let mut taken: HashSet<&str> = HashSet::new();
    let (running_state, desired_state) = (keyed_digests(&running.nodes), keyed_digests(&desired.nodes));
    let added: Vec<(&ModelDiff, &BTreeMap<String, &str>)> =
        models_with(diff, Change::Added).filter_map(|a| Some((a, desired_state.get(a.name.as_str())?))).collect();
    for r in models_with(diff, Change::Removed) {
        let Some(old) = running_state.get(r.name.as_str()) else { continue };
        let Some(&(a, _)) = added.iter().find(|(a, new)| !taken.contains(a.name.as_str()) && *new == old) else { continue };
        taken.insert(&a.name);
        help.push(Notice::help(format!(
            "model `{a}` keeps the same state as the removed model `{r}` (equal state digests); if `{a}` is `{r}` renamed, add `renamed_from: {r}` to `models.{a}` in streamform.yml and its state carries over",
            a = a.name,
            r = r.name
        )));
    }
    help
}

/// Nodes that moved to another ordinal: a new or changed node that does
/// what an unclaimed (or changed) running node of its model did.
fn moved_nodes(running: &Manifest, desired: &Manifest, hints: &[ModelHints], m: &Matching, diff: &PlanDiff) -> Vec<Notice> {
    let mut help = Vec::new();
    let hints: HashMap<&str, &ModelHints> = hints.iter().map(|h| (h.model.as_str(), h)).collect();
    let changed: HashSet<&str> = diff.models.iter().flat_map(|md| md.nodes.iter()).filter(|n| n.change == Change::Changed).map(|n| n.id.as_str()).collect();
    let running_by_model: HashMap<&str, Vec<usize>> = running.nodes.iter().enumerate().fold(HashMap::new(), |mut acc, (i, n)| {
        acc.entry(n.model.as_str()).or_default().push(i);
        acc
    });
    let mut suggested: HashSet<usize> = HashSet::new();
    for (d, dn) in desired.nodes.iter().enumerate() {
        if m.hinted[d] || (m.desired_to_running[d].is_some() && !changed.contains(dn.id.as_str())) {
            continue;
        }
        let h = hints.get(dn.model.as_str());
        let Some((_, kind, ordinal)) = split_id(&dn.id) else { continue };
        let key = format!("{kind}.{ordinal}");
        if h.is_some_and(|h| h.nodes.iter().any(|(k, _)| *k == key)) {
            continue;
        }
        let old_model = h.and_then(|h| h.renamed_from.as_deref()).filter(|o| running_by_model.contains_key(o)).unwrap_or(dn.model.as_str());
        let current = m.desired_to_running[d];
        let found = running_by_model.get(old_model).into_iter().flatten().copied().find(|&r| {
            let rn = &running.nodes[r];
            Some(r) != current
                && !suggested.contains(&r)
                && same_node(rn, dn)
                && match m.running_to_desired[r] {
                    None => true,
                    Some(other) => changed.contains(desired.nodes[other].id.as_str()),
                }
        });
        if let Some(r) = found {
            suggested.insert(r);
            let was = &running.nodes[r].id;
            help.push(Notice::help(format!(
                "`{}` does what the running `{was}` did (same definition, schema and state); if the node only moved, add `{key}: {{was: {was}}}` to `models.{}.nodes` in streamform.yml",
                dn.id, dn.model
            )));
        }
    }
    help
}

/// Readers of an output whose contract (schema or changelog) changed.
fn reader_notes(desired: &Manifest, diff: &PlanDiff) -> Vec<Notice> {
    let mut readers: HashMap<&str, Vec<&str>> = HashMap::new();
    for n in &desired.nodes {
        for i in &n.inputs {
            if split_id(i).is_some_and(|(model, _, _)| model != n.model) {
                let list = readers.entry(i.as_str()).or_default();
                if !list.contains(&n.model.as_str()) {
                    list.push(&n.model);
                }
            }
        }
    }
    let mut notes = Vec::new();
    let diffs: HashMap<&str, &ModelDiff> = diff.models.iter().filter(|x| x.change != Some(Change::Removed)).map(|x| (x.name.as_str(), x)).collect();
    for dm in &desired.models {
        let Some(list) = readers.get(dm.output.as_str()) else { continue };
        let Some(md) = diffs.get(dm.name.as_str()) else { continue };
        let Some(sink) = md.nodes.iter().find(|n| n.id == dm.output && n.change == Change::Changed) else { continue };
        let what: Vec<&str> = sink.fields.iter().map(|f| f.field).filter(|f| matches!(*f, "schema" | "changelog")).collect();
        if what.is_empty() {
            continue;
        }
        let names: Vec<String> = list.iter().map(|r| format!("`{r}`")).collect();
        notes.push(Notice::note(format!(
            "the output of `{m}` changed ({}); it is read with ref('{m}') by {}",
            what.join(", "),
            names.join(", "),
            m = dm.name
        )));
    }
    notes
}
