#!/usr/bin/env python3
"""`check` passes => `build` succeeds, on the differential generator's projects.

For each seed, the valid project gen.py makes and the broken ones mutate.py
makes from it: when `streamform check` exits 0, `streamform build --stdout`
(for each target the project declares, or with placeholders when it declares
none) must exit 0. Prints the count and every project that breaks the rule,
kept under --out; exits 1 when there is one.

usage: check_build.py [--count N] [--seed S] [--bin PATH] [--out DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import mutate  # noqa: E402


def run(binary, d, *args):
    return subprocess.run([binary, *args], cwd=d, capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})


def targets(p):
    return list((p.get("targets") or {}).keys())


def violation(binary, p, d):
    """Whether project `p`, written in `d`, checks, and why it then does not
    build (None: it builds)."""
    if run(binary, d, "check").returncode != 0:
        return False, None
    for t in targets(p) or [None]:
        args = ["build", "--backend", "flink", "--stdout"] + (["--target", t] if t else [])
        r = run(binary, d, *args)
        if r.returncode != 0:
            return True, f"check passes, `{' '.join(args)}` exits {r.returncode}:\n{r.stdout}{r.stderr}"
    return True, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release", "streamform"))
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "streamform-check-build"))
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    checked = passed = 0
    bad = []
    for seed in range(a.seed, a.seed + a.count):
        g = gen.Gen(seed)
        p = g.project()
        broken, how = mutate.break_project(p, g)
        for label, q in (("valid", p), (how or "unbroken", broken)):
            d = os.path.join(a.out, f"{seed}-{label}")
            gen.write(q, d)
            checked += 1
            checks, why = violation(a.bin, q, d)
            if why is None:
                passed += checks
                shutil.rmtree(d)
            else:
                bad.append((d, why))
    for d, why in bad:
        print(f"FAIL {d}: {why}")
    print(f"{checked} projects, {passed} pass check and build, {len(bad)} pass check but not build")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
