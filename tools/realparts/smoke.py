#!/usr/bin/env python3
"""End-to-end smoke test of the real parts, through the Flink SQL Gateway's
REST API (plain urllib) and the JobManager's REST API:

  kafka JSON source -> statement set (SUM and COUNT by key) -> upsert-kafka
  job RUNNING (JobManager /jobs/<id>), sink values read back from Kafka
  STOP JOB ... WITH SAVEPOINT (gateway), restore with
    execution.state-recovery.path: the aggregate continues from the old values
  POST /jobs/<id>/stop (JobManager) + polling the savepoint trigger, restore again
  COMPILE PLAN ... FOR STATEMENT SET / EXECUTE PLAN, operator uids from
    table.exec.uid.format (global and per ExecNode in the plan), restore of a
    changed query's plan by uid
  JSON timestamps: what 'json.timestamp-format.standard' accepts for
    TIMESTAMP(3) and TIMESTAMP_LTZ(3)

Run it with the parts up:  tools/realparts/with-parts.sh python3 tools/realparts/smoke.py
It re-executes itself under $REALPARTS_PYTHON (the venv with confluent-kafka).
Every wait is bounded; an overall alarm (SMOKE_TIMEOUT, default 240 s) ends
it regardless. What it observed is printed as JSON at the end ("facts") and,
with --facts PATH, written there.
"""

from __future__ import annotations

import os
import sys


def _reexec_with_client() -> None:
    try:
        import confluent_kafka  # noqa: F401
    except ImportError:
        py = os.environ.get("REALPARTS_PYTHON")
        if py and os.path.exists(py) and not os.environ.get("_SMOKE_REEXEC"):
            os.environ["_SMOKE_REEXEC"] = "1"  # once: a venv's python may resolve to this one
            os.execv(py, [py] + sys.argv)
        raise


_reexec_with_client()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import argparse  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from pathlib import Path  # noqa: E402

import kafka_util as ku  # noqa: E402

FACTS: dict = {}
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def fact(key: str, value) -> None:
    FACTS[key] = value
    text = json.dumps(value, default=str)
    say(f"  fact {key}: {text if len(text) < 400 else text[:400] + '...'}")


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)
    say(f"ok   {what}")


def wait_until(what: str, fn, timeout: float, interval: float = 0.5):
    """Calls fn until it returns a truthy value; raises after timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"{what}: not reached in {timeout}s (last: {last})")


# --- HTTP ------------------------------------------------------------------

class HttpError(Exception):
    def __init__(self, method: str, url: str, status: int, body: str):
        self.status, self.body = status, body
        super().__init__(f"{method} {url} -> {status}: {root_causes(body)[-1:] or body[:300]}")


def http(method: str, url: str, body=None, timeout: float = 30.0):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            return json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raise HttpError(method, url, e.code, e.read().decode(errors="replace")) from None


def root_causes(body: str) -> list[str]:
    """The 'Caused by:' lines of a REST error's server-side stack trace."""
    try:
        text = "\n".join(json.loads(body).get("errors", []))
    except (ValueError, AttributeError):
        text = body
    return [line.strip()[len("Caused by: "):] for line in text.splitlines()
            if line.strip().startswith("Caused by:")]


class StatementError(Exception):
    def __init__(self, stmt: str, causes: list[str], op: str | None = None):
        self.causes, self.op = causes, op
        super().__init__(f"{stmt[:120]!r} failed: {causes[-1] if causes else '?'}")


class Result:
    def __init__(self, pages: list[dict]):
        self.pages = pages
        payload = [p for p in pages if p.get("resultType") in ("PAYLOAD", "EOS")]
        last = payload[-1] if payload else {}
        self.columns = [c["name"] for c in last.get("results", {}).get("columns", [])]
        self.rows = [d["fields"] for p in payload for d in p.get("results", {}).get("data", [])]
        self.kinds = [d["kind"] for p in payload for d in p.get("results", {}).get("data", [])]
        self.job_id = next((p["jobID"] for p in payload if p.get("jobID")), None)
        self.is_query = last.get("isQueryResult")
        self.result_kind = last.get("resultKind")
        self.first_payload = payload[0] if payload else None


class Gateway:
    """The SQL Gateway REST API, v2 paths."""

    def __init__(self, base: str):
        self.base = base.rstrip("/")
        self.session = None

    def open(self, name: str, properties: dict) -> dict:
        resp = http("POST", f"{self.base}/v2/sessions", {"sessionName": name, "properties": properties})
        self.session = resp["sessionHandle"]
        return resp

    def close(self):
        if self.session:
            resp = http("DELETE", f"{self.base}/v2/sessions/{self.session}")
            self.session = None
            return resp

    def submit(self, stmt: str, config: dict | None = None) -> str:
        body = {"statement": stmt}
        if config:
            body["executionConfig"] = config
        return http("POST", f"{self.base}/v2/sessions/{self.session}/statements", body)["operationHandle"]

    def status(self, op: str) -> str:
        return http("GET", f"{self.base}/v2/sessions/{self.session}/operations/{op}/status")["status"]

    def fetch_all(self, op: str, stmt: str, timeout: float) -> Result:
        """Follows nextResultUri from token 0 until EOS (bounded)."""
        uri = f"/v2/sessions/{self.session}/operations/{op}/result/0?rowFormat=JSON"
        pages: list[dict] = []
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{stmt[:80]!r}: no EOS in {timeout}s")
            try:
                page = http("GET", self.base + uri)
            except HttpError as e:
                raise StatementError(stmt, root_causes(e.body), op) from None
            pages.append(page)
            if page["resultType"] == "EOS":
                return Result(pages)
            empty = page["resultType"] == "NOT_READY" or not page.get("results", {}).get("data")
            uri = page.get("nextResultUri") or uri
            if empty:
                time.sleep(0.2)

    def execute(self, stmt: str, config: dict | None = None, timeout: float = 60) -> Result:
        op = self.submit(stmt, config)
        return self.fetch_all(op, stmt, timeout)


class JobManager:
    def __init__(self, base: str):
        self.base = base.rstrip("/")

    def job(self, jid: str) -> dict:
        return http("GET", f"{self.base}/jobs/{jid}")

    def wait_running(self, jid: str, timeout: float = 60) -> dict:
        def ready():
            j = self.job(jid)
            if j["state"] in ("FAILED", "CANCELED", "FINISHED"):
                exc = http("GET", f"{self.base}/jobs/{jid}/exceptions")
                raise AssertionError(f"job {jid} is {j['state']}: {json.dumps(exc)[:800]}")
            return j if j["state"] == "RUNNING" and all(
                v["status"] == "RUNNING" for v in j["vertices"]) else None
        return wait_until(f"job {jid} RUNNING", ready, timeout, 0.3)

    def wait_state(self, jid: str, states: tuple[str, ...], timeout: float = 60) -> dict:
        return wait_until(f"job {jid} in {states}",
                          lambda: (lambda j: j if j["state"] in states else None)(self.job(jid)),
                          timeout, 0.3)

    def checkpoints(self, jid: str) -> dict:
        return http("GET", f"{self.base}/jobs/{jid}/checkpoints")

    def trigger_stop(self, jid: str, target: str, drain: bool = False) -> dict:
        return http("POST", f"{self.base}/jobs/{jid}/stop", {"targetDirectory": target, "drain": drain})

    def savepoint_status(self, jid: str, trigger: str, timeout: float = 60) -> dict:
        return wait_until(
            "savepoint trigger done",
            lambda: (lambda s: s if s["status"]["id"] == "COMPLETED" else None)(
                http("GET", f"{self.base}/jobs/{jid}/savepoints/{trigger}")),
            timeout, 0.3)

    def cancel(self, jid: str) -> None:
        try:
            http("PATCH", f"{self.base}/jobs/{jid}?mode=cancel")
        except HttpError:
            pass


# --- murmur3 x64 128, as Guava's Hashing.murmur3_128(0): Flink derives a job
# vertex id from its head operator's uid with it, so the REST vertex ids tell
# which uid an operator got.

def murmur3_x64_128(data: bytes, seed: int = 0) -> bytes:
    m = 0xFFFFFFFFFFFFFFFF
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F

    def rotl(x, r):
        return ((x << r) | (x >> (64 - r))) & m

    def fmix(k):
        k ^= k >> 33
        k = (k * 0xFF51AFD7ED558CCD) & m
        k ^= k >> 33
        k = (k * 0xC4CEB9FE1A85EC53) & m
        return k ^ (k >> 33)

    h1 = h2 = seed
    nblocks = len(data) // 16
    for i in range(nblocks):
        k1 = int.from_bytes(data[16 * i:16 * i + 8], "little")
        k2 = int.from_bytes(data[16 * i + 8:16 * i + 16], "little")
        h1 ^= (rotl((k1 * c1) & m, 31) * c2) & m
        h1 = (rotl(h1, 27) + h2) & m
        h1 = (h1 * 5 + 0x52DCE729) & m
        h2 ^= (rotl((k2 * c2) & m, 33) * c1) & m
        h2 = (rotl(h2, 31) + h1) & m
        h2 = (h2 * 5 + 0x38495AB5) & m
    tail = data[16 * nblocks:]
    k1 = k2 = 0
    for i in range(len(tail) - 1, 7, -1):
        k2 ^= tail[i] << ((i - 8) * 8)
    if len(tail) > 8:
        h2 ^= (rotl((k2 * c2) & m, 33) * c1) & m
    for i in range(min(len(tail), 8) - 1, -1, -1):
        k1 ^= tail[i] << (i * 8)
    if tail:
        h1 ^= (rotl((k1 * c1) & m, 31) * c2) & m
    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & m
    h2 = (h2 + h1) & m
    h1, h2 = fmix(h1), fmix(h2)
    h1 = (h1 + h2) & m
    h2 = (h2 + h1) & m
    return h1.to_bytes(8, "little") + h2.to_bytes(8, "little")


def vertex_id_of_uid(uid: str) -> str:
    return murmur3_x64_128(uid.encode("utf-8")).hex()


# --- the test ----------------------------------------------------------------

def env(name: str) -> str:
    v = os.environ.get(name)
    if not v:
        raise SystemExit(f"smoke: {name} is not set: run under tools/realparts/with-parts.sh")
    return v


def local_path(uri: str) -> Path:
    """file:/x, file:///x or /x -> Path('/x')"""
    if uri.startswith("file://"):
        uri = uri[len("file://"):]
    elif uri.startswith("file:"):
        uri = uri[len("file:"):]
    return Path(uri)


def by_key(records, field: str) -> dict:
    """upsert topic -> {key's k: value's field}"""
    out = {}
    for k, v in records:
        kk = k["k"] if isinstance(k, dict) else k
        if v is None:
            out.pop(kk, None)
        else:
            out[kk] = v[field]
    return out


def wait_topic(topic: str, field: str, expected: dict, timeout: float = 60) -> dict:
    def got():
        t = by_key(ku.read_all(topic, timeout=10, missing_ok=True), field)
        return t if t == expected else None
    try:
        return wait_until(f"{topic} == {expected}", got, timeout, 0.5)
    except TimeoutError:
        raise AssertionError(f"{topic}: expected {expected}, have "
                             f"{by_key(ku.read_all(topic, timeout=10, missing_ok=True), field)}") from None


def vertex_summary(job: dict) -> list[dict]:
    return [{"id": v["id"], "name": v["name"][:70]} for v in job["vertices"]]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", help="write the observed facts as JSON to this file")
    args = ap.parse_args()
    def on_alarm(*_):
        raise TimeoutError("SMOKE_TIMEOUT reached")
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(int(os.environ.get("SMOKE_TIMEOUT", "240")))

    bs = env("KAFKA_BOOTSTRAP")
    gw = Gateway(env("FLINK_GATEWAY"))
    jm = JobManager(env("FLINK_REST"))
    sp_dir = Path(env("FLINK_SAVEPOINT_DIR"))
    run = format(int(time.time() * 1000) % 10**9, "x")
    work = Path(env("REALPARTS_STATE_DIR")) / f"smoke-{run}"  # compiled plans; down.sh removes it
    work.mkdir(parents=True, exist_ok=True)
    started: list[str] = []
    ok = False
    try:
        _smoke(bs, gw, jm, sp_dir, work, run, started)
        ok = True
    finally:
        for jid in started:
            try:
                if jm.job(jid)["state"] not in ("FINISHED", "CANCELED", "FAILED"):
                    jm.cancel(jid)
            except Exception:  # noqa: BLE001 - best effort on the way out
                pass
        try:
            gw.close()
        except Exception:  # noqa: BLE001
            pass
        FACTS["smoke_seconds"] = round(time.monotonic() - T0, 1)
        FACTS["smoke_passed"] = ok
        if args.facts:
            Path(args.facts).write_text(json.dumps(FACTS, indent=2, default=str) + "\n")
    print(json.dumps(FACTS, indent=2, default=str))
    say(f"SMOKE PASSED in {time.monotonic() - T0:.1f}s")
    print("1 passed, 0 failed")
    return 0


def _smoke(bs, gw: Gateway, jm: JobManager, sp_dir: Path, work: Path, run: str, started: list) -> None:
    t_events, t_totals, t_counts = f"sm_events_{run}", f"sm_totals_{run}", f"sm_counts_{run}"

    # -- 0. the Kafka helper itself: keys, tombstones, assign()-based reads
    say("kafka helper")
    ku.create_topics([t_events, t_totals, t_counts, f"sm_tomb_{run}"])
    ku.produce(f"sm_tomb_{run}", [("x", {"a": 1}), ({"k": "y"}, {"a": 2}), ("x", None), {"no": "key"}])
    got = ku.read_all(f"sm_tomb_{run}", timeout=15)
    check(got == [("x", {"a": 1}), ({"k": "y"}, {"a": 2}), ("x", None), (None, {"no": "key"})],
          f"read_all returns keys, values and tombstones in order: {got}")

    # -- 1. gateway basics
    say("gateway basics")
    fact("gateway.GET /api_versions", http("GET", f"{gw.base}/api_versions"))
    fact("gateway.GET /v2/info", http("GET", f"{gw.base}/v2/info"))
    opened = gw.open(f"smoke-{run}", {"table.local-time-zone": "UTC"})
    fact("gateway.POST /v2/sessions response", opened)
    cfg = http("GET", f"{gw.base}/v2/sessions/{gw.session}")
    check(cfg["properties"].get("table.local-time-zone") == "UTC",
          "GET /v2/sessions/<h> returns {properties:{...}} with the session's properties")
    op_resp = http("POST", f"{gw.base}/v2/sessions/{gw.session}/statements", {"statement": "SHOW CATALOGS"})
    fact("gateway.POST /v2/sessions/<h>/statements response", op_resp)
    st = wait_until("SHOW CATALOGS finished", lambda: (lambda s: s if s != "RUNNING" and s != "PENDING"
                                                              and s != "INITIALIZED" else None)(
        gw.status(op_resp["operationHandle"])), 30, 0.2)
    fact("gateway.GET .../operations/<op>/status response", {"status": st})
    shown = gw.fetch_all(op_resp["operationHandle"], "SHOW CATALOGS", 30)
    fact("gateway.SHOW CATALOGS result pages", [{k: v for k, v in p.items() if k != "results"}
                                               for p in shown.pages])
    try:
        http("GET", f"{gw.base}/v2/sessions/{gw.session}/operations/{op_resp['operationHandle']}/result/0")
        fact("gateway.fetch without rowFormat", "accepted (200; rowFormat defaults to JSON)")
    except HttpError as e:
        fact("gateway.fetch without rowFormat", f"HTTP {e.status}")
    fact("gateway.POST /v2/sessions/<h>/heartbeat response",
         http("POST", f"{gw.base}/v2/sessions/{gw.session}/heartbeat"))

    common = f"'properties.bootstrap.servers' = '{bs}'"
    ddl = gw.execute(f"""CREATE TABLE events (k STRING, v BIGINT) WITH (
        'connector' = 'kafka', 'topic' = '{t_events}', {common},
        'properties.group.id' = 'smoke-{run}', 'scan.startup.mode' = 'earliest-offset',
        'format' = 'json')""")
    fact("gateway.DDL result", {"columns": ddl.columns, "rows": ddl.rows, "resultKind": ddl.result_kind,
                                "isQueryResult": ddl.is_query, "jobID": ddl.job_id})
    for table, topic, col in (("totals", t_totals, "total"), ("counts", t_counts, "n")):
        gw.execute(f"""CREATE TABLE {table} (k STRING, {col} BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
            'connector' = 'upsert-kafka', 'topic' = '{topic}', {common},
            'key.format' = 'json', 'value.format' = 'json')""")

    def statement_set(hint: str = "") -> str:
        return (f"EXECUTE STATEMENT SET BEGIN "
                f"INSERT INTO totals SELECT k, SUM(v) FROM events {hint} GROUP BY k; "
                f"INSERT INTO counts SELECT k, COUNT(*) FROM events {hint} GROUP BY k; END")

    # -- 2. first job
    say("statement set: kafka -> SUM/COUNT -> upsert-kafka")
    ku.produce(t_events, [{"k": "a", "v": 1}, {"k": "a", "v": 2}, {"k": "b", "v": 10}, {"k": "a", "v": 3}])
    name1 = f"smoke-sum-{run}"
    res = gw.execute(statement_set(), {"pipeline.name": name1})
    fact("gateway.statement set result", {
        "columns": res.columns, "rows": res.rows, "jobID": res.job_id, "isQueryResult": res.is_query,
        "resultKind": res.result_kind, "first payload page keys": sorted(res.first_payload)})
    check(res.columns == ["job id"] and len(res.rows) == 1, "a statement set's result is one row, column 'job id'")
    jid1 = res.rows[0][0]
    started.append(jid1)
    check(res.job_id == jid1, "the result's jobID field equals the 'job id' column")
    check(res.is_query is False, "the server writes isQueryResult (false for INSERT), not queryResult")
    j1 = jm.wait_running(jid1)
    check(j1["name"] == name1, f"executionConfig pipeline.name names the job ({j1['name']})")
    fact("jobmanager.GET /jobs/<id> keys", sorted(j1))
    fact("job1.vertices", vertex_summary(j1))
    jobs = gw.execute("SHOW JOBS")
    fact("gateway.SHOW JOBS columns", jobs.columns)
    check([jid1, name1, "RUNNING"] in [r[:3] for r in jobs.rows], "SHOW JOBS lists the job as RUNNING")
    desc = gw.execute(f"DESCRIBE JOB '{jid1}'")
    fact("gateway.DESCRIBE JOB result", {"columns": desc.columns, "rows": desc.rows})
    wait_topic(t_totals, "total", {"a": 6, "b": 10})
    wait_topic(t_counts, "n", {"a": 3, "b": 1})
    check(True, "sink topics hold SUM and COUNT by key")

    # -- 3. stop with savepoint through the gateway
    say("STOP JOB WITH SAVEPOINT (gateway)")
    stop = gw.execute(f"STOP JOB '{jid1}' WITH SAVEPOINT", timeout=90)
    fact("gateway.STOP JOB WITH SAVEPOINT result", {"columns": stop.columns, "rows": stop.rows,
                                                     "resultKind": stop.result_kind})
    check(stop.columns == ["savepoint path"], "STOP JOB ... WITH SAVEPOINT returns column 'savepoint path'")
    sp1 = stop.rows[0][0]
    check((local_path(sp1) / "_metadata").is_file(), f"savepoint {sp1} exists on disk (_metadata)")
    check(local_path(sp1).parent == sp_dir,
          "with no directory given it lands in execution.checkpointing.savepoint-dir")
    check(jm.wait_state(jid1, ("FINISHED",))["state"] == "FINISHED", "a job stopped with savepoint is FINISHED")

    # -- 4. restore: the aggregate continues
    say("restore from the gateway's savepoint")
    ku.produce(t_events, [{"k": "a", "v": 4}, {"k": "b", "v": 5}, {"k": "c", "v": 7}])
    # latest-offset: a job that did NOT restore would skip every event above
    # and leave the sinks as they are; a restored one resumes at the saved
    # offsets and adds the new events to the saved sums.
    latest = "/*+ OPTIONS('scan.startup.mode' = 'latest-offset') */"
    name2 = f"smoke-sum-restored-{run}"
    res2 = gw.execute(statement_set(latest), {"pipeline.name": name2, "execution.state-recovery.path": sp1})
    jid2 = res2.rows[0][0]
    started.append(jid2)
    j2 = jm.wait_running(jid2)
    restored = jm.checkpoints(jid2)["latest"]["restored"]
    fact("jobmanager.checkpoints latest.restored", restored)
    check(restored and restored["external_path"] == sp1 and restored["is_savepoint"],
          "/jobs/<id>/checkpoints latest.restored.external_path is the savepoint")
    wait_topic(t_totals, "total", {"a": 10, "b": 15, "c": 7})
    wait_topic(t_counts, "n", {"a": 4, "b": 2, "c": 1})
    check(True, "after restore the aggregates continue from the saved values")
    fact("job2.vertices", vertex_summary(j2))
    check([v["id"] for v in j1["vertices"]] == [v["id"] for v in j2["vertices"]],
          "plain SQL (uid generation PLAN_ONLY): vertex ids are topology hashes, equal across resubmission")

    # -- 5. stop with savepoint through the JobManager REST API
    say("POST /jobs/<id>/stop (JobManager)")
    bad = jm.trigger_stop(jid2, "file:///proc/streamform-no-such-dir")
    bad_status = jm.savepoint_status(jid2, bad["request-id"])
    fact("jobmanager.failed stop-with-savepoint status", {
        "status": bad_status["status"], "operation keys": sorted(bad_status.get("operation", {})),
        "failure-cause.class": bad_status.get("operation", {}).get("failure-cause", {}).get("class")})
    check(bad_status["status"]["id"] == "COMPLETED" and "failure-cause" in bad_status["operation"],
          "a failed savepoint also reports status.id COMPLETED, with operation.failure-cause")
    check(jm.job(jid2)["state"] == "RUNNING", "the job keeps running after a failed stop-with-savepoint")
    trig = jm.trigger_stop(jid2, f"file://{sp_dir}/rest", drain=False)
    fact("jobmanager.POST /jobs/<id>/stop response", trig)
    sp_status = jm.savepoint_status(jid2, trig["request-id"])
    fact("jobmanager.GET /jobs/<id>/savepoints/<trigger> response", sp_status)
    sp2 = sp_status["operation"]["location"]
    check((local_path(sp2) / "_metadata").is_file(), f"REST savepoint {sp2} exists on disk")
    jm.wait_state(jid2, ("FINISHED",))

    say("restore from the REST savepoint; executionConfig does not stick")
    ku.produce(t_events, [{"k": "a", "v": 100}])
    res3 = gw.execute(statement_set(latest), {"execution.state-recovery.path": sp2})
    jid3 = res3.rows[0][0]
    started.append(jid3)
    j3 = jm.wait_running(jid3)
    fact("job3.name without pipeline.name", j3["name"])
    check(j3["name"] not in (name1, name2), "per-statement executionConfig does not carry over to the next statement")
    check(jm.checkpoints(jid3)["latest"]["restored"]["external_path"] == sp2, "restored from the REST savepoint")
    wait_topic(t_totals, "total", {"a": 110, "b": 15, "c": 7})
    stop3 = gw.execute(f"STOP JOB '{jid3}'")
    fact("gateway.STOP JOB (no savepoint) result", {"columns": stop3.columns, "rows": stop3.rows})
    fact("job3 state after STOP JOB without savepoint",
         jm.wait_state(jid3, ("FINISHED", "CANCELED"))["state"])

    # -- 6. compiled plans and operator uids
    compiled_plans(bs, gw, jm, work, run, started)

    # -- 7. JSON timestamps
    json_timestamps(bs, gw, jm, run)


def compiled_plans(bs, gw: Gateway, jm: JobManager, work: Path, run: str, started: list) -> None:
    say("COMPILE PLAN / EXECUTE PLAN and uids")
    common = f"'properties.bootstrap.servers' = '{bs}'"

    def tables(prefix: str) -> None:
        ku.create_topics([f"{prefix}_events_{run}", f"{prefix}_totals_{run}"])
        gw.execute(f"""CREATE TABLE {prefix}_events (k STRING, v BIGINT) WITH (
            'connector' = 'kafka', 'topic' = '{prefix}_events_{run}', {common},
            'properties.group.id' = '{prefix}-{run}', 'scan.startup.mode' = 'earliest-offset',
            'format' = 'json')""")
        gw.execute(f"""CREATE TABLE {prefix}_totals (k STRING, total BIGINT, PRIMARY KEY (k) NOT ENFORCED)
            WITH ('connector' = 'upsert-kafka', 'topic' = '{prefix}_totals_{run}', {common},
            'key.format' = 'json', 'value.format' = 'json')""")

    def compile_plan(name: str, select: str, prefix: str) -> tuple[Path, dict]:
        path = work / f"{name}.json"
        res = gw.execute(f"COMPILE PLAN 'file://{path}' FOR STATEMENT SET BEGIN "
                         f"INSERT INTO {prefix}_totals {select}; END")
        if name == "p1":
            fact("gateway.COMPILE PLAN result", {"columns": res.columns, "rows": res.rows,
                                                 "resultKind": res.result_kind})
        return path, json.loads(path.read_text())

    def node(plan: dict, type_prefix: str) -> dict:
        return next(n for n in plan["nodes"] if n["type"].startswith(type_prefix))

    def execute_plan(path: Path, config: dict) -> tuple[str, dict]:
        res = gw.execute(f"EXECUTE PLAN 'file://{path}'", config)
        jid = res.rows[0][0]
        started.append(jid)
        return jid, jm.wait_running(jid)

    def vertex(job: dict, name_prefix: str) -> str:
        return next(v["id"] for v in job["vertices"] if v["name"].startswith(name_prefix))

    tables("u")
    sum_sql = "SELECT k, SUM(v) FROM u_events GROUP BY k"
    changed_sql = "SELECT k, SUM(v) FROM u_events WHERE v < 1000 GROUP BY k"
    p1, plan1 = compile_plan("p1", sum_sql, "u")
    fact("plan.p1 nodes", [(n["id"], n["type"]) for n in plan1["nodes"]])
    fact("plan.top-level keys", sorted(plan1))
    p1b, plan1b = compile_plan("p1b", sum_sql, "u")
    fact("plan.p1 compiled again: node ids", [n["id"] for n in plan1b["nodes"]])
    check([n["id"] for n in plan1b["nodes"]] != [n["id"] for n in plan1["nodes"]],
          "ExecNode ids come from a counter in the gateway JVM: the same query compiles to other ids")
    try:
        gw.execute(f"COMPILE PLAN 'file://{p1}' FOR STATEMENT SET BEGIN INSERT INTO u_totals {sum_sql}; END")
        fact("plan.COMPILE PLAN onto an existing file", "allowed (overwrote)")
    except StatementError as e:
        fact("plan.COMPILE PLAN onto an existing file", e.causes[-1][:300])
    try:
        gw.execute(f"COMPILE PLAN 'file://{p1}' IF NOT EXISTS FOR STATEMENT SET BEGIN "
                   f"INSERT INTO u_totals {sum_sql}; END")
        fact("plan.COMPILE PLAN ... IF NOT EXISTS onto an existing file", "OK (file kept)")
    except StatementError as e:
        fact("plan.COMPILE PLAN ... IF NOT EXISTS onto an existing file", e.causes[-1][:300])

    # job U1: p1 with a literal uid for the aggregate chosen in the plan file
    src1, agg1, sink1 = node(plan1, "stream-exec-table-source-scan"), \
        node(plan1, "stream-exec-group-aggregate"), node(plan1, "stream-exec-sink")
    agg1.setdefault("configuration", {})["table.exec.uid.format"] = "streamform-totals-agg"
    p1.write_text(json.dumps(plan1, indent=2))
    ku.produce(f"u_events_{run}", [{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": "a", "v": 3}])
    ju1, job_u1 = execute_plan(p1, {"pipeline.name": f"smoke-plan-{run}"})
    check(vertex(job_u1, "Source") == vertex_id_of_uid(f"{src1['id']}_kafka"),
          f"default table.exec.uid.format '<id>_<transformation>': the source's uid is '{src1['id']}_kafka'")
    check(vertex(job_u1, "GroupAggregate") == vertex_id_of_uid("streamform-totals-agg"),
          "a per-node 'table.exec.uid.format' in the plan file sets that node's uid (literal 'streamform-totals-agg')")
    wait_topic(f"u_totals_{run}", "total", {"a": 4, "b": 2})
    spu1 = gw.execute(f"STOP JOB '{ju1}' WITH SAVEPOINT", timeout=90).rows[0][0]

    # the changed query's plan, as compiled: other ids, so other uids
    p2, plan2 = compile_plan("p2", changed_sql, "u")
    fact("plan.p2 (changed query) nodes", [(n["id"], n["type"]) for n in plan2["nodes"]])
    try:
        jbad, _ = execute_plan(p2, {"execution.state-recovery.path": spu1})
        fact("plan.changed plan restored with default uids", f"unexpectedly ran as {jbad}")
        jm.cancel(jbad)
        raise AssertionError("a changed plan with fresh ids restored state it cannot map")
    except StatementError as e:
        fact("plan.changed plan restored with default uids", e.causes[-1][:400])
        fact("gateway.status of an operation whose job submission failed", gw.status(e.op))
        check("Cannot map checkpoint/savepoint state" in e.causes[-1],
              "restoring a recompiled changed query with default uids fails: state cannot be mapped")

    # the same plan with its nodes' uids pinned to p1's: restores
    src2, agg2, sink2 = node(plan2, "stream-exec-table-source-scan"), \
        node(plan2, "stream-exec-group-aggregate"), node(plan2, "stream-exec-sink")
    src2.setdefault("configuration", {})["table.exec.uid.format"] = f"{src1['id']}_<transformation>"
    agg2.setdefault("configuration", {})["table.exec.uid.format"] = "streamform-totals-agg"
    sink2.setdefault("configuration", {})["table.exec.uid.format"] = f"{sink1['id']}_<transformation>"
    p2.write_text(json.dumps(plan2, indent=2))
    ku.produce(f"u_events_{run}", [{"k": "a", "v": 10}, {"k": "a", "v": 5000}, {"k": "c", "v": 1}])
    ju2, job_u2 = execute_plan(p2, {"execution.state-recovery.path": spu1,
                                    "pipeline.name": f"smoke-plan-changed-{run}"})
    check(jm.checkpoints(ju2)["latest"]["restored"]["external_path"] == spu1,
          "the changed plan with uids pinned per node restores from the old savepoint")
    wait_topic(f"u_totals_{run}", "total", {"a": 14, "b": 2, "c": 1})
    check(True, "state restored by uid across the changed query: a = 4 + 10 (5000 filtered by the new WHERE)")
    spu2 = gw.execute(f"STOP JOB '{ju2}' WITH SAVEPOINT", timeout=90).rows[0][0]

    # the aggregate under a new uid: its old state is unclaimed
    agg2["configuration"]["table.exec.uid.format"] = "streamform-totals-agg-v2"
    p2.write_text(json.dumps(plan2, indent=2))
    try:
        jbad, _ = execute_plan(p2, {"execution.state-recovery.path": spu2})
        jm.cancel(jbad)
        raise AssertionError("unclaimed aggregate state was silently dropped")
    except StatementError as e:
        check("Cannot map checkpoint/savepoint state" in e.causes[-1],
              "state of an operator whose uid is gone fails the restore")
    ku.produce(f"u_events_{run}", [{"k": "a", "v": 20}])
    ju3, _ = execute_plan(p2, {"execution.state-recovery.path": spu2,
                               "execution.state-recovery.ignore-unclaimed-state": "true"})
    wait_topic(f"u_totals_{run}", "total", {"a": 20, "b": 2, "c": 1})
    check(True, "with execution.state-recovery.ignore-unclaimed-state the job runs and the renamed "
                "aggregate starts empty (a = 20) while the source keeps its offsets")
    gw.execute(f"STOP JOB '{ju3}'")

    # a global format without <id>: stable across a changed plan, unless two
    # nodes share a transformation name
    tables("g")
    g1, _ = compile_plan("g1", "SELECT k, SUM(v) FROM g_events GROUP BY k", "g")
    g2, _ = compile_plan("g2", "SELECT k, SUM(v) FROM g_events WHERE v < 1000 GROUP BY k", "g")
    fmt = {"table.exec.uid.format": "sf_<transformation>"}
    ku.produce(f"g_events_{run}", [{"k": "a", "v": 1}, {"k": "a", "v": 2}])
    jg1, job_g1 = execute_plan(g1, dict(fmt, **{"pipeline.name": f"smoke-plan-global-{run}"}))
    check(vertex(job_g1, "Source") == vertex_id_of_uid("sf_kafka")
          and vertex(job_g1, "GroupAggregate") == vertex_id_of_uid("sf_group-aggregate"),
          "a global table.exec.uid.format given at EXECUTE PLAN applies ('sf_kafka', 'sf_group-aggregate')")
    wait_topic(f"g_totals_{run}", "total", {"a": 3})
    spg = gw.execute(f"STOP JOB '{jg1}' WITH SAVEPOINT", timeout=90).rows[0][0]
    ku.produce(f"g_events_{run}", [{"k": "a", "v": 4}])
    jg2, _ = execute_plan(g2, dict(fmt, **{"execution.state-recovery.path": spg}))
    check(jm.checkpoints(jg2)["latest"]["restored"]["external_path"] == spg,
          "with a format without <id> the changed query's plan restores as compiled")
    wait_topic(f"g_totals_{run}", "total", {"a": 7})
    gw.execute(f"STOP JOB '{jg2}'")
    # uid generation ALWAYS on plain SQL: '<id>_<transformation>' with the
    # planner's counter, so the same statement gets new uids each time
    always = []
    for _ in range(2):
        res = gw.execute("INSERT INTO g_totals SELECT k, SUM(v) FROM g_events GROUP BY k",
                         {"table.exec.uid.generation": "ALWAYS"})
        jid = res.rows[0][0]
        started.append(jid)
        job = jm.wait_running(jid)
        src = vertex(job, "Source")
        n = next((i for i in range(1, 5000) if vertex_id_of_uid(f"{i}_kafka") == src), None)
        always.append((src, n))
        gw.execute(f"STOP JOB '{jid}'")
    fact("plan.ALWAYS on plain SQL, same INSERT twice: (source vertex id, n of uid '<n>_kafka')", always)
    check(always[0][1] is not None and always[1][1] is not None and always[0][0] != always[1][0],
          "table.exec.uid.generation=ALWAYS gives plain SQL '<n>_kafka' uids that change between submissions")
    try:
        dup = gw.execute("EXECUTE STATEMENT SET BEGIN "
                   "INSERT INTO g_totals SELECT k, SUM(v) FROM g_events GROUP BY k; "
                   "INSERT INTO u_totals SELECT k, MAX(v) FROM g_events GROUP BY k; END",
                   {"table.exec.uid.generation": "ALWAYS", **fmt})
        fact("plan.format without <id>, two aggregates", "accepted")
        started.extend(r[0] for r in dup.rows)
    except StatementError as e:
        fact("plan.format without <id>, two aggregates", e.causes[-1][:300])
        check("Hash collision on user-specified ID" in e.causes[-1],
              "a format without <id> fails when two nodes share a transformation name")


def json_timestamps(bs, gw: Gateway, jm: JobManager, run: str) -> None:
    say("JSON timestamps")
    topic = f"ts_probe_{run}"
    values = ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.123Z", "2024-01-01T00:00:00",
              "2024-01-01T00:00:00.123", "2024-01-01 00:00:00", "2024-01-01 00:00:00Z",
              "2024-01-01T01:00:00+01:00"]
    ku.create_topics([topic])
    ku.produce(topic, [{"id": i, "s": v, "a": v, "b": v} for i, v in enumerate(values)])
    table_accepts = {}
    set_name = f"smoke-set-name-{run}"
    for std in ("ISO-8601", "SQL"):
        t = "tsp_" + std.replace("-", "").lower()
        gw.execute(f"""CREATE TABLE {t} (id INT, s STRING, a TIMESTAMP(3), b TIMESTAMP_LTZ(3)) WITH (
            'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bs}',
            'properties.group.id' = 'tsp-{run}', 'scan.startup.mode' = 'earliest-offset',
            'scan.bounded.mode' = 'latest-offset', 'format' = 'json',
            'json.timestamp-format.standard' = '{std}', 'json.ignore-parse-errors' = 'true')""")
        if std == "ISO-8601":
            gw.execute(f"SET 'pipeline.name' = '{set_name}'")
        res = gw.execute(f"SELECT id, s, a, b FROM {t}", timeout=60)
        name = jm.job(res.job_id)["name"]
        if std == "ISO-8601":
            check(name == set_name, "a session-level SET 'pipeline.name' names later jobs")
            gw.execute("RESET 'pipeline.name'")
            fact("gateway.query result", {"columns": res.columns, "isQueryResult": res.is_query,
                                          "resultKind": res.result_kind, "row kinds": sorted(set(res.kinds)),
                                          "example row": res.rows[0]})
        else:
            check(name != set_name, "RESET 'pipeline.name' clears it again")
        rows = sorted(res.rows)
        check(len(rows) == len(values), f"{std}: one row per record (a bad field is null, the row is kept)")
        table_accepts[std] = {
            "TIMESTAMP(3)": {values[r[0]]: r[2] for r in rows if r[2] is not None},
            "TIMESTAMP_LTZ(3)": {values[r[0]]: r[3] for r in rows if r[3] is not None},
        }
    fact("json.accepted (input -> value as the gateway's JSON rows show it; others were parse errors)",
         table_accepts)
    iso = table_accepts["ISO-8601"]
    check("2024-01-01T00:00:00Z" not in iso["TIMESTAMP(3)"],
          "ISO-8601 + TIMESTAMP(3) rejects '2024-01-01T00:00:00Z'")
    check("2024-01-01T00:00:00Z" in iso["TIMESTAMP_LTZ(3)"],
          "ISO-8601 + TIMESTAMP_LTZ(3) accepts '2024-01-01T00:00:00Z'")
    # without ignore-parse-errors: the exact error
    ztopic = f"ts_z_{run}"
    ku.create_topics([ztopic])
    ku.produce(ztopic, [{"a": "2024-01-01T00:00:00Z"}])
    gw.execute(f"""CREATE TABLE tsz (a TIMESTAMP(3)) WITH (
        'connector' = 'kafka', 'topic' = '{ztopic}', 'properties.bootstrap.servers' = '{bs}',
        'properties.group.id' = 'tsz-{run}', 'scan.startup.mode' = 'earliest-offset',
        'scan.bounded.mode' = 'latest-offset', 'format' = 'json',
        'json.timestamp-format.standard' = 'ISO-8601')""")
    try:
        gw.execute("SELECT a FROM tsz", timeout=60)
        raise AssertionError("ISO-8601 TIMESTAMP(3) accepted a Z value without ignore-parse-errors")
    except StatementError as e:
        fact("json.strict error for 'Z' into TIMESTAMP(3) (gateway)", e.causes[-3:])
        check(True, "without json.ignore-parse-errors the query fails")
        fact("gateway.status of a query operation whose job failed", gw.status(e.op))
        closed = http("DELETE", f"{gw.base}/v2/sessions/{gw.session}/operations/{e.op}/close")
        fact("gateway.DELETE .../operations/<op>/close response", closed)
    failed = [j for j in http("GET", f"{jm.base}/jobs/overview")["jobs"] if j["state"] == "FAILED"]
    if failed:
        last = max(failed, key=lambda j: j["start-time"])
        exc = http("GET", f"{jm.base}/jobs/{last['jid']}/exceptions")
        root = exc.get("exceptionHistory", {}).get("entries", [{}])[0].get("stacktrace", "") \
            or exc.get("root-exception", "")
        fact("json.strict error for 'Z' into TIMESTAMP(3) (job root cause)",
             [ln.strip() for ln in root.splitlines() if ln.strip().startswith("Caused by:")][-2:])
    fact("gateway.DELETE /v2/sessions/<h> response", gw.close())


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (AssertionError, TimeoutError, StatementError, HttpError) as e:
        say(f"SMOKE FAILED: {type(e).__name__}: {e}")
        print(json.dumps(FACTS, indent=2, default=str))
        print("0 passed, 1 failed")
        sys.exit(1)
