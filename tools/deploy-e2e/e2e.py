#!/usr/bin/env python3
"""End-to-end suite of `streamform apply/stop/status/plan --target` on the
real parts (Kafka, a Flink session cluster, the SQL Gateway), started by
tools/realparts/with-parts.sh (see run.sh). Every wait is bounded; an
overall alarm (DEPLOY_E2E_TIMEOUT, 900 s) ends it regardless.

  v1  kafka source -> upsert-kafka SUM/COUNT by user: plan --out, apply --plan
  stop with a savepoint; a plan made before the stop is refused as stale,
      an edited plan as tampered
  v2  COMPATIBLE (the sink moves to another topic): deploy plan `upgrade`,
      apply restores the savepoint and the totals CONTINUE: the sink equals
      the simulator (`streamform run`) over every event produced so far
  v3  STATE INCOMPATIBLE (GROUP BY changed): refused without
      --allow-state-loss (nothing changes), then applied with it: a rebuild
      whose state starts empty and replays the topic from earliest, so the
      sink equals the simulator over every event again
  pinned uids: a new model, then a rename (renamed_from), move Flink's
      operator graph and still restore node by node (the totals continue);
      a reader of ref() that Flink cannot pin is planned as a rebuild
  window: a tumbling window aggregate (its own job) stopped while a
      window is open; a new model (pinned, COMPATIBLE) restores it, and the
      window closes with the events from before the savepoint counted;
      a uids record cut short is refused by plan and apply, and status
      says so (DEPLOY_E2E_ONLY=window: this part alone)
  join: a regular join (its own job) stopped while an order waits for its
      customer; a new model (pinned, COMPATIBLE) restores it, and the
      customer arriving after the upgrade joins the order from before the
      savepoint, as the simulator says (DEPLOY_E2E_ONLY=join: this part alone)
  sinks: what the plan says each sink sees (replayed or not, a new sink's
      history, a rebuilt upsert sink's overwritten and stale keys) is what
      the sink topics show after an upgrade and a rebuild, and the cutover
      offsets apply records are the source topic's end offsets
      (DEPLOY_E2E_ONLY=sinks: this part alone)
  status (text and --json) at each step; a second apply while the lock is
      held is refused
  secrets: a target read from the environment (`${…}`), whose Kafka
      properties are secret (a canary client.id, and security.protocol, which
      would fail the job if its placeholder reached Kafka) and whose sink topic
      is overridden: the pinned job runs and writes the totals, and the canary
      is in no file of the project or the plan directory, nor in any output
      (DEPLOY_E2E_ONLY=secrets runs this part alone)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path


def _reexec_with_client() -> None:
    try:
        import confluent_kafka  # noqa: F401
    except ImportError:
        py = os.environ.get("REALPARTS_PYTHON")
        if py and os.path.exists(py) and not os.environ.get("_E2E_REEXEC"):
            os.environ["_E2E_REEXEC"] = "1"
            os.execv(py, [py] + sys.argv)
        raise


_reexec_with_client()
sys.path.insert(0, os.environ["REALPARTS_DIR"])
import kafka_util as ku  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SF = os.environ.get("STREAMFORM", str(ROOT / "target/debug/streamform"))
T0 = time.monotonic()
TIMES: dict[str, float] = {}
CHECKS = 0


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def check(cond: bool, what: str, detail: str = "") -> None:
    global CHECKS
    if not cond:
        raise AssertionError(f"{what}\n{detail}")
    CHECKS += 1
    say(f"ok   {what}")


def sf(proj: Path, *args: str, timeout: float = 300, timed: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    t = time.monotonic()
    r = subprocess.run([SF, *args], cwd=proj, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env)
    if timed:
        TIMES[timed] = round(time.monotonic() - t, 2)
    say(f"$ streamform {' '.join(args)}  -> exit {r.returncode}")
    for line in (r.stdout + r.stderr).splitlines():
        print(f"      | {line}")
    return r


AGREED = 0


def planned(proj: Path, out: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`plan --target e2e --out OUT`, after `plan --target e2e` alone: the
    two must decide alike (issue 23's one verdict): the same exit code,
    verdict line, deploy action, and what they tell each sink."""
    global AGREED
    def decision(r):
        lines = r.stdout.splitlines()
        return (r.returncode, [l for l in lines if l.startswith("verdict: ")], [l.split(":")[1].strip() for l in lines if l.startswith("deploy: ")],
                [l for l in lines if l.startswith(("cutover: ", "sink: "))])
    alone = decision(sf(proj, "plan", "--target", "e2e", env=env))
    r = sf(proj, "plan", "--target", "e2e", "--out", out, env=env)
    check(decision(r) == alone, f"plan --target and plan --out decide alike: {alone}", f"plan --out: {decision(r)}")
    AGREED += 1
    return r


def sim_output(proj: Path, events: list[dict], model: str, kind: str) -> list[str]:
    """The lines of `streamform run`'s `<model>.<kind>.jsonl` over `events`."""
    work = proj / ".sim"
    shutil.rmtree(work, ignore_errors=True)
    (work / "in").mkdir(parents=True)
    (work / "in" / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    r = subprocess.run([SF, "run", "--input", str(work / "in"), "--output", str(work / "out")], cwd=proj, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [line for line in (work / "out" / f"{model}.{kind}.jsonl").read_text().splitlines() if line.strip()]


def simulate(proj: Path, events: list[dict], model: str) -> dict:
    """The simulator's final table of `model` over `events`, keyed like the sink."""
    rows = [json.loads(line) for line in sim_output(proj, events, model, "table")]
    return {tuple(sorted((k, v) for k, v in row.items())): row for row in rows}


def sink_table(topic: str) -> dict:
    return {tuple(sorted(v.items())): v for v in ku.latest_by_key(ku.read_all(topic, 20)).values()}


def wait_sink(topic: str, expected: dict, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    got: dict = {}
    while time.monotonic() < deadline:
        got = sink_table(topic)
        if got == expected:
            return got
        time.sleep(1)
    raise AssertionError(f"sink {topic} did not reach the simulator's table in {timeout}s:\n got      {sorted(got.values(), key=str)}\n expected {sorted(expected.values(), key=str)}")


def status_json(proj: Path) -> dict:
    r = sf(proj, "status", "--json")
    return json.loads(r.stdout)


def journal(proj: Path) -> list[dict]:
    d = proj / ".streamform/journal/e2e"
    return [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))] if d.exists() else []


def gateway_pid_file() -> Path:
    return Path(os.environ["REALPARTS_STATE_DIR"]) / "pids/sql-gateway.pid"


def kill_gateway() -> None:
    """Kills the SQL Gateway that up.sh started (its process group)."""
    pid = int(gateway_pid_file().read_text().strip())
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert f"STREAMFORM_REALPARTS_OWNER={os.environ['REALPARTS_STATE_DIR']}".encode() in environ, "not our gateway"
    os.killpg(pid, signal.SIGKILL)
    say(f"killed the gateway (pid {pid})")


def start_gateway() -> None:
    """Starts the gateway again as up.sh does, so down.sh stops it."""
    start_part("sql-gateway", "sql-gateway.sh")


def start_part(pidname: str, script: str) -> None:
    """Starts a Flink part (`sql-gateway`, `taskmanager`, `jobmanager`) again as up.sh
    does, so down.sh stops it, and waits (bounded) until it serves."""
    env, state = os.environ, os.environ["REALPARTS_STATE_DIR"]
    penv = dict(env, FLINK_CONF_DIR=env["REALPARTS_FLINK_CONF_DIR"], FLINK_LIB_DIR=env["REALPARTS_FLINK_LIB_DIR"],
                FLINK_OPT_DIR=env["REALPARTS_FLINK_OPT_DIR"], FLINK_LOG_DIR=env["REALPARTS_LOG_DIR"],
                FLINK_PID_DIR=f"{state}/flink/pid", FLINK_IDENT_STRING="realparts", STREAMFORM_REALPARTS_OWNER=state)
    for k in ("FLINK_ENV_JAVA_OPTS", "FLINK_ENV_JAVA_OPTS_SQL_GATEWAY", "JVM_ARGS"):
        penv.pop(k, None)
    log = open(Path(env["REALPARTS_LOG_DIR"]) / f"{pidname}.restarted.out", "w")
    p = subprocess.Popen([f"{env['REALPARTS_FLINK_BIN']}/{script}", "start-foreground"], env=penv, stdin=subprocess.DEVNULL,
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    (Path(state) / f"pids/{pidname}.pid").write_text(f"{p.pid}\n")
    import urllib.request
    ready = {"sql-gateway": (env["FLINK_GATEWAY"] + "/v2/info", lambda j: True),
             "taskmanager": (env["FLINK_REST"] + "/overview", lambda j: j["taskmanagers"] >= 1 and j["slots-available"] >= 1),
             "jobmanager": (env["FLINK_REST"] + "/overview", lambda j: j["taskmanagers"] >= 1)}[pidname]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if ready[1](json.loads(urllib.request.urlopen(ready[0], timeout=2).read())):
                say(f"the {pidname} is back (pid {p.pid})")
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"the restarted {pidname} did not answer in 90s")


def ts_text(v):
    """A timestamp as the simulator and Flink's JSON write it, compared as one text."""
    return v.replace("T", " ").removesuffix("Z").removesuffix(".000") if isinstance(v, str) else v


def own_project(env, name: str, suffix: str, models: str) -> tuple[Path, str]:
    """A copy of the suite's project for a part with its own job: its
    `models:` entries instead of `totals` (whose SQL is removed), the
    target on the parts. Returns the project and its streamform.yml."""
    proj = Path(env["REALPARTS_STATE_DIR"]) / f"deploy-e2e-{name}"
    shutil.copytree(HERE / "project", proj)
    yml = (proj / "streamform.yml").read_text()
    yml = (yml.replace("name: deploy_e2e", f"name: deploy_e2e_{suffix}").replace("GATEWAY_URL", env["FLINK_GATEWAY"]).replace("REST_URL", env["FLINK_REST"])
           .replace("SAVEPOINT_DIR", env["FLINK_SAVEPOINT_DIR"]).replace("KAFKA_BOOTSTRAP", env["KAFKA_BOOTSTRAP"])
           .replace("  totals:\n    materialized: upsert\n    key: [user_id]\n    sink: {connector: kafka, topic: TOTALS_TOPIC}\n", models))
    (proj / "streamform.yml").write_text(yml)
    (proj / "models/totals.sql").unlink()
    return proj, yml


def windowed_upgrade(env, run: str) -> None:
    """A tumbling window aggregate (its own project and job, after the main
    suite's job is stopped): events land in an open window, stop with a
    savepoint, a new independent model moves Flink's graph (COMPATIBLE,
    pinned), and once the watermark passes the window it closes with the
    events from before the savepoint counted, as the simulator says."""
    topics = {"events": f"e2e-{run}-w-events", "sink": f"e2e-{run}-per-minute", "seen": f"e2e-{run}-w-seen", "big": f"e2e-{run}-w-big"}
    proj, yml = own_project(env, f"{run}-window", "window",
                            f"  per_minute:\n    materialized: append\n    window: {{type: tumbling, size: 1m}}\n    sink: {{connector: kafka, topic: {topics['sink']}}}\n"
                            f"  seen:\n    materialized: upsert\n    key: [user_id]\n    sink: {{connector: kafka, topic: {topics['seen']}}}\n")
    (proj / "models/seen.sql").write_text("SELECT user_id, COUNT(*) AS n\nFROM source('events')\nGROUP BY user_id\n")
    (proj / "models/per_minute.sql").write_text("SELECT user_id, window_start, window_end, SUM(amount) AS total, COUNT(*) AS n\nFROM source('events')\nGROUP BY user_id, window_start, window_end\n")
    (proj / "sources.yml").write_text((proj / "sources.yml").read_text().replace("EVENTS_TOPIC", topics["events"]).replace("    schema:\n", "    event_time: ts\n    watermark: 1s\n    schema:\n").rstrip() + "\n      ts: timestamp\n")
    ku.create_topics(list(topics.values()))
    events: list[dict] = []

    def produce(batch: list[dict]) -> None:
        ku.produce(topics["events"], batch)
        events.extend(batch)

    r = sf(proj, "apply", "--yes", timed="apply (window, initial)")
    check(r.returncode == 0 and "is running" in r.stdout, "window: the tumbling window aggregate runs")
    produce([{"user_id": "a", "kind": "x", "amount": 1, "ts": "2026-01-01T00:00:10Z"}, {"user_id": "a", "kind": "x", "amount": 2, "ts": "2026-01-01T00:00:20Z"}])
    # `seen` counts the events the job has read: once it shows both, the
    # savepoint holds them in the open window (not just unread offsets).
    wait_sink(topics["seen"], {(("n", 2), ("user_id", "a")): {"user_id": "a", "n": 2}})
    r = sf(proj, "stop")
    check(r.returncode == 0 and "with savepoint file:" in r.stdout and ku.read_all(topics["sink"], 20) == [], "window: stopped with a savepoint while the window is open (nothing emitted yet)")
    (proj / "models/big.sql").write_text("SELECT user_id, amount\nFROM source('events')\nWHERE amount > 50\n")
    (proj / "streamform.yml").write_text(yml.replace("models:\n", f"models:\n  big:\n    sink: {{connector: kafka, topic: {topics['big']}}}\n", 1))
    planned(proj, "window-up.json")
    r = sf(proj, "apply", "--yes", timed="apply (window, new model, pinned upgrade)")
    check(r.returncode == 0 and "verdict: COMPATIBLE" in r.stdout and "state maps node by node" in r.stdout and "restored from file:" in r.stdout,
          "window: a new model is COMPATIBLE, pinned, and restores the savepoint")
    st = sf(proj, "status")
    check("uids: pinned to Streamform's nodes" in st.stdout, "window: status says the job's uids are pinned")
    pins = json.loads((proj / ".streamform/uids/e2e.json").read_text())["pins"]
    check(any(p["exec"] == "window-aggregate" and p["uid"] == "streamform/per_minute::aggregate::0" for p in pins), "window: the WindowAggregate's uid is its node's")
    # A uids record cut short (by hand, or a disk): plan and apply refuse,
    # saying where and what to do, rather than judge the job as unpinned.
    record = proj / ".streamform/uids/e2e.json"
    good = record.read_text()
    record.write_text(good[: len(good) // 2])
    r = sf(proj, "plan", "--target", "e2e")
    check(r.returncode == 2 and "could not read the uids record of target `e2e`" in r.stderr and "e2e.json: EOF while parsing" in r.stderr and "e2e.jobs holds a copy per job" in r.stderr,
          "window: plan refuses a cut uids record with where it is cut and where its copy is")
    r = sf(proj, "apply", "--yes")
    check(r.returncode == 2 and "so nothing was submitted" in r.stderr and "help: this file records the uids" in r.stderr, "window: apply refuses it too, before submitting anything")
    st = sf(proj, "status")
    check(st.returncode == 0 and "uids: unknown: " in st.stdout, "window: status still reports the running job, and that its uids record is unreadable")
    record.write_text(good)
    produce([{"user_id": "a", "kind": "x", "amount": 4, "ts": "2026-01-01T00:00:40Z"}, {"user_id": "b", "kind": "x", "amount": 1, "ts": "2026-01-01T00:02:00Z"}])
    sim = [json.loads(line)["columns"] for line in _run_sim(proj, events, "per_minute")]
    deadline, got = time.monotonic() + 60, []
    while time.monotonic() < deadline and not got:
        got = [v for _, v in ku.read_all(topics["sink"], 20)]
        time.sleep(0.5)
    norm = lambda rows: sorted(({k: ts_text(v) for k, v in row.items()} for row in rows), key=str)
    check(norm(got) == norm(sim) and len(got) == 1 and got[0]["total"] == 7 and got[0]["n"] == 3,
          f"window: the window open at the savepoint closes with the old events counted (a = 1 + 2 + 4, n = 3), as the simulator says: {got}")
    r = sf(proj, "stop")
    check(r.returncode == 0, "window: stopped")


def joined_upgrade(env, run: str) -> None:
    """A regular join (its own project and job): an order waits in the
    join's left store for its customer, stop with a savepoint, a new
    independent model moves Flink's graph (COMPATIBLE, pinned), and the
    customer that arrives after the upgrade joins the order from before
    the savepoint, as the simulator says (DEPLOY_E2E_ONLY=join runs this
    part alone)."""
    topics = {"orders": f"e2e-{run}-j-orders", "customers": f"e2e-{run}-j-customers", "sink": f"e2e-{run}-enriched", "big": f"e2e-{run}-j-big"}
    proj, yml = own_project(env, f"{run}-join", "join", f"  enriched:\n    sink: {{connector: kafka, topic: {topics['sink']}}}\n")
    (proj / "models/enriched.sql").write_text("SELECT o.order_id, c.name, o.amount\nFROM source('orders') o\nJOIN source('customers') c ON o.customer_id = c.customer_id\n")
    (proj / "sources.yml").write_text(
        f"sources:\n  orders:\n    connector: kafka\n    topic: {topics['orders']}\n    schema:\n      order_id: int64\n      customer_id: int64\n      amount: int64\n"
        f"  customers:\n    connector: kafka\n    topic: {topics['customers']}\n    schema:\n      customer_id: int64\n      name: string\n")
    ku.create_topics(list(topics.values()))
    events: dict[str, list[dict]] = {"orders": [], "customers": []}

    def produce(source: str, batch: list[dict]) -> None:
        ku.produce(topics[source], batch)
        events[source].extend(batch)

    def expected() -> list[dict]:
        work = proj / ".sim"
        shutil.rmtree(work, ignore_errors=True)
        (work / "in").mkdir(parents=True)
        for source, rows in events.items():
            (work / "in" / f"{source}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in rows))
        r = subprocess.run([SF, "run", "--input", str(work / "in"), "--output", str(work / "out")], cwd=proj, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return [json.loads(line)["columns"] for line in (work / "out" / "enriched.changelog.jsonl").read_text().splitlines() if line.strip()]

    def sink_rows(n: int) -> list[dict]:
        deadline, got = time.monotonic() + 60, []
        while time.monotonic() < deadline and len(got) < n:
            got = [v for _, v in ku.read_all(topics["sink"], 20)]
            time.sleep(0.5)
        return sorted(got, key=str)

    r = sf(proj, "apply", "--yes", timed="apply (join, initial)")
    check(r.returncode == 0 and "is running" in r.stdout, "join: the regular join runs")
    # Order 1 waits for customer 1; order 2 meets customer 2. Once order
    # 2's row is out, the job has read order 1 too (one partition, earlier
    # offset): the savepoint holds it in the join's left store.
    produce("orders", [{"order_id": 1, "customer_id": 1, "amount": 10}, {"order_id": 2, "customer_id": 2, "amount": 20}])
    produce("customers", [{"customer_id": 2, "name": "bob"}])
    got = sink_rows(1)
    check(got == [{"order_id": 2, "name": "bob", "amount": 20}], f"join: order 2 met customer 2, order 1 waits for its customer: {got}")
    r = sf(proj, "stop")
    check(r.returncode == 0 and "with savepoint file:" in r.stdout, "join: stopped with a savepoint while order 1 is open in the join's store")
    (proj / "models/big.sql").write_text("SELECT order_id, amount\nFROM source('orders')\nWHERE amount > 50\n")
    (proj / "streamform.yml").write_text(yml.replace("models:\n", f"models:\n  big:\n    sink: {{connector: kafka, topic: {topics['big']}}}\n", 1))
    r = planned(proj, "join-up.json")
    check(r.returncode == 0 and "verdict: COMPATIBLE" in r.stdout and "deploy: upgrade" in r.stdout and "state maps node by node" in r.stdout,
          "join: a new model beside the join is COMPATIBLE and an upgrade that maps state node by node")
    r = sf(proj, "apply", "--plan", "join-up.json", timed="apply (join, new model, pinned upgrade)")
    check(r.returncode == 0 and "restored from file:" in r.stdout, "join: apply restores the savepoint into the moved graph")
    pins = json.loads((proj / ".streamform/uids/e2e.json").read_text())["pins"]
    check(any(p["exec"] == "join" and p["uid"] == "streamform/enriched::join::0" for p in pins), f"join: Flink's Join runs under its node's uid: {[p['uid'] for p in pins]}")
    produce("customers", [{"customer_id": 1, "name": "ann"}])
    produce("orders", [{"order_id": 3, "customer_id": 2, "amount": 70}])
    got = sink_rows(3)
    sim = sorted(expected(), key=str)
    check(got == sim and {"order_id": 1, "name": "ann", "amount": 10} in got,
          f"join: customer 1, arriving after the upgrade, joins order 1 from before the savepoint; the sink equals the simulator: {got}")
    deadline, big = time.monotonic() + 60, []
    while time.monotonic() < deadline and not big:
        big = [v for _, v in ku.read_all(topics["big"], 20)]
        time.sleep(0.5)
    check(big == [{"order_id": 3, "amount": 70}], f"join: the new model sees only orders after the restore: {big}")
    r = sf(proj, "stop")
    check(r.returncode == 0, "join: stopped")


def holding(root: Path, needle: str) -> list[str]:
    """Every file under `root` whose bytes hold `needle`."""
    hits = []
    for p in root.rglob("*"):
        try:
            if p.is_file() and needle.encode() in p.read_bytes():
                hits.append(str(p))
        except OSError:
            pass
    return hits


def secrets_apply(env, run: str) -> None:
    """A target whose settings come from the environment, with secret Kafka
    properties: `apply` sends their values to the gateway (in the DDL, and
    in the transient copy of the pinned plan), and nothing else holds them."""
    canary = f"canary-{run}-5e1c7b9d"
    proj = Path(env["REALPARTS_STATE_DIR"]) / f"deploy-e2e-{run}-secrets"
    shutil.copytree(HERE / "project", proj)
    topics = {"events": f"e2e-{run}-s-events", "sink": f"e2e-{run}-s-totals"}
    savepoints = f"{env['FLINK_SAVEPOINT_DIR']}/secrets-{run}"
    yml = (proj / "streamform.yml").read_text()
    yml = (yml.replace("name: deploy_e2e", "name: deploy_e2e_secrets").replace("TOTALS_TOPIC", "totals-not-on-this-target")
           .replace("GATEWAY_URL", "${E2E_GATEWAY}").replace("REST_URL", "${E2E_REST}").replace("SAVEPOINT_DIR", "${E2E_SAVEPOINTS}")
           .replace("      bootstrap_servers: KAFKA_BOOTSTRAP\n",
                    "      bootstrap_servers: ${E2E_KAFKA}\n      properties:\n        security.protocol: ${E2E_PROTOCOL}\n        client.id: ${E2E_CLIENT_ID}\n"
                    "    topics:\n      sinks: {totals: \"${E2E_TOTALS_TOPIC}\"}\n"))
    (proj / "streamform.yml").write_text(yml)
    src = proj / "sources.yml"
    src.write_text(src.read_text().replace("EVENTS_TOPIC", topics["events"]))
    ku.create_topics(list(topics.values()))
    penv = dict(env, E2E_GATEWAY=env["FLINK_GATEWAY"], E2E_REST=env["FLINK_REST"], E2E_SAVEPOINTS=savepoints, E2E_KAFKA=env["KAFKA_BOOTSTRAP"],
                E2E_PROTOCOL="PLAINTEXT", E2E_CLIENT_ID=canary, E2E_TOTALS_TOPIC=topics["sink"])
    events = [{"user_id": "a", "kind": "x", "amount": 3}, {"user_id": "b", "kind": "y", "amount": 4}, {"user_id": "a", "kind": "y", "amount": 5}]
    ku.produce(topics["events"], events)
    outputs = []
    r = sf(proj, "build", env=penv)
    outputs.append(r.stdout + r.stderr)
    check(r.returncode == 0 and "${E2E_CLIENT_ID}" in r.stderr, "secrets: build writes the secret properties as placeholders")
    r = planned(proj, "s.json", env=penv)
    outputs.append(r.stdout + r.stderr)
    check(r.returncode == 0 and "deploy: initial" in r.stdout, "secrets: plan --out resolves the target from the environment")
    r = sf(proj, "apply", "--plan", "s.json", env=penv, timed="apply (secrets)")
    outputs.append(r.stdout + r.stderr)
    check(r.returncode == 0 and "is running" in r.stdout, "secrets: apply submits the job and it runs")
    note = [t.get("note") or "" for t in journal(proj)[-1]["transitions"] if t["state"] == "submitted"][0]
    check("uids pinned to Streamform's nodes" in note, f"secrets: the job was submitted from the pinned plan (EXECUTE PLAN of the revealed copy): {note}")
    wait_sink(topics["sink"], simulate(proj, events, "totals"))
    check(True, "secrets: the job reads the events and writes the totals to the overridden topic, so security.protocol reached Kafka resolved")
    r = sf(proj, "status", env=penv)
    outputs.append(r.stdout + r.stderr)
    check(r.returncode == 0, "secrets: status sees the job run")
    plan_dir = Path(savepoints) / "streamform-plans/e2e"
    check(any(plan_dir.glob("*.pinned.json")) and not any(plan_dir.glob("*.run.json")), f"secrets: the pinned plan is kept, its revealed copy removed: {sorted(p.name for p in plan_dir.iterdir())}")
    r = sf(proj, "stop", env=penv, timed="stop (secrets)")
    outputs.append(r.stdout + r.stderr)
    check(r.returncode == 0, "secrets: stop with a savepoint")
    check(not any(canary in o for o in outputs), "secrets: no command printed the canary")
    found = holding(proj, canary) + holding(plan_dir, canary)
    check(not found, f"secrets: the canary is in no file of the project (build/, .streamform/) or the plan directory: {found}")


def end_offsets(topic: str) -> dict[int, int]:
    """Each partition's end offset, as Kafka reports it."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": ku.bootstrap(), "group.id": "streamform-e2e-offsets", "enable.auto.commit": False})
    try:
        parts = c.list_topics(topic, timeout=10).topics[topic].partitions
        return {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in sorted(parts)}
    finally:
        c.close()


def cutover_offsets(proj: Path) -> dict[int, int]:
    """The source offsets `apply` recorded as its cutover, per partition. A
    split that has read nothing holds Flink's EARLIEST sentinel (-2): on
    these fresh topics that is offset 0, where the partition starts."""
    rec = json.loads((proj / ".streamform/applied/e2e.json").read_text())
    return {o["partition"]: 0 if o["offset"] == -2 else o["offset"] for o in rec["cutover"]["offsets"]}


def offset_text(topic: str, partition: int, end: int) -> str:
    """How `apply` prints a partition's cutover offset (an unread,
    empty partition is `earliest (nothing read)`)."""
    return f"{topic}[{partition}]=earliest (nothing read)" if end == 0 else f"{topic}[{partition}]={end}"


def sink_lines(out: str) -> dict[str, str]:
    """The plan's `sink: MODEL (...): TEXT` lines, by model."""
    return {l.split()[1]: l for l in out.splitlines() if l.startswith("sink: ")}


def sinks_see(env, run: str) -> None:
    """What sinks see during an upgrade (issue 23 item 4), on the real
    parts: an append sink and an upsert sink, across an upgrade (pinned,
    a new model added) and a rebuild (the upsert model's filter changed).
    What the plan says per sink is what the sink topics show: nothing
    replayed and a new sink without history after the upgrade; every record
    again after the rebuild, as many as the cutover offsets say, and the
    upsert sink overwritten key by key with no retraction, the key the new
    job no longer writes left stale. The cutover offsets `apply` records
    are the source topic's end offsets (everything produced was read)."""
    # Topics of its own: the secrets part already writes `-s-events`.
    t = {"events": f"e2e-{run}-k-events", "seen": f"e2e-{run}-k-seen", "totals": f"e2e-{run}-k-totals", "big": f"e2e-{run}-k-big"}
    proj, yml = own_project(env, f"{run}-sinks", "sinks",
                            f"  seen:\n    sink: {{connector: kafka, topic: {t['seen']}}}\n"
                            f"  totals:\n    materialized: upsert\n    key: [user_id]\n    sink: {{connector: kafka, topic: {t['totals']}}}\n")
    (proj / "models/seen.sql").write_text("SELECT user_id, kind, amount\nFROM source('events')\n")
    (proj / "models/totals.sql").write_text("SELECT user_id, SUM(amount) AS total, COUNT(*) AS n\nFROM source('events')\nGROUP BY user_id\n")
    (proj / "sources.yml").write_text((proj / "sources.yml").read_text().replace("EVENTS_TOPIC", t["events"]))
    ku.create_topics({t["events"]: 2, t["seen"]: 1, t["totals"]: 1, t["big"]: 1})
    events: list[dict] = []

    def produce(batch: list[dict]) -> None:
        ku.produce(t["events"], batch)
        events.extend(batch)

    produce([{"user_id": u, "kind": "x", "amount": a} for u, a in [("a", 1), ("b", 2), ("c", 300), ("a", 4), ("b", 500), ("c", 6)]])
    r = sf(proj, "apply", "--yes", timed="sinks: apply (initial)")
    check(r.returncode == 0, "sinks: the initial apply runs")
    wait_sink(t["totals"], simulate(proj, events, "totals"))
    check(len(ku.read_all(t["seen"], 20)) == 6, "sinks: the append sink holds the first 6 events")

    # Upgrade: a new model moves Flink's graph; pinned, the state is kept.
    (proj / "models/big.sql").write_text("SELECT user_id, amount\nFROM source('events')\nWHERE amount > 100\n")
    (proj / "streamform.yml").write_text((proj / "streamform.yml").read_text().replace("models:\n", f"models:\n  big:\n    sink: {{connector: kafka, topic: {t['big']}}}\n", 1))
    r = planned(proj, "up.json")
    lines = sink_lines(r.stdout)
    check("deploy: upgrade" in r.stdout and "nothing replayed: the sources resume at the savepoint's offsets" in lines.get("seen", "")
          and "nothing replayed" in lines.get("totals", "") and "a new sink" in lines.get("big", ""),
          "sinks: the upgrade's plan says nothing is replayed to seen and totals, and big gets no history", r.stdout)
    check("cutover: the savepoint the stop takes in" in r.stdout and "apply records the source offsets it holds" in r.stdout, "sinks: the plan names the cutover savepoint")
    doc = json.loads((proj / "up.json").read_text())
    check({s["model"]: s["replay"] for s in doc["sinks"]} == {"big": "no-history", "seen": "none", "totals": "none"} and doc["cutover"]["restored"],
          f"sinks: the saved plan says the same per sink: {doc['sinks']}")
    check(sink_lines(sf(proj, "plan", "--target", "e2e").stdout) == lines, "sinks: plan --target says what plan --out says, sink by sink")
    r = sf(proj, "apply", "--plan", "up.json", timed="sinks: apply (upgrade)")
    ends = end_offsets(t["events"])
    check(r.returncode == 0 and "restored from file:" in r.stdout, "sinks: the upgrade restores the savepoint")
    check(cutover_offsets(proj) == ends and "cutover: savepoint file:" in r.stdout and all(offset_text(t["events"], p, e) in r.stdout or f"{t['events']}[{p}]={e}" in r.stdout for p, e in ends.items()),
          f"sinks: the cutover offsets apply recorded are the source topic's end offsets {ends}", r.stdout)
    produce([{"user_id": u, "kind": "y", "amount": a} for u, a in [("a", 700), ("b", 8), ("d", 9), ("a", 10)]])
    wait_sink(t["totals"], simulate(proj, events, "totals"))
    seen = ku.read_all(t["seen"], 20)
    check(len(seen) == 10, f"sinks: after the upgrade the append sink holds each of the 10 events once, nothing replayed: {len(seen)}")
    big = ku.read_all(t["big"], 20)
    check([v["amount"] for _, v in big] == [700], f"sinks: the new sink got only what came after the cutover: {big}")

    # Rebuild: `c` is filtered out of totals; the aggregate's input changes.
    before = len(ku.read_all(t["totals"], 20))
    (proj / "models/totals.sql").write_text("SELECT user_id, SUM(amount) AS total, COUNT(*) AS n\nFROM source('events')\nWHERE user_id <> 'c'\nGROUP BY user_id\n")
    r = planned(proj, "rebuild.json")
    lines = sink_lines(r.stdout)
    check("deploy: rebuild" in r.stdout and "replayed: the new job starts with empty state and its sources read again from earliest-offset" in lines.get("seen", "")
          and "every record is written again" in lines.get("seen", "") and "keys are overwritten, not retracted" in lines.get("totals", "")
          and "keep their last row (stale)" in lines.get("totals", ""), "sinks: the rebuild's plan says seen is replayed and totals overwritten with stale keys kept", r.stdout)
    doc = json.loads((proj / "rebuild.json").read_text())
    check({s["model"]: (s["replay"], s.get("rebuilt_keys")) for s in doc["sinks"]} == {"big": ("from-startup", None), "seen": ("from-startup", None), "totals": ("from-startup", "overwrite-keep-stale")},
          f"sinks: the saved rebuild plan says the same: {doc['sinks']}")
    js = json.loads(sf(proj, "plan", "--target", "e2e", "--json").stdout)
    check(js["deploy"]["sinks"] == doc["sinks"] and js["deploy"]["cutover"] == doc["cutover"] and js["deploy"]["action"] == "rebuild",
          "sinks: plan --json holds the same deploy plan, sinks and cutover under `deploy`")
    r = sf(proj, "apply", "--yes", "--allow-state-loss", timed="sinks: apply (rebuild)")
    ends = end_offsets(t["events"])
    check(r.returncode == 0 and cutover_offsets(proj) == ends, f"sinks: the rebuild records its cutover at the end offsets {ends}", r.stdout)
    replayed = sum(ends.values())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(ku.read_all(t["seen"], 20)) < 10 + replayed:
        time.sleep(1)
    time.sleep(2)
    seen = ku.read_all(t["seen"], 20)
    check(len(seen) == 10 + replayed, f"sinks: the rebuilt append sink received every record again, as many as the cutover offsets ({replayed}): {len(seen)} records")
    wait_sink(t["totals"], {k: v for k, v in simulate(proj, events, "totals").items() if v["user_id"] != "c"} | {k: v for k, v in sink_table(t["totals"]).items() if v["user_id"] == "c"})
    after = ku.read_all(t["totals"], 20)[before:]
    check(all(v is not None for _, v in after) and not any(v["user_id"] == "c" for _, v in after),
          f"sinks: the rebuilt upsert sink retracted nothing: no tombstone, and `c`, no longer written, keeps its old row: {after}")
    stale = ku.latest_by_key(ku.read_all(t["totals"], 20))
    check(any(v and v["user_id"] == "c" and v["total"] == 306 for v in stale.values()), f"sinks: `c`'s stale row is the old job's: {stale}")
    first_a = next(v for _, v in after if v["user_id"] == "a")
    check(first_a["n"] == 1, f"sinks: `a` is overwritten from its first replayed value, then climbs back: first {first_a}")
    check(sf(proj, "stop").returncode == 0, "sinks: the rebuilt job stops")


def _run_sim(proj: Path, events: list[dict], model: str) -> list[str]:
    """The simulator's changelog of an append model over `events`."""
    return sim_output(proj, events, model, "changelog")


def main() -> int:
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("deploy e2e timed out")))
    signal.alarm(int(os.environ.get("DEPLOY_E2E_TIMEOUT", "900")))
    env = os.environ
    if env.get("DEPLOY_E2E_ONLY") == "faults":
        return 0
    run = format(int(time.time() * 1000) % 10**9, "x")
    if env.get("DEPLOY_E2E_ONLY") == "sinks":
        sinks_see(env, run)
        print(f"{CHECKS} checks passed, 0 failed; plan --target and plan --out agreed on {AGREED} edits")
        return 0
    if env.get("DEPLOY_E2E_ONLY") == "window":
        windowed_upgrade(env, run)
        print(f"{CHECKS} checks passed, 0 failed; plan --target and plan --out agreed on {AGREED} edits")
        return 0
    if env.get("DEPLOY_E2E_ONLY") == "join":
        joined_upgrade(env, run)
        print(f"{CHECKS} checks passed, 0 failed; plan --target and plan --out agreed on {AGREED} edits")
        return 0
    secrets_apply(env, run)
    if env.get("DEPLOY_E2E_ONLY") == "secrets":
        print(f"{CHECKS} checks passed, 0 failed")
        return 0
    proj = Path(env["REALPARTS_STATE_DIR"]) / f"deploy-e2e-{run}"
    shutil.copytree(HERE / "project", proj)
    topics = {"events": f"e2e-{run}-events", "v1": f"e2e-{run}-totals", "v2": f"e2e-{run}-totals-v2", "v3": f"e2e-{run}-by-kind", "v2b": f"e2e-{run}-totals-v2b", "big": f"e2e-{run}-big", "rich": f"e2e-{run}-rich"}
    yml = (proj / "streamform.yml").read_text()
    yml = (yml.replace("GATEWAY_URL", env["FLINK_GATEWAY"]).replace("REST_URL", env["FLINK_REST"])
           .replace("SAVEPOINT_DIR", env["FLINK_SAVEPOINT_DIR"]).replace("KAFKA_BOOTSTRAP", env["KAFKA_BOOTSTRAP"])
           .replace("TOTALS_TOPIC", topics["v1"]))
    (proj / "streamform.yml").write_text(yml)
    src = proj / "sources.yml"
    src.write_text(src.read_text().replace("EVENTS_TOPIC", topics["events"]))
    ku.create_topics(list(topics.values()))
    events: list[dict] = []

    def produce(batch: list[dict]) -> None:
        ku.produce(topics["events"], batch)
        events.extend(batch)

    # Nothing applied yet.
    r = sf(proj, "status")
    check(r.returncode == 1 and "nothing is recorded as applied to target `e2e`" in r.stdout, "status before any apply: nothing recorded, exit 1")

    # v1: plan --out, apply --plan.
    r = planned(proj, "v1.json")
    check(r.returncode == 0 and "deploy: initial" in r.stdout and (proj / "v1.json").exists(), "plan --out writes an initial deploy plan")
    produce([{"user_id": "a", "kind": "x", "amount": 1}, {"user_id": "a", "kind": "y", "amount": 2}, {"user_id": "b", "kind": "x", "amount": 10}])
    r = sf(proj, "apply", "--plan", "v1.json", timed="apply v1 (initial)")
    check(r.returncode == 0 and "is running" in r.stdout, "apply --plan submits v1 and it runs")
    wait_sink(topics["v1"], simulate(proj, events, "totals"))
    check(True, "v1 sink equals the simulator over the first events")
    st = status_json(proj)
    check(st["passed"] and st["target_state"] == "reachable" and st["jobs"][0]["state"] == "running" and st["tasks_checked"], "status --json: the recorded job runs, tasks checked")
    states = [t["state"] for t in journal(proj)[-1]["transitions"]]
    check(states == ["prepared", "submitting", "submitted", "running"], f"journal of the initial apply: {states}")

    # A plan made now goes stale once the job is stopped.
    planned(proj, "before-stop.json")
    r = sf(proj, "stop", timed="stop (savepoint)")
    check(r.returncode == 0 and "with savepoint file:" in r.stdout, "stop takes a savepoint")
    sp = journal(proj)[-1]["savepoint"]
    check(Path(sp.removeprefix("file:")).joinpath("_metadata").is_file(), f"the savepoint exists: {sp}")
    st = status_json(proj)
    check(st["stopped_with_savepoint"]["savepoint"] == sp and not st["passed"] and st["jobs"][0]["state"] == "stopped", "status shows the stopped job and its savepoint")
    r = sf(proj, "apply", "--plan", "before-stop.json")
    check(r.returncode == 2 and "is stale: what runs on the target changed" in r.stderr, "a plan made before the stop is refused as stale")
    doc = json.loads((proj / "before-stop.json").read_text())
    doc["action"] = "upgrade"
    (proj / "tampered.json").write_text(json.dumps(doc))
    r = sf(proj, "apply", "--plan", "tampered.json")
    check(r.returncode == 2 and "the file was edited" in r.stderr, "an edited plan is refused")

    # v2: COMPATIBLE, the state continues.
    (proj / "streamform.yml").write_text((proj / "streamform.yml").read_text().replace(topics["v1"], topics["v2"]))
    r = planned(proj, "v2.json")
    check(r.returncode == 0 and "verdict: COMPATIBLE" in r.stdout and "deploy: upgrade" in r.stdout, "v2 is COMPATIBLE and the deploy plan an upgrade")
    produce([{"user_id": "a", "kind": "x", "amount": 100}, {"user_id": "c", "kind": "x", "amount": 7}])
    r = sf(proj, "apply", "--plan", "v2.json", timed="apply v2 (upgrade, restore)")
    check(r.returncode == 0 and f"restored from {sp}" in r.stdout, "apply v2 restores the savepoint")
    # The new topic holds the keys updated since the upgrade, with totals
    # over every event; the old topic the rest. Together: the simulator.
    sim = simulate(proj, events, "totals")
    got = wait_sink(topics["v2"], {k: v for k, v in sim.items() if v["user_id"] in ("a", "c")})
    merged = {v["user_id"]: v for v in list(sink_table(topics["v1"]).values()) + list(got.values())}
    check(sorted(merged.values(), key=str) == sorted(sim.values(), key=str), "the old sink overlaid with the new one equals the simulator over every event")
    a = next(v for v in got.values() if v["user_id"] == "a")
    check(a["total"] == 103 and a["n"] == 3, f"the totals continued from v1's values (a = 1 + 2 + 100, n = 3): {a}")
    st = status_json(proj)
    check(st["passed"] and st["jobs"][0]["state"] == "running", "status: v2 runs")
    r = sf(proj, "status")
    check(f"restored from {sp}" in r.stdout and "is the project's" in r.stdout, "status text: restored from the savepoint, the project's application")
    r = sf(proj, "apply", "--yes")
    check(r.returncode == 0 and "deploy: no-op" in r.stdout, "applying the same project again is a no-op")

    # Two applies on one target: the second is refused while the lock is held.
    lock = proj / ".streamform/lock/e2e.lock"
    holder = subprocess.Popen(["sleep", "30"])
    lock.write_text(f"{holder.pid}\n")
    r = sf(proj, "apply", "--yes")
    holder.kill()
    lock.unlink()
    check(r.returncode == 2 and "is applying to or stopping target `e2e`" in r.stderr, "a second apply is refused while the lock is held")

    # An interrupted apply: the gateway dies between the stop (through the
    # JobManager) and the submission. The savepoint is kept and journaled;
    # status names the missing part; once the gateway is back, apply
    # resumes from that savepoint and the totals still continue.
    (proj / "streamform.yml").write_text((proj / "streamform.yml").read_text().replace(topics["v2"], topics["v2b"]))
    applying = subprocess.Popen([SF, "apply", "--yes"], cwd=proj, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(e["state"] == "stopping" and e["operation"] == "upgrade" for e in journal(proj)):
        time.sleep(0.02)
    kill_gateway()
    out, err = applying.communicate(timeout=180)
    say(f"interrupted apply -> exit {applying.returncode}\n{out}{err}")
    last = journal(proj)[-1]
    steps = [t["state"] for t in last["transitions"]]
    check(applying.returncode == 1 and steps == ["prepared", "stopping", "stopped", "submitting", "failed"] and last["savepoint"] and "gateway" in (last["problem"] or ""),
          f"the interrupted apply is journaled as failed after the stop, with its savepoint: {steps}, {last['problem']}")
    r = sf(proj, "status")
    check(r.returncode == 2 and "failed: gateway-unreachable: gateway " + env["FLINK_GATEWAY"] in r.stdout, "status names the unreachable gateway and its address, exit 2")
    recorded_job = json.loads((proj / ".streamform/applied/e2e.json").read_text())["jobs"][0]
    check(f"job {recorded_job}  stopped" in r.stdout and "stopped" in r.stdout and "(from the jobmanager)" in r.stdout,
          "with the gateway down, status still reports the recorded job from the JobManager")
    start_gateway()
    r = sf(proj, "status")
    check(r.returncode == 1 and f"stopped with savepoint {last['savepoint']}" in r.stdout, "status after the gateway is back: the job is stopped, its savepoint kept")
    produce([{"user_id": "a", "kind": "y", "amount": 1000}])
    r = sf(proj, "apply", "--yes")
    check(r.returncode == 0 and f"restored from {last['savepoint']}" in r.stdout, "apply resumes: it restores the interrupted attempt's savepoint")
    sim = simulate(proj, events, "totals")
    got = wait_sink(topics["v2b"], {k: v for k, v in sim.items() if v["user_id"] == "a"})
    check(next(iter(got.values()))["total"] == 1103, "the totals continued across the interrupted apply (a = 103 + 1000)")

    # v3: STATE INCOMPATIBLE.
    (proj / "models/totals.sql").write_text("SELECT user_id, kind, SUM(amount) AS total, COUNT(*) AS n\nFROM source('events')\nGROUP BY user_id, kind\n")
    (proj / "streamform.yml").write_text((proj / "streamform.yml").read_text().replace("key: [user_id]", "key: [user_id, kind]").replace(topics["v2b"], topics["v3"]))
    planned(proj, "v3.json")
    before = len(journal(proj))
    r = sf(proj, "apply", "--yes")
    check(r.returncode == 2 and "verdict: STATE INCOMPATIBLE" in r.stdout and "--allow-state-loss" in r.stderr and len(journal(proj)) == before,
          "a STATE INCOMPATIBLE change is refused without --allow-state-loss, and nothing is journaled")
    check(status_json(proj)["passed"], "v2 still runs after the refusal")
    r = sf(proj, "apply", "--yes", "--allow-state-loss", timed="apply v3 (rebuild)")
    check(r.returncode == 0 and "deploy: rebuild" in r.stdout and r.stdout.rstrip().splitlines()[-1].endswith("is running"), "apply --allow-state-loss rebuilds with empty state")
    wait_sink(topics["v3"], simulate(proj, events, "totals"))
    check(True, "v3 (empty state, replayed from earliest) equals the simulator over every event")
    st = status_json(proj)
    check(st["passed"] and st["jobs"][0]["backend_status"] == "RUNNING", "status: v3 runs")

    # A savepoint that cannot be written: stop fails, the job keeps running.
    yml = (proj / "streamform.yml").read_text()
    (proj / "streamform.yml").write_text(yml.replace(env["FLINK_SAVEPOINT_DIR"], "file:///proc/streamform-e2e"))
    r = sf(proj, "stop")
    check(r.returncode == 1 and "the savepoint failed" in r.stderr and "the job keeps running" in r.stderr, "a savepoint that cannot be written: stop fails with Flink's cause")
    check(status_json(proj)["passed"], "the job still runs after the failed stop")
    (proj / "streamform.yml").write_text(yml)

    # COMPATIBLE changes that move Flink's operator graph keep the state:
    # the job's uids are pinned to Streamform's nodes. First a new model
    # over the same source (every operator of `totals` moves in the graph).
    stamp = proj / "streamform.yml"
    (proj / "models/big.sql").write_text("SELECT user_id, amount\nFROM source('events')\nWHERE amount > 50\n")
    stamp.write_text(yml.replace("models:\n", f"models:\n  big:\n    sink: {{connector: kafka, topic: {topics['big']}}}\n", 1))
    r = planned(proj, "moved.json")
    check(r.returncode == 0 and "verdict: COMPATIBLE" in r.stdout and "deploy: upgrade" in r.stdout and "state maps node by node" in r.stdout,
          "a new model moves the graph, and the deploy plan is an upgrade: state maps node by node")
    skip = [c for c in json.loads((proj / "moved.json").read_text())["consequences"] if c["kind"] == "skip-history"]
    check([c["subject"] for c in skip] == ["big::sink::0"], f"the plan says the new sink gets no history: {skip}")
    before = len(ku.read_all(topics["v3"], 20))
    r = sf(proj, "apply", "--plan", "moved.json", timed="apply (new model, pinned upgrade)")
    check(r.returncode == 0 and "restored from file:" in r.stdout, "apply restores the savepoint into the moved graph")
    produce([{"user_id": "a", "kind": "x", "amount": 60}, {"user_id": "d", "kind": "y", "amount": 3}])
    wait_sink(topics["v3"], simulate(proj, events, "totals"))
    check(True, "after the new model, v3's totals continue: the sink equals the simulator over every event")
    # Nothing was replayed: one upsert per new event, none for history.
    n = len(ku.read_all(topics["v3"], 20)) - before
    check(n == 2, f"the restored job wrote one record per new event and replayed nothing: {n} new records")
    deadline, big = time.monotonic() + 60, []
    while time.monotonic() < deadline and not big:
        big = [v for _, v in ku.read_all(topics["big"], 20)]
        time.sleep(0.5)
    check(big == [{"user_id": "a", "amount": 60}], f"the new model's sink holds only what came after the restore (60; 100 and 1000 are history): {big}")
    pins = json.loads((proj / ".streamform/uids/e2e.json").read_text())
    check(any(p["uid"] == "streamform/totals::aggregate::0" and p["exec"] == "group-aggregate" for p in pins["pins"]) and pins["job_id"] == status_json(proj)["jobs"][0]["job_id"],
          "the pins of the running job are recorded, the aggregate's uid follows its node id")
    journal_note = [t.get("note") or "" for t in journal(proj)[-1]["transitions"] if t["state"] == "submitted"][0]
    check("uids pinned to Streamform's nodes" in journal_note, f"the journal says the job was submitted pinned: {journal_note}")

    # A rename (renamed_from): every node id changes, the state continues.
    (proj / "models/totals.sql").rename(proj / "models/totals_r.sql")
    yml2 = stamp.read_text().replace("  totals:\n", "  totals_r:\n    renamed_from: totals\n", 1)
    stamp.write_text(yml2)
    planned(proj, "renamed.json")
    before = len(ku.read_all(topics["v3"], 20))
    r = sf(proj, "apply", "--yes", timed="apply (rename, pinned upgrade)")
    check(r.returncode == 0 and "deploy: upgrade" in r.stdout and "restored from file:" in r.stdout, "a renamed model is an upgrade that restores the savepoint")
    produce([{"user_id": "a", "kind": "x", "amount": 5000}])
    wait_sink(topics["v3"], simulate(proj, events, "totals_r"))
    check(True, "after the rename, the totals continue: the sink equals the simulator over every event")
    n = len(ku.read_all(topics["v3"], 20)) - before
    check(n == 1, f"after the rename, one record for the one new event, nothing replayed: {n} new records")
    yml2 = yml2.replace("    renamed_from: totals\n", "")
    stamp.write_text(yml2)

    # Dropping a model drops its sink's state, said by name: the restore
    # ignores the unclaimed state (for that submission only); the rest continues.
    (proj / "models/big.sql").unlink()
    yml2 = yml2.replace(f"  big:\n    sink: {{connector: kafka, topic: {topics['big']}}}\n", "")
    stamp.write_text(yml2)
    r = planned(proj, "dropped.json")
    check("deploy: upgrade" in r.stdout and "the state of `big::sink::0` is not in the new job: restoring drops it" in r.stdout,
          "removing a model: an upgrade whose plan names the state it drops")
    r = sf(proj, "apply", "--plan", "dropped.json")
    check(r.returncode == 0 and "restored from file:" in r.stdout, "apply restores, dropping the removed model's state")
    # Every plan and apply so far compiled a plan file; the apply pruned them
    # to the running job's and the newest five.
    plans = sorted(p.name for p in (Path(env["FLINK_SAVEPOINT_DIR"]) / "streamform-plans/e2e").iterdir())
    running_plan = json.loads((proj / ".streamform/uids/e2e.json").read_text())["plan"]
    check(len(plans) <= 6 and Path(running_plan).name in plans, f"old plan files are pruned, the running job's is kept: {plans}")
    produce([{"user_id": "b", "kind": "x", "amount": 1}])
    wait_sink(topics["v3"], simulate(proj, events, "totals_r"))
    check(True, "after the model was removed, the totals continue: the sink equals the simulator over every event")

    # A model Flink cannot pin: a reader of ref('totals_r') makes Flink run
    # the aggregate twice, so its state has no one uid: plan says rebuild.
    (proj / "models/rich.sql").write_text("SELECT user_id, kind, total\nFROM ref('totals_r')\nWHERE total > 50\n")
    stamp.write_text(yml2.replace("models:\n", f"models:\n  rich:\n    materialized: upsert\n    key: [user_id, kind]\n    sink: {{connector: kafka, topic: {topics['rich']}}}\n", 1))
    r = planned(proj, "unpinnable.json")
    check(r.returncode == 1 and "verdict: COMPATIBLE" in r.stdout and "deploy: rebuild" in r.stdout and "cannot be pinned" in r.stdout,
          "a change Flink's plan cannot pin: plan says COMPATIBLE, the deploy plan a rebuild, and why")
    check(json.loads((proj / "unpinnable.json").read_text())["verdict"] == "BACKFILL REQUIRED", "the deploy plan's verdict does not promise the state")
    # One verdict: plan --target decides as plan --out does (same action, same exit code).
    r2 = sf(proj, "plan", "--target", "e2e")
    check(r2.returncode == r.returncode and "deploy: rebuild" in r2.stdout and "cannot be pinned" in r2.stdout,
          "plan --target without --out gives the same deploy action and exit code as plan --out")
    (proj / "models/rich.sql").unlink()
    stamp.write_text(yml2)
    yml = yml2

    # Without flink.rest: status cannot check tasks; stop goes through the gateway.
    (proj / "streamform.yml").write_text("".join(l for l in yml.splitlines(keepends=True) if "rest:" not in l))
    r = sf(proj, "status")
    check(r.returncode == 0 and "running-unverified" in r.stdout and "tasks are not checked" in r.stdout, "status without flink.rest: running-unverified")
    r = sf(proj, "stop", timed="stop through the gateway")
    sp = journal(proj)[-1]["savepoint"] or ""
    check(r.returncode == 0 and Path(sp.removeprefix("file:")).joinpath("_metadata").is_file(), f"stop through the gateway's STOP JOB ... WITH SAVEPOINT: {sp}")
    windowed_upgrade(env, run)
    joined_upgrade(env, run)
    sinks_see(env, run)
    say(f"timings: {json.dumps(TIMES)}")
    say(f"DEPLOY E2E PASSED in {time.monotonic() - T0:.1f}s")
    print(f"{CHECKS} checks passed, 0 failed; plan --target and plan --out agreed on {AGREED} edits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
