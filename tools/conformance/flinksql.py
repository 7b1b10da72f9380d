"""Making a Streamform build runnable on a local Flink: the connector swap.

Kafka, upsert-kafka and Iceberg connectors are not available here, so each
source table becomes a filesystem table over newline-delimited JSON (same
columns, same WATERMARK; a csv source stays csv, its columns in the build's
order and its file's fields in sources.yml's), read through a view that hides the marker rows
used for explicit fixture watermarks; sinks become blackhole tables (for
EXPLAIN) or are left out (queries are collected instead).
"""
import re

MARKER = "__sf_marker"
NULL_LITERAL = "__sf_null"  # a null field of a csv file (Flink's csv reads no empty number)
TIME_SUFFIX = "__time"  # the backend's computed rowtime of event time `ts` is `ts__time`
PARSED_SUFFIX = "__parsed"  # and a timestamp `ts` read as text is parsed into `ts__parsed`

TABLE_RE = re.compile(r"^CREATE TABLE (IF NOT EXISTS )?(?P<name>\S+) \(\n(?P<cols>.*?)\n\) WITH \(\n(?P<opts>.*?)\n\);$", re.S)
ICEBERG_RE = re.compile(r"`streamform_iceberg`\.`([^`]*)`\.`([^`]*)`")


def statements(script):
    """The script's statements (blank-line separated, as build writes them)."""
    return [s.strip() for s in script.strip().split("\n\n") if s.strip()]


def options(text):
    return dict(re.findall(r"^  '((?:[^']|'')*)' = '((?:[^']|'')*)'", text, re.M))


class Table:
    def __init__(self, name, cols, opts, watermark):
        self.name = name  # unquoted
        self.cols = cols  # [(name, flink type)]
        self.opts = opts
        self.watermark = watermark  # (rowtime column, delay ms, interval text) or None
        self.computed = []  # [(name, "AS <expr>")]
        self.as_text = set()  # timestamp columns read as RFC 3339 text
        self.event_time = watermark[0] if watermark else None  # the column events carry
        # For a csv table, the fields of a record in the order sources.yml
        # declares them (`declare_csv`), which is how a producer writes them.
        self.declared = None

    def col_type(self, c):
        return dict(self.cols).get(c)


def parse_interval_ms(text):
    m = re.match(r"INTERVAL '([0-9.]+)' (DAY|HOUR|MINUTE|SECOND)", text)
    n = float(m.group(1))
    return int(round(n * {"DAY": 86400000, "HOUR": 3600000, "MINUTE": 60000, "SECOND": 1000}[m.group(2)]))


def unquote(name):
    return name.strip("`").replace("``", "`")


class Script:
    """A parsed build: SET options, statements in order, sources and sinks."""

    def __init__(self, script):
        script = ICEBERG_RE.sub(lambda m: f"`iceberg__{m.group(1)}__{m.group(2)}`", script)
        self.sets = []
        self.ddl = []  # (kind, payload)
        self.inserts = []
        self.tables = {}
        for st in statements(script):
            if st.startswith("SET "):
                k, v = re.match(r"SET '(.*)' = '(.*)';", st).groups()
                self.sets.append((k, v))
            elif st.startswith("CREATE CATALOG") or st.startswith("CREATE DATABASE"):
                continue
            elif st.startswith("EXECUTE STATEMENT SET"):
                self.inserts = [ln.strip() for ln in st.splitlines() if ln.strip().startswith("INSERT INTO")]
            elif st.startswith("CREATE TABLE"):
                m = TABLE_RE.match(st)
                name = unquote(m.group("name"))
                cols, computed, wm, pk = [], [], None, None
                for ln in m.group("cols").splitlines():
                    ln = ln.strip().rstrip(",")
                    if ln.startswith("PRIMARY KEY"):
                        pk = ln
                    elif ln.startswith("WATERMARK FOR"):
                        wm_m = re.match(r"WATERMARK FOR `([^`]*)` AS `[^`]*` - (.*)$", ln)
                        wm = (wm_m.group(1), parse_interval_ms(wm_m.group(2)), wm_m.group(2))
                    elif ln.startswith("`"):
                        cm = re.match(r"`((?:[^`]|``)*)` (.*)$", ln)
                        c, rest = cm.group(1).replace("``", "`"), cm.group(2)
                        if rest.startswith("AS "):
                            computed.append((c, rest))
                        else:
                            cols.append((c, rest))
                t = Table(name, cols, options(m.group("opts")), wm)
                t.computed = computed
                t.primary_key = pk
                # Timestamps read as RFC 3339 text and parsed into `<c>__parsed`;
                # the event time's rowtime is the computed `<c>__time`.
                t.as_text = {c[: -len(PARSED_SUFFIX)] for c, _ in computed if c.endswith(PARSED_SUFFIX)}
                if wm and wm[0].endswith(TIME_SUFFIX) and wm[0][: -len(TIME_SUFFIX)] in t.as_text:
                    t.event_time = wm[0][: -len(TIME_SUFFIX)]
                self.tables[name] = t
                self.ddl.append(("table", t))
            else:
                self.ddl.append(("sql", st))
        self.sinks = {unquote(re.match(r"INSERT INTO (`(?:[^`]|``)*`)", i).group(1)) for i in self.inserts}

    def sources(self):
        return [t for t in self.tables.values() if t.name not in self.sinks]

    def runnable(self, data_dir_of, sinks="blackhole"):
        """The statements to execute: sources over JSON files, sinks swapped."""
        out = []
        for kind, p in self.ddl:
            if kind == "sql":
                out.append(p)
                continue
            t = p
            col_lines = [f"  `{c.replace('`', '``')}` {ty}" for c, ty in t.cols]
            if t.name in self.sinks:
                if sinks is None:
                    continue
                # The primary key stays: Flink asks for UPDATE_BEFOREs when
                # it is not the query's upsert key (run.sink_kinds).
                keyed = col_lines + ([f"  {t.primary_key}"] if t.primary_key else [])
                out.append(f"CREATE TABLE `{t.name}` (\n" + ",\n".join(keyed) + "\n) WITH ('connector' = 'blackhole');")
                continue
            lines = col_lines + [f"  `{MARKER}` BOOLEAN"] + [f"  `{c}` {e}" for c, e in t.computed]
            if t.watermark:
                c, _, interval = t.watermark
                lines.append(f"  WATERMARK FOR `{c}` AS `{c}` - {interval}")
            file_table = t.name + "__sf_file"
            if t.declared is not None:
                # Read as the build declares it (by position), from a file
                # whose fields follow sources.yml: a wrong order misreads.
                fmt = "  'format' = 'csv',\n" + "".join(f"  '{k}' = '{v}',\n" for k, v in t.opts.items() if k.startswith("csv.") and k != "csv.null-literal") + f"  'csv.null-literal' = '{NULL_LITERAL}'"
            else:
                fmt = "  'format' = 'json',\n  'json.timestamp-format.standard' = 'ISO-8601'"
            out.append(
                f"CREATE TABLE `{file_table}` (\n" + ",\n".join(lines) + "\n) WITH (\n"
                f"  'connector' = 'filesystem',\n  'path' = '{data_dir_of(t.name)}',\n{fmt}\n);"
            )
            names = ", ".join(f"`{c}`" for c, _ in t.cols + t.computed)
            out.append(f"CREATE TEMPORARY VIEW `{t.name}` AS SELECT {names} FROM `{file_table}` WHERE `{MARKER}` IS NULL;")
        return out


def declare_csv(script, sources_doc):
    """Marks each csv source's table (`<src>_raw` or `<src>`) with the order
    sources.yml declares its columns in, which its records are written in."""
    for name, src in ((sources_doc or {}).get("sources") or {}).items():
        if (src or {}).get("format") != "csv":
            continue
        t = script.tables.get(name + "_raw") or script.tables.get(name)
        if t is not None:
            t.declared = list((src.get("schema") or {}).keys())
