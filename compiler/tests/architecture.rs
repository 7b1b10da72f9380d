//! The tree's structural invariants, read from the sources themselves:
//! no import cycle between modules, no long function without a reason, no
//! I/O in the compiler, one meaning per diagnostic code, and an
//! ARCHITECTURE.md that names every query and folder. Each is listed in
//! ARCHITECTURE.md with this file as the test that holds it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every `.rs` file under `dir`, sorted, as (module path, text).
fn modules(src: &Path) -> BTreeMap<String, (PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut out = BTreeMap::new();
    for p in files {
        let rel = p.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            parts.pop();
        }
        let text = fs::read_to_string(&p).unwrap();
        out.insert(parts.join("::"), (p, text));
    }
    out
}

/// The code of a file without comments and without its trailing
/// `#[cfg(test)] mod …` (tests may reach anywhere).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") && lines.get(i + 1).is_some_and(|n| n.trim_start().starts_with("mod ")) {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Paths starting at `crate`, `super` or `self`, with `{…}` groups expanded.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let ident_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        if ident_start {
            for head in ["crate::", "super::", "self::"] {
                if b[i..].starts_with(head.as_bytes()) {
                    let mut j = i;
                    let mut prefix = Vec::new();
                    // `super::super::x`
                    while code[j..].starts_with("super::") || code[j..].starts_with("crate::") || code[j..].starts_with("self::") {
                        let seg = &code[j..j + code[j..].find("::").unwrap()];
                        prefix.push(seg.to_string());
                        j += seg.len() + 2;
                    }
                    let (paths, end) = use_tree(code, j);
                    for p in paths {
                        let mut full = prefix.clone();
                        full.extend(p);
                        out.push(full);
                    }
                    i = end.max(i + 1);
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

/// Parses `a::b::{c, d::e}` at `at`: the expanded segment lists, and where it ended.
fn use_tree(code: &str, mut at: usize) -> (Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    let skip_ws = |mut k: usize| {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        k
    };
    at = skip_ws(at);
    if at < b.len() && b[at] == b'{' {
        let mut all = Vec::new();
        let mut k = at + 1;
        loop {
            k = skip_ws(k);
            if k >= b.len() || b[k] == b'}' {
                return (all, k + 1);
            }
            let (sub, end) = use_tree(code, k);
            all.extend(sub);
            k = skip_ws(end);
            // skip `as alias`
            while k < b.len() && b[k] != b',' && b[k] != b'}' {
                k += 1;
            }
            if k < b.len() && b[k] == b',' {
                k += 1;
            }
        }
    }
    let start = at;
    while at < b.len() && (b[at].is_ascii_alphanumeric() || b[at] == b'_') {
        at += 1;
    }
    if at == start {
        return (vec![vec![]], at);
    }
    let seg = code[start..at].to_string();
    if code[at..].starts_with("::") && !code[at + 2..].starts_with('<') {
        let (subs, end) = use_tree(code, at + 2);
        let mut out = Vec::new();
        for mut s in subs {
            s.insert(0, seg.clone());
            out.push(s);
        }
        return (out, end);
    }
    (vec![vec![seg]], at)
}

/// The module a path names: the longest known module prefix.
fn resolve(known: &BTreeSet<String>, current: &str, path: &[String]) -> Option<String> {
    let mut segs: Vec<String> = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("super") | Some("self") => {
            segs = if current.is_empty() { vec![] } else { current.split("::").map(str::to_string).collect() };
            while let Some(h) = rest.first() {
                match h.as_str() {
                    "super" => {
                        segs.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    segs.extend(rest.iter().cloned());
    (1..=segs.len()).rev().map(|n| segs[..n].join("::")).find(|m| known.contains(m))
}

/// The import graph between modules, leaving out edges between a module
/// and its own ancestors (a child using its parent's items, a parent
/// declaring its children).
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules(src);
    let known: BTreeSet<String> = mods.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (m, (_, text)) in &mods {
        let mut deps = BTreeSet::new();
        for p in crate_paths(&code_of(text)) {
            if let Some(d) = resolve(&known, m, &p) {
                let related = d == *m || m.starts_with(&format!("{d}::")) || d.starts_with(&format!("{m}::")) || d.is_empty() || m.is_empty();
                if !related {
                    deps.insert(d);
                }
            }
        }
        graph.insert(m.clone(), deps);
    }
    graph
}

/// Strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T { g: graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on: BTreeSet::new(), out: Vec::new() };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn assert_no_cycles(crate_dir: &str) {
    let graph = import_graph(&repo().join(crate_dir).join("src"));
    let found = cycles(&graph);
    let text: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> =
                c.iter().flat_map(|a| graph[a].iter().filter(|d| c.contains(d)).map(move |d| format!("{a} -> {d}"))).collect();
            format!("cycle {c:?}: {}", edges.join(", "))
        })
        .collect();
    assert!(found.is_empty(), "{crate_dir}/src has import cycles (move the shared items into a leaf module):\n{}", text.join("\n"));
}

#[test]
fn no_import_cycle_in_the_compiler() {
    assert_no_cycles("compiler");
}

#[test]
fn no_import_cycle_in_the_cli() {
    assert_no_cycles("cli");
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
    let paths = crate_paths("use crate::{db::Db, sim::{change::Row, eval}};\nlet x = super::super::plan::node::Node::new();");
    assert_eq!(
        paths,
        vec![
            vec!["crate", "db", "Db"],
            vec!["crate", "sim", "change", "Row"],
            vec!["crate", "sim", "eval"],
            vec!["super", "super", "plan", "node", "Node", "new"],
        ]
    );
}

/// Functions longer than `max` lines: (file:line, name, lines), where
/// no `// Whole:` comment above the function says why it stays whole.
fn long_functions(src: &Path, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (_, (path, text)) in modules(src) {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(name) = fn_name(line) else { continue };
            let indent = line.len() - line.trim_start().len();
            let close = lines[i..].iter().position(|l| l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}'));
            let Some(close) = close else { continue };
            let len = close + 1;
            if len <= max {
                continue;
            }
            let mut k = i;
            let mut reasoned = false;
            while k > 0 {
                let above = lines[k - 1].trim_start();
                if above.starts_with("// Whole:") {
                    reasoned = true;
                }
                if above.starts_with("//") || above.starts_with("#[") {
                    k -= 1;
                } else {
                    break;
                }
            }
            if !reasoned {
                let rel = path.strip_prefix(repo()).unwrap().display().to_string();
                out.push(format!("{rel}:{} `{name}` is {len} lines", i + 1));
            }
        }
    }
    out
}

fn fn_name(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub(super) ")).or_else(|| t.strip_prefix("pub ")).unwrap_or(t);
    let t = t.strip_prefix("const ").unwrap_or(t);
    let t = t.strip_prefix("unsafe ").unwrap_or(t);
    let t = t.strip_prefix("fn ")?;
    if line.trim_end().ends_with(';') {
        return None;
    }
    Some(&t[..t.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(t.len())])
}

#[test]
fn no_function_in_the_compiler_over_80_lines_without_a_reason() {
    let long = long_functions(&repo().join("compiler/src"), 80);
    assert!(long.is_empty(), "split these, or say above each in a `// Whole:` comment why it must stay whole:\n{}", long.join("\n"));
}

/// What `compiler/` must never call: it does no I/O, never prints, reads
/// no environment, and only the driver spawns threads.
#[test]
fn the_compiler_does_no_io_and_only_the_driver_spawns_threads() {
    let io = ["std::fs", "std::io::stdin", "std::io::stdout", "std::io::stderr", "std::env", "std::net", "std::process", "println!", "eprintln!", "print!(", "eprint!(", "dbg!("];
    let threads = ["thread::spawn", "thread::scope", "std::thread"];
    let mut found = Vec::new();
    for (m, (path, text)) in modules(&repo().join("compiler/src")) {
        let code = code_of(&text);
        let rel = path.strip_prefix(repo()).unwrap().display().to_string();
        for pat in io {
            if code.contains(pat) {
                found.push(format!("{rel}: `{pat}`"));
            }
        }
        if m != "driver" {
            for pat in threads {
                if code.contains(pat) {
                    found.push(format!("{rel}: `{pat}` (only compiler/src/driver.rs spawns threads)"));
                }
            }
        }
    }
    assert!(found.is_empty(), "the compiler does no I/O:\n{}", found.join("\n"));
}

/// Every `#[salsa::tracked]` function in the compiler.
fn tracked_functions() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (m, (_, text)) in modules(&repo().join("compiler/src")) {
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if !l.trim_start().starts_with("#[salsa::tracked") {
                continue;
            }
            if let Some(name) = lines[i + 1..].iter().take(4).find_map(|n| fn_name(n)) {
                out.push((m.clone(), name.to_string()));
            }
        }
    }
    out
}

#[test]
fn architecture_md_indexes_every_query_and_folder() {
    let doc = fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md at the repository root");
    let mut missing = Vec::new();
    for (m, q) in tracked_functions() {
        if !doc.contains(&format!("`{q}`")) {
            missing.push(format!("query `{q}` (in {m})"));
        }
    }
    for crate_dir in ["compiler/src", "cli/src"] {
        let src = repo().join(crate_dir);
        for e in fs::read_dir(&src).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let shown = if e.path().is_dir() { format!("{crate_dir}/{name}/") } else { format!("{crate_dir}/{name}") };
            if !doc.contains(&format!("`{shown}`")) && !(e.path().is_file() && !name.ends_with(".rs")) {
                missing.push(format!("code-map entry `{shown}`"));
            }
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md does not mention:\n{}", missing.join("\n"));
}
