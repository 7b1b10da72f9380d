#!/usr/bin/env python3
"""Runs `plan` over the reference corpus's plan pairs (cases/plan_*/v1,v2):
in v2/, `streamform plan --against ../v1/expected_inspect_plan_json.json
[--json]`, compared with v2/expected_plan.txt / expected_plan_json.json and
the recorded exit code. JSON is also compared with `target` ignored (ours is
null with --against, by decision; the original printed the project's).

usage: plan_pairs.py --bin PATH [--cases DIR] [-v]
"""
import argparse, glob, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--cases", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../shared/reference/corpus/cases"))
ap.add_argument("-v", action="store_true", help="show diffs")
a = ap.parse_args()
a.bin = os.path.abspath(a.bin)

AGAINST = "../v1/expected_inspect_plan_json.json"
rows = []
for v2 in sorted(glob.glob(os.path.join(a.cases, "plan_*", "v2"))):
    case = os.path.basename(os.path.dirname(v2))
    if not os.path.exists(os.path.join(v2, AGAINST)):
        continue
    rcs = {}
    for ln in open(os.path.join(v2, "expected_rc.txt")):
        if ln.strip():
            label, rc, cmd = ln.rstrip("\n").split("\t", 2)
            rcs[label] = int(rc)
    for label, extra in (("plan", []), ("plan_json", ["--json"])):
        if label not in rcs:
            continue
        exp_path = os.path.join(v2, f"expected_{label}.json" if extra else f"expected_{label}.txt")
        expected = open(exp_path).read() if os.path.exists(exp_path) else ""
        r = subprocess.run([a.bin, "plan", "--against", AGAINST] + extra, cwd=v2, capture_output=True, text=True)
        exact = r.stdout == expected and r.returncode == rcs[label]
        modulo = exact
        if not exact and extra and r.returncode == rcs[label] and expected:
            try:
                ours, theirs = json.loads(r.stdout), json.loads(expected)
                ours["target"] = theirs.get("target")
                modulo = ours == theirs
            except ValueError:
                pass
        rows.append((case, label, exact, modulo, r.returncode, rcs[label]))
        if a.v and not modulo:
            print(f"--- {case} [{label}] rc {r.returncode} (expected {rcs[label]})")
            import difflib
            sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), r.stdout.splitlines(True), "expected", "ours"))
            if r.stderr:
                print("stderr:", r.stderr)

for case, label, exact, modulo, rc, erc in rows:
    if not exact:
        print(f"{'DIFF' if modulo else 'FAIL'} {case} [{label}] rc {rc}/{erc}{'  (equal but for target)' if modulo else ''}")
n = len(rows)
print(f"{sum(r[2] for r in rows)}/{n} byte-identical; {sum(r[3] for r in rows)}/{n} identical but for `target`")
