"""Does Flink restore a savepoint of a plan pair's v1 into other versions,
and is the state kept? The evidence behind docs/upgrades.md's restore table.

  tools/realparts/with-parts.sh ~/.cache/streamform/flink-venv-2.3.0/bin/python \
      tools/deploy-e2e/restore_probe.py [--sql] CASE[:MODEL] v1 v2 ...

Copies testdata/plan/CASE/v1 (only MODEL and the models it reads when named; its topics made
unique to this run, a target on the running parts added), applies it with
`streamform apply` (uids pinned to Streamform's nodes, as every deploy), feeds
it the first half of some events generated from its sources' schemas (a
join: every source but the last, whose events come after the savepoint, so
the join's earlier rows wait in its store; else events 1-4 of each source),
stops it with a savepoint, then produces the second half. Each named version is then
planned (`plan --target --out`: the verdict and the deploy action), and its
pinned plan (Flink compiled it during the plan) is submitted with
`EXECUTE PLAN`, restoring from the savepoint, whatever the plan said. `v1`
itself is the control. `--sql` submits each version's SQL instead (the
topology uids of a job without pins).

For each version it prints the plan's verdict, what Flink did (RUNNING, the
job's failure, or the submission's refusal), and, when it ran, whether the
sink's records after the restore are the simulator's for the state kept (the
version over every event, less what it wrote over the first half) or for
the state lost (the version over the second half alone); an upsert sink is
compared by its table, each key's last row (kept: the version's table over
every event; lost: the first half's rows overwritten by the second half's). Exits 1 when a
version that `plan --target` deploys as an upgrade or a restore (or, without a
deploy line, calls SAFE or COMPATIBLE) does not keep the state on Flink. Every wait is bounded.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools/conformance"))
sys.path.insert(0, str(ROOT / "tools/realparts"))
import flinksql  # noqa: E402
import kafka_mode as km  # noqa: E402

ku = km.ku
SF = os.environ.get("STREAMFORM", str(ROOT / "target/release/streamform"))
RUN = format(int(time.time() * 1000) % 10**9, "x")
SAVEPOINTS = os.environ["FLINK_SAVEPOINT_DIR"].removeprefix("file://") + f"/probe-{RUN}"


def sf(proj, *args, timeout=180):
    return subprocess.run([SF, *args], cwd=proj, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def upstream(models_dir, model):
    """`model` and every model it reads through `ref()`, transitively."""
    seen, todo = set(), [model]
    while todo:
        m = todo.pop()
        f = models_dir / f"{m}.sql"
        if m in seen or not f.exists():
            continue
        seen.add(m)
        todo += re.findall(r"ref\(\s*'(\w+)'", f.read_text())
    return seen


def only_model(yml, keep_models):
    """The project file with `models:` holding the entries of `keep_models` alone (entries are two-space keys)."""
    out, in_models, keep = [], False, True
    for line in yml.splitlines(keepends=True):
        if re.match(r"^\S", line):
            in_models, keep = line.startswith("models:"), True
        elif in_models and re.match(r"^  \S", line):
            keep = line.strip().split(":")[0] in keep_models
        if keep:
            out.append(line)
    return "".join(out)


def with_sink(yml, model):
    """The project file with a kafka sink on `model` when it has none (the pairs plan models without one)."""
    sink = f"sink: {{connector: kafka, topic: probe-{model}}}"
    m = re.search(rf"^  {model}:(.*)$", yml, re.M)
    if m is None:
        return re.sub(r"^models:.*$", f"models:\n  {model}:\n    {sink}", yml, count=1, flags=re.M) if re.search(r"^models:", yml, re.M) else yml + f"models:\n  {model}:\n    {sink}\n"
    entry = yml[m.start():]
    nxt = re.search(r"^(?!    )\S|^  \S", entry[len(m.group(0)) + 1:], re.M)
    if "sink:" in entry[: len(m.group(0)) + 1 + (nxt.start() if nxt else len(entry))]:
        return yml
    rest = m.group(1).strip()
    if rest.startswith("{"):
        inner = rest[1:-1].strip()
        return yml[: m.start()] + f"  {model}: {{{inner + ', ' if inner else ''}{sink}}}" + yml[m.end():]
    return yml[: m.end()] + f"\n    {sink}" + yml[m.end():]


def version(case, ver, model):
    """A scratch copy of testdata/plan/CASE/VER: MODEL alone (else every model), each with a
    kafka sink, this run's topics, and a target on the parts."""
    d = Path(tempfile.mkdtemp(prefix=f"probe-{ver}-", dir=os.environ["REALPARTS_STATE_DIR"]))
    shutil.copytree(ROOT / "testdata/plan" / case / ver, d, dirs_exist_ok=True, ignore=shutil.ignore_patterns("plan.json", "plan.txt"))
    yml = (d / "streamform.yml").read_text()
    if model:
        # The model and what it reads: an upstream key is part of its state.
        keep = upstream(d / "models", model)
        for f in (d / "models").glob("*.sql"):
            if f.stem not in keep:
                f.unlink()
        yml = with_sink(only_model(yml, keep), model)
    else:
        for f in sorted((d / "models").glob("*.sql")):
            yml = with_sink(yml, f.stem)
    yml = re.sub(r"topic: ([\w.-]+)", rf"topic: \1-{RUN}", yml).split("\ntargets:")[0].rstrip() + "\n"
    yml += (f"targets:\n  probe:\n    backend: flink\n    flink:\n      gateway: {os.environ['FLINK_GATEWAY']}\n      rest: {os.environ['FLINK_REST']}\n"
            f"      savepoint_dir: {SAVEPOINTS}\n    kafka:\n      bootstrap_servers: {os.environ['KAFKA_BOOTSTRAP']}\n")
    (d / "streamform.yml").write_text(yml)
    src = d / "sources.yml"
    src.write_text(re.sub(r"topic: ([\w.-]+)", rf"topic: \1-{RUN}", src.read_text()))
    return d


def manifest(proj):
    r = sf(proj, "inspect-plan", "--json")
    if r.returncode != 0:
        sys.exit(f"inspect-plan in {proj} failed: {r.stderr}")
    return json.loads(r.stdout)


def sources(m):
    """The sources the project reads, in the order of their first node (`::source::0` first), with their topics and schemas."""
    out = {}
    for n in sorted((n for n in m["nodes"] if n["operator"] == "source"), key=lambda n: n["id"].rsplit("::", 1)[-1]):
        name, topic = re.match(r"(\w+) \(kafka ([^)]+)\)", n["definition"]).groups()
        out.setdefault(name, (topic, n["schema"]))
    return out


def value(col, ty, i):
    """Event i's value of a column: ids repeat 1..4 (so keys meet again), amounts shrink (so a
    Top-N that kept its rows ignores the second half, and one that lost them does not), times
    grow, strings alternate."""
    if ty.startswith("int") or ty.startswith("decimal") or ty.startswith("float"):
        return (i - 1) % 4 + 1 if col.endswith("_id") else (10 - i) * 10
    if ty.startswith("timestamp"):
        return f"2026-01-01T00:00:{i:02d}Z"
    if ty == "bool":
        return i % 2 == 0
    return f"{col[0]}{i % 2}"


def events(srcs, join, temporal=False):
    """(first half, second half) per source: for a join, every source but the last in the first
    half and the last in the second (so rows wait in the join's store); else each source's
    events 1-4, then 5-8. A temporal join writes only once the watermarks of both inputs pass
    a row's time, so its second half ends with one late-timed event per source (event 30)."""
    names = list(srcs)
    pre, post = {}, {}
    for s in names:
        rows = lambda lo, hi: [{c["name"]: value(c["name"], c["type"], i) for c in srcs[s][1]} for i in range(lo, hi)]
        if not join:
            pre[s], post[s] = rows(1, 5), rows(5, 9)
        elif s == names[-1]:
            pre[s], post[s] = [], rows(1, 5)
        else:
            pre[s], post[s] = rows(1, 5), []
        if temporal:
            post[s] = post[s] + rows(30, 31)
    return pre, post


def simulate(proj, feed, model, key=None):
    """What Kafka holds after the simulator's changelog of `model` over `feed`: a value per insert or update, None per delete
    (with `key`, the key columns: (key, value) pairs)."""
    work = Path(tempfile.mkdtemp(dir=os.environ["REALPARTS_STATE_DIR"]))
    (work / "in").mkdir()
    for s, rows in feed.items():
        (work / "in" / f"{s}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in rows))
    r = subprocess.run([SF, "run", "--input", str(work / "in"), "--output", str(work / "out")], cwd=proj, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"run failed: {r.stderr}")
    out = []
    for line in (work / "out" / f"{model}.changelog.jsonl").read_text().splitlines():
        c = json.loads(line)
        v = None if c["op"] == "delete" else c["columns"]
        out.append((keyed(c["columns"], key), v) if key else v)
    shutil.rmtree(work, ignore_errors=True)
    return out


def norm(v):
    """A value as Flink's JSON and the simulator both write it: numbers as numbers, timestamps as one text."""
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return v.replace("T", " ").removesuffix("Z").removesuffix(".000")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def keyed(columns, key):
    return json.dumps({k: norm(columns[k]) for k in key}, sort_keys=True)


def final(pairs):
    """An upsert topic's table: each key's last value; a tombstone deletes it."""
    t = {}
    for k, v in pairs:
        if v is None:
            t.pop(k, None)
        else:
            t[k] = json.dumps({c: norm(x) for c, x in v.items()}, sort_keys=True)
    return t


def bag(rows):
    return Counter(json.dumps(r and {k: norm(v) for k, v in r.items()}, sort_keys=True) for r in rows)


def sink_topic(proj, model):
    yml = (proj / "streamform.yml").read_text()
    m = re.search(rf"^  {model}:(.*\n(?:    .*\n)*)", yml, re.M)
    t = m and re.search(r"topic: ([\w.-]+)", m.group(1))
    return t.group(1) if t else None


def submit(stmts, statement, restore):
    s = km.Session("probe")
    try:
        s.run("SET 'table.local-time-zone' = 'UTC'")
        for st in stmts:
            s.run(st)
        s.run(f"SET 'execution.state-recovery.path' = '{restore}'")
        return s.run(statement)
    finally:
        s.close()


def wait_state(jid, bound=40):
    deadline, state = time.monotonic() + bound, None
    while time.monotonic() < deadline:
        state = km.job_state(jid)
        if state in ("RUNNING", "FAILED", "FAILING", "RESTARTING"):
            break
        time.sleep(1)
    return state


def promises(verdict, deploy):
    """Whether `plan --target` promised the state: its deploy line restores it (an upgrade or a
    restore). A rebuild promises nothing, whatever the models' verdict: the deploy line is what
    Flink will be asked to do. Without a deploy line, a SAFE or COMPATIBLE verdict promises."""
    if deploy != "?":
        return deploy in ("upgrade", "restore")
    return verdict.split(" ")[0] in ("SAFE", "COMPATIBLE")


def main():
    args = sys.argv[1:]
    sql = args[0] == "--sql"
    args = args[1:] if sql else args
    case, _, model = args[0].partition(":")
    proj = version(case, "v1", model)
    m = manifest(proj)
    model = model or m["models"][0]["name"]
    srcs = sources(m)
    topic = sink_topic(proj, model)
    if topic is None:
        sys.exit(f"model `{model}` of {case}/v1 has no kafka sink to read")
    ku.create_topics([t for t, _ in srcs.values()] + [topic], timeout=30)
    joins = [n for n in m["nodes"] if n["operator"] == "join" and n["model"] == model]
    pre, post = events(srcs, bool(joins), any("TEMPORAL JOIN" in n["definition"] for n in joins))
    for s, rows in pre.items():
        if rows:
            ku.produce(srcs[s][0], rows, timeout=30)
    r = sf(proj, "apply", "--yes")
    if r.returncode != 0:
        sys.exit(f"apply of v1 failed:\n{r.stdout}{r.stderr}")
    want = len(simulate(proj, pre, model))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(ku.read_all(topic, 20)) < want:
        time.sleep(1)
    time.sleep(5)  # the events that write nothing (a join's waiting side) are read too
    r = sf(proj, "stop")
    sp = re.search(r"with savepoint (file:\S+)", r.stdout)
    if r.returncode != 0 or not sp:
        sys.exit(f"stop failed:\n{r.stdout}{r.stderr}")
    sp = sp.group(1)
    print(f"case {case} model {model}: v1 wrote {want} records over the first half; savepoint {sp}", flush=True)
    for s, rows in post.items():
        if rows:
            ku.produce(srcs[s][0], rows, timeout=30)
    wrong = []
    for ver in args[1:]:
        vp = version(case, ver, model)
        shutil.copytree(proj / ".streamform", vp / ".streamform")
        ku.create_topics(sorted({t for f in ("sources.yml", "streamform.yml") for t in re.findall(r"topic: ([\w.-]+)", (vp / f).read_text())}), timeout=30)
        t0 = time.time()
        r = sf(vp, "plan", "--target", "probe", "--out", "deploy.json")
        verdict = next((l.removeprefix("verdict: ") for l in r.stdout.splitlines() if l.startswith("verdict: ")), "?")
        deploy = next((l.removeprefix("deploy: ").split(":")[0] for l in r.stdout.splitlines() if l.startswith("deploy: ")), "?")
        plans = sorted((p for p in Path(SAVEPOINTS, "streamform-plans/probe").glob("*.pinned.json") if p.stat().st_mtime >= t0 - 1), key=lambda p: p.stat().st_mtime)
        b = sf(vp, "build", "--backend", "flink", "--target", "probe")
        if b.returncode not in (0, 1):  # 1: built, with warnings
            sys.exit(f"build of {ver} failed: {b.stderr}")
        stmts = [s.rstrip().rstrip(";") for s in flinksql.statements((vp / "build/flink/application.sql").read_text())]
        how = "sql" if sql or not plans else "pinned"
        statement = stmts[-1] if how == "sql" else f"EXECUTE PLAN 'file://{plans[-1]}'"
        # An upsert sink is compared by its table (each key's last row): how a key reached its
        # row (a delete, then an insert, or an update) depends on how events were batched.
        key = next((x.get("key") for x in manifest(vp)["models"] if x["name"] == model and x.get("materialized") == "upsert"), None)
        if key:
            sim = lambda feed: simulate(vp, feed, model, key)
            kept, lost = final(sim({s: pre[s] + post[s] for s in srcs})), final(sim(pre) + sim(post))
            # A record v1 wrote without a key (an append sink before) is keyed by its row.
            observe = lambda records: final((keyed(k if k is not None else v, key), v) for k, v in records if k is not None or v is not None)
        else:
            kept = bag(simulate(vp, {s: pre[s] + post[s] for s in srcs}, model)) - bag(simulate(vp, pre, model))
            lost = bag(simulate(vp, post, model))
            observe = lambda records: bag(v for _, v in records[mark:])
        mark = len(ku.read_all(topic, 20))
        try:
            jid = submit(stmts[:-1], statement, sp)
        except km.FlinkError as e:
            print(f"{ver}: plan {verdict} (deploy {deploy}); {how}: REFUSED: {str(e)[:500]}", flush=True)
            if promises(verdict, deploy):
                wrong.append(f"{ver}: plan says {verdict}, deploy {deploy}, but Flink refused the savepoint")
            continue
        state = wait_state(jid)
        outcome, got = "", observe([])
        if state == "RUNNING":
            deadline = time.monotonic() + 30
            got = observe([])
            while time.monotonic() < deadline:
                got = observe(ku.read_all(topic, 20))
                if (got == kept and kept) or (got == lost and lost):
                    break
                time.sleep(1)
            time.sleep(2)
            got = observe(ku.read_all(topic, 20))
            state = km.job_state(jid)
            # A job that failed and restarted may read RUNNING again: its exceptions say.
            if (km.http("GET", f"{os.environ['FLINK_REST']}/jobs/{jid}/exceptions", timeout=10).get("exceptionHistory") or {}).get("entries"):
                state = "RESTARTING"
        if state == "RUNNING":
            n = f"a table of {len(got)} keys" if key else f"{sum(got.values())} records"
            show = (lambda x: sorted(x.items())) if key else (lambda x: sorted(x.elements()))
            outcome = (f"state kept and lost write the same {n}" if kept == lost and got == kept else
                       f"state KEPT ({n}, the simulator's over every event)" if got == kept else
                       f"state LOST ({n}, the simulator's over the second half alone)" if got == lost else
                       f"neither: got {show(got)}, kept {show(kept)}, lost {show(lost)}")
        failure = km.job_failure(jid) if state in ("FAILED", "RESTARTING", "FAILING") else ""
        print(f"{ver}: plan {verdict} (deploy {deploy}); {how}: job {state} {failure[:400]} {outcome}".rstrip(), flush=True)
        # A verdict that promises the state, or a deploy that restores it, must find it kept.
        if promises(verdict, deploy) and not (state == "RUNNING" and (got == kept)):
            wrong.append(f"{ver}: plan says {verdict}, deploy {deploy}, but Flink's job is {state} and the state was not kept")
        km.cancel(jid)
        time.sleep(2)
    for w in wrong:
        print("WRONG", w, flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
