#!/usr/bin/env python3
"""Records a case of testdata/flink-plans/ from the real Flink: builds the
case's project (a copy, its target pointed at the running parts), runs its
DDL on the SQL Gateway and `COMPILE PLAN ... FOR STATEMENT SET`, and writes
the unedited ExecNode JSON (`compiled.json`) and the manifest streamform
built (`manifest.json`) into the case. Needs the parts' env
(tools/realparts/up.sh) exported.

  python3 tools/deploy-e2e/record_plan.py testdata/flink-plans/w1-tumbling
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.environ["REALPARTS_DIR"])
from smoke import Gateway  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
SF = os.environ.get("STREAMFORM", str(ROOT / "target/debug/streamform"))


def statements(script: str) -> list[str]:
    """The script's statements, split as the CLI splits them (`;` then a blank line)."""
    out, cur = [], []
    lines = script.splitlines()
    for i, line in enumerate(lines):
        if not cur and (not line.strip() or line.lstrip().startswith("--")):
            continue
        cur.append(line)
        if line.rstrip().endswith(";") and (i + 1 == len(lines) or not lines[i + 1].strip()):
            out.append("\n".join(cur).rstrip().rstrip(";"))
            cur = []
    return out


def main(case: Path) -> None:
    with tempfile.TemporaryDirectory(dir=os.environ["REALPARTS_STATE_DIR"]) as tmp:
        proj = Path(tmp) / "p"
        shutil.copytree(case, proj, ignore=shutil.ignore_patterns("compiled.json", "manifest.json"))
        yml = proj / "streamform.yml"
        yml.write_text(yml.read_text().replace("127.0.0.1:9092", os.environ["KAFKA_BOOTSTRAP"]))
        subprocess.run([SF, "build", "--backend", "flink", "--target", "e2e"], cwd=proj, check=True, timeout=120)
        stmts = statements((proj / "build/flink/application.sql").read_text())
        gw = Gateway(os.environ["FLINK_GATEWAY"])
        gw.open("streamform-record", {"table.local-time-zone": "UTC"})
        try:
            for s in stmts[:-1]:
                gw.execute(s)
            out = Path(tmp) / "compiled.json"
            body = stmts[-1].strip().removeprefix("EXECUTE ")
            gw.execute(f"COMPILE PLAN 'file://{out}' FOR {body}")
        finally:
            gw.close()
        shutil.copy(out, case / "compiled.json")
        shutil.copy(proj / "build/plan.json", case / "manifest.json")
    print(f"recorded {case}/compiled.json and manifest.json")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
