"""Conformance on real Kafka: the generated script runs unmodified.

For every fixture of every project that checks cleanly (run.py --kafka):
  * a scratch copy of the project gets topics of its own (every `topic:` in
    its YAML gets a `__k<N>` suffix, so fixtures run concurrently), a Kafka
    sink on the fixture's model when it has none (upsert-kafka for an
    upsert model, kafka otherwise) and a target on the test broker; then
    `streamform build --backend flink` writes the script;
  * the fixture's events are produced, as JSON, to the root source's topic;
  * the script goes to the SQL Gateway statement by statement, exactly as
    built (SETs included); the statement set runs as one job on the session
    cluster;
  * the sink topic and the quarantine topic are read back once they stop
    growing, the job is cancelled, and they are compared with the
    simulator: for upsert-kafka the keyed records and tombstones, for kafka
    the appended rows, and the quarantined records.
A fixture with an explicit `{watermark: W}` item cannot be fed to Kafka
(no event can carry a bare watermark) and is reported SKIPPED with that
reason. Every wait has a bound; a broker or cluster that does not answer
fails the run with the reason.
"""
import concurrent.futures
import decimal
import fnmatch
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import yaml

import flinksql
import rules

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "realparts"))
try:
    import kafka_util as ku  # noqa: E402
except ImportError:  # confluent-kafka lives in the realparts client venv
    py = os.environ.get("REALPARTS_PYTHON", "")
    site = glob.glob(os.path.join(os.path.dirname(os.path.dirname(py)), "lib", "python3*", "site-packages"))
    sys.path[:0] = site
    import kafka_util as ku  # noqa: E402

# SF_KAFKA_SHOW=1 prints each sink topic's records as read back.
JOB_TIMEOUT = float(os.environ.get("SF_KAFKA_JOB_TIMEOUT", "90"))  # per fixture, everything
QUIET = float(os.environ.get("SF_KAFKA_QUIET", "3"))  # topics unchanged this long: done
FIRST = float(os.environ.get("SF_KAFKA_FIRST", "30"))  # bound on the first expected record
RUN_ID = f"{os.getpid()}{int(time.time()) % 100000}"  # topics of one run never meet another's
WORKERS = int(os.environ.get("SF_KAFKA_WORKERS", "4"))  # the session cluster's task slots


class Unavailable(Exception):
    """The broker or the cluster is not there: the whole run fails."""


def http(method, url, body=None, timeout=30.0):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            return json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        raise FlinkError(root_cause(body) or f"{method} {url} -> HTTP {e.code}") from None


class FlinkError(Exception):
    pass


def root_cause(body):
    try:
        text = "\n".join(json.loads(body).get("errors", []))
    except (ValueError, AttributeError):
        text = body
    causes = [ln.strip()[len("Caused by: "):] for ln in text.splitlines() if ln.strip().startswith("Caused by:")]
    return causes[-1] if causes else None


def check_parts():
    """Fails with the reason when the broker, the cluster or the gateway is not up (bounded)."""
    missing = [k for k in ("KAFKA_BOOTSTRAP", "FLINK_REST", "FLINK_GATEWAY") if not os.environ.get(k)]
    if missing:
        raise Unavailable(f"{', '.join(missing)} not set: run under tools/realparts/with-parts.sh (conformance.sh --kafka does)")
    try:
        ku.wait_ready(20)
    except Exception as e:  # noqa: BLE001
        raise Unavailable(f"Kafka at {os.environ['KAFKA_BOOTSTRAP']} is not up: {e}") from None
    for what, url in (("Flink JobManager", os.environ["FLINK_REST"] + "/overview"), ("SQL Gateway", os.environ["FLINK_GATEWAY"] + "/v2/info")):
        try:
            info = http("GET", url, timeout=10)
        except Exception as e:  # noqa: BLE001
            raise Unavailable(f"{what} at {url} is not up: {e}") from None
        if what == "Flink JobManager" and info.get("slots-total", 0) < 1:
            raise Unavailable(f"{what} has no task slots: {info}")


class Session:
    """One SQL Gateway session; statements run in order."""

    def __init__(self, name):
        self.base = os.environ["FLINK_GATEWAY"].rstrip("/")
        self.h = http("POST", f"{self.base}/v2/sessions", {"sessionName": name, "properties": {}})["sessionHandle"]

    def close(self):
        try:
            http("DELETE", f"{self.base}/v2/sessions/{self.h}", timeout=10)
        except Exception:  # noqa: BLE001
            pass

    def run(self, stmt, timeout=60):
        """Runs a statement to its end; returns the job id when it started one."""
        op = http("POST", f"{self.base}/v2/sessions/{self.h}/statements", {"statement": stmt})["operationHandle"]
        uri = f"/v2/sessions/{self.h}/operations/{op}/result/0?rowFormat=JSON"
        deadline = time.monotonic() + timeout
        job = None
        while True:
            if time.monotonic() > deadline:
                raise FlinkError(f"no result in {timeout}s for {stmt[:80]!r}")
            try:
                page = http("GET", self.base + uri)
            except FlinkError as e:
                raise FlinkError(f"{e} (statement: {stmt.splitlines()[0][:100]})") from None
            job = page.get("jobID") or job
            if page["resultType"] == "EOS":
                return job
            if page["resultType"] == "PAYLOAD" and page.get("isQueryResult") is False and job:
                return job
            uri = page.get("nextResultUri") or uri
            time.sleep(0.1)


def job_state(jid):
    j = http("GET", f"{os.environ['FLINK_REST']}/jobs/{jid}", timeout=10)
    return j["state"]


def job_failure(jid):
    exc = http("GET", f"{os.environ['FLINK_REST']}/jobs/{jid}/exceptions", timeout=10)
    entries = (exc.get("exceptionHistory") or {}).get("entries") or []
    trace = entries[0].get("stacktrace", "") if entries else json.dumps(exc)[:600]
    lines = [ln.strip() for ln in trace.splitlines()]
    wanted = [ln for ln in lines if "Failed to deserialize JSON" in ln or "JsonParseException" in ln]
    causes = [ln[len("Caused by: "):] for ln in lines if ln.startswith("Caused by:")]
    return "; ".join(dict.fromkeys(wanted + causes[-1:])) or (lines[0] if lines else "job failed")


def cancel(jid):
    try:
        http("PATCH", f"{os.environ['FLINK_REST']}/jobs/{jid}?mode=cancel", timeout=10)
    except Exception:  # noqa: BLE001
        pass


# --------------------------------------------------------------------------- projects


def suffix_topics(node, suffix, seen):
    """Every `topic:` value in a YAML tree gets `suffix`; returns the tree."""
    if isinstance(node, dict):
        for k, v in list(node.items()):
            if k == "topic" and isinstance(v, str):
                node[k] = v + suffix
                seen.add(node[k])
            else:
                suffix_topics(v, suffix, seen)
    elif isinstance(node, list):
        for v in node:
            suffix_topics(v, suffix, seen)
    return node


def kafka_copy(project, dst, model, suffix, bootstrap):
    """The project for one fixture: own topics, a Kafka sink on `model`, a target on the test broker."""
    shutil.copytree(project, dst, ignore=shutil.ignore_patterns("expected", "build", ".streamform"))
    topics = set()
    for path in glob.glob(os.path.join(dst, "*.yml")) + glob.glob(os.path.join(dst, "sources", "**", "*.yml"), recursive=True):
        doc = yaml.safe_load(open(path)) or {}
        suffix_topics(doc, suffix, topics)
        if os.path.basename(path) == "streamform.yml":
            models = doc.setdefault("models", {}) or {}
            doc["models"] = models
            m = models.setdefault(model, {}) or {}
            models[model] = m
            if not m.get("sink"):
                m["sink"] = {"connector": "kafka", "topic": f"out-{model}{suffix}"}
                topics.add(m["sink"]["topic"])
            doc["targets"] = {"kafka_conformance": {"backend": "flink", "flink": {"gateway": os.environ["FLINK_GATEWAY"]},
                                                   "kafka": {"bootstrap_servers": bootstrap}}}
        yaml.safe_dump(doc, open(path, "w"), sort_keys=False)
    return topics


# --------------------------------------------------------------------------- values


def decode(b):
    if b is None:
        return None
    return json.loads(b.decode(), parse_float=decimal.Decimal)


def produce_lines(fx, table, run, source=None):
    """The fixture's events as JSON texts, encoded as the file mode does; None when not expressible.
    With `source`, only that source's events."""
    lines = []
    for kind, item, src in run.given_items(fx):
        if kind == "watermark":
            return None
        if source is None or src == source:
            lines.append(run.event_line(item, table))
    return lines


# --------------------------------------------------------------------------- one fixture


class Job:
    """What one fixture needs to run on Kafka, prepared before any job starts."""

    def __init__(self, name, script, plan, model, feeds, sink_topic, quarantine_topic, topics, expected, quarantined, upsert_key, out_types, names, no_retention, qtypes, changelog):
        self.__dict__.update(locals())
        del self.__dict__["self"]


def wait_quiet(topics, expect_any, jid, bound):
    """Waits until the topics stop growing (bounded); fails when the job fails."""
    c = ku.Consumer({"bootstrap.servers": ku.bootstrap(), "group.id": "sf-conformance-probe", "enable.auto.commit": False})
    try:
        deadline = time.monotonic() + bound
        first_deadline = time.monotonic() + FIRST
        last, changed = None, time.monotonic()
        while True:
            now = time.monotonic()
            if now > deadline:
                raise TimeoutError(f"topics still growing after {bound}s")
            state = job_state(jid)
            if state in ("FAILED", "CANCELED", "FINISHED"):
                if state == "FAILED":
                    raise FlinkError(job_failure(jid))
            ends = tuple(c.get_watermark_offsets(ku.TopicPartition(t, 0), timeout=5)[1] for t in topics)
            if ends != last:
                last, changed = ends, now
            started = sum(ends) > 0 or not expect_any or now > first_deadline
            if started and now - changed >= QUIET:
                return
            time.sleep(0.25)
    finally:
        c.close()


def run_job(job, run):
    """Runs one fixture's script on the cluster; returns (status, detail)."""
    ku.create_topics(sorted(job.topics), timeout=30)
    for topic, lines in job.feeds:
        ku.produce(topic, list(lines), timeout=30)
    sess = Session(job.name[-60:])
    try:
        return run_statements(job, sess, run)
    finally:
        sess.close()
        try:
            ku.delete_topics(sorted(job.topics), timeout=30)
        except Exception:  # noqa: BLE001
            pass


def run_statements(job, sess, run):
    jid = None
    try:
        for st in flinksql.statements(job.script):
            jid = sess.run(st.rstrip(";")) or jid
        if jid is None:
            return "ERROR", "the script started no job"
        outs = [t for t in (job.sink_topic, job.quarantine_topic) if t]
        wait_quiet(outs, bool(job.expected) or bool(job.quarantined), jid, JOB_TIMEOUT)
    except FlinkError as e:
        return "ERROR", f"Flink: {e}" + bad_event_hint(str(e), job)
    except TimeoutError as e:
        return "ERROR", f"timed out: {e}"
    finally:
        if jid:
            cancel(jid)
    raw = ku.read_all(job.sink_topic, 30, decode="bytes")
    if os.environ.get("SF_KAFKA_SHOW"):  # the sink topic as Flink wrote it, for debugging
        print(f"{job.name}: {job.sink_topic}:\n" + "\n".join(f"  key={k!r} value={v!r}" for k, v in raw), flush=True)
    got = [(decode(k), decode(v)) for k, v in raw]
    qgot = [decode(v) for _, v in ku.read_all(job.quarantine_topic, 30, decode="bytes")] if job.quarantine_topic else []
    return compare(job, got, qgot, run)


def bad_event_hint(msg, job):
    m = re.search(r"Failed to deserialize JSON '(.*?)'", msg)
    if not m:
        return ""
    for i, ln in enumerate(ln for _, lines in job.feeds for ln in lines):
        if ln.replace(" ", "") == m.group(1).replace(" ", ""):
            return f"\n  event {i + 1} of the fixture: {ln}"
    return f"\n  event: {m.group(1)}"


def compare(job, got, qgot, run):
    names, types = job.names, job.out_types

    def norm(row):
        return None if row is None else {n: run.normalize(row.get(n), types[n]) for n in names}

    if job.changelog:  # debezium-json: {"before", "after", "op"} per record
        flink = [("d", norm(v["before"])) if v["op"] == "d" else (v["op"], norm(v["after"])) for _, v in got]
        verdict = rules.classify_changelog(flink, job.expected)
        if verdict is None and job.plan.source_reads(job.model) > 1:
            verdict = rules.source_order_changelog(flink, job.expected)
        if verdict is None and job.no_retention is not None and rules.classify_changelog(flink, job.no_retention):
            verdict = ("KNOWN", "retention: Flink's STATE_TTL runs on processing time; the output equals the simulator's without retention")
        if verdict is None:
            shown = lambda rs: "\n           ".join(map(str, rs)) or "(nothing)"  # noqa: E731
            return "DIVERGES", f"sink records differ\nflink:     {shown(flink)}\nsimulator: {shown(rules.changelog_records(job.expected))}"
        return verdict
    if job.upsert_key is not None:
        flink = [(tuple(rules.canon(run.normalize((k or {}).get(c), types[c])) for c in job.upsert_key), norm(v)) for k, v in got]
        want = rules.upsert_records(job.expected, job.upsert_key, job.updates_before)
        want_nr = rules.upsert_records(job.no_retention, job.upsert_key, job.updates_before) if job.no_retention is not None else None
    else:
        flink = [norm(v) for _, v in got]
        want = [c for op, c in job.expected if op == "insert"]
        want_nr = [c for op, c in job.no_retention if op == "insert"] if job.no_retention is not None else None
        if any(op != "insert" for op, _ in job.expected):
            return "DIVERGES", "the simulator emits updates or deletes into an append (kafka) sink"
    qwant = sorted(map(rules.canon, job.quarantined))
    qflink = sorted(map(rules.canon, [rules.quarantine_row(q, job.qtypes, run) for q in qgot]))
    problems = []
    if qflink != qwant:
        problems.append("quarantine differs:\n  flink:     " + "\n             ".join(qflink or ["(nothing)"]) + "\n  simulator: " + "\n             ".join(qwant or ["(nothing)"]))
    window = job.plan.window(job.model)
    known = ("KNOWN", "retention: Flink's STATE_TTL runs on processing time; the output equals the simulator's without retention")
    if job.plan.ranked(job.model):
        # A Top-N's records are compared exactly: no rule explains a difference.
        how = "; the sink gets UPDATE_BEFOREs: an update is its key's tombstone, then its row" if getattr(job, "updates_before", False) else ""
        verdict = ("EXACT", f"{len(flink)} records{how}") if flink == want else known if want_nr is not None and flink == want_nr else None
    else:
        verdict = rules.classify(flink, want, keyed=job.upsert_key is not None, window=window is not None)
        if verdict is None and job.plan.source_reads(job.model) > 1:
            verdict = rules.source_order_records(flink, want, keyed=job.upsert_key is not None)
        if verdict is None and want_nr is not None and rules.classify(flink, want_nr, keyed=job.upsert_key is not None, window=window is not None):
            verdict = known
    if problems:
        return "DIVERGES", "\n".join(problems)
    if verdict is None:
        shown = lambda rs: "\n           ".join(map(str, rs)) or "(nothing)"  # noqa: E731
        return "DIVERGES", f"sink records differ\nflink:     {shown(flink)}\nsimulator: {shown(want)}"
    return verdict


# --------------------------------------------------------------------------- driver


def prepare_job(run, a, project, rel, fpath, frel, sim, n, tmp):
    """A Job, or (status, detail) when the fixture cannot run on Kafka."""
    fx = yaml.safe_load(open(fpath)) or {}
    model = fx.get("model")
    name = f"{rel}/{frel}"
    if sim is None or sim.get("error"):
        return ("SKIPPED", f"the simulator could not run it: {(sim or {}).get('error')}")
    if sim.get("invalid_for_flink"):
        return ("SKIPPED", f"not valid input for Flink: {sim['invalid_for_flink']}")
    suffix = f"__k{n}_{RUN_ID}"
    dst = os.path.join(tmp, f"k{n}")
    kafka_copy(project, dst, model, suffix, os.environ["KAFKA_BOOTSTRAP"])
    r = run.sb(a.bin, ["build", "--backend", "flink", "--stdout", "--target", "kafka_conformance"], dst)
    if r.returncode != 0:
        return ("ERROR", f"build with a Kafka sink exits {r.returncode}: {(r.stdout + r.stderr).strip().splitlines()[-1]}")
    script = flinksql.Script(r.stdout)
    if os.path.exists(os.path.join(dst, "sources.yml")):
        flinksql.declare_csv(script, yaml.safe_load(open(os.path.join(dst, "sources.yml"))))
    plan = run.Plan(json.loads(run.sb(a.bin, ["inspect-plan", "--json"], dst).stdout))
    if model not in plan.models:
        return ("SKIPPED", f"model `{model}` is not planned")
    srcs = plan.sources(model)
    src = srcs[0]
    feeds = []
    for s in srcs:
        table = script.tables.get(s + "_raw") or script.tables.get(s)
        if table.opts.get("connector") != "kafka":
            return ("SKIPPED", f"source `{s}` is not on Kafka (connector {table.opts.get('connector')})")
        lines = produce_lines(fx, table, run, s if len(srcs) > 1 else None)
        if lines is None:
            return ("SKIPPED", "an explicit {watermark: …} item has no counterpart on Kafka")
        feeds.append((src_topic(script, s), lines))
    out = plan.output(model)
    out_types = {c["name"]: c["type"] for c in out["schema"]}
    names = [c["name"] for c in out["schema"]]
    sink = plan.models[model].get("sink") or {}
    sink_table = next((t for t in script.tables.values() if t.name == f"sink_{model}"), None)
    if sink_table is None:
        return ("SKIPPED", f"model `{model}` has no Kafka sink in the build ({sink})")
    sink_topic = sink_table.opts.get("topic")
    upsert = sink_table.opts.get("connector") == "upsert-kafka"
    changelog = sink_table.opts.get("format") == "debezium-json"  # an upsert model without key
    key = out["changelog"]["key"] if upsert else None
    # The simulator on this copy, which has the Kafka sink: it says how many
    # records the sink leaves out (a null key, W0792).
    sim = run.sim_report(a.bin, dst).get(frel) or sim
    dropped = sim.get("sink_dropped", 0)
    qtable = script.tables.get(f"quarantine_{src}")
    qtopic = qtable.opts.get("topic") if qtable and any(f"`quarantine_{src}`" in i for i in script.inserts) else None
    src_node = plan.nodes[plan_root_model(plan, model)][0]
    qtypes = {c["name"]: c["type"] for c in src_node["schema"]}
    qtypes["_contract"] = "string"

    def ops(report):
        return [(x["actual"]["op"], {k: run.normalize(x["actual"]["columns"].get(k), out_types[k]) for k in names}) for x in report["rows"] if x.get("actual")]

    expected = ops(sim)
    if upsert:
        kept = [(op, c) for op, c in expected if all(c.get(k) is not None for k in key)]
        if len(expected) - len(kept) != dropped:
            return ("ERROR", f"the simulator says its sink leaves out {dropped} records, but {len(expected) - len(kept)} have a null key")
        expected = kept
    quarantined = [rules.quarantine_row(q["actual"], qtypes, run) for q in sim.get("quarantined", []) if q.get("actual")]
    no_ret = None
    if plan.retention(model):
        nr = run.sim_report(a.bin, run.without_retention(project, os.path.join(tmp, f"nr{n}"))).get(frel)
        no_ret = ops(nr) if nr and not nr.get("error") else None
        if no_ret is not None and upsert:
            no_ret = [(op, c) for op, c in no_ret if all(c.get(k) is not None for k in key)]
    job = Job(name, r.stdout, plan, model, feeds, sink_topic, qtopic,
              kafka_topics(script), expected, quarantined, key, out_types, names, no_ret, qtypes, changelog)
    # A Top-N is compared exactly: it needs to know whether its sink gets
    # UPDATE_BEFOREs (upsert-kafka writes each as a tombstone).
    job.updates_before = upsert and plan.ranked(model) and sink_gets_updates_before(run, script, model, os.path.join(tmp, f"x{n}"))
    return job


_FLINK = []


def sink_gets_updates_before(run, script, model, tmp):
    """Whether Flink feeds the model's sink UPDATE_BEFOREs: its INSERT
    explained in a local TableEnvironment (run.sink_kinds)."""
    if not _FLINK:
        _FLINK.append(run.Flink())

    def dir_of(t):
        d = os.path.join(tmp, t)
        os.makedirs(d, exist_ok=True)
        return d

    env = run.setup(_FLINK[0], script, dir_of, sinks="blackhole")
    return "UB" in (run.sink_kinds(env, script, model) or ())


def plan_root_model(plan, model):
    first = plan.nodes[model][0]
    return model if first["operator"] == "source" else plan_root_model(plan, first["inputs"][0].split("::")[0])


def src_topic(script, src):
    t = script.tables.get(src + "_raw") or script.tables.get(src)
    return t.opts["topic"]


def kafka_topics(script):
    return {t.opts["topic"] for t in script.tables.values() if t.opts.get("topic")}


def main(a, run, projects):
    t0 = time.time()
    check_parts()
    results, skipped = [], []
    jobs = []
    tmp = tempfile.mkdtemp(prefix="sf-kconf-")
    try:
        n = 0
        for project in projects:
            rel = os.path.relpath(project, ROOT)
            if rel.startswith(".."):
                continue
            if run.sb(a.bin, ["check", "--project", project], ROOT).returncode != 0:
                skipped.append((rel, "check has errors"))
                continue
            fixtures = run.fixtures_of(project, a.fixture)
            if not fixtures:
                continue
            copy_dir, _ = run.prepare(project, os.path.join(tmp, f"sim{len(jobs)}_{n}"))
            sims = run.sim_report(a.bin, copy_dir)
            for fpath in fixtures:
                n += 1
                frel = os.path.relpath(fpath, project)
                try:
                    j = prepare_job(run, a, project, rel, fpath, frel, sims.get(frel), n, tmp)
                except Exception as e:  # noqa: BLE001
                    j = ("ERROR", f"preparing: {e}")
                if isinstance(j, tuple):
                    results.append((f"{rel}/{frel}", *j))
                    print(f"{j[0]:<8} {rel}/{frel}  ({j[1]})", flush=True)
                else:
                    jobs.append(j)
        lock = threading.Lock()

        def one(job):
            try:
                status, detail = run_job(job, run)
            except Unavailable:
                raise
            except Exception as e:  # noqa: BLE001
                status, detail = "ERROR", f"{type(e).__name__}: {e}"
            with lock:
                results.append((job.name, status, detail))
                first = detail.splitlines()[0] if detail else ""
                print(f"{status:<8} {job.name}  ({first})", flush=True)
                if status in ("DIVERGES", "ERROR") and "\n" in detail:
                    print("\n".join("         " + ln for ln in detail.splitlines()[1:]), flush=True)

        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as ex:
            list(ex.map(one, jobs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    counts = {}
    for _, s, _ in results:
        counts[s] = counts.get(s, 0) + 1
    print()
    print(f"kafka: {len(results)} fixtures: " + ", ".join(f"{c} {s.lower()}" for s, c in sorted(counts.items())))
    print(f"kafka: {sum(1 for _, s, d in results if s == 'FINAL')} final-only, each by a named rule; "
          f"{counts.get('KNOWN', 0)} known difference (retention), {counts.get('DIVERGES', 0) + counts.get('ERROR', 0)} failing")
    print(f"time: {time.time() - t0:.1f}s")
    return 1 if counts.get("DIVERGES", 0) + counts.get("ERROR", 0) else 0
