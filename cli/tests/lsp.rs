//! `streamform lsp` at the protocol level: a client that speaks JSON-RPC
//! over the binary's stdio drives every request the server offers on a
//! copy of examples/shop, sends malformed frames, and checks the server
//! answers each with an error and keeps going. The Neovim test
//! (tools/editors/nvim_test.sh) drives the same server from a real editor.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

fn project(name: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shop");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp").join(name);
    let _ = fs::remove_dir_all(&dir);
    for sub in ["models", "tests"] {
        fs::create_dir_all(dir.join(sub)).unwrap();
        for e in fs::read_dir(src.join(sub)).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
        }
    }
    for f in ["streamform.yml", "sources.yml"] {
        fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    dir.canonicalize().unwrap()
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications seen while waiting for responses.
    notes: Vec<Value>,
    root: PathBuf,
}

const WAIT: Duration = Duration::from_secs(20);

impl Client {
    fn start(root: &Path) -> Client {
        Client::start_with(root, json!(null))
    }

    fn start_with(root: &Path, options: Value) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_streamform")).arg("lsp").arg("--stdio").current_dir(root).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = channel();
        std::thread::spawn(move || loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if out.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                if line.trim().is_empty() {
                    break;
                }
                if let Some(v) = line.trim().strip_prefix("Content-Length: ") {
                    len = v.parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            out.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        let mut c = Client { child, stdin, incoming: rx, next_id: 1, notes: Vec::new(), root: root.to_path_buf() };
        let init = c.request("initialize", json!({"processId": null, "rootUri": c.uri(""), "capabilities": {}, "initializationOptions": options}));
        assert_eq!(init["result"]["capabilities"]["hoverProvider"], json!(true), "{init}");
        c.notify("initialized", json!({}));
        c
    }

    fn uri(&self, rel: &str) -> String {
        let p = if rel.is_empty() { self.root.clone() } else { self.root.join(rel) };
        format!("file://{}", p.display())
    }

    fn raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.raw(&json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string());
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.raw(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        self.response(json!(id))
    }

    fn response(&mut self, id: Value) -> Value {
        loop {
            let m = self.incoming.recv_timeout(WAIT).expect("the server answers");
            if m.get("method").is_some() {
                self.notes.push(m);
            } else if m["id"] == id {
                return m;
            }
        }
    }

    /// The next diagnostics published for `rel`.
    fn diagnostics(&mut self, rel: &str) -> Vec<Value> {
        let uri = self.uri(rel);
        if let Some(i) = self.notes.iter().position(|n| n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri) {
            return self.notes.remove(i)["params"]["diagnostics"].as_array().unwrap().clone();
        }
        loop {
            let m = self.incoming.recv_timeout(WAIT).expect("diagnostics are published");
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn open(&mut self, rel: &str, text: &str) {
        let uri = self.uri(rel);
        self.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "sql", "version": 1, "text": text}}));
    }

    fn change(&mut self, rel: &str, version: i64, text: &str) {
        let uri = self.uri(rel);
        self.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}));
    }

    fn at(&self, rel: &str, line: u32, character: u32) -> Value {
        json!({"textDocument": {"uri": self.uri(rel)}, "position": {"line": line, "character": character}})
    }

    fn shutdown(mut self) -> i32 {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        self.notify("exit", Value::Null);
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

const BIG: &str = "models/big_spenders.sql";

#[test]
fn diagnostics_follow_the_buffer() {
    let root = project("diagnostics");
    let mut c = Client::start(&root);
    let text = fs::read_to_string(root.join(BIG)).unwrap();
    c.open(BIG, &text);
    // Two typos in the unsaved buffer: both columns are reported, with code and range.
    let broken = text.replace("SELECT customer_id, total_spend", "SELECT customer_idd, total_spend");
    c.change(BIG, 2, &broken);
    let d = loop {
        let d = c.diagnostics(BIG);
        if !d.is_empty() {
            break d;
        }
    };
    assert_eq!(d[0]["code"], "E0509", "{d:?}");
    assert_eq!(d[0]["severity"], 1);
    assert_eq!(d[0]["range"]["start"], json!({"line": 1, "character": 7}), "{d:?}");
    assert!(d[0]["message"].as_str().unwrap().contains("customer_idd"), "{d:?}");
    // The disk was not touched: the buffer alone is the input.
    assert_eq!(fs::read_to_string(root.join(BIG)).unwrap(), text);
    // Fixed in the buffer: the file's diagnostics are cleared.
    c.change(BIG, 3, &text);
    assert_eq!(c.diagnostics(BIG), Vec::<Value>::new());
    // A file written on disk by something else (not open in the editor) is seen too.
    fs::write(root.join("models/extra.sql"), "SELECT nope FROM source('orders')\n").unwrap();
    let d = c.diagnostics("models/extra.sql");
    assert_eq!(d[0]["code"], "E0509", "{d:?}");
    fs::remove_file(root.join("models/extra.sql")).unwrap();
    assert_eq!(c.diagnostics("models/extra.sql"), Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn hover_definition_references_completion_lens() {
    let root = project("navigate");
    let mut c = Client::start(&root);
    let text = fs::read_to_string(root.join(BIG)).unwrap();
    c.open(BIG, &text);
    // Hover on a column: its type and the relation it comes from.
    let h = c.request("textDocument/hover", c.at(BIG, 1, 22));
    assert_eq!(h["result"]["contents"]["value"], "`total_spend`: decimal(38,2) — from `ref('customer_totals')`", "{h}");
    // Hover on ref('customer_totals'): the model's plan identity.
    let h = c.request("textDocument/hover", c.at(BIG, 2, 12));
    let v = h["result"]["contents"]["value"].as_str().unwrap();
    assert!(v.starts_with("model `customer_totals`") && v.contains("changelog=upsert(customer_id)"), "{v}");
    // Definition of ref() is the model's file; of a source column, its line in sources.yml.
    let d = c.request("textDocument/definition", c.at(BIG, 2, 12));
    assert_eq!(d["result"]["uri"], c.uri("models/customer_totals.sql"), "{d}");
    let paid = "models/paid_orders.sql";
    c.open(paid, &fs::read_to_string(root.join(paid)).unwrap());
    let d = c.request("textDocument/definition", c.at(paid, 1, 32));
    assert_eq!(d["result"]["uri"], c.uri("sources.yml"), "{d}");
    let sources = fs::read_to_string(root.join("sources.yml")).unwrap();
    let line = d["result"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(sources.lines().nth(line).unwrap().contains("amount"), "{d}");
    // References of a model: its declaration and every ref() naming it.
    let r = c.request("textDocument/references", json!({"textDocument": {"uri": c.uri("models/customer_totals.sql")}, "position": {"line": 1, "character": 0}, "context": {"includeDeclaration": false}}));
    assert_eq!(r["result"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["result"][0]["uri"], c.uri(BIG));
    // Completion inside ref(' lists the other models; elsewhere, columns and functions.
    let draft = "SELECT \nFROM ref('";
    c.change(BIG, 2, draft);
    let items = c.request("textDocument/completion", c.at(BIG, 1, 10));
    let labels: Vec<&str> = items["result"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["customer_totals", "paid_orders"], "{items}");
    c.change(BIG, 3, &text);
    let items = c.request("textDocument/completion", c.at(BIG, 3, 6));
    let labels: Vec<&str> = items["result"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"order_count") && labels.contains(&"coalesce"), "{labels:?}");
    // The code lens: the output changelog and the state summary.
    let l = c.request("textDocument/codeLens", json!({"textDocument": {"uri": c.uri("models/customer_totals.sql")}}));
    let title = l["result"][0]["command"]["title"].as_str().unwrap();
    assert!(title.starts_with("upsert(customer_id) · 1 keyed node: aggregate "), "{title}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn rename_a_model_keeps_its_state() {
    let root = project("rename");
    let mut c = Client::start(&root);
    let text = fs::read_to_string(root.join(BIG)).unwrap();
    c.open(BIG, &text);
    let p = c.request("textDocument/prepareRename", c.at(BIG, 2, 12));
    assert_eq!(p["result"], json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 25}}), "{p}");
    let mut params = c.at(BIG, 2, 12);
    params["newName"] = json!("spend_by_customer");
    let r = c.request("textDocument/rename", params);
    let ops = r["result"]["documentChanges"].as_array().unwrap();
    let edits: Vec<(String, String)> = ops.iter().filter(|o| o.get("edits").is_some()).flat_map(|o| o["edits"].as_array().unwrap().iter().map(move |e| (o["textDocument"]["uri"].as_str().unwrap().rsplit('/').next().unwrap().to_string(), e["newText"].as_str().unwrap().to_string()))).collect();
    let expected = [
        ("big_spenders.sql", "'spend_by_customer'"),
        ("streamform.yml", "spend_by_customer"),
        ("streamform.yml", "\n    renamed_from: customer_totals"),
        ("customer_totals.yml", "spend_by_customer"),
    ];
    assert_eq!(edits, expected.map(|(a, b)| (a.to_string(), b.to_string())));
    let last = ops.last().unwrap();
    assert_eq!(last["kind"], "rename");
    assert_eq!(last["newUri"], c.uri("models/spend_by_customer.sql"));
    // A name that is taken is refused.
    let mut params = c.at(BIG, 2, 12);
    params["newName"] = json!("paid_orders");
    let r = c.request("textDocument/rename", params);
    assert!(r["error"]["message"].as_str().unwrap().contains("already names"), "{r}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn malformed_messages_get_errors_and_the_server_lives() {
    let root = project("garbage");
    let mut c = Client::start(&root);
    c.raw("{this is not json");
    let e = c.response(Value::Null);
    assert_eq!(e["error"]["code"], -32700, "{e}");
    c.raw(r#"{"jsonrpc": "2.0", "id": 77, "method": 5}"#);
    let e = c.response(json!(77));
    assert_eq!(e["error"]["code"], -32600, "{e}");
    let e = c.request("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(e["error"]["code"], -32602, "{e}");
    let e = c.request("workspace/unknownThing", json!({}));
    assert_eq!(e["error"]["code"], -32601, "{e}");
    // Positions far outside the text, and files outside the project, answer null.
    let h = c.request("textDocument/hover", c.at(BIG, 9999, 9999));
    assert_eq!(h["result"], Value::Null, "{h}");
    let h = c.request("textDocument/hover", json!({"textDocument": {"uri": "file:///nowhere/x.sql"}, "position": {"line": 0, "character": 0}}));
    assert_eq!(h["result"], Value::Null, "{h}");
    // Still alive and correct.
    let text = fs::read_to_string(root.join(BIG)).unwrap();
    c.open(BIG, &text);
    let h = c.request("textDocument/hover", c.at(BIG, 1, 22));
    assert!(h["result"]["contents"]["value"].as_str().unwrap().contains("total_spend"), "{h}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn the_code_lens_shows_the_upgrade_verdict_as_you_type() {
    let root = project("verdict");
    let out = Command::new(env!("CARGO_BIN_EXE_streamform")).args(["inspect-plan", "--json"]).current_dir(&root).output().unwrap();
    fs::write(root.join("running.json"), &out.stdout).unwrap();
    let mut c = Client::start_with(&root, json!({"compareWith": "running.json"}));
    let m = "models/customer_totals.sql";
    let text = fs::read_to_string(root.join(m)).unwrap();
    c.open(m, &text);
    let lens = |c: &mut Client| {
        let l = c.request("textDocument/codeLens", json!({"textDocument": {"uri": c.uri(m)}}));
        l["result"][1]["command"]["title"].as_str().unwrap_or("").to_string()
    };
    assert_eq!(lens(&mut c), "plan: SAFE");
    // SUM to MAX changes the aggregate's state: plan's own verdict and reason.
    c.change(m, 2, &text.replace("SUM(amount)", "MAX(amount)"));
    let v = lens(&mut c);
    assert!(v.starts_with("plan: BACKFILL REQUIRED: accumulator `max(amount)` added"), "{v}");
    c.change(m, 3, &text);
    assert_eq!(lens(&mut c), "plan: SAFE");
    assert_eq!(c.shutdown(), 0);
}
