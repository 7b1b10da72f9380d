"""Runs both tools on a project and compares what they print.

Identity outputs (`inspect-plan` text and manifest, `explain` and `graph`
text) must be byte-identical. Reports (`check --json`, `test --json`,
`plan --json`) are compared structurally: prose (messages, help, reasons,
problem strings) is ours to improve, so only its presence is compared, and
a check report's diagnostics are compared as (severity, path) pairs.
Exit codes are compared everywhere.
"""

import decimal
import json
import os
import re
import subprocess

# (label, argv, how): "bytes" or the name of a structural normalizer.
COMMANDS = [
    ("inspect-plan", ["inspect-plan"], "bytes"),
    ("manifest", ["inspect-plan", "--json"], "bytes"),
    ("explain", ["explain"], "bytes"),
    ("explain-json", ["explain", "--json"], "json_stream"),
    ("graph", ["graph"], "bytes"),
    ("graph-dot", ["graph", "--format", "dot"], "bytes"),
    ("graph-json", ["graph", "--json"], "json"),
    ("check-json", ["check", "--json"], "check"),
    ("test-json", ["test", "--json"], "test"),
]

PROSE = {"message", "help", "reason", "error", "problems", "problem", "detail", "note", "notes"}


def run(binary, argv, cwd, timeout=60):
    try:
        r = subprocess.run([binary] + argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def prose_free(v):
    """`v` with every prose string replaced by a marker (None stays None)."""
    if isinstance(v, dict):
        return {k: ("<prose>" if k in PROSE and x is not None and not isinstance(x, (dict, list)) else
                    [("<prose>" if isinstance(i, str) else prose_free(i)) for i in x] if k in PROSE and isinstance(x, list) else
                    prose_free(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [prose_free(x) for x in v]
    return v


def json_docs(text):
    """One or more JSON documents printed one after another."""
    dec = json.JSONDecoder()
    out, i = [], 0
    text = text.strip()
    while i < len(text):
        doc, j = dec.raw_decode(text, i)
        out.append(doc)
        i = j
        while i < len(text) and text[i].isspace():
            i += 1
    return out


def normalize(how, stdout):
    if how == "bytes":
        return stdout
    if how == "rc-only":
        return None
    try:
        if how == "json_stream":
            return json.dumps(prose_free(json_docs(stdout)), sort_keys=False)
        doc = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        return "<not json> " + stdout
    if doc is None:
        return None
    if how == "check":
        diags = doc.pop("diagnostics", [])
        doc = prose_free(doc)
        doc["diagnostics"] = sorted((d.get("severity"), d.get("path")) for d in diags)
    else:
        doc = prose_free(doc)
    return json.dumps(doc, sort_keys=False, indent=1)


# Diagnostics only we emit: the unaliased-column warning (spec §8) and two
# models writing one destination (docs/compatibility.md).
OURS_ONLY = ("W0764", "W0715")


def ours_only(ours, project_dir):
    """(severity, path) of each diagnostic of ours that the original never emits."""
    _, out, err = run(ours, ["check"], project_dir)
    text = out + err
    found = re.findall(r"^(warning|error)\[(\w+)\]:.*\n\s+--> ([^:\n]+)", text, re.M)
    return [(sev, path) for sev, code, path in found if code in OURS_ONLY]


def without(ours_stdout, extra):
    """Our check report without the diagnostics in `extra`."""
    try:
        doc = json.loads(ours_stdout)
    except ValueError:
        return ours_stdout
    left = list(extra)
    kept = []
    for d in doc.get("diagnostics", []):
        key = (d.get("severity"), d.get("path"))
        if key in left:
            left.remove(key)
        else:
            kept.append(d)
    doc["diagnostics"] = kept
    return json.dumps(doc)


def compare(ours, peer, project_dir, commands=COMMANDS):
    """The differences between the two tools on `project_dir`: [(category, detail)]."""
    diffs = []
    for label, argv, how in commands:
        a = run(ours, argv, project_dir)
        b = run(peer, argv, project_dir)
        if how == "check":
            a = (a[0], without(a[1], ours_only(ours, project_dir)), a[2])
        refused = (label == "check-json" and a[0] == 1 and b[0] == 0) or (label in ("test-json", "plan-json", "plan") and a[0] == 2 and b[0] in (0, 1))
        if refused and run(peer, ["build", "--backend", "flink", "--stdout"], project_dir)[0] not in (0, "timeout"):
            # Ours refuses at check what the original refuses only at build (spec §8).
            diffs.append((f"{label}:decided:check-not-build-surprise", a[2][-1500:]))
            continue
        if a[0] != b[0]:
            diffs.append((f"{label}:rc", f"ours exit {a[0]}, original exit {b[0]}\n--- ours stderr\n{a[2][-1500:]}\n--- original stderr\n{b[2][-1500:]}"))
            continue
        na, nb = normalize(how, a[1]), normalize(how, b[1])
        if na != nb:
            known = decided(label, a[1], b[1])
            category = f"{label}:decided:{known}" if known else f"{label}:{subcategory(label, a[1], b[1])}"
            diffs.append((category, unified(nb, na)))
    return diffs


def numbers_as_floats(v):
    """`v` with every number, and every string that reads as one, as a float."""
    if isinstance(v, dict):
        return {k: numbers_as_floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [numbers_as_floats(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return round(float(v), 6)
    if isinstance(v, str) and re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", v):
        return round(float(v), 6)
    return v


def decided(label, ours, peer):
    """The name of the spec §8 decision that explains a difference, if one does."""
    try:
        o, p = json.loads(ours), json.loads(peer)
    except ValueError:
        return None
    if label.startswith("plan"):
        found = []
        if o.get("target", "") is None:
            # --against reports no target; the original names the project's one target, or none.
            o.pop("target")
            p.pop("target", None)
            found.append("target-null")
        ours_w, peer_w = o.get("warnings", []), p.get("warnings", [])
        if ours_w != peer_w and set(peer_w) <= set(ours_w):
            # Our notes the original does not give (upgrade/suggest.rs).
            o["warnings"] = peer_w
            found.append("extra-help")
        if found and prose_free(o) == prose_free(p):
            return "+".join(found)
    if label == "check-json":
        # We report a missing source or model once, by the reference check; the
        # original reports it again as a planning error.
        # "model `m` reads ref('x'), but …" then "could not plan model `m`: reads ref('x'), but …".
        said = {re.sub(r"^model `[^`]*` ", "", d.get("message", "")) for d in p.get("diagnostics", []) if d.get("message", "").startswith("model `")}
        twice = [d for d in p.get("diagnostics", [])
                 if "is neither a source declared in sources.yml nor a model" in d.get("message", "")
                 or re.sub(r"^could not plan model `[^`]*`: ", "", d.get("message", "")) in said and d.get("message", "").startswith("could not plan")]
        if twice:
            rest = [d for d in p["diagnostics"] if d not in twice]
            if sorted((d.get("severity"), d.get("path")) for d in rest) == sorted((d.get("severity"), d.get("path")) for d in o.get("diagnostics", [])):
                return "reported-once"
    if label == "test-json":
        if computed_with_plan_types(prose_free(o), prose_free(p)):
            return "sim-plan-types"
        # AND/OR skip their right side as Flink's generated code does; the
        # original evaluates both, and fails on a division by zero there.
        ofx, pfx = o.get("fixtures", []), p.get("fixtures", [])
        if len(ofx) == len(pfx):
            skipped = [i for i, (a, b) in enumerate(zip(ofx, pfx)) if a != b and not a.get("error") and "division by zero" in (b.get("error") or "")]
            rest = [i for i in range(len(ofx)) if i not in skipped and not computed_with_plan_types(prose_free(ofx[i]), prose_free(pfx[i]))]
            if skipped and not rest:
                return "flink-short-circuit"
            # A result that does not fit the plan's decimal type overflows in
            # ours; the original does not check precision.
            overflow = [i for i, (a, b) in enumerate(zip(ofx, pfx)) if a != b and (a.get("error") or "").startswith("arithmetic overflow") and not b.get("error")]
            if overflow and all(i in overflow or computed_with_plan_types(prose_free(ofx[i]), prose_free(pfx[i])) for i in range(len(ofx))):
                return "sim-plan-types"
    return None


def computed_with_plan_types(o, p):
    """True when the only differences are numbers the original rounded to fewer places (or wrote
    as decimal strings) where ours computed with the plan's types (spec §8)."""
    if isinstance(o, dict) and isinstance(p, dict):
        return o.keys() == p.keys() and all(computed_with_plan_types(o[k], p[k]) for k in o)
    if isinstance(o, list) and isinstance(p, list):
        return len(o) == len(p) and all(computed_with_plan_types(a, b) for a, b in zip(o, p))
    if o == p:
        return True
    a, b = numbers_as_floats(o), numbers_as_floats(p)
    if not isinstance(a, float) or not isinstance(b, float):
        return False
    def half_up(x, k):
        q = decimal.Decimal(repr(x)).quantize(decimal.Decimal(1).scaleb(-k), rounding=decimal.ROUND_HALF_UP)
        return float(q)
    return any(abs(r - b) <= 1e-9 * max(1.0, abs(b)) for k in range(0, 13) for r in (round(a, k), half_up(a, k)))


def subcategory(label, ours, peer):
    """A finer name for a difference, so that one rule's drift groups together."""
    if label in ("inspect-plan", "explain"):
        for line_o, line_p in zip(ours.splitlines(), peer.splitlines()):
            if line_o != line_p:
                field = line_p.strip().split("=", 1)[0] if "=" in line_p else "layout"
                return field.split()[-1] if field else "layout"
        return "length"
    if label == "check-json":
        try:
            o, p = json.loads(ours), json.loads(peer)
        except ValueError:
            return "json"
        for k in p:
            if k != "diagnostics" and prose_free(o.get(k)) != prose_free(p.get(k)):
                return k
        so = sorted((d.get("severity"), d.get("path")) for d in o.get("diagnostics", []))
        sp = sorted((d.get("severity"), d.get("path")) for d in p.get("diagnostics", []))
        if [s for s, _ in so] != [s for s, _ in sp]:
            return "diagnostic-count"
        return "diagnostic-path"
    return "content"


def unified(expected, actual):
    import difflib
    e = (expected or "").splitlines()
    a = (actual or "").splitlines()
    return "\n".join(difflib.unified_diff(e, a, "original", "ours", lineterm="", n=1))[:4000]


def plan_pair(ours, peer, running_dir, desired_dir):
    """`plan --against` the running version's manifest (made by the original), on both tools."""
    rc, manifest, _ = run(peer, ["inspect-plan", "--json"], running_dir)
    if rc != 0:
        return []
    path = os.path.join(desired_dir, ".running.json")
    with open(path, "w") as f:
        f.write(manifest)
    return compare(ours, peer, desired_dir, [("plan-json", ["plan", "--against", ".running.json", "--json"], "json"),
                                              ("plan", ["plan", "--against", ".running.json"], "rc-only")])
