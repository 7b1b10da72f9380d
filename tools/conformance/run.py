#!/usr/bin/env python3
"""Conformance of the Flink backend against real Apache Flink.

For every project under testdata/ that checks cleanly:
  * plan: the generated script, with the connector swap (flinksql.py), is
    executed up to EXPLAIN of its whole statement set (every model view is
    explained too): every generated script must plan on Flink;
  * run: every fixture under the project's tests/ feeds its events to the
    model's root source (JSON files, explicit watermarks as marker rows),
    the model's view is collected with each row's RowKind, and the
    changelog is compared with the simulator's (`streamform test --json`,
    or the fixture's `expect:` while `test` is not available): exactly
    (EXACT), by a named rule of rules.py (FINAL), or, for retention only,
    as the simulator's output without retention (KNOWN).
Flink's result types are compared with the plan's output types as well.
--kafka runs kafka_mode.py instead: the unmodified script on real Kafka.

One JVM runs everything. Usage (inside the venv `just conformance` makes):
  run.py [--bin PATH] [--only GLOB|generated] [--fixture GLOB] [--plan-only] [--corpus DIR]
         [--generated N] [--seed S] [--kafka] [-v]
--generated N (default 3) adds N random projects of expressions (exprgen.py)
from --seed S on to a file-mode run of every project (or alone: --only generated).
"""
import argparse
import atexit
import csv
import datetime as dt
import decimal
import fnmatch
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exprgen  # noqa: E402
import flinksql  # noqa: E402
import rules  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONFORMANCE_TARGET = """
targets:
  conformance:
    backend: flink
    flink: {gateway: "http://127.0.0.1:8083"}
    kafka: {bootstrap_servers: "127.0.0.1:9092"}
    iceberg: {catalog: "http://127.0.0.1:8181"}
"""

# --------------------------------------------------------------------------- Flink


class Flink:
    """One JVM; a fresh TableEnvironment per script."""

    def __init__(self):
        os.environ.setdefault("JVM_ARGS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        os.environ.setdefault("FLINK_LOG_DIR", tempfile.mkdtemp(prefix="sf-flink-log-"))
        from pyflink.table import EnvironmentSettings, TableEnvironment

        # Built once: each build wraps the py4j thread's context class
        # loader in one more URLClassLoader, and every class lookup then
        # walks the chain (a fixture took half a minute after a hundred).
        self._settings = EnvironmentSettings.in_streaming_mode()
        self._create = TableEnvironment.create

    def env(self, sets):
        t = self._create(self._settings)
        c = t.get_config()
        c.set("parallelism.default", "1")
        c.set("pipeline.auto-watermark-interval", "0")
        c.set("table.local-time-zone", "UTC")
        for k, v in sets:
            c.set(k, v)
        return t


def java_error(e):
    """The Java exception's message, not py4j's wrapper."""
    lines = [ln.strip() for ln in str(e).splitlines()]
    causes = [ln for ln in lines if ln.startswith("Caused by:")]
    if causes:
        return causes[-1][len("Caused by: "):]
    found = [ln for ln in lines if "Exception" in ln and not ln.startswith("at ")]
    return (found[0] if found else lines[0])[:600]


def setup(flink, script, data_dir_of, sinks):
    env = flink.env(script.sets)
    for st in script.runnable(data_dir_of, sinks=sinks):
        env.execute_sql(st.rstrip(";"))
    return env


# --------------------------------------------------------------------------- values


def epoch_ms(v):
    if v is None:
        return None
    if isinstance(v, bool):
        raise ValueError(v)
    if isinstance(v, int):
        return v
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=dt.timezone.utc)
        return int(round(v.timestamp() * 1000))
    s = str(v)
    s = s.replace("Z", "+00:00")
    d = dt.datetime.fromisoformat(s)
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return int(d.timestamp() * 1000) if d.microsecond % 1000 == 0 else int(d.timestamp() * 1000)


def iso_local(ms):
    d = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}"


def normalize(v, ty):
    """A value in a comparable form, by plan type."""
    if v is None:
        return None
    if ty.startswith("decimal"):
        return decimal.Decimal(str(v))
    if ty.startswith("timestamp"):
        return epoch_ms(v)
    if ty == "float64":
        return float(v)
    if ty in ("int32", "int64"):
        return int(v)
    return v


def show(v):
    if isinstance(v, decimal.Decimal):
        return format(v.normalize(), "f") if v == v.to_integral() else str(v.normalize())
    return json.dumps(v) if isinstance(v, str) else str(v)


def flink_type_of_plan(ty):
    m = re.match(r"decimal\((\d+),(\d+)\)", ty)
    if m:
        return f"DECIMAL({m.group(1)}, {m.group(2)})"
    return {"int32": "INT", "int64": "BIGINT", "float64": "DOUBLE", "string": "STRING", "boolean": "BOOLEAN",
            "timestamp(millisecond)": "TIMESTAMP(3)", "timestamp(nanosecond)": "TIMESTAMP(9)"}.get(ty, ty)


def flink_type_text(t):
    s = str(t).replace(" NOT NULL", "").replace(" *ROWTIME*", "").replace(" *PROCTIME*", "")
    return "STRING" if s == "VARCHAR(2147483647)" else s


# --------------------------------------------------------------------------- projects


def prepare(project, tmp):
    """A copy of the project that has a target, and the target's name."""
    dst = os.path.join(tmp, "project")
    shutil.copytree(project, dst, ignore=shutil.ignore_patterns("expected", "build", ".streamform"))
    cfg_path = os.path.join(dst, "streamform.yml")
    cfg = yaml.safe_load(open(cfg_path)) or {}
    if not cfg.get("targets"):
        text = open(cfg_path).read()
        text = re.sub(r"(?m)^targets:.*$", "", text)
        open(cfg_path, "w").write(text.rstrip("\n") + "\n" + CONFORMANCE_TARGET)
        return dst, "conformance"
    return dst, sorted(cfg["targets"])[0]


def sb(binary, args, cwd):
    return subprocess.run([binary] + args, cwd=cwd, capture_output=True, text=True)


class Plan:
    def __init__(self, manifest):
        self.models = {m["name"]: m for m in manifest["models"]}
        self.nodes = {}
        for n in manifest["nodes"]:
            self.nodes.setdefault(n["model"], []).append(n)

    def sources(self, model):
        """Every source upstream of the model, in plan order (upstream models first)."""
        out = []
        for n in self.nodes[model]:
            if n["operator"] == "source":
                name = n["definition"].split(" (")[0]
                if name not in out:
                    out.append(name)
            for i in n["inputs"]:
                up = i.split("::")[0]
                if up != model and i.endswith("::sink::0"):
                    out += [s for s in self.sources(up) if s not in out]
        return out

    def source_reads(self, model):
        """How many Source nodes are upstream of the model: a source read twice
        is scanned twice by Flink, which interleaves the scans as two sources."""
        n = 0
        for node in self.nodes[model]:
            n += node["operator"] == "source"
            n += sum(self.source_reads(i.split("::")[0]) for i in node["inputs"] if i.endswith("::sink::0") and i.split("::")[0] != model)
        return n

    def root_source(self, model):
        first = self.nodes[model][0]
        if first["operator"] == "source":
            return first["definition"].split(" (")[0]
        return self.root_source(first["inputs"][0].split("::")[0])

    def output(self, model):
        return self.nodes[model][-1]

    def ranked(self, model):
        """Whether the model's rows are a Rank's, through projections, sinks
        and ref()s only: Flink's Top-N functions write them as they are,
        so no rule may excuse a difference."""
        by_id = {n["id"]: n for ns in self.nodes.values() for n in ns}
        node = self.output(model)
        while node["operator"] in ("sink", "project") and len(node["inputs"]) == 1 and node["inputs"][0] in by_id:
            node = by_id[node["inputs"][0]]
        return node["operator"] == "rank"

    def window(self, model):
        for n in self.nodes[model]:
            w = n["state"].get("window")
            if w:
                return w
        return None

    def retention(self, model):
        """Models on the chain that declare retention."""
        out = []
        m = model
        while True:
            ns = self.nodes[m]
            out += [m for n in ns if n["state"].get("retention") not in (None, "unbounded", "until-close")]
            if ns[0]["operator"] == "source":
                return out
            m = ns[0]["inputs"][0].split("::")[0]


def duration_ms(s):
    n, unit = re.match(r"(\d+)(ms|s|m|h|d)$", s).groups()
    return int(n) * {"ms": 1, "s": 1000, "m": 60000, "h": 3600000, "d": 86400000}[unit]


def sim_report(binary, project_copy):
    r = subprocess.run([binary, "test", "--json"], cwd=project_copy, capture_output=True, text=True)
    try:
        reports = {f["path"]: f for f in json.loads(r.stdout)["fixtures"]}
    except (ValueError, KeyError):
        return {}
    # W0776 (on stderr, located): the fixture feeds a decimal with more
    # integer digits than its column holds. Flink reads it as null, the
    # simulator keeps it and warns (spec §8): not valid input for Flink.
    for m in re.finditer(r"warning\[W0776\][^\n]*\n\s*--> ([^:\n]+):", r.stderr):
        if m.group(1) in reports:
            reports[m.group(1)]["invalid_for_flink"] = "it feeds a decimal past its column's precision (W0776), which Flink reads as null"
    return reports


def without_retention(project, dst):
    """A copy of the project with every `retention:` removed (the KNOWN-retention check)."""
    shutil.copytree(project, dst)

    def strip(n):
        if isinstance(n, dict):
            n.pop("retention", None)
            for v in n.values():
                strip(v)
        elif isinstance(n, list):
            for v in n:
                strip(v)
        return n

    p = os.path.join(dst, "streamform.yml")
    yaml.safe_dump(strip(yaml.safe_load(open(p))), open(p, "w"), sort_keys=False)
    return dst



# --------------------------------------------------------------------------- fixtures


def given_items(fx):
    """(kind, item, source): the source is None unless the item names one
    (`{source: x, event: {…}}`, `{source: x, watermark: …}`)."""
    for item in fx.get("given") or []:
        if isinstance(item, dict) and set(item) == {"watermark"}:
            yield ("watermark", item["watermark"], None)
        elif isinstance(item, dict) and set(item) == {"event"} and isinstance(item["event"], dict):
            yield ("event", item["event"], None)
        elif isinstance(item, dict) and set(item) == {"source", "event"} and isinstance(item["event"], dict):
            yield ("event", item["event"], item["source"])
        elif isinstance(item, dict) and set(item) == {"source", "watermark"}:
            yield ("watermark", item["watermark"], item["source"])
        else:
            yield ("event", item, None)


def json_value(v, flink_ty, as_text=False):
    if v is None:
        return "null"
    if as_text:
        # Read by the generated SQL as RFC 3339 text: sent as the fixture wrote it.
        if isinstance(v, dt.datetime):
            return json.dumps(v.isoformat().replace("+00:00", "Z"))
        return json.dumps(v)
    if flink_ty.startswith("TIMESTAMP"):
        return json.dumps(iso_local(epoch_ms(v)))
    if flink_ty.startswith("DECIMAL"):
        return str(v)  # as written: exact
    if flink_ty == "BIGINT" and isinstance(v, (int, float)) and not isinstance(v, bool):
        # Fixtures saturate int64 values beyond its range (the simulator does too).
        v = max(-(2**63), min(2**63 - 1, int(v)))
    return json.dumps(v)


def csv_value(v, flink_ty, as_text=False):
    """A value as a field of a csv record: the JSON text unquoted."""
    if v is None:
        return flinksql.NULL_LITERAL
    text = json_value(v, flink_ty, as_text)
    return json.loads(text) if text.startswith('"') else text


def csv_line(values):
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(values)
    return out.getvalue()


def event_line(item, table, file_mode=False):
    """One fixture event as the text a source table reads (both modes):
    JSON, or for a csv source its fields in sources.yml's order (and, in
    file mode, the marker field the file table adds last)."""
    if table.declared is not None:
        unknown = [c for c in item if c not in table.declared]
        if unknown:
            raise ValueError(f"event has column `{unknown[0]}`, which the source does not declare")
        if not file_mode and any(item.get(c) is None for c in table.declared):
            raise ValueError("a csv record with a null field: the build's csv table reads no text as null")
        return csv_line([csv_value(item.get(c), table.col_type(c), c in table.as_text) for c in table.declared] + ([flinksql.NULL_LITERAL] if file_mode else []))
    fields = []
    for c, v in item.items():
        ty = table.col_type(c)
        if ty is None:
            raise ValueError(f"event has column `{c}`, which the source does not declare")
        fields.append(f"{json.dumps(c)}: {json_value(v, ty, c in table.as_text)}")
    return "{" + ", ".join(fields) + "}"


def write_events(fx, table, path, source=None):
    """The fixture's events as JSON lines; the final watermark the simulator
    reaches. With `source`, only the items of that source (and watermarks
    naming no source) are written."""
    lines, wm = [], None
    et, delay = (table.event_time, table.watermark[1]) if table.watermark else (None, 0)
    for kind, item, src in given_items(fx):
        if source is not None and src not in (source, None if kind == "watermark" else source):
            continue
        if kind == "watermark":
            if et is None:
                continue
            w = epoch_ms(item)
            wm = w if wm is None else max(wm, w)
            if table.declared is not None:
                lines.append(csv_line([iso_local(w + delay) + "Z" if c == et else flinksql.NULL_LITERAL for c in table.declared] + ["true"]))
            else:
                lines.append("{" + f'"{flinksql.MARKER}": true, "{et}": {json.dumps(iso_local(w + delay) + "Z")}' + "}")
            continue
        if et and item.get(et) is not None:
            w = epoch_ms(item[et]) - delay
            wm = w if wm is None else max(wm, w)
        lines.append(event_line(item, table, file_mode=True))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write("".join(ln + "\n" for ln in lines))
    return wm


def sink_kinds(env, script, model):
    """The kinds of change the model's sink gets: the changelog mode of what
    feeds it in Flink's plan of the model's INSERT (its sink a blackhole
    table with the same primary key: Flink asks for UPDATE_BEFOREs when that
    key is not the query's upsert key), or, for a model without a sink, at
    the root of its view's plan (explained without the collect, which asks
    for them). None when the plan does not say."""
    from pyflink.table.explain_detail import ExplainDetail

    quoted = "`" + model.replace("`", "``") + "`"
    insert = next((i for i in script.inserts if f" FROM {quoted}" in i), None)
    text = env.explain_sql(insert.rstrip(";") if insert else f"SELECT * FROM {quoted}", ExplainDetail.CHANGELOG_MODE)
    physical = text.split("== Optimized Physical Plan ==")[-1].split("== Optimized Execution Plan ==")[0]
    modes = re.findall(r"changelogMode=\[([^\]]*)\]", physical)[1 if insert else 0:]  # the Sink's own is NONE
    return set(modes[0].split(",")) if modes else None


def is_update_before(kind):
    return kind.split(".")[-1] in ("-U", "UPDATE_BEFORE")


def flink_changelog(env, model):
    t = env.sql_query(f"SELECT * FROM `{model}`")
    schema = t.get_resolved_schema()
    names = list(schema.get_column_names())
    types = [flink_type_text(re.sub(r"^`(?:[^`]|``)*` ", "", str(c))) for c in schema.get_columns()]
    rows = []
    with t.execute().collect() as results:
        for r in results:
            rows.append((str(r.get_row_kind()), dict(zip(names, list(r)))))
    return names, types, rows


KIND = {"+I": "insert", "+U": "update", "-U": "delete", "-D": "delete", "INSERT": "insert", "UPDATE_AFTER": "update",
        "UPDATE_BEFORE": "delete", "DELETE": "delete"}


def to_ops(rows):
    """Flink's changelog in the simulator's vocabulary: -U/+U pairs are one update."""
    out = []
    i = 0
    while i < len(rows):
        k, cols = rows[i]
        k = KIND.get(k.split(".")[-1], KIND.get(k, k))
        nxt = KIND.get(rows[i + 1][0].split(".")[-1], rows[i + 1][0]) if i + 1 < len(rows) else None
        if rows[i][0].endswith(("-U", "UPDATE_BEFORE")) and nxt == "update":
            i += 1
            continue
        out.append((k, cols))
        i += 1
    return out


def final_table(ops, key):
    table = {}
    multiset = []
    for op, cols in ops:
        if key is not None:
            k = tuple(repr(cols.get(c)) for c in key)
            if op == "delete":
                table.pop(k, None)
            else:
                table[k] = cols
        else:
            if op == "delete":
                if cols in multiset:
                    multiset.remove(cols)
            else:
                multiset.append(cols)
    rows = list(table.values()) if key is not None else multiset
    return sorted(rows, key=lambda r: repr(sorted(r.items(), key=lambda kv: kv[0])))


def render_ops(ops, names):
    return [f"{op} " + " ".join(f"{n}={show(c.get(n))}" for n in names) for op, c in ops]


# --------------------------------------------------------------------------- main


def fixtures_of(project, pattern):
    """A project's fixture files, in order, those `--fixture` names."""
    every = sorted(glob.glob(os.path.join(project, "tests", "**", "*.yml"), recursive=True))
    names = lambda f: (os.path.relpath(f, project), os.path.basename(f), os.path.relpath(f, ROOT))
    return [f for f in every if any(fnmatch.fnmatch(n, pattern) for n in names(f))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "streamform"))
    ap.add_argument("--only", default="*", help="projects whose path under the repository (or folder name) matches this glob")
    ap.add_argument("--fixture", default="*", help="only the fixtures whose path (tests/x.yml, <project>/tests/x.yml) or file name matches this glob")
    ap.add_argument("--plan-only", action="store_true")
    ap.add_argument("--corpus", help="also EXPLAIN every case of a reference corpus that builds")
    ap.add_argument("--kafka", action="store_true", help="run the generated script unmodified on real Kafka and a Flink session cluster (kafka_mode.py)")
    ap.add_argument("--generated", type=int, default=3, help="also run this many random projects of expressions (exprgen.py; file mode)")
    ap.add_argument("--seed", type=int, default=1, help="the first generated project's seed (the others follow it)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    t0 = time.time()
    has_test = sb(a.bin, ["test", "--help"], ROOT).returncode == 0

    projects = sorted({os.path.dirname(p) for p in glob.glob(os.path.join(ROOT, "testdata", "**", "streamform.yml"), recursive=True)})
    if a.corpus:
        projects += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(a.corpus, "*", "streamform.yml")))
    projects = [p for p in projects if fnmatch.fnmatch(os.path.relpath(p, ROOT), a.only) or fnmatch.fnmatch(os.path.basename(p), a.only)]
    generated = set()
    if a.generated and not a.kafka and a.only in ("*", "generated"):
        gen_dir = tempfile.mkdtemp(prefix="sf-conf-gen-")
        atexit.register(shutil.rmtree, gen_dir, True)
        generated = {exprgen.write(a.seed + i, gen_dir) for i in range(a.generated)}
        projects += sorted(generated)
    if a.kafka:
        import kafka_mode

        try:
            sys.exit(kafka_mode.main(a, sys.modules[__name__], projects))
        except kafka_mode.Unavailable as e:
            print(f"kafka: FAILED: {e}")
            sys.exit(2)
    flink = Flink()

    planned = plan_failures = 0
    results = []  # (fixture, status, detail)
    skipped = []
    for project in projects:
        rel = os.path.relpath(project, ROOT)
        if project in generated:
            rel = f"generated/{os.path.basename(project)} (seed {os.path.basename(project)[4:]})"
        if sb(a.bin, ["check", "--project", project], ROOT).returncode != 0:
            skipped.append((rel, "check has errors"))
            if project in generated:
                plan_failures += 1
                print(f"GEN FAIL {rel}: check has errors")
            continue
        tmp = tempfile.mkdtemp(prefix="sf-conf-")
        try:
            copy, target = prepare(project, tmp)
            r = sb(a.bin, ["build", "--backend", "flink", "--stdout", "--target", target], copy)
            if r.returncode != 0:
                skipped.append((rel, f"build exits {r.returncode}: {(r.stdout + r.stderr).strip().splitlines()[0]}"))
                continue
            script = flinksql.Script(r.stdout)
            flinksql.declare_csv(script, yaml.safe_load(open(os.path.join(copy, "sources.yml"))) if os.path.exists(os.path.join(copy, "sources.yml")) else None)
            plan = Plan(json.loads(sb(a.bin, ["inspect-plan", "--json"], copy).stdout))
            data = os.path.join(tmp, "data")

            def dir_of(table):
                d = os.path.join(data, table)
                os.makedirs(d, exist_ok=True)
                return d

            # Plan: EXPLAIN the whole statement set, and every model's view.
            try:
                env = setup(flink, script, dir_of, sinks="blackhole")
                if script.inserts:
                    ss = env.create_statement_set()
                    for ins in script.inserts:
                        ss.add_insert_sql(ins.rstrip(";"))
                    ss.explain()
                for m in plan.models:
                    env.explain_sql(f"SELECT * FROM `{m}`")
                planned += 1
                if a.verbose:
                    print(f"plan ok   {rel}")
            except Exception as e:  # noqa: BLE001
                plan_failures += 1
                print(f"PLAN FAIL {rel}: {java_error(e)}")
                continue
            if a.plan_only or (rel.startswith("..") and project not in generated):
                continue
            fixtures = fixtures_of(copy, a.fixture)
            sim = sim_report(a.bin, copy) if fixtures and has_test else {}
            for fpath in fixtures:
                frel = os.path.relpath(fpath, copy)
                name = f"{rel}/{frel}"
                no_ret = None
                fx_model = (yaml.safe_load(open(fpath)) or {}).get("model")
                if fx_model in plan.models and plan.retention(fx_model):
                    nr = sim_report(a.bin, without_retention(copy, os.path.join(tmp, "noret"))).get(frel)
                    shutil.rmtree(os.path.join(tmp, "noret"), ignore_errors=True)
                    no_ret = [(r["actual"]["op"], r["actual"]["columns"]) for r in nr["rows"] if r.get("actual")] if nr and not nr.get("error") else None
                status, detail = run_fixture(flink, script, plan, fpath, frel, sim.get(frel), tmp, no_ret)
                if project in generated and status != "EXACT":
                    # Generated cases are meant to be exact: anything else is a finding.
                    status, detail = "DIVERGES", f"generated case is {status.lower()}: {detail}"
                results.append((name, status, detail))
                print(f"{status:<8} {name}" + (f"  ({detail.splitlines()[0]})" if detail and (status != "EXACT" or a.verbose) else ""))
                if status in ("DIVERGES", "ERROR") and detail and "\n" in detail:
                    print("\n".join("         " + ln for ln in detail.splitlines()[1:]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    for rel, why in skipped:
        if a.verbose:
            print(f"skipped  {rel}: {why}")
    counts = {}
    for _, s, _ in results:
        counts[s] = counts.get(s, 0) + 1
    print()
    print(f"plan: {planned} scripts planned on Flink, {plan_failures} failed; {len(skipped)} projects skipped (check errors or no build)")
    print(f"run: {len(results)} fixtures: " + ", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items())))
    print(f"run: {counts.get('FINAL', 0)} final-only, each by a named rule; {counts.get('KNOWN', 0)} known difference (retention); "
          f"{counts.get('DIVERGES', 0) + counts.get('ERROR', 0)} failing")
    print(f"oracle: {'streamform test --json (the simulator)' if has_test else 'the fixtures expect: rows (streamform test is not available yet)'}")
    print(f"time: {time.time() - t0:.1f}s")
    bad = plan_failures + counts.get("DIVERGES", 0) + counts.get("ERROR", 0)
    sys.exit(1 if bad else 0)


def run_fixture(flink, script, plan, fpath, frel, sim, tmp, no_retention=None):
    fx = yaml.safe_load(open(fpath)) or {}
    model = fx.get("model")
    if model not in plan.models:
        return "SKIPPED", f"model `{model}` is not planned"
    out_node = plan.output(model)
    out_types = {c["name"]: c["type"] for c in out_node["schema"]}
    names = [c["name"] for c in out_node["schema"]]
    # The oracle: the simulator's actual changelog, or the fixture's expectations.
    if sim is not None:
        if sim.get("error"):
            return "SKIPPED", f"the simulator could not run it: {sim['error']}"
        if sim.get("invalid_for_flink"):
            return "SKIPPED", f"not valid input for Flink: {sim['invalid_for_flink']}"
        expected = [(r["actual"]["op"], r["actual"]["columns"]) for r in sim["rows"] if r.get("actual")]
    else:
        expected = [(e["op"], {k: v for k, v in e.items() if k != "op"}) for e in (fx.get("expect") or [])]
    expected = [(op, {n: normalize(c.get(n), out_types[n]) for n in names}) for op, c in expected]

    srcs = plan.sources(model)
    data = os.path.join(tmp, "run", re.sub(r"\W", "_", frel))

    def dir_of(t):
        d = os.path.join(data, t)
        os.makedirs(d, exist_ok=True)
        return d

    try:
        # Each source's events in its own file; the watermark the windows
        # see is the slowest source's.
        wms = []
        for src in srcs:
            table = script.tables.get(src + "_raw") or script.tables.get(src)
            wms.append(write_events(fx, table, os.path.join(dir_of(table.name), "events.json"), src if len(srcs) > 1 else None))
        wm = None if any(w is None for w in wms) else min(wms)
        env = setup(flink, script, dir_of, sinks="blackhole")
        kinds = sink_kinds(env, script, model)
        fnames, ftypes, rows = flink_changelog(env, model)
    except Exception as e:  # noqa: BLE001
        return "ERROR", java_error(e)
    # The collect asks for UPDATE_BEFOREs: when the model's sink gets none,
    # they are left out, so an update is compared as the UPDATE_AFTER it is
    # (never as a tombstone).
    note = ""
    if kinds is not None and "UB" not in kinds:
        ub = sum(1 for k, _ in rows if is_update_before(k))
        rows = [(k, c) for k, c in rows if not is_update_before(k)]
        if ub:
            note = f"; {ub} UPDATE_BEFOREs of the collect left out (the sink gets [{','.join(sorted(kinds))}])"
    problems = []
    want_types = [flink_type_of_plan(out_types[n]) for n in names]
    if fnames != names or ftypes != want_types:
        problems.append(f"types: Flink {list(zip(fnames, ftypes))} vs plan {list(zip(names, want_types))}")
    ops = [(op, {n: normalize(c.get(n), out_types[n]) for n in names}) for op, c in to_ops(rows)]
    norm_rows = [(k, {n: normalize(c.get(n), out_types[n]) for n in names}) for k, c in rows]
    window = plan.window(model)
    if window:
        # A bounded file source's final watermark fires every open window;
        # the simulator (like Kafka) keeps them open. Keep what `wm` fired.
        # A session has no size: its rows must carry window_end to be told apart.
        size = duration_ms(window["size"]) if "size" in window else None

        def fired(c):
            if "window_end" in c:
                end = c["window_end"]
            elif "window_start" in c and size is not None:
                end = c["window_start"] + size
            else:
                return True
            return wm is not None and end <= wm

        kept = [(op, c) for op, c in ops if fired(c)]
        if len(kept) != len(ops):
            note += f"; {len(ops) - len(kept)} window rows flushed at end of input left out"
        ops = kept
    key_cols = out_node["changelog"]["key"]
    key = [k for k in key_cols if k in names] if out_node["changelog"]["mode"] == "upsert" else None
    if key is not None and len(key) != len(key_cols):
        key = None
    # A Top-N's rows are compared exactly: no rule explains a difference.
    exact_only = plan.ranked(model)
    if not problems and exact_only:
        if ops == expected:
            return "EXACT", f"{len(ops)} changelog rows" + note
        if no_retention is not None:
            nr = [(op, {n: normalize(c.get(n), out_types[n]) for n in names}) for op, c in no_retention]
            if ops == nr:
                return "KNOWN", "retention: Flink's STATE_TTL runs on processing time; the output equals the simulator's without retention"
    elif not problems:
        verdict = rules.classify_ops(ops, expected, key, window is not None)
        if verdict is None and key is not None:
            # As an upsert sink sees them: RowKinds become values and tombstones.
            recs = [(rules._key(c, key), None if KIND.get(k.split(".")[-1], KIND.get(k)) == "delete" else c) for k, c in norm_rows]
            v = rules.classify(recs, rules.upsert_records(expected, key), keyed=True, window=window is not None)
            if v and v[0] == "FINAL":
                verdict = ("FINAL", v[1].replace("rule ", "rule first-upsert + ", 1))
            elif v:
                verdict = ("FINAL", "rule first-upsert" + v[1][v[1].index(" ("):] if " (" in v[1] else "rule first-upsert")
        if verdict is None and plan.source_reads(model) > 1:
            verdict = rules.source_order_ops(ops, expected, key)
        if verdict:
            return verdict[0], verdict[1] + note
        if no_retention is not None:
            nr = [(op, {n: normalize(c.get(n), out_types[n]) for n in names}) for op, c in no_retention]
            if rules.classify_ops(ops, nr, key, window is not None):
                return "KNOWN", "retention: Flink's STATE_TTL runs on processing time; the output equals the simulator's without retention"
    detail = "\n".join(problems)
    detail += "\nflink:     " + "\n           ".join(render_ops(ops, names) or ["(nothing)"])
    detail += "\nsimulator: " + "\n           ".join(render_ops(expected, names) or ["(nothing)"])
    reason = "changelog differs (a Top-N's, compared exactly)" if exact_only else "changelog differs, and no rule of rules.py explains it"
    if plan.retention(model):
        reason += " (retention declared, but the output is not the simulator's without retention either)"
    return "DIVERGES", reason + "\n" + detail.strip("\n")


if __name__ == "__main__":
    main()
