//! The session and the main loop, in rust-analyzer's shape. The main
//! thread owns the database and answers requests in arrival order; an
//! edit only sets inputs. Diagnostics are computed on a worker thread from
//! a handle to the same database, started once the queue is empty (a
//! burst of keystrokes is one recompute). The next edit cancels that work
//! (salsa unwinds the worker at its next query), so neither a full compile
//! nor a stale recompute ever holds up an edit or a hover.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use camino::Utf8PathBuf;
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::*;
use serde_json::{json, Value};
use streamform::driver::{self, Work};
use streamform::Database;

use super::position::{relative, uri};
use super::state::World;
use super::transport::{self, to_value, Incoming};
use crate::files::{Batch, Files};
use lsp_types::notification::PublishDiagnostics;

pub struct Server {
    world: World,
    /// Paths whose last published diagnostics were not empty.
    published: BTreeSet<String>,
    /// Paths the editor holds open: each revision publishes for them, empty
    /// lists included, so the editor knows its edit was checked.
    open: BTreeSet<String>,
    out: Sender<Value>,
    /// Counts input changes: a worker's result for an older revision is dropped.
    revision: u64,
    /// The revision whose diagnostics are published.
    published_revision: Option<u64>,
    /// A diagnostics worker is running.
    working: bool,
    results: (Sender<Computed>, Receiver<Computed>),
    shutdown: bool,
}

/// A worker's answer: the diagnostics of `revision` by file, or None when
/// an edit cancelled it.
pub struct Computed {
    revision: u64,
    by_file: Option<Vec<(String, Vec<lsp_types::Diagnostic>)>>,
}

/// Runs the server until the client exits. The project is `explicit`
/// (`-p`) if given, else the client's workspace folder when it holds a
/// streamform.yml, else `found` (the directory search from here).
pub fn run(explicit: Option<String>, found: &str) -> u8 {
    let (out, incoming) = transport::stdio();
    let Some((id, params)) = wait_initialize(&incoming, &out) else { return 1 };
    let workspace = workspace_root(&params).filter(|w| w.join(streamform::project::CONFIG_FILE).is_file());
    let root = explicit.map(Utf8PathBuf::from).or(workspace).unwrap_or_else(|| Utf8PathBuf::from(found));
    let root = root.canonicalize_utf8().unwrap_or(root);
    let db = Database::default();
    let files = Files::load_live(&db, root.as_str());
    let compare_with = compare_with(&params, &root);
    let mut s = Server { world: World { db, files, root, compare_with, running: Default::default() }, published: BTreeSet::new(), open: BTreeSet::new(), out, revision: 0, published_revision: None, working: false, results: unbounded(), shutdown: false };
    s.respond(Response::new_ok(id, json!({"capabilities": capabilities(), "serverInfo": {"name": "streamform", "version": env!("CARGO_PKG_VERSION")}})));
    let disk = watch_disk(&s.world.root);
    s.main_loop(&incoming, disk)
}

/// Answers requests before `initialize` with the error the protocol asks
/// for; returns the `initialize` request.
fn wait_initialize(incoming: &Receiver<Incoming>, out: &Sender<Value>) -> Option<(RequestId, InitializeParams)> {
    loop {
        match incoming.recv().ok()? {
            Incoming::Message(Message::Request(r)) if r.method == req::Initialize::METHOD => match serde_json::from_value(r.params) {
                Ok(p) => return Some((r.id, p)),
                Err(e) => send(out, Response::new_err(r.id, ErrorCode::InvalidParams as i32, e.to_string()).into()),
            },
            Incoming::Message(Message::Request(r)) => send(out, Response::new_err(r.id, ErrorCode::ServerNotInitialized as i32, "the server is not initialized".into()).into()),
            Incoming::Message(Message::Notification(n)) if n.method == notif::Exit::METHOD => return None,
            Incoming::Closed => return None,
            _ => {}
        }
    }
}

/// The running plan the code lens compares with: the client's
/// `initializationOptions.compareWith` (a plan manifest or an applied
/// record, relative to the project), else the project's only applied record.
fn compare_with(p: &InitializeParams, root: &Utf8PathBuf) -> Option<Utf8PathBuf> {
    let given = p.initialization_options.as_ref().and_then(|o| o.get("compareWith")).and_then(Value::as_str);
    if let Some(g) = given {
        return Some(root.join(g));
    }
    let dir = root.join(crate::commands::plan::APPLIED_DIR);
    let mut records: Vec<Utf8PathBuf> = dir.read_dir_utf8().ok()?.flatten().map(|e| e.path().to_owned()).filter(|p| p.extension() == Some("json")).collect();
    (records.len() == 1).then(|| records.remove(0))
}

/// Batches of project files changed on disk by anything but the editor's
/// buffers (a `git checkout`, a file the editor renamed, a generator), from
/// the same watcher as `watch`. Clients need not send didChangeWatchedFiles.
fn watch_disk(root: &Utf8PathBuf) -> Receiver<Batch> {
    let (tx, rx) = unbounded();
    if let Ok(mut w) = crate::watch::events::Watcher::new(root.as_std_path()) {
        std::thread::spawn(move || {
            let quiet = std::time::Duration::from_millis(crate::watch::DEFAULT_DEBOUNCE_MS);
            while let Some(b) = w.next_batch(quiet, None) {
                if tx.send(b).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

fn workspace_root(p: &InitializeParams) -> Option<Utf8PathBuf> {
    #[allow(deprecated)]
    let uri = p.workspace_folders.as_ref().and_then(|f| f.first()).map(|f| f.uri.clone()).or_else(|| p.root_uri.clone())?;
    Utf8PathBuf::from_path_buf(uri.to_file_path().ok()?).ok()
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions { trigger_characters: Some(vec!["'".into(), "(".into(), " ".into()]), ..Default::default() }),
        rename_provider: Some(OneOf::Right(RenameOptions { prepare_provider: Some(true), work_done_progress_options: Default::default() })),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        ..Default::default()
    }
}

fn send(out: &Sender<Value>, m: Message) {
    let _ = out.send(to_value(m));
}

impl Server {
    fn main_loop(&mut self, incoming: &Receiver<Incoming>, disk: Receiver<Batch>) -> u8 {
        let results = self.results.1.clone();
        let mut disk = disk;
        loop {
            // Start diagnostics once the queue is empty: a burst of edits is one recompute.
            if !self.working && self.published_revision != Some(self.revision) && incoming.is_empty() {
                self.start_worker();
            }
            select! {
                recv(incoming) -> item => match item {
                    Ok(Incoming::Message(Message::Request(r))) => self.request(r),
                    Ok(Incoming::Message(Message::Notification(n))) if n.method == notif::Exit::METHOD => return if self.shutdown { 0 } else { 1 },
                    Ok(Incoming::Message(Message::Notification(n))) => self.notification(n),
                    Ok(Incoming::Message(Message::Response(_)) | Incoming::Malformed) => {}
                    Ok(Incoming::Closed) | Err(_) => return 1,
                },
                recv(disk) -> batch => match batch {
                    Ok(b) => {
                        if !self.world.files.apply(&mut self.world.db, &b).is_empty() {
                            self.changed();
                        }
                    }
                    // The watcher stopped: edits still arrive from the editor.
                    Err(_) => disk = crossbeam_channel::never(),
                },
                recv(results) -> done => {
                    self.working = false;
                    if let Ok(Computed { revision, by_file: Some(by_file) }) = done {
                        if revision == self.revision {
                            self.publish(revision, by_file);
                            // The worker's handle is gone: free now what the
                            // next edit would otherwise wait for.
                            driver::tidy(&mut self.world.db);
                        }
                    }
                }
            }
        }
    }

    /// Computes the diagnostics of this revision on a worker thread, from
    /// a handle to the same database (the first time: the whole compile).
    fn start_worker(&mut self) {
        self.working = true;
        let (db, project, root, revision, tx) = (self.world.db.clone(), self.world.files.project, self.world.root.clone(), self.revision, self.results.0.clone());
        let first = self.published_revision.is_none();
        std::thread::spawn(move || {
            let by_file = salsa::Cancelled::catch(AssertUnwindSafe(|| {
                if first {
                    driver::refresh(&db, project, Work::All);
                }
                super::diagnostics::by_file(&db, project, &root)
            }));
            // Drop the handle before answering: an edit waits for it.
            drop(db);
            let _ = tx.send(Computed { revision, by_file: by_file.ok() });
        });
    }

    /// A change of inputs: the next idle moment recomputes diagnostics.
    fn changed(&mut self) {
        self.revision += 1;
    }

    pub fn respond(&self, r: Response) {
        send(&self.out, r.into());
    }

    pub fn notify<N: notif::Notification>(&self, params: N::Params) {
        send(&self.out, Notification::new(N::METHOD.to_string(), params).into());
    }

    /// Answers a request; a panic in a handler is an internal error for
    /// that request, and the server goes on.
    fn request(&mut self, r: Request) {
        let id = r.id.clone();
        if self.shutdown && r.method != req::Shutdown::METHOD {
            return self.respond(Response::new_err(id, ErrorCode::InvalidRequest as i32, "the server is shutting down".into()));
        }
        let answer = catch_unwind(AssertUnwindSafe(|| self.dispatch(r)));
        let response = match answer {
            Ok(Ok(v)) => Response::new_ok(id, v),
            Ok(Err((code, msg))) => Response::new_err(id, code as i32, msg),
            Err(_) => Response::new_err(id, ErrorCode::InternalError as i32, "internal error while answering this request".into()),
        };
        self.respond(response);
    }

    fn dispatch(&mut self, r: Request) -> Result<Value, (ErrorCode, String)> {
        fn params<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, (ErrorCode, String)> {
            serde_json::from_value(v).map_err(|e| (ErrorCode::InvalidParams, format!("invalid params: {e}")))
        }
        let v = match r.method.as_str() {
            req::Shutdown::METHOD => {
                self.shutdown = true;
                Value::Null
            }
            req::HoverRequest::METHOD => json!(super::hover::hover(&self.world, &params(r.params)?)),
            req::GotoDefinition::METHOD => json!(super::navigate::definition(&self.world, &params(r.params)?)),
            req::References::METHOD => json!(super::navigate::references(&self.world, &params(r.params)?)),
            req::Completion::METHOD => json!(super::complete::complete(&self.world, &params(r.params)?)),
            req::PrepareRenameRequest::METHOD => json!(super::rename::prepare(&self.world, &params(r.params)?)),
            req::Rename::METHOD => json!(super::rename::rename(&self.world, &params(r.params)?).map_err(|m| (ErrorCode::InvalidRequest, m))?),
            req::CodeLensRequest::METHOD => json!(super::lens::lenses(&self.world, &params(r.params)?)),
            m => return Err((ErrorCode::MethodNotFound, format!("unsupported method {m}"))),
        };
        Ok(v)
    }

    fn notification(&mut self, n: Notification) {
        let rel = |s: &Server, uri: &Url| relative(&s.world.root, uri);
        match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) {
                    if let Some(path) = rel(self, &p.text_document.uri) {
                        self.world.files.open_buffer(&mut self.world.db, &path, p.text_document.text);
                        self.open.insert(path);
                        self.changed();
                    }
                }
            }
            notif::DidChangeTextDocument::METHOD => {
                if let Ok(mut p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) {
                    // Full sync: the last change holds the whole text.
                    if let (Some(path), Some(c)) = (rel(self, &p.text_document.uri), p.content_changes.pop()) {
                        self.world.files.set_buffer(&mut self.world.db, &path, c.text);
                        self.changed();
                    }
                }
            }
            notif::DidCloseTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) {
                    if let Some(path) = rel(self, &p.text_document.uri) {
                        self.world.files.close_buffer(&mut self.world.db, &path);
                        self.open.remove(&path);
                        self.changed();
                    }
                }
            }
            // A save changes nothing an open buffer did not already say;
            // files the editor does not hold are re-read from disk.
            notif::DidSaveTextDocument::METHOD => {}
            notif::DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                    let paths = p.changes.iter().filter_map(|c| rel(self, &c.uri)).collect();
                    let changes = self.world.files.apply(&mut self.world.db, &Batch { paths, rescan: false });
                    if !changes.is_empty() {
                        self.changed();
                    }
                }
            }
            _ => {}
        }
    }

    /// Publishes every file's diagnostics, and an empty list for each file
    /// that had some and has none now, or is open.
    fn publish(&mut self, revision: u64, by_file: Vec<(String, Vec<lsp_types::Diagnostic>)>) {
        let now: BTreeSet<String> = by_file.iter().map(|(p, _)| p.clone()).collect();
        let cleared: BTreeSet<&String> = self.published.iter().chain(self.open.iter()).filter(|p| !now.contains(*p)).collect();
        for gone in cleared {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams { uri: uri(&self.world.root, gone), diagnostics: Vec::new(), version: None });
        }
        for (path, diagnostics) in by_file {
            self.notify::<PublishDiagnostics>(PublishDiagnosticsParams { uri: uri(&self.world.root, &path), diagnostics, version: None });
        }
        self.published = now;
        self.published_revision = Some(revision);
    }
}
