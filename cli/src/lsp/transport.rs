//! The LSP base protocol over stdio, tolerant of bad input: a message
//! that is not JSON, or not a JSON-RPC message, is answered with a
//! protocol error and the server keeps reading. (lsp-server's own stdio
//! reader ends the connection on the first malformed message.)

use std::io::{self, BufRead, Write};
use std::thread;

use crossbeam_channel::{bounded, Receiver, Sender};
use lsp_server::{ErrorCode, Message};
use serde_json::{json, Value};

/// What the reader hands the main loop.
pub enum Incoming {
    Message(Message),
    /// A frame that could not be decoded; its error answer is already sent.
    Malformed,
    /// stdin ended or failed.
    Closed,
}

/// Starts the reader and writer threads. The writer takes JSON values:
/// an error about an unreadable frame has a null id, which no
/// `lsp_server::Message` can carry.
pub fn stdio() -> (Sender<Value>, Receiver<Incoming>) {
    let (out_tx, out_rx) = bounded::<Value>(0);
    thread::spawn(move || {
        let stdout = io::stdout();
        let mut w = stdout.lock();
        for v in out_rx {
            let body = v.to_string();
            if write!(w, "Content-Length: {}\r\n\r\n{body}", body.len()).is_err() || w.flush().is_err() {
                break;
            }
        }
    });
    let (in_tx, in_rx) = bounded::<Incoming>(0);
    let errors = out_tx.clone();
    thread::spawn(move || {
        let stdin = io::stdin();
        let mut r = stdin.lock();
        loop {
            let item = match read_frame(&mut r) {
                Ok(Some(body)) => decode(&body, &errors),
                Ok(None) | Err(_) => Incoming::Closed,
            };
            let closed = matches!(item, Incoming::Closed);
            if in_tx.send(item).is_err() || closed {
                break;
            }
        }
    });
    (out_tx, in_rx)
}

/// One frame's body: headers up to the blank line, then Content-Length
/// bytes. None at the end of input.
fn read_frame(r: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut len: Option<usize> = None;
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let l = line.trim_end();
        if l.is_empty() {
            if len.is_some() {
                break;
            }
            continue; // stray blank lines between frames
        }
        if let Some((name, value)) = l.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                len = value.trim().parse().ok();
            }
        }
    }
    // A frame larger than this is not an editor's: refuse to allocate it.
    const MAX_FRAME: usize = 256 << 20;
    let len = len.unwrap_or(0).min(MAX_FRAME);
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}

fn decode(body: &[u8], errors: &Sender<Value>) -> Incoming {
    let json = serde_json::from_slice::<Value>(body);
    let parsed = match &json {
        Err(e) => Err((ErrorCode::ParseError, e.to_string())),
        Ok(v) if !well_formed(v) => Err((ErrorCode::InvalidRequest, "not a JSON-RPC request, response or notification".to_string())),
        Ok(v) => serde_json::from_value::<Message>(v.clone()).map_err(|e| (ErrorCode::InvalidRequest, e.to_string())),
    };
    match parsed {
        Ok(m) => Incoming::Message(m),
        Err((code, e)) => {
            // Answered under the frame's id when it names one, else null.
            let id = json.ok().and_then(|v| v.get("id").cloned()).filter(|i| i.is_number() || i.is_string());
            let answer = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code as i32, "message": format!("malformed message: {e}")}});
            let _ = errors.send(answer);
            Incoming::Malformed
        }
    }
}

/// An object with a string `method`, or a response (`result`/`error`).
fn well_formed(v: &Value) -> bool {
    match v.get("method") {
        Some(m) => m.is_string(),
        None => v.get("result").is_some() || v.get("error").is_some(),
    }
}

/// A message as the writer takes it.
pub fn to_value(m: Message) -> Value {
    let mut v = serde_json::to_value(m).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.insert("jsonrpc".into(), json!("2.0"));
    }
    v
}

/// Reads every frame of `input` as the reader thread does, decoding each:
/// the messages, and the error answers sent for malformed frames. The fuzz
/// target (cli/fuzz) and its regression replay run exactly this.
#[cfg(any(test, fuzzing))]
pub fn read_all(input: &[u8]) -> (Vec<Message>, Vec<Value>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut r = io::Cursor::new(input);
    let (mut messages, mut answers) = (Vec::new(), Vec::new());
    while let Ok(Some(body)) = read_frame(&mut r) {
        match decode(&body, &tx) {
            Incoming::Message(m) => messages.push(m),
            Incoming::Malformed => answers.push(rx.try_recv().expect("a malformed frame is answered")),
            Incoming::Closed => unreachable!("decode never closes"),
        }
    }
    (messages, answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz target's regression inputs, replayed without a fuzzer.
    #[test]
    fn the_reader_takes_every_regression_input() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/lsp");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).expect("regressions/lsp") {
            let bytes = std::fs::read(e.expect("entry").path()).expect("readable");
            read_all(&bytes);
            n += 1;
        }
        assert!(n >= 4, "only {n} inputs in {}", dir.display());
    }

    #[test]
    fn a_bad_frame_is_answered_and_the_next_one_read() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let input = format!("Content-Length: 5\r\n\r\n{{oops\r\n\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        let (messages, answers) = read_all(input.as_bytes());
        assert_eq!(messages.len(), 1);
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0]["error"]["code"], -32700);
    }
}
