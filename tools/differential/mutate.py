"""Mutations of a generated project.

`break_project` makes one invalid project from a valid one: each entry of
`BREAKERS` is one kind of error the original refuses. `next_version` makes
a second valid version of a project, for `plan --against`: each entry of
`EVOLUTIONS` is one kind of change a team makes between two deploys.
A mutation that does not apply to the project returns False.
"""

import copy
import re


def _first_model(p, pred=lambda n, m: True):
    for n, m in p["models"].items():
        if pred(n, m):
            return n, m
    return None, None


def _first_source(p, pred=lambda n, s: True):
    for n, s in p["sources"].items():
        if pred(n, s):
            return n, s
    return None, None


def _select_list(sql):
    m = re.search(r"SELECT (.*?)\nFROM", sql, re.S)
    return m


def unknown_model_key(p, g):
    n, m = _first_model(p)
    m["config"]["materialised"] = "upsert"
    return True


def unknown_source_key(p, g):
    n, s = _first_source(p)
    s["partitions"] = 3
    return True


def bad_column_type(p, g):
    n, s = _first_source(p)
    c = sorted(s["schema"])[0]
    s["schema"][c] = g.pick(["decimal(39,2)", "integer", "varchar", "decimal(5,7)", "map<string,int>"])
    return True


def bad_duration(p, g):
    n, m = _first_model(p, lambda n, m: "retention" in m["config"] or "window" in m["config"])
    if n:
        if "retention" in m["config"]:
            m["config"]["retention"] = g.pick(["5min", "1.5h", "h", "-1s"])
        else:
            m["config"]["window"]["size"] = g.pick(["5min", "0s", "five minutes"])
        return True
    n, s = _first_source(p, lambda n, s: "watermark" in s)
    if n:
        s["watermark"] = "5 sec"
        return True
    return False


def bad_version(p, g):
    p["raw_version"] = g.pick(["2", "0", '"1"', "1.0"])
    return True


def unknown_source(p, g):
    n, m = _first_model(p, lambda n, m: "source('" in m["sql"])
    if not n:
        return False
    m["sql"] = re.sub(r"source\('([a-z_]+)'\)", lambda x: f"source('{x.group(1)[:-1]}')", m["sql"], count=1)
    return True


def unknown_ref(p, g):
    n, m = _first_model(p)
    m["sql"] = re.sub(r"(source|ref)\('[a-z_0-9]+'\)", "ref('nonexistent_model')", m["sql"], count=1)
    return True


def bare_table(p, g):
    n, m = _first_model(p)
    m["sql"] = re.sub(r"(source|ref)\('([a-z_0-9]+)'\)", r"\2", m["sql"], count=1)
    return True


def _add_select_item(m, item):
    """Appends `item` to the model's select list; false when it has none."""
    sel = _select_list(m["sql"])
    if not sel:
        return False
    m["sql"] = m["sql"][:sel.end(1)] + ", " + item + m["sql"][sel.end(1):]
    return True


def unsupported_construct(p, g):
    n, m = _first_model(p)
    if not _select_list(m["sql"]):
        return False
    _add_select_item(m, g.pick(["CASE WHEN 1 = 1 THEN 1 ELSE 0 END AS c", "COALESCE(NULL, 1) AS c", "AVG(1) AS c",
                                "UPPER('a') AS c", "1 % 2 AS c", "'a' || 'b' AS c"]))
    if g.chance(0.3):
        m["sql"] += g.pick(["\nORDER BY 1", "\nLIMIT 5"])
    return True


def unknown_column(p, g):
    n, m = _first_model(p)
    return _add_select_item(m, "no_such_column")


def key_mismatch(p, g):
    n, m = _first_model(p, lambda n, m: m["config"].get("materialized") == "upsert" and m["config"].get("key"))
    if not n:
        return False
    k = m["config"]["key"]
    m["config"]["key"] = list(reversed(k)) if len(k) > 1 else k + ["zzz"]
    return True


def upsert_without_key(p, g):
    n, m = _first_model(p, lambda n, m: m["config"].get("key"))
    if not n:
        return False
    del m["config"]["key"]
    m["config"]["materialized"] = "upsert"
    return True


def append_aggregate(p, g):
    n, m = _first_model(p, lambda n, m: m["config"].get("materialized") == "upsert" and "GROUP BY" in m["sql"])
    if not n:
        return False
    m["config"].pop("materialized")
    m["config"].pop("key", None)
    m["config"].pop("sink", None)
    return True


def window_on_upsert(p, g):
    n, m = _first_model(p, lambda n, m: "window" in m["config"])
    if not n:
        return False
    m["config"]["materialized"] = "upsert"
    return True


def retention_without_clock(p, g):
    n, m = _first_model(p, lambda n, m: m["config"].get("materialized") == "upsert" and "GROUP BY" in m["sql"])
    if not n:
        return False
    m["config"]["retention"] = "1h"
    for s in p["sources"].values():
        for k in ("event_time", "watermark", "late_events", "idle_timeout"):
            s.pop(k, None)
    for mm in p["models"].values():
        mm["config"].pop("window", None)
    return True


def bad_event_time(p, g):
    n, s = _first_source(p)
    if g.chance(0.5):
        s["event_time"] = "no_such_ts"
    else:
        non_ts = [c for c, t in s["schema"].items() if t != "timestamp"]
        if not non_ts:
            return False
        s["event_time"] = non_ts[0]
    return True


def watermark_without_event_time(p, g):
    n, s = _first_source(p)
    s.pop("event_time", None)
    s["watermark"] = "5s"
    return True


def contracts_without_quarantine(p, g):
    n, s = _first_source(p)
    s["contracts"] = [{"name": "x", "not_null": [sorted(s["schema"])[0]]}]
    s.pop("quarantine", None)
    return True


def shared_sink(p, g):
    sinks = [m for m in p["models"].values() if m["config"].get("sink", {}).get("connector") == "kafka"]
    if len(sinks) < 2:
        return False
    sinks[1]["config"]["sink"]["topic"] = sinks[0]["config"]["sink"]["topic"]
    return True


def configured_without_sql(p, g):
    p["extra_config"] = {"ghost_model": {"materialized": "append"}}
    return True


def reference_cycle(p, g):
    if len(p["models"]) < 1:
        return False
    a = list(p["models"])[0]
    p["models"]["cyc_b"] = {"sql": f"SELECT * FROM ref('cyc_c')", "config": {}}
    p["models"]["cyc_c"] = {"sql": f"SELECT * FROM ref('cyc_b')", "config": {}}
    return True


def string_arithmetic(p, g):
    for n, s in p["sources"].items():
        strings = [c for c, t in s["schema"].items() if t == "string"]
        if strings:
            m = {"sql": f"SELECT {strings[0]} + 1 AS bad FROM source('{n}')", "config": {}}
            p["models"]["bad_arith"] = m
            return True
    return False


def bad_fixture(p, g):
    if not p["fixtures"]:
        return False
    name = sorted(p["fixtures"])[0]
    fx = p["fixtures"][name]
    c = g.r.random()
    if c < 0.3:
        fx["model"] = "no_such_model"
    elif c < 0.5:
        fx["notes"] = "x"
    elif c < 0.7:
        fx["given"] = [3]
    elif c < 0.85:
        fx["expect"] = [{"op": "upsert"}]
    else:
        fx["given"] = [{"watermark": "yesterday"}]
    return True


BREAKERS = [unknown_model_key, unknown_source_key, bad_column_type, bad_duration, bad_version, unknown_source,
            unknown_ref, bare_table, unsupported_construct, unknown_column, key_mismatch, upsert_without_key,
            append_aggregate, window_on_upsert, retention_without_clock, bad_event_time,
            watermark_without_event_time, contracts_without_quarantine, shared_sink, configured_without_sql,
            reference_cycle, string_arithmetic, bad_fixture]


def break_project(p, g):
    """An invalid copy of `p`, and the name of the breaker used (None when none applied)."""
    for _ in range(10):
        q = copy.deepcopy(p)
        b = g.pick(BREAKERS)
        if b(q, g):
            return q, b.__name__
    return None, None


# -- evolutions: a valid second version, for `plan --against` ------------

def change_literal(p, g):
    n, m = _first_model(p, lambda n, m: re.search(r"\b\d+\b", m["sql"]))
    if not n:
        return False
    m["sql"] = re.sub(r"\b(\d+)\b", lambda x: str(int(x.group(1)) + 1), m["sql"], count=1)
    return True


def add_where(p, g):
    n, m = _first_model(p, lambda n, m: "WHERE" not in m["sql"] and "GROUP BY" not in m["sql"] and "WITH" not in m["sql"])
    if not n:
        return False
    m["sql"] += "\nWHERE 1 = 1"
    return True


def swap_aggregate(p, g):
    n, m = _first_model(p, lambda n, m: re.search(r"\b(SUM|sum|Sum|MIN|MAX)\(", m["sql"]))
    if not n:
        return False
    m["sql"] = re.sub(r"\b(SUM|sum|Sum)\(", "MAX(", m["sql"], count=1) if re.search(r"\b(SUM|sum|Sum)\(", m["sql"]) else \
        re.sub(r"\b(MIN|MAX)\(", lambda x: "MAX(" if x.group(1) == "MIN" else "MIN(", m["sql"], count=1)
    return True


def rename_model(p, g):
    n, m = _first_model(p, lambda n, m: not any(f"ref('{n}')" in o["sql"] for o in p["models"].values()))
    if not n:
        return False
    new = n + "_v2"
    m["config"]["renamed_from"] = n
    p["models"] = {(new if k == n else k): v for k, v in p["models"].items()}
    p["fixtures"] = {k: v for k, v in p["fixtures"].items() if v.get("model") != n}
    return True


def change_retention(p, g):
    n, m = _first_model(p, lambda n, m: "retention" in m["config"])
    if not n:
        return False
    m["config"]["retention"] = g.pick(["2h", "1d", "30m"])
    return True


def change_window(p, g):
    n, m = _first_model(p, lambda n, m: "window" in m["config"])
    if not n:
        return False
    m["config"]["window"]["size"] = g.pick(["10m", "2m", "1h"])
    return True


def add_source_column(p, g):
    n, s = _first_source(p)
    s["schema"]["zz_new"] = g.pick(["int64", "string"])
    return True


def change_sink(p, g):
    n, m = _first_model(p, lambda n, m: m["config"].get("sink", {}).get("connector") == "kafka")
    if not n:
        return False
    m["config"]["sink"]["topic"] += "-v2"
    return True


def change_idle_timeout(p, g):
    n, s = _first_source(p, lambda n, s: "event_time" in s)
    if not n:
        return False
    s["idle_timeout"] = "45s"
    return True


def change_source_key(p, g):
    n, s = _first_source(p, lambda n, s: s["connector"] == "kafka")
    if not n:
        return False
    s["key"] = [sorted(s["schema"])[-1]]
    return True


def remove_model(p, g):
    n, m = _first_model(p, lambda n, m: not any(f"ref('{n}')" in o["sql"] for o in p["models"].values()))
    if not n or len(p["models"]) < 2:
        return False
    del p["models"][n]
    p["fixtures"] = {k: v for k, v in p["fixtures"].items() if v.get("model") != n}
    return True


def add_model(p, g):
    src = sorted(p["sources"])[0]
    col = sorted(p["sources"][src]["schema"])[0]
    p["models"]["added_model"] = {"sql": f"SELECT {col} FROM source('{src}')", "config": {}}
    return True


EVOLUTIONS = [change_literal, add_where, swap_aggregate, rename_model, change_retention, change_window,
              add_source_column, change_sink, change_idle_timeout, change_source_key, remove_model, add_model]


def next_version(p, g):
    for _ in range(10):
        q = copy.deepcopy(p)
        e = g.pick(EVOLUTIONS)
        if e(q, g):
            return q, e.__name__
    return None, None
