"""`plan --target` and `plan --out` give one verdict (issue 23), on every
plan pair of testdata/plan/ against the real parts:

  tools/realparts/with-parts.sh ~/.cache/streamform/flink-venv-2.3.0/bin/python \
      tools/deploy-e2e/agreement.py [CASE...]

For each pair: v1 (its topics made unique, a target on the parts added, as
restore_probe.py does) is applied with `streamform apply` while it runs; v2
is then planned against that target twice, `plan --target` and `plan
--target --out`, and the two must print the same verdict lines, `deploy:`
line, `cutover:` and `sink:` lines, and exit with the same code. Prints one line per pair and the count;
exits 1 on the first disagreement. Every wait is bounded.
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from restore_probe import ROOT, km, sf, version  # noqa: E402


def decision(r: subprocess.CompletedProcess) -> tuple:
    """What a plan decided: its exit code, its verdict line, its deploy
    action, and what it tells each sink (`cutover:` and `sink:` lines)."""
    lines = r.stdout.splitlines()
    verdict = [l for l in lines if l.startswith("verdict: ")]
    deploy = [l.split(":")[1].strip() for l in lines if l.startswith("deploy: ")]
    sinks = [l for l in lines if l.startswith(("cutover: ", "sink: "))]
    return (r.returncode, verdict, deploy, sinks)


def agree(proj: Path) -> tuple[bool, tuple, tuple]:
    """Plans `proj` both ways; the two decisions and whether they agree."""
    a = decision(sf(proj, "plan", "--target", "probe"))
    b = decision(sf(proj, "plan", "--target", "probe", "--out", "deploy.json"))
    return a == b, a, b


def cancel_recorded(proj: Path) -> None:
    rec = proj / ".streamform/applied/probe.json"
    if rec.exists():
        for j in json.loads(rec.read_text()).get("jobs", []):
            km.cancel(j)


def pair(case: str) -> tuple[bool, str]:
    v1 = version(case, "v1", None)
    topics = sorted({t for f in ("sources.yml", "streamform.yml") for t in re.findall(r"topic: ([\w.-]+)", (v1 / f).read_text())})
    if topics:
        km.ku.create_topics(topics, timeout=30)
    applied = sf(v1, "apply", "--yes", timeout=240)
    try:
        v2 = version(case, "v2", None)
        if (v1 / ".streamform").exists():
            shutil.copytree(v1 / ".streamform", v2 / ".streamform")
        same, a, b = agree(v2)
    finally:
        cancel_recorded(v1)
    how = "v1 applied" if applied.returncode == 0 else f"v1 not applied (exit {applied.returncode})"
    return same, f"{case}: {how}; plan --target {a}, plan --out {b}"


def main() -> int:
    cases = sys.argv[1:] or sorted(p.parent.name for p in (ROOT / "testdata/plan").glob("*/v2"))
    n = 0
    for case in cases:
        same, line = pair(case)
        print(("agree     " if same else "DISAGREE  ") + line, flush=True)
        if not same:
            return 1
        n += 1
    print(f"{n} plan pairs: plan --target and plan --out agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
