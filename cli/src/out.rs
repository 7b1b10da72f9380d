//! Standard output that ends quietly when the reader goes away.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::render::color;

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout; after a broken pipe, further output is dropped.
pub fn print(s: &str) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if out.write_all(s.as_bytes()).and_then(|_| out.flush()).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Writes text meant for people to stdout, painted at a colour terminal.
pub fn print_text(s: &str) {
    if color::stdout_painted() {
        print(&color::paint(s));
    } else {
        print(s);
    }
}

/// Writes to stderr, which only people read: painted at a colour terminal.
pub fn eprint(s: &str) {
    let painted;
    let s = if color::stderr_painted() {
        painted = color::paint(s);
        &painted
    } else {
        s
    };
    let _ = io::stderr().lock().write_all(s.as_bytes());
}

/// Streams a large document to stdout; a closed pipe ends it quietly.
pub fn print_with(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if f(&mut out).and_then(|_| out.flush()).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// True once stdout's reader has gone away (`watch` then stops).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}
