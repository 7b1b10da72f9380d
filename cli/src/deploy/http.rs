//! JSON over HTTP with a bound on every call: the one place the deployment
//! commands talk to the network (ureq, blocking, plain http).

use std::time::Duration;

use serde_json::Value;

/// Connect and whole-request limits. Every call has both.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A part of the target: which one, and where (for every error message).
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// `gateway` or `jobmanager`.
    pub part: &'static str,
    pub base: String,
    agent: ureq::Agent,
}

/// Why a call failed: the part was not reached, or it answered with an error.
#[derive(Debug)]
pub enum HttpError {
    Unreachable(String),
    Answer(String),
}

impl HttpError {
    pub fn message(&self) -> &str {
        match self {
            HttpError::Unreachable(m) | HttpError::Answer(m) => m,
        }
    }
}

impl Endpoint {
    pub fn new(part: &'static str, base: &str) -> Endpoint {
        let agent = ureq::AgentBuilder::new().timeout_connect(CONNECT_TIMEOUT).timeout(CALL_TIMEOUT).build();
        Endpoint { part, base: base.trim_end_matches('/').to_string(), agent }
    }

    pub fn get(&self, path: &str) -> Result<Value, HttpError> {
        self.finish("GET", path, self.agent.get(&self.url(path)).call())
    }

    pub fn post(&self, path: &str, body: &Value) -> Result<Value, HttpError> {
        self.finish("POST", path, self.agent.post(&self.url(path)).set("Content-Type", "application/json").send_string(&body.to_string()))
    }

    pub fn delete(&self, path: &str) -> Result<Value, HttpError> {
        self.finish("DELETE", path, self.agent.delete(&self.url(path)).call())
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The answer as JSON, or an error that names the part, its address and
    /// the operation (`gateway http://…: GET /v2/info: …`), in plain words.
    fn finish(&self, method: &str, path: &str, r: Result<ureq::Response, ureq::Error>) -> Result<Value, HttpError> {
        let who = format!("{} {}: {method} {path}", self.part, self.base);
        match r {
            Ok(resp) => {
                let text = resp.into_string().map_err(|e| HttpError::Unreachable(format!("{who}: {}", io_text(&e))))?;
                serde_json::from_str(&text).map_err(|e| HttpError::Answer(format!("{who}: the answer is not JSON ({e})")))
            }
            Err(ureq::Error::Status(code, resp)) => {
                let body = resp.into_string().unwrap_or_default();
                Err(HttpError::Answer(format!("{who}: HTTP {code}: {}", server_error(&body))))
            }
            Err(ureq::Error::Transport(t)) => Err(HttpError::Unreachable(format!("{who}: {}", transport_text(&t)))),
        }
    }
}

/// An I/O failure in plain words, with what the client said in parentheses.
fn io_text(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    let s = e.to_string();
    let raw = match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    };
    let plain = match e.kind() {
        K::ConnectionRefused => "nothing listens at that address: is it running, and is this its address?",
        K::TimedOut | K::WouldBlock => "no answer in time: the part may be overloaded, or a firewall drops the connection",
        K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof => "the connection was closed before an answer: the part may have crashed or restarted",
        _ if raw.contains("status line") => "the connection was closed before an answer: the part may have crashed or restarted",
        _ => return format!("could not talk to it ({raw})"),
    };
    format!("{plain} ({raw})")
}

fn transport_text(t: &ureq::Transport) -> String {
    let mut source = std::error::Error::source(t);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return io_text(io);
        }
        source = e.source();
    }
    let raw = match t.message() {
        Some(m) => format!("{}: {m}", t.kind()),
        None => t.kind().to_string(),
    };
    match t.kind() {
        ureq::ErrorKind::Dns => format!("its host name does not resolve ({raw})"),
        ureq::ErrorKind::ConnectionFailed => format!("could not connect: is it running, and is this its address? ({raw})"),
        _ if raw.contains("status line") => format!("the connection was closed before an answer: the part may have crashed or restarted ({raw})"),
        _ => format!("could not talk to it ({raw})"),
    }
}

/// The useful part of a Flink error body: the last `Caused by:` line of
/// its `errors`, else the errors joined, else the body.
pub fn server_error(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(body) else { return body.trim().chars().take(500).collect() };
    let errors: Vec<&str> = v["errors"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    root_cause(&errors.join("\n")).unwrap_or_else(|| errors.join("; "))
}

/// The last `Caused by:` of a Java stack trace, without the prefix.
pub fn root_cause(trace: &str) -> Option<String> {
    trace.lines().filter_map(|l| l.trim().strip_prefix("Caused by: ")).next_back().map(str::to_string)
}
