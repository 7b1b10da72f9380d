#!/usr/bin/env python3
"""Latency of `streamform lsp`, played as an editor plays it.

usage: tools/bench_lsp.py BIN PROJECT_DIR [KEYSTROKES=60]

Starts `BIN lsp`, initializes, and times the first diagnostics of the
whole project. Then opens models spread over the project and types into
each, one didChange per keystroke (full text, as the server asks): the
digits of a `WHERE v > N` filter, one character at a time, and a typo
that makes an error and its fix. Each keystroke is timed from the moment
its didChange is written to the publishDiagnostics for that file. Hover
(on a column) and completion (inside the SELECT list) are timed from
request to response. Reports median, p90 and max, and the server's peak
resident memory (VmHWM).
"""
import json, os, re, statistics, subprocess, sys, time

def main():
    bin_, proj = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    keys = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    models = os.path.join(proj, "models")
    names = sorted(f for f in os.listdir(models) if f.endswith(".sql"))
    p = subprocess.Popen([bin_, "lsp", "--stdio"], cwd=proj, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    seq = [0]

    def send(msg):
        body = json.dumps(msg).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        p.stdin.flush()

    def recv():
        length = 0
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("the server exited")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(p.stdout.read(length))

    def request(method, params):
        seq[0] += 1
        send({"jsonrpc": "2.0", "id": seq[0], "method": method, "params": params})
        while True:
            m = recv()
            if m.get("id") == seq[0] and "method" not in m:
                return m

    def wait_published(uri):
        while True:
            m = recv()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def uri(f):
        return "file://" + os.path.join(models, f)

    t0 = time.perf_counter()
    request("initialize", {"processId": None, "rootUri": "file://" + proj, "capabilities": {}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    # The first revision publishes for streamform.yml at least when anything
    # is wrong; open one model so that the first revision always publishes.
    first = names[len(names) // 2]
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri(first), "languageId": "sql", "version": 1, "text": open(os.path.join(models, first)).read()}}})
    wait_published(uri(first))
    startup = time.perf_counter() - t0

    picked = [f for f in (names[(i * 7919 + 17) % len(names)] for i in range(len(names))) if re.search(r"WHERE v > \d+", open(os.path.join(models, f)).read())]
    picked = list(dict.fromkeys(picked))[: max(1, keys // 6)]
    diag, hover, complete = [], [], []
    version = 1
    for f in picked:
        text = open(os.path.join(models, f)).read()
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri(f), "languageId": "sql", "version": 1, "text": text}}})
        wait_published(uri(f))
        m = re.search(r"WHERE v > (\d+)", text)
        # Type the digits "123" after the number, then a typo in a column and its fix.
        states = [text[: m.end()] + "123"[:k] + text[m.end():] for k in range(1, 4)]
        states += [text.replace("SELECT ", "SELECT vv_", 1), text]
        for s in states:
            version += 1
            t = time.perf_counter()
            send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri(f), "version": version}, "contentChanges": [{"text": s}]}})
            wait_published(uri(f))
            diag.append(time.perf_counter() - t)
        # Hover on the `v` of the filter: a column of the model's input.
        line = text[: m.start()].count("\n")
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + len("WHERE ")
        t = time.perf_counter()
        h = request("textDocument/hover", {"textDocument": {"uri": uri(f)}, "position": {"line": line, "character": col}})
        hover.append(time.perf_counter() - t)
        if not (h.get("result") or {}).get("contents"):
            raise SystemExit(f"hover on {f} {line}:{col} answered nothing: {h}")
        t = time.perf_counter()
        c = request("textDocument/completion", {"textDocument": {"uri": uri(f)}, "position": {"line": 0, "character": 7}})
        complete.append(time.perf_counter() - t)
        if not c.get("result"):
            raise SystemExit(f"completion on {f} answered nothing: {c}")
        if len(diag) >= keys:
            break
    hwm = "?"
    try:
        for l in open(f"/proc/{p.pid}/status"):
            if l.startswith("VmHWM"):
                hwm = f"{int(l.split()[1]) / 1024:.0f} MB"
    except OSError:
        pass
    request("shutdown", None)
    send({"jsonrpc": "2.0", "method": "exit"})
    p.wait(timeout=10)

    def row(name, xs):
        xs = sorted(xs)
        p90 = xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]
        print(f"{name:<24} n={len(xs):<4} median {statistics.median(xs) * 1000:7.1f} ms   p90 {p90 * 1000:7.1f} ms   max {xs[-1] * 1000:7.1f} ms")

    print(f"project: {len(names)} models; first diagnostics after {startup:.2f} s; peak memory {hwm}")
    row("diagnostics after edit", diag)
    row("hover", hover)
    row("completion", complete)

if __name__ == "__main__":
    main()
