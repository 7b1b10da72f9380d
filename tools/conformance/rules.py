"""The rules that explain where Flink's changelog legitimately differs from
the simulator's (docs/flink.md, "How Flink's changelog differs"). A
fixture is FINAL only when a named rule, applied to the simulator's
changelog, gives Flink's exactly; a matching final table alone is not
enough. Each rule is a function from the simulator's records to the ones
Flink is expected to write under that rule.

  noop-update   Flink's group aggregate skips an update whose row did not
                change; the simulator emits it (spec §8).
  first-upsert  After HAVING or a filter over an upsert input, Flink labels a
                key's first row +U (and a removal a lone -U, i.e. a delete):
                an update of a key that has no row is an insert. Only visible
                where RowKinds are (file mode); upsert-kafka writes values.
  retract-pair  After HAVING or a filter over an upsert input, Flink sends an
                update as a retraction pair (-U, +U); upsert-kafka writes the
                -U as a tombstone: an update of a key that has a row may come
                right after a tombstone of that key.
  window-order  Rows that one watermark closes come out in Flink's order
                within a window, not sorted by key: within each window
                (same window_start/window_end), the rows are a multiset.
  source-order  A model over several inputs (several sources, or one source
                read twice, which Flink scans once per read): Flink reads
                each scan in its own order but interleaves the scans as they
                arrive, not as the fixture lists them (each source's late events
                are decided against its own watermark, so the events that
                count are the same). An append output is the same multiset
                of rows; an upsert output ends in the same final table.
"""
import decimal
import itertools


def canon(x):
    """A repr that compares decimals by value (2 == 2.00), for sorting and multisets."""
    if isinstance(x, decimal.Decimal):
        return repr(x.normalize() if x == x.to_integral() else x.normalize())
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {canon(v)}" for k, v in sorted(x.items())) + "}"
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(canon(v) for v in x) + ")"
    return repr(x)


def _key(cols, key):
    return tuple(canon(cols.get(c)) for c in key)


# ---------------------------------------------------------------- ops (file mode)


def noop_update_ops(ops, key):
    if key is None:
        return ops
    cur, out = {}, []
    for op, c in ops:
        k = _key(c, key)
        if op == "update" and cur.get(k) == c:
            continue
        if op == "delete":
            cur.pop(k, None)
        else:
            cur[k] = c
        out.append((op, c))
    return out


def first_upsert_ops(ops, key):
    """Relabels an `update` of a key with no row as `insert` (applied to both sides)."""
    if key is None:
        return ops
    present, out = set(), []
    for op, c in ops:
        k = _key(c, key)
        if op == "update" and k not in present:
            op = "insert"
        if op == "delete":
            present.discard(k)
        else:
            present.add(k)
        out.append((op, c))
    return out


def _window_groups(rows, cols_of):
    groups = []
    for r in rows:
        c = cols_of(r)
        w = (canon(c.get("window_start")), canon(c.get("window_end"))) if c is not None else None
        if groups and groups[-1][0] == w:
            groups[-1][1].append(canon(r))
        else:
            groups.append((w, [canon(r)]))
    return [(w, sorted(rs)) for w, rs in groups]


RULES_OPS = ["noop-update", "first-upsert", "window-order"]


def classify_ops(flink, want, key, window):
    """None, or (status, detail) with the smallest set of rules that explains the difference."""
    if flink == want:
        return ("EXACT", f"{len(flink)} changelog rows")
    for n in range(1, len(RULES_OPS) + 1):
        for combo in itertools.combinations(RULES_OPS, n):
            if "window-order" in combo and not window:
                continue
            f, w = flink, want
            if "noop-update" in combo:
                w = noop_update_ops(w, key)
            if "first-upsert" in combo:
                f, w = first_upsert_ops(f, key), first_upsert_ops(w, key)
            same = _window_groups(f, lambda r: r[1]) == _window_groups(w, lambda r: r[1]) if "window-order" in combo else f == w
            if same:
                return ("FINAL", "rule " + " + ".join(combo) + f" ({len(flink)} vs {len(want)} rows)")
    return None


def _final(ops, key):
    table = {}
    for op, c in ops:
        k = _key(c, key)
        if op == "delete":
            table.pop(k, None)
        else:
            table[k] = canon(c)
    return table


def source_order_ops(flink, want, key):
    """File mode, a model over several sources: None, or (status, detail)."""
    if key is None:
        same = sorted(canon(r) for r in flink) == sorted(canon(r) for r in want)
    else:
        same = _final(flink, key) == _final(want, key)
    what = "the same rows" if key is None else "the same final table"
    return ("FINAL", f"rule source-order ({what}; {len(flink)} vs {len(want)} rows)") if same else None


def source_order_records(flink, want, keyed):
    """Kafka mode, a model over several sources: None, or (status, detail)."""
    if keyed:
        same = _live(flink) == _live(want)
    else:
        same = sorted(map(canon, flink)) == sorted(map(canon, want))
    what = "the same final table" if keyed else "the same rows"
    return ("FINAL", f"rule source-order ({what}; {len(flink)} vs {len(want)} records)") if same else None


def _live(recs):
    cur = {}
    for k, v in recs:
        if v is None:
            cur.pop(k, None)
        else:
            cur[k] = canon(v)
    return cur


# ---------------------------------------------------------------- records (Kafka mode)


def upsert_records(ops, key, updates_before=False):
    """The simulator's changelog as an upsert topic has it: (key, row) or
    (key, None). With `updates_before` (Flink feeds the sink UPDATE_BEFOREs,
    each right before its update: a Top-N whose sink key is not its upsert
    key), upsert-kafka writes each one as a tombstone: an update is the
    tombstone of its key, then its row. This is the format's encoding, not
    a rule."""
    out = []
    for op, c in ops:
        if op == "update" and updates_before:
            out.append((_key(c, key), None))
        out.append((_key(c, key), None if op == "delete" else c))
    return out


def noop_update_records(recs):
    cur, out = {}, []
    for k, v in recs:
        if v is not None and k in cur and cur[k] == v:
            continue
        if v is None:
            cur.pop(k, None)
        else:
            cur[k] = v
        out.append((k, v))
    return out


def retract_pair_records(flink, want):
    """Flink's records with each tombstone that the rule explains left out:
    one right before the record of an update (in `want`) of a key that has a row."""
    out, present, j = [], set(), 0
    for i, (k, v) in enumerate(flink):
        nxt = flink[i + 1] if i + 1 < len(flink) else None
        if v is None and k in present and j < len(want) and nxt == want[j] and want[j][0] == k and want[j][1] is not None:
            continue  # the -U half of an update
        out.append((k, v))
        if j < len(want) and (k, v) == want[j]:
            j += 1
        if v is None:
            present.discard(k)
        else:
            present.add(k)
    return out


def classify(flink, want, keyed, window):
    """Kafka mode: None, or (status, detail)."""
    if flink == want:
        return ("EXACT", f"{len(flink)} records")
    rules = (["noop-update", "retract-pair"] if keyed else []) + (["window-order"] if window else [])
    for n in range(1, len(rules) + 1):
        for combo in itertools.combinations(rules, n):
            w = noop_update_records(want) if "noop-update" in combo else want
            f = retract_pair_records(flink, w) if "retract-pair" in combo else flink
            cols = (lambda r: r[1]) if keyed else (lambda r: r)
            same = _window_groups(f, cols) == _window_groups(w, cols) if "window-order" in combo else f == w
            if same:
                return ("FINAL", "rule " + " + ".join(combo) + f" ({len(flink)} vs {len(want)} records)")
    return None


def changelog_records(ops):
    """The simulator's changelog of a model without key as its debezium-json
    topic has it: ("c", row) for a row that appears, ("d", row) for one that
    goes; an update is the old row going, then the new one appearing. This
    is the format's encoding, not a rule."""
    cur, out = None, []
    for op, c in ops:
        if op == "update" and cur is not None:
            out.append(("d", cur))
        out.append(("d", c) if op == "delete" else ("c", c))
        cur = None if op == "delete" else c
    return out


def classify_changelog(flink, ops):
    """Kafka mode, a debezium-json topic: None, or (status, detail)."""
    want = changelog_records(ops)
    if flink == want:
        return ("EXACT", f"{len(flink)} records")
    if flink == changelog_records(noop_update_ops(ops, [])):
        return ("FINAL", f"rule noop-update ({len(flink)} vs {len(want)} records)")
    return None


def source_order_changelog(flink, ops):
    """Kafka mode, a debezium-json topic of a model over several sources:
    None, or (status, detail). The rows standing at the end, a multiset
    (each "c" adds a row, each "d" takes one away), are the simulator's."""
    def standing(records):
        rows = {}
        for op, row in records:
            k = canon(row)
            rows[k] = rows.get(k, 0) + (-1 if op == "d" else 1)
        return {k: n for k, n in rows.items() if n}
    want = changelog_records(ops)
    if standing(flink) == standing(want):
        return ("FINAL", f"rule source-order (the same final table; {len(flink)} vs {len(want)} records)")
    return None


def quarantine_row(row, types, run):
    """A quarantine record in the fixture's written form: nulls left out, values by type."""
    out = {}
    for k, v in row.items():
        if v is None or k == "_source":
            continue
        out[k] = run.normalize(v, types.get(k, "string"))
    return dict(sorted(out.items()))
