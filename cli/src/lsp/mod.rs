//! `streamform lsp`: a Language Server Protocol server over stdio. It is
//! one more front end on the same salsa database and files table as
//! `watch`: an open buffer's text is the file's input, and every answer
//! comes from the same queries `check`, `inspect-plan` and `plan` call.
//!
//! - [`transport`]: the base protocol, tolerant of malformed frames.
//! - [`position`]: offsets ↔ LSP positions, paths ↔ URIs.
//! - [`state`]: what features read (database, files table, root).
//! - [`server`]: the session (published diagnostics, the worker) and the
//!   main loop.
//! - [`diagnostics`], [`hover`], [`navigate`], [`complete`], [`rename`],
//!   [`lens`]: one file per feature.

mod complete;
mod diagnostics;
mod hover;
mod lens;
mod navigate;
mod position;
mod rename;
mod server;
mod state;
mod syntax;
mod transport;

#[cfg(test)]
mod tests;

pub use server::run;
