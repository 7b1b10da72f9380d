"""Random valid Streamform projects, from a grammar of what 0.9.1 accepts.

A project is a plain dict (see `Project`), rendered to files by `write`.
Every choice comes from one `random.Random`, so a seed names a project.
The generator keeps types in hand as it builds expressions, so what it
writes plans on the original (arithmetic on numbers only, boolean
predicates, GROUP BY keys equal to the upsert key, windows over event
time); `mutate.py` breaks projects on purpose.
"""

import json
import os
import random

NUMERIC = ("int32", "int64", "float64", "decimal")
COLUMN_POOL = ["amount", "qty", "price", "customer_id", "order_id", "status", "region", "is_gift",
               "score", "ts", "created", "n", "total", "Weird_Case", "zone", "discount"]
SOURCE_POOL = ["orders", "clicks", "payments", "events", "inventory", "users"]
MODEL_POOL = ["totals", "by_region", "big_orders", "per_customer", "windowed", "daily", "scores",
              "cleaned", "flagged", "summary", "counts", "latest", "m1", "m2", "m3"]
DURATIONS = ["0s", "5s", "30s", "90s", "1m", "5m", "60m", "90m", "1h", "3600s", "24h", "1d", "1500ms", "250ms"]


def kind(t):
    """The type class: int32, int64, float64, decimal, string, boolean, timestamp."""
    return "decimal" if t.startswith("decimal") else t


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed

    def pick(self, xs):
        return self.r.choice(list(xs))

    def chance(self, p):
        return self.r.random() < p

    # -- types and sources ------------------------------------------------

    def col_type(self):
        c = self.r.random()
        if c < 0.25:
            p = self.r.randint(1, 38)
            return f"decimal({p},{self.r.randint(0, min(p, 12))})"
        if c < 0.3:
            return "decimal"
        return self.pick(["int32", "int64", "int64", "float64", "string", "string", "boolean", "timestamp"])

    def source(self, name):
        cols = self.r.sample(COLUMN_POOL, self.r.randint(2, 6))
        schema = {c: self.col_type() for c in cols}
        if self.chance(0.5):
            schema[self.pick([c for c in COLUMN_POOL if c not in schema] or ["ts2"])] = "timestamp"
        s = {"connector": "kafka", "topic": name} if self.chance(0.8) else {"connector": "file", "path": f"/data/{name}.jsonl"}
        if self.chance(0.15):
            s["format"] = self.pick(["json", "csv"])
        s["schema"] = schema
        ts_cols = [c for c, t in schema.items() if t == "timestamp"]
        if ts_cols and self.chance(0.7):
            s["event_time"] = self.pick(ts_cols)
            if self.chance(0.6):
                s["watermark"] = self.pick(DURATIONS)
            if self.chance(0.2):
                s["late_events"] = self.pick(["drop", "keep"])
            if self.chance(0.5):
                s["idle_timeout"] = self.pick(DURATIONS[1:])
        if s["connector"] == "kafka" and self.chance(0.4):
            s["key"] = self.r.sample(sorted(schema), self.r.randint(1, min(2, len(schema))))
        if self.chance(0.3):
            contracts = []
            for i in range(self.r.randint(1, 2)):
                if self.chance(0.6):
                    contracts.append({"name": f"c{i}", "not_null": self.r.sample(sorted(schema), self.r.randint(1, min(2, len(schema))))})
                else:
                    scope = {c: (t, t) for c, t in schema.items()}
                    contracts.append({"name": f"c{i}", "check": self.predicate(scope, depth=1)})
            s["contracts"] = contracts
            s["quarantine"] = {"topic": f"{name}-quarantine"}
        return s

    # -- expressions over a scope {column: (display type, engine type)} ----

    def literal(self, k):
        if k in ("int32", "int64"):
            return str(self.r.randint(-3, 100)), "int64"
        if k == "float64":
            return self.pick(["1.5", "0.1", "2.50", "1e3", "-1.5", "0.25"]), "float64"
        if k == "string":
            return self.pick(["'paid'", "'it''s'", "'EU'", "''", "'é'"]), "string"
        if k == "boolean":
            return self.pick(["TRUE", "FALSE"]), "boolean"
        return str(self.r.randint(1, 9)), "int64"

    def numeric(self, scope, depth):
        cols = [c for c, (_, t) in scope.items() if kind(t) in NUMERIC]
        if depth <= 0 or not cols or self.chance(0.35):
            if cols and self.chance(0.8):
                return quote(self.pick(cols))
            return self.literal(self.pick(["int64", "float64"]))[0]
        c = self.r.random()
        if c < 0.75:
            op = self.pick(["+", "-", "*", "/", "+", "*"])
            right = self.numeric(scope, depth - 1)
            if op == "/" and right.lstrip("-") in ("0", "0.0"):
                right = "2"
            return f"{self.numeric(scope, depth - 1)} {op} {paren(right)}"
        if c < 0.9:
            return f"({self.numeric(scope, depth - 1)})"
        return f"CAST({self.numeric(scope, depth - 1)} AS {self.pick(['BIGINT', 'INT', 'DOUBLE', 'DECIMAL(12,2)', 'DECIMAL(20,4)'])})"

    def predicate(self, scope, depth=2):
        c = self.r.random()
        cols = list(scope)
        bools = [x for x, (_, t) in scope.items() if t == "boolean"]
        strings = [x for x, (_, t) in scope.items() if t == "string"]
        if depth > 0 and c < 0.2:
            return f"{self.predicate(scope, depth - 1)} {self.pick(['AND', 'OR'])} {self.predicate(scope, depth - 1)}"
        if depth > 0 and c < 0.27:
            return f"NOT ({self.predicate(scope, depth - 1)})"
        if bools and c < 0.35:
            return quote(self.pick(bools))
        if cols and c < 0.45:
            return f"{quote(self.pick(cols))} IS {self.pick(['NULL', 'NOT NULL'])}"
        if strings and c < 0.6:
            return f"{quote(self.pick(strings))} {self.pick(['=', '<>', '!='])} {self.literal('string')[0]}"
        op = self.pick(["=", "!=", "<>", "<", "<=", ">", ">="])
        return f"{self.numeric(scope, 1)} {op} {self.numeric(scope, 0)}"

    def aggregate_call(self, scope):
        """An aggregate call and its type class."""
        cols = list(scope)
        nums = [c for c, (_, t) in scope.items() if kind(t) in NUMERIC]
        c = self.r.random()
        if c < 0.2 or not cols:
            return self.pick(["COUNT(*)", "count(*)", "COUNT(1)"]), "int64"
        if c < 0.3:
            return f"COUNT({quote(self.pick(cols))})", "int64"
        if c < 0.75 and nums:
            col = self.pick(nums)
            arg = quote(col) if self.chance(0.75) else self.numeric({k: scope[k] for k in nums}, 1)
            return f"{self.pick(['SUM', 'sum', 'Sum'])}({arg})", kind(scope[col][1])
        col = self.pick(cols)
        return f"{self.pick(['MIN', 'MAX'])}({quote(col)})", kind(scope[col][1])

    def aggregate_item(self, scope, keys):
        """An aggregate, or an expression over numeric aggregates and keys."""
        a, k = self.aggregate_call(scope)
        c = self.r.random()
        if c < 0.55 or k not in NUMERIC:
            return a
        num_keys = [x for x in keys if kind(scope[x][1]) in NUMERIC]
        if c < 0.8:
            lit = self.literal(self.pick(["int64", "int64", "float64"]))[0]
            return f"{a} {self.pick(['+', '-', '*', '/'])} {paren(lit)}"
        if c < 0.9:
            other, ok = self.aggregate_call(scope)
            if ok in NUMERIC:
                return f"{a} {self.pick(['+', '-', '*'])} {other}"
            return a
        if num_keys:
            return f"{a} + {quote(self.pick(num_keys))}"
        return f"CAST({a} AS {self.pick(['BIGINT', 'DOUBLE', 'DECIMAL(18,2)'])})"

    # -- models -----------------------------------------------------------

    def model(self, name, inputs):
        """A model over one of `inputs` ({relation: info}); returns (sql, config, info) or None."""
        rel = self.pick(sorted(inputs))
        info = inputs[rel]
        scope = dict(info["columns"])
        base = f"source('{rel}')" if info["is_source"] else f"ref('{rel}')"
        if info["changelog"] == "upsert":
            return self.projection(name, base, scope, info, upsert_key=info["key"])
        c = self.r.random()
        if c < 0.35:
            return self.projection(name, base, scope, info)
        if c < 0.55 and info["event_time"] and info["late"] == "drop" and info["time_col"] in scope:
            return self.windowed(name, base, scope, info)
        return self.aggregate(name, base, scope, info)

    def from_clause(self, base, scope):
        """The FROM text, sometimes through a derived table or CTE that renames nothing."""
        c = self.r.random()
        if c < 0.15:
            cols = ", ".join(quote(x) for x in scope)
            return f"(SELECT {cols} FROM {base}) AS t", ""
        if c < 0.25:
            return "src", f"WITH src AS (SELECT * FROM {base})\n"
        if c < 0.35:
            return f"{base} AS o", ""
        return base, ""

    def projection(self, name, base, scope, info, upsert_key=None):
        items, out = [], {}
        keep = [c for c in scope if upsert_key is None or c in upsert_key]
        cols = list(dict.fromkeys(keep + self.r.sample(list(scope), self.r.randint(1, len(scope)))))
        if self.chance(0.1) and upsert_key is None:
            items.append("*")
            out.update(scope)
        else:
            for c in cols:
                items.append(quote(c))
                out[c] = scope[c]
        if upsert_key is None and self.chance(0.5):
            for i in range(self.r.randint(1, 2)):
                e = self.numeric(scope, 2)
                alias = f"e{i}" if self.chance(0.85) else None
                items.append(e + (f" AS {alias}" if alias else ""))
                if alias:
                    out[alias] = ("?", "?")
        frm, with_ = self.from_clause(base, scope)
        sql = f"{with_}SELECT {', '.join(items)}\nFROM {frm}"
        if self.chance(0.5):
            sql += f"\nWHERE {self.predicate(scope)}"
        config = {}
        if upsert_key is not None:
            config["materialized"] = "upsert"
            config["key"] = list(upsert_key)
        elif self.chance(0.1) and cols:
            config["key"] = [cols[0]]  # an append model with a key: a warning
        return sql, config, {"changelog": "upsert" if upsert_key is not None else "append", "key": upsert_key or [],
                              "columns": {k: v for k, v in out.items() if v != ("?", "?")},
                              "event_time": info["event_time"], "late": info["late"],
                              "time_col": info["time_col"] if info["time_col"] in out else None}

    def aggregate(self, name, base, scope, info):
        groupable = [c for c, (_, t) in scope.items() if kind(t) != "float64"]
        keys = self.r.sample(groupable, self.r.randint(0, min(2, len(groupable)))) if groupable else []
        items = [quote(k) for k in keys]
        out = {k: scope[k] for k in keys}
        for i in range(self.r.randint(1, 4)):
            e = self.aggregate_item(scope, keys)
            if self.chance(0.9):
                items.append(f"{e} AS a{i}")
                out[f"a{i}"] = ("?", "?")
            else:
                items.append(e)
        frm, with_ = self.from_clause(base, scope)
        sql = f"{with_}SELECT {', '.join(items)}\nFROM {frm}"
        if self.chance(0.3):
            sql += f"\nWHERE {self.predicate(scope)}"
        if keys:
            sql += "\nGROUP BY " + ", ".join(quote(k) for k in keys)
        if self.chance(0.2):
            having, hk = self.aggregate_call(scope)
            if hk in NUMERIC:
                sql += f"\nHAVING {having} > {self.r.randint(0, 5)}"
        config = {"materialized": "upsert", "key": keys}
        if info["event_time"] and self.chance(0.3):
            config["retention"] = self.pick(DURATIONS)
        return sql, config, {"changelog": "upsert", "key": keys, "columns": {k: v for k, v in out.items() if v != ("?", "?")},
                              "event_time": info["event_time"], "late": info["late"], "time_col": None}

    def windowed(self, name, base, scope, info):
        groupable = [c for c, (_, t) in scope.items() if kind(t) not in ("float64", "timestamp")]
        keys = self.r.sample(groupable, self.r.randint(0, min(1, len(groupable)))) if groupable else []
        wcols = ["window_start", "window_end"]
        self.r.shuffle(wcols)
        items = [quote(k) for k in keys] + ["window_start", "window_end"]
        for i in range(self.r.randint(1, 3)):
            items.append(f"{self.aggregate_item(scope, keys)} AS a{i}")
        sql = f"SELECT {', '.join(items)}\nFROM {base}"
        if self.chance(0.3):
            sql += f"\nWHERE {self.predicate(scope)}"
        sql += "\nGROUP BY " + ", ".join([quote(k) for k in keys] + wcols)
        config = {"window": {"type": "tumbling", "size": self.pick(["1m", "5m", "90s", "1h", "30s"])}}
        return sql, config, {"changelog": "append", "key": [], "columns": {k: scope[k] for k in keys},
                              "event_time": info["event_time"], "late": info["late"], "time_col": None}

    def sink(self, name, changelog, used):
        c = self.r.random()
        if c < 0.25:
            return None
        if changelog == "append" and c < 0.45:
            s = {"connector": "file", "path": f"/out/{name}"}
        elif c < 0.55:
            s = {"connector": "iceberg", "table": f"analytics.{name}"}
        else:
            s = {"connector": "kafka", "topic": f"{name}-out"}
        if self.chance(0.2):
            s["format"] = "json"
        return s

    # -- projects ---------------------------------------------------------

    def project(self):
        sources = {n: self.source(n) for n in self.r.sample(SOURCE_POOL, self.r.randint(1, 3))}
        inputs = {}
        for n, s in sources.items():
            cols = {c: (t, t) for c, t in s["schema"].items()}
            inputs[n] = {"is_source": True, "changelog": "append", "key": [], "columns": cols,
                         "event_time": "event_time" in s, "late": s.get("late_events", "drop"), "time_col": s.get("event_time")}
        models = {}
        for name in self.r.sample(MODEL_POOL, self.r.randint(1, 4)):
            made = self.model(name, inputs)
            sql, config, info = made
            sink = self.sink(name, info["changelog"], models)
            if sink:
                config["sink"] = sink
            models[name] = {"sql": sql, "config": config}
            if info["columns"]:
                inputs[name] = dict(info, is_source=False)
        p = {"name": f"diff{self.seed}", "sources": sources, "models": models, "fixtures": {}}
        if self.chance(0.3):
            p["targets"] = {"dev": target(p)}
        for m in list(models)[:2]:
            root = root_source(p, m)
            if root:
                p["fixtures"][f"{m}.yml"] = self.fixture(m, sources[root])
        return p

    def value(self, t):
        k = kind(t)
        if self.chance(0.08):
            return None
        if k in ("int32", "int64"):
            return self.r.randint(-5, 50)
        if k == "float64":
            return self.pick([0.5, 1.25, 3, -2.5, 0.1])
        if k == "decimal":
            scale = int(t.split(",")[1].rstrip(")")) if "," in t else 9
            return self.pick(["10.5", "0", "3", "-1.25", "7.75"]) if scale >= 2 else self.r.randint(0, 20)
        if k == "string":
            return self.pick(["paid", "open", "EU", "US", ""])
        if k == "boolean":
            return self.pick([True, False])
        minute = self.r.randint(0, 20)
        return f"2026-01-01T00:{minute:02d}:{self.r.randint(0, 59):02d}Z"

    def fixture(self, model, source):
        rows = []
        for _ in range(self.r.randint(1, 6)):
            rows.append({c: self.value(t) for c, t in source["schema"].items() if not (c == source.get("event_time") and False)})
            if "event_time" in source and rows[-1].get(source["event_time"]) is None:
                rows[-1][source["event_time"]] = "2026-01-01T00:00:00Z"
        if "event_time" in source and self.chance(0.5):
            rows.append({"watermark": "2026-01-01T02:00:00Z"})
        return {"model": model, "given": rows, "expect": []}


def target(p):
    t = {"backend": "flink", "flink": {"gateway": "http://localhost:8083"}}
    if any(s["connector"] == "kafka" for s in p["sources"].values()) or any(
            m["config"].get("sink", {}).get("connector") == "kafka" for m in p["models"].values()):
        t["kafka"] = {"bootstrap_servers": "localhost:9092"}
    if any(m["config"].get("sink", {}).get("connector") == "iceberg" for m in p["models"].values()):
        t["iceberg"] = {"catalog": "http://iceberg-rest:8181"}
    return t


def root_source(p, model):
    """The source at the root of a model's ref chain (what its fixture feeds)."""
    seen = set()
    while model in p["models"] and model not in seen:
        seen.add(model)
        sql = p["models"][model]["sql"]
        if "source('" in sql:
            return sql.split("source('", 1)[1].split("'", 1)[0]
        model = sql.split("ref('", 1)[1].split("'", 1)[0] if "ref('" in sql else None
    return None


def quote(c):
    return f'"{c}"' if c != c.lower() else c


def paren(e):
    return e if all(ch.isalnum() or ch in "_.'\"" for ch in e) else f"({e})"


def write(p, d):
    """Writes project `p` into directory `d` (which must not exist)."""
    os.makedirs(os.path.join(d, "models"))
    cfg = {"name": p["name"], "version": 1}
    models_cfg = {n: m["config"] for n, m in p["models"].items() if m["config"]}
    models_cfg.update(p.get("extra_config", {}))
    if models_cfg:
        cfg["models"] = models_cfg
    if p.get("targets"):
        cfg["targets"] = p["targets"]
    with open(os.path.join(d, "streamform.yml"), "w") as f:
        text = to_yaml(cfg)
        if "raw_version" in p:
            text = text.replace("version: 1\n", f"version: {p['raw_version']}\n", 1)
        f.write(text)
    if p["sources"]:
        with open(os.path.join(d, "sources.yml"), "w") as f:
            f.write(to_yaml({"sources": p["sources"]}))
    for n, m in p["models"].items():
        with open(os.path.join(d, "models", f"{n}.sql"), "w") as f:
            f.write(m["sql"] + "\n")
    if p["fixtures"]:
        os.makedirs(os.path.join(d, "tests"))
        for n, fx in p["fixtures"].items():
            with open(os.path.join(d, "tests", n), "w") as f:
                f.write(fx if isinstance(fx, str) else to_yaml(fx))


def to_yaml(v, indent=0):
    """Block-style YAML with JSON scalars (both tools read it the same way)."""
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{}\n"
        out = ""
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out += f"{pad}{k}:\n{to_yaml(x, indent + 1)}"
            else:
                out += f"{pad}{k}: {scalar(x)}\n"
        return out
    if isinstance(v, list):
        out = ""
        for x in v:
            if isinstance(x, dict) and x:
                out += f"{pad}- {json.dumps(x, ensure_ascii=False)}\n"
            else:
                out += f"{pad}- {scalar(x)}\n"
        return out
    return f"{pad}{scalar(v)}\n"


def scalar(x):
    if isinstance(x, dict) and not x:
        return "{}"
    if isinstance(x, list) and not x:
        return "[]"
    if isinstance(x, str) and x and all(ch.isalnum() or ch in "_-./:()," for ch in x) and not x[0].isdigit() and x not in ("true", "false", "null", "yes", "no", "on", "off"):
        return x
    return json.dumps(x, ensure_ascii=False)
