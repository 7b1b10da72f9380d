#!/usr/bin/env python3
"""Differential tester: Streamform against the original 0.9.1, on generated projects.

    tools/differential/differential.py [--valid N] [--invalid N] [--pairs N] [--seed S]
                                       [--jobs J] [--out DIR] [--ours BIN] [--peer BIN]

Generates random valid projects (gen.py), invalid ones (mutate.BREAKERS) and
version pairs (mutate.EVOLUTIONS), runs both tools on each (compare.py),
shrinks the first mismatch of every category to a minimal project, and
writes it under DIR/<category>/ with the diff. The original is installed
on first use into a throwaway venv (~/.cache/streamform/peer-venv) and run
only as a black box. This is a tool, not a test: no test needs it.
"""

import argparse
import collections
import concurrent.futures
import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import gen  # noqa: E402
import mutate  # noqa: E402

PEER_VENV = os.path.expanduser("~/.cache/streamform/peer-venv")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ensure_peer():
    binary = os.path.join(PEER_VENV, "bin", "streamform")
    if not os.path.exists(binary):
        print("installing streamform==0.9.1 into", PEER_VENV, file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", PEER_VENV], check=True)
        subprocess.run([os.path.join(PEER_VENV, "bin", "pip"), "install", "-q", "streamform==0.9.1"], check=True)
    return binary


def case(kind, seed):
    """The project (and for pairs its second version) a seed names, and a label."""
    g = gen.Gen(seed)
    p = g.project()
    if kind == "valid":
        return p, None, "valid"
    if kind == "invalid":
        q, how = mutate.break_project(p, g)
        return q, None, how
    q, how = mutate.next_version(p, g)
    return p, q, how


def differences(ours, peer, p, q):
    with tempfile.TemporaryDirectory(prefix="sfdiff-") as tmp:
        a = os.path.join(tmp, "v1")
        gen.write(p, a)
        if q is None:
            return compare.compare(ours, peer, a)
        b = os.path.join(tmp, "v2")
        gen.write(q, b)
        return compare.plan_pair(ours, peer, a, b)


def job(args):
    kind, seed, ours, peer = args
    p, q, how = case(kind, seed)
    if p is None:
        return kind, seed, how, []
    try:
        return kind, seed, how, differences(ours, peer, p, q)
    except Exception as e:  # a generator bug must not stop the run
        return kind, seed, how, [("tester-error", repr(e))]


# -- shrinking ------------------------------------------------------------

def select_items(sql):
    m = re.search(r"SELECT (.*?)\nFROM", sql, re.S)
    if not m:
        return None, []
    items, depth, cur = [], 0, ""
    for ch in m.group(1):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    items.append(cur.strip())
    return m, items


def _pop(d, *path):
    """Removes d[path[0]]...[path[-1]]; true when it was there."""
    for k in path[:-1]:
        d = d.get(k) if isinstance(d, dict) else None
        if d is None:
            return False
    return isinstance(d, dict) and d.pop(path[-1], None) is not None


def _drop_item(x, model, i):
    """Drops select item `i` of `model`, when it has more than one."""
    m = x["models"].get(model)
    s, items = select_items(m["sql"]) if m else (None, [])
    if not s or i >= len(items) or len(items) < 2:
        return False
    m["sql"] = m["sql"][:s.start(1)] + ", ".join(items[:i] + items[i + 1:]) + m["sql"][s.end(1):]
    return True


def _drop_clause(x, model, clause):
    m = x["models"].get(model)
    if not m or f"\n{clause} " not in m["sql"]:
        return False
    m["sql"] = re.sub(rf"\n{clause} [^\n]*", "", m["sql"])
    return True


def smaller(p, q):
    """Candidate projects one step smaller than (p, q): the same step on both versions."""
    steps = [lambda x, n=n: _pop(x, "fixtures", n) for n in p["fixtures"]]
    steps += [lambda x, n=n: _pop(x, "models", n) for n in p["models"]]
    steps += [lambda x: _pop(x, "targets")]
    for n, s in p["sources"].items():
        steps.append(lambda x, n=n: _pop(x, "sources", n))
        steps += [lambda x, n=n, k=k: _pop(x, "sources", n, k) for k in s if k not in ("connector", "topic", "path", "schema")]
        steps += [lambda x, n=n, c=c: _pop(x, "sources", n, "schema", c) for c in s["schema"]]
    for n, m in p["models"].items():
        steps += [lambda x, n=n, k=k: _pop(x, "models", n, "config", k) for k in m["config"]]
        steps += [lambda x, n=n, i=i: _drop_item(x, n, i) for i in range(len(select_items(m["sql"])[1]))]
        steps += [lambda x, n=n, c=c: _drop_clause(x, n, c) for c in ("WHERE", "HAVING")]
    out = []
    for step in steps:
        a, b = copy.deepcopy(p), copy.deepcopy(q)
        if step(a) and (b is None or step(b)):
            out.append((a, b))
    return out


def shrink(ours, peer, p, q, category, budget=150):
    """The smallest (p, q) found that still shows `category`."""
    steps = 0
    progress = True
    while progress and steps < budget:
        progress = False
        for a, b in smaller(p, q):
            steps += 1
            if steps >= budget:
                break
            try:
                cats = {c for c, _ in differences(ours, peer, a, b)}
            except Exception:
                continue
            if category in cats:
                p, q, progress = a, b, True
                break
    return p, q


def save(out_dir, kind, seed, how, category, p, q, detail):
    d = os.path.join(out_dir, kind, category.replace(":", "-"), f"seed-{seed}")
    shutil.rmtree(d, ignore_errors=True)
    gen.write(p, os.path.join(d, "project" if q is None else "running"))
    if q is not None:
        gen.write(q, os.path.join(d, "desired"))
        _, manifest, _ = compare.run(ensure_peer(), ["inspect-plan", "--json"], os.path.join(d, "running"))
        with open(os.path.join(d, "desired", ".running.json"), "w") as f:
            f.write(manifest)
    with open(os.path.join(d, "diff.txt"), "w") as f:
        f.write(f"kind: {kind}  seed: {seed}  mutation: {how}\ncategory: {category}\n\n{detail}\n")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--valid", type=int, default=200)
    ap.add_argument("--invalid", type=int, default=50)
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "streamform-differential"))
    ap.add_argument("--ours", default=os.path.join(REPO, "target", "release", "streamform"))
    ap.add_argument("--peer")
    ap.add_argument("--no-shrink", action="store_true")
    a = ap.parse_args()
    peer = a.peer or ensure_peer()
    ours = os.path.abspath(a.ours)
    if not os.path.exists(ours):
        sys.exit(f"no binary at {ours}; run `cargo build --release -p streamform-cli` first")
    os.makedirs(a.out, exist_ok=True)
    jobs = [("valid", a.seed + i, ours, peer) for i in range(a.valid)]
    jobs += [("invalid", a.seed + 1_000_000 + i, ours, peer) for i in range(a.invalid)]
    jobs += [("pair", a.seed + 2_000_000 + i, ours, peer) for i in range(a.pairs)]

    counts = collections.Counter()
    mismatched = collections.Counter()
    first = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for kind, seed, how, diffs in pool.map(job, jobs, chunksize=4):
            counts[kind] += 1
            if diffs:
                mismatched[kind] += 1
            for category, detail in diffs:
                key = (kind, category)
                counts[key] += 1
                first.setdefault(key, (seed, how, detail))

    lines = [f"# Differential run (seed {a.seed})", "",
             "| kind | projects | with a mismatch |", "|---|---|---|"]
    for kind in ("valid", "invalid", "pair"):
        lines.append(f"| {kind} | {counts[kind]} | {mismatched[kind]} |")
    lines += ["", "| kind | category | projects | minimal case |", "|---|---|---|---|"]
    for (kind, category), (seed, how, detail) in sorted(first.items()):
        p, q, _ = case(kind, seed)
        if not a.no_shrink and p is not None:
            p, q = shrink(ours, peer, p, q, category)
            shrunk = [d for c, d in differences(ours, peer, p, q) if c == category]
            detail = shrunk[0] if shrunk else detail
        where = save(a.out, kind, seed, how, category, p, q, detail)
        lines.append(f"| {kind} | {category} | {counts[(kind, category)]} | {os.path.relpath(where, a.out)} |")
    report = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(report)
    print(report)
    print(f"cases written under {a.out}")


if __name__ == "__main__":
    main()
