//! The session and the main loop. Messages are handled in arrival order;
//! edits only set inputs, and diagnostics are computed once the queue is
//! empty, so a burst of keystrokes costs one recompute and a hover never
//! waits behind diagnostics of text already replaced.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use camino::Utf8PathBuf;
use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::*;
use serde_json::{json, Value};
use streamform::driver::{self, Work};
use streamform::Database;

use super::position::relative;
use super::transport::{self, to_value, Incoming};
use crate::files::{Batch, Files};

pub struct Server {
    pub db: Database,
    pub files: Files,
    pub root: Utf8PathBuf,
    /// Paths whose last published diagnostics were not empty.
    pub published: BTreeSet<String>,
    out: Sender<Value>,
    /// An edit arrived since diagnostics were last published.
    dirty: bool,
    shutdown: bool,
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
    let files = Files::load(&db, root.as_str());
    let mut s = Server { db, files, root, published: BTreeSet::new(), out, dirty: true, shutdown: false };
    s.respond(Response::new_ok(id, json!({"capabilities": capabilities(), "serverInfo": {"name": "streamform", "version": env!("CARGO_PKG_VERSION")}})));
    driver::compile(&mut s.db, s.files.project, Work::All);
    s.main_loop(&incoming)
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
    fn main_loop(&mut self, incoming: &Receiver<Incoming>) -> u8 {
        loop {
            // Publish once the queue is empty: a burst of edits is one recompute.
            let item = match incoming.try_recv() {
                Ok(item) => item,
                Err(_) => {
                    if self.dirty {
                        self.dirty = false;
                        self.publish_diagnostics();
                    }
                    match incoming.recv() {
                        Ok(item) => item,
                        Err(_) => return 1,
                    }
                }
            };
            match item {
                Incoming::Message(Message::Request(r)) => self.request(r),
                Incoming::Message(Message::Notification(n)) if n.method == notif::Exit::METHOD => return if self.shutdown { 0 } else { 1 },
                Incoming::Message(Message::Notification(n)) => self.notification(n),
                Incoming::Message(Message::Response(_)) | Incoming::Malformed => {}
                Incoming::Closed => return 1,
            }
        }
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
            req::HoverRequest::METHOD => json!(super::hover::hover(self, &params(r.params)?)),
            req::GotoDefinition::METHOD => json!(super::navigate::definition(self, &params(r.params)?)),
            req::References::METHOD => json!(super::navigate::references(self, &params(r.params)?)),
            req::Completion::METHOD => json!(super::complete::complete(self, &params(r.params)?)),
            req::PrepareRenameRequest::METHOD => json!(super::rename::prepare(self, &params(r.params)?)),
            req::Rename::METHOD => json!(super::rename::rename(self, &params(r.params)?).map_err(|m| (ErrorCode::InvalidRequest, m))?),
            req::CodeLensRequest::METHOD => json!(super::lens::lenses(self, &params(r.params)?)),
            m => return Err((ErrorCode::MethodNotFound, format!("unsupported method {m}"))),
        };
        Ok(v)
    }

    fn notification(&mut self, n: Notification) {
        let rel = |s: &Server, uri: &Url| relative(&s.root, uri);
        match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) {
                    if let Some(path) = rel(self, &p.text_document.uri) {
                        self.files.set_buffer(&mut self.db, &path, p.text_document.text);
                        self.dirty = true;
                    }
                }
            }
            notif::DidChangeTextDocument::METHOD => {
                if let Ok(mut p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) {
                    // Full sync: the last change holds the whole text.
                    if let (Some(path), Some(c)) = (rel(self, &p.text_document.uri), p.content_changes.pop()) {
                        self.files.set_buffer(&mut self.db, &path, c.text);
                        self.dirty = true;
                    }
                }
            }
            notif::DidCloseTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) {
                    if let Some(path) = rel(self, &p.text_document.uri) {
                        self.files.close_buffer(&mut self.db, &path);
                        self.dirty = true;
                    }
                }
            }
            // A save changes nothing an open buffer did not already say;
            // files the editor does not hold are re-read from disk.
            notif::DidSaveTextDocument::METHOD => {}
            notif::DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                    let paths = p.changes.iter().filter_map(|c| rel(self, &c.uri)).collect();
                    let changes = self.files.apply(&mut self.db, &Batch { paths, rescan: false });
                    self.dirty |= !changes.is_empty();
                }
            }
            _ => {}
        }
    }

    /// The text of a project file as the compiler sees it.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.text(&self.db, path)
    }
}
