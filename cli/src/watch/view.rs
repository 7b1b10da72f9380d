//! What `watch` has printed, and what changed since: models' inspect-plan
//! blocks, the diagnostics (compared by their rendered text) and the
//! application digest.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use streamform::check::{all_load_errors, check_report};
use streamform::diagnostic::{Diagnostic, Label, Severity, Span};
use streamform::graph::dependency_graph;
use streamform::manifest::{application_digest_of, manifest_entries, model_identity, ModelSlice};
use streamform::project::model_names;
use streamform::{Database, ModelName, Project};

use crate::files::Files;
use crate::render::diagnostic::{quoted, quotes_same, render_in, SourceLines};
use crate::render::inspect::model_block_reusing;

/// A model as last printed.
#[derive(Clone)]
pub struct Printed {
    pub slice: Arc<ModelSlice>,
    pub block: Arc<str>,
    /// Where each node's text starts in `block`.
    node_starts: Arc<[u32]>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub diag: Diagnostic,
    pub text: String,
    /// The source lines the text quotes (see [`quoted`]).
    quotes: Arc<[Option<String>]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelStatus {
    /// A model new to the project (or to the view, on the first compile).
    Added,
    /// Its block text changed, or it compiles again after an error.
    Changed,
    /// It exists but has no plan now (its error is among the diagnostics).
    Failed,
}

impl ModelStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ModelStatus::Added => "added",
            ModelStatus::Changed => "changed",
            ModelStatus::Failed => "failed",
        }
    }
}

pub struct ModelChange {
    pub name: String,
    pub status: ModelStatus,
    /// None when the model failed.
    pub printed: Option<Printed>,
}

/// What to print for one revision.
#[derive(Default)]
pub struct Delta {
    /// In plan (dependency) order, then failed models by name.
    pub models: Vec<ModelChange>,
    pub removed: Vec<String>,
    pub appeared: Vec<Rendered>,
    pub resolved: Vec<Rendered>,
    /// The full application digest; None when the project has no manifest.
    pub digest: Option<String>,
    pub digest_changed: bool,
    /// False while a load error (a broken streamform.yml, duplicate model
    /// names) stops the project from loading: blocks are then held as they
    /// were, not reprinted with defaults.
    pub loaded: bool,
    pub errors: usize,
    pub warnings: usize,
    pub model_count: usize,
}

#[derive(Default)]
pub struct View {
    names: Vec<String>,
    printed: HashMap<String, Printed>,
    failed: HashSet<String>,
    diagnostics: Vec<Rendered>,
    /// The check report's diagnostics of the last revision that loaded.
    checked: Vec<Diagnostic>,
    /// Whether `diagnostics` are `checked`, rendered (the last revision
    /// loaded).
    shows_checked: bool,
    digest: Option<String>,
    /// The slices of the last whole manifest, in plan order: while the
    /// models and their order stay the same, a revision compares these by
    /// pointer and looks only at the few that changed.
    whole: Option<Vec<Arc<ModelSlice>>>,
}

impl View {
    /// Records a model's identity; queues its block when its text changed.
    /// `may_be_new`: the model may be missing from the last revision's
    /// names (looked up only for a block that is queued).
    fn print(&mut self, name: &str, slice: &Arc<ModelSlice>, may_be_new: bool, delta: &mut Delta) {
        match self.printed.get_mut(name) {
            Some(old) if Arc::ptr_eq(&old.slice, slice) => {}
            Some(old) if *old.slice == **slice => old.slice = slice.clone(),
            old => {
                let last = old.as_ref().map(|o| (&*o.slice, &*o.block, &*o.node_starts));
                let (block, node_starts) = model_block_reusing(slice, last);
                let same_text = old.as_ref().is_some_and(|o| *o.block == *block);
                let printed = Printed { slice: slice.clone(), block: block.into(), node_starts: node_starts.into() };
                self.printed.insert(name.to_string(), printed.clone());
                if !same_text {
                    let is_new = may_be_new && self.names.binary_search_by(|n| n.as_str().cmp(name)).is_err();
                    let status = if is_new { ModelStatus::Added } else { ModelStatus::Changed };
                    delta.models.push(ModelChange { name: name.to_string(), status, printed: Some(printed) });
                }
            }
        }
    }

    /// Brings the view up to date with the database. `touched` are the
    /// paths whose text changed: their diagnostics are re-rendered even
    /// when equal as data (the quoted source line may differ).
    pub fn update(&mut self, db: &Database, files: &Files, touched: &HashSet<&str>) -> Delta {
        let p = files.project;
        let mut delta = Delta::default();
        let load_errors = all_load_errors(db, p);
        delta.loaded = load_errors.is_empty();
        // The blocks first: the check report's walk is shared with the
        // helper threads once they have hashed the manifest.
        if delta.loaded {
            self.update_models(db, p, &mut delta);
        } else {
            // The next revision that loads looks at every model again.
            self.whole = None;
        }
        // While the project does not load, the last check diagnostics are
        // held like the blocks: fixing the load error then resolves only it.
        let diags: Option<Vec<Diagnostic>> = if delta.loaded {
            let report = &check_report(db, p).diagnostics;
            // Most edits keep the report (thousands of diagnostics in a
            // large project): then only the quotes of touched files can
            // change what is shown.
            if self.shows_checked && *report == self.checked {
                None
            } else {
                self.checked = report.clone();
                Some(self.checked.clone())
            }
        } else {
            Some(load_errors.into_iter().chain(self.checked.iter().cloned()).collect())
        };
        self.shows_checked = delta.loaded;
        delta.model_count = self.names.len();
        match diags {
            Some(diags) => self.update_diagnostics(db, files, diags, touched, &mut delta),
            None => self.requote(db, files, touched, &mut delta),
        }
        // Last: another thread may still be hashing it. None when the
        // manifest does not build.
        if delta.loaded {
            delta.digest = application_digest_of(db, p).map(str::to_string);
        }
        delta.digest_changed = delta.digest != self.digest;
        self.digest = delta.digest.clone();
        delta
    }

    /// The blocks of a project that loads: while the models and their plan
    /// order stay the same, only the slices that changed (by pointer);
    /// otherwise every model.
    fn update_models(&mut self, db: &Database, p: Project, delta: &mut Delta) {
        let whole = manifest_entries(db, p).ok();
        // Taken out so that print() can borrow self; put back below.
        let same = whole.zip(self.whole.take()).filter(|(m, old)| same_models(m, old));
        if let Some((m, mut old)) = same {
            for (new, old) in m.iter().zip(old.iter_mut()) {
                if !Arc::ptr_eq(new, old) {
                    *old = new.clone();
                    self.print(&new.model.name, new, false, delta);
                }
            }
            self.whole = Some(old);
        } else {
            self.whole = whole.map(|m| m.to_vec());
            self.update_every_model(db, p, whole, delta);
        }
    }

    /// Every model's block: plan order, then models in or behind a cycle
    /// (no plan); then the models that failed and those removed.
    fn update_every_model(&mut self, db: &Database, p: Project, whole: Option<&[Arc<ModelSlice>]>, delta: &mut Delta) {
        let names = model_names(db, p);
        let order = &dependency_graph(db, p).order;
        // When the whole manifest builds, its slices are every model's
        // identity in plan order (the graph's models are the project's, each
        // once): no per-model lookups, and no set of the models seen.
        let slices = whole.unwrap_or_default();
        let complete = slices.len() == names.len();
        let mut seen: HashSet<&str> = HashSet::with_capacity(if complete { 0 } else { names.len() });
        let mut failed_now: Vec<&String> = Vec::new();
        for slice in slices {
            let name = &slice.model.name;
            if !complete {
                seen.insert(name);
            }
            if !self.failed.is_empty() {
                self.failed.remove(name);
            }
            self.print(name, slice, true, delta);
        }
        let (rest, all): (&[String], &[String]) = if complete { (&[], &[]) } else { (order, names) };
        for name in rest.iter().chain(all) {
            if !seen.insert(name) {
                continue;
            }
            let key = ModelName::new(db, p, name.clone());
            match model_identity(db, key) {
                Some(id) => {
                    self.failed.remove(name);
                    self.print(name, &id.slice, true, delta);
                }
                None => {
                    self.printed.remove(name);
                    if self.failed.insert(name.clone()) {
                        failed_now.push(name);
                    }
                }
            }
        }
        for name in failed_now {
            delta.models.push(ModelChange { name: name.clone(), status: ModelStatus::Failed, printed: None });
        }
        // Both lists are in name order: one walk finds the names gone.
        let mut now = names.iter().peekable();
        for old in &self.names {
            while now.next_if(|n| *n < old).is_some() {}
            if now.next_if(|n| *n == old).is_none() {
                delta.removed.push(old.clone());
                self.printed.remove(old);
                self.failed.remove(old);
            }
        }
        self.names = names.clone();
    }

    /// Diagnostics equal as data to the last revision's: what is shown
    /// changes only if one in a touched file quotes a line that changed,
    /// and then they are compared as [`View::update_diagnostics`] does.
    fn requote(&mut self, db: &Database, files: &Files, touched: &HashSet<&str>, delta: &mut Delta) {
        if !touched.is_empty() {
            let file_text = |path: &str| files.text(db, path).map(str::to_string);
            let sources = SourceLines::new(&file_text);
            if self.diagnostics.iter().any(|r| in_touched(&r.diag, touched) && !quotes_same(&r.diag, &sources, &r.quotes)) {
                return self.update_diagnostics(db, files, self.checked.clone(), touched, delta);
            }
        }
        delta.errors = self.diagnostics.iter().filter(|r| r.diag.severity == Severity::Error).count();
        delta.warnings = self.diagnostics.len() - delta.errors;
    }

    /// Diagnostics: re-renders only what is new as data or quotes a line
    /// that changed, and compares by rendered text. An edit of a file with
    /// thousands of warnings (a large `streamform.yml`) re-renders only the
    /// warnings on the lines it changed.
    fn update_diagnostics(&mut self, db: &Database, files: &Files, diags: Vec<Diagnostic>, touched: &HashSet<&str>, delta: &mut Delta) {
        let file_text = |path: &str| files.text(db, path).map(str::to_string);
        let sources = SourceLines::new(&file_text);
        let old = &self.diagnostics;
        // The report keeps its order, so most diagnostics sit where they
        // were, or a few places on after an insertion or removal: compare
        // there first. A miss is most often a new diagnostic, so every old
        // one is hashed only after [`FEW`] misses (one that moved further is
        // rendered again until then: the same text, at a bounded cost).
        let mut cache: Option<HashMap<Shown<'_>, usize>> = None;
        let mut next = 0;
        let mut misses = 0;
        let mut fresh: Vec<usize> = Vec::new();
        let mut used = vec![false; old.len()];
        let rendered: Vec<Rendered> = diags
            .into_iter()
            .enumerate()
            .map(|(j, d)| {
                let in_touched = in_touched(&d, touched);
                let near = (next..(next + NEAR).min(old.len())).find(|&i| Shown(&old[i].diag) == Shown(&d));
                let at = near.or_else(|| {
                    misses += 1;
                    let cache = (misses > FEW).then(|| cache.get_or_insert_with(|| old.iter().enumerate().map(|(i, r)| (Shown(&r.diag), i)).collect()))?;
                    cache.get(&Shown(&d)).copied()
                });
                let (text, quotes) = match at.filter(|&i| !in_touched || quotes_same(&d, &sources, &old[i].quotes)) {
                    Some(i) => {
                        used[i] = true;
                        (old[i].text.clone(), old[i].quotes.clone())
                    }
                    None => {
                        fresh.push(j);
                        (render_in(&d, &sources), quoted(&d, &sources).into())
                    }
                };
                if let Some(i) = at {
                    next = i + 1;
                }
                Rendered { diag: d, text, quotes }
            })
            .collect();
        // Appeared and resolved compare by text. A reused text is on both
        // sides, so only the new texts can have appeared and only the old
        // ones not reused can be resolved; a few are looked for one by one.
        let unused: Vec<usize> = (0..old.len()).filter(|&i| !used[i]).collect();
        if fresh.len() + unused.len() <= FEW {
            delta.appeared = fresh.iter().map(|&j| &rendered[j]).filter(|r| !old.iter().any(|o| o.text == r.text)).cloned().collect();
            delta.resolved = unused.iter().map(|&i| &old[i]).filter(|o| !rendered.iter().any(|r| r.text == o.text)).cloned().collect();
        } else {
            let old_texts: HashSet<&str> = old.iter().map(|r| r.text.as_str()).collect();
            let new_texts: HashSet<&str> = rendered.iter().map(|r| r.text.as_str()).collect();
            delta.appeared = rendered.iter().filter(|r| !old_texts.contains(r.text.as_str())).cloned().collect();
            delta.resolved = old.iter().filter(|r| !new_texts.contains(r.text.as_str())).cloned().collect();
        }
        delta.errors = rendered.iter().filter(|r| r.diag.severity == Severity::Error).count();
        delta.warnings = rendered.len() - delta.errors;
        self.diagnostics = rendered;
    }
}

/// Whether a diagnostic, or one of its labels, is in a touched file.
fn in_touched(d: &Diagnostic, touched: &HashSet<&str>) -> bool {
    d.path.iter().chain(d.labels.iter().map(|l| &l.path)).any(|p| touched.contains(p.as_str()))
}

/// A diagnostic as its rendering shows it: equal and hashed without the
/// spans' byte offsets, which the text does not show. An edit that keeps
/// the lines but changes their length (a `1h` written `60m`) moves the
/// offsets of every diagnostic after it in the file; their texts are taken
/// from the last revision (where the file was touched, once the quoted
/// lines are found the same) instead of rendered again.
#[derive(Clone, Copy)]
struct Shown<'a>(&'a Diagnostic);

/// A span's place as shown: line, column and length.
fn shown(span: Option<Span>) -> Option<(u32, u32, u32)> {
    span.map(|s| (s.line, s.col, s.len))
}

impl PartialEq for Shown<'_> {
    fn eq(&self, other: &Self) -> bool {
        // Every field named, so that one added to `Diagnostic` or `Label`
        // cannot be left out of the comparison unseen.
        let Diagnostic { severity, code, message, path, span, help, labels, secret } = self.0;
        let b = other.0;
        *severity == b.severity
            && *code == b.code
            && *message == b.message
            && *path == b.path
            && shown(*span) == shown(b.span)
            && *help == b.help
            && *secret == b.secret
            && labels.len() == b.labels.len()
            && labels.iter().zip(&b.labels).all(|(Label { path, span, message }, y)| *path == y.path && shown(*span) == shown(y.span) && *message == y.message)
    }
}

impl Eq for Shown<'_> {}

impl std::hash::Hash for Shown<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let Diagnostic { severity, code, message, path, span, help, labels, secret } = self.0;
        (severity, code, message, path, shown(*span), help, secret).hash(h);
        for Label { path, span, message } in labels {
            (path, shown(*span), message).hash(h);
        }
    }
}

/// How far past its expected place [`View::update_diagnostics`] looks for
/// an old diagnostic.
const NEAR: usize = 8;

/// How many diagnostics [`View::update_diagnostics`] looks up one by one
/// before it hashes them all.
const FEW: usize = 64;

/// The same models in the same plan order (slices equal by pointer or by
/// model name at every position).
fn same_models(new: &[Arc<ModelSlice>], old: &[Arc<ModelSlice>]) -> bool {
    new.len() == old.len() && new.iter().zip(old).all(|(n, o)| Arc::ptr_eq(n, o) || n.model.name == o.model.name)
}
