"""Does Flink restore a savepoint of a plan pair's v1 into other versions?

  tools/realparts/with-parts.sh ~/.cache/streamform/flink-venv-2.3.0/bin/python \
      tools/deploy-e2e/restore_probe.py retract v1 v2

Builds testdata/plan/<case>/v1's Flink script (a target on the running parts
added), runs it over a few orders, stops it with a savepoint, then submits
each named version restoring from it and prints what Flink did: RUNNING, the
job's failure, or the submission's refusal. `v1` itself is the control. The
events fit testdata/plan/retract's `orders`; every wait is bounded.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT + "/tools/conformance")
sys.path.insert(0, ROOT + "/tools/realparts")
import flinksql  # noqa: E402
import kafka_mode as km  # noqa: E402

ku = km.ku
SF = os.environ.get("STREAMFORM", ROOT + "/target/release/streamform")
case = sys.argv[1]


def script(ver):
    """The version's Flink script, built in a scratch copy with a target on the parts."""
    d = tempfile.mkdtemp(prefix="sp-")
    shutil.copytree(f"{ROOT}/testdata/plan/{case}/{ver}", d, dirs_exist_ok=True)
    cfg = open(f"{d}/streamform.yml").read()
    if "targets:" not in cfg:
        cfg += f"targets:\n  probe:\n    backend: flink\n    flink:\n      gateway: {os.environ['FLINK_GATEWAY']}\n    kafka:\n      bootstrap_servers: {os.environ['KAFKA_BOOTSTRAP']}\n"
    open(f"{d}/streamform.yml", "w").write(cfg)
    r = subprocess.run([SF, "build", "--backend", "flink", "--stdout"], cwd=d, capture_output=True, text=True, timeout=60)
    shutil.rmtree(d, ignore_errors=True)
    if r.returncode not in (0, 1):  # 1: built, with warnings
        sys.exit(f"build of {ver} failed: {r.stderr}")
    return r.stdout



ku.create_topics(["orders", "region-stats"], timeout=30)
ku.produce("orders", [{"order_id": i, "region": "east" if i % 2 else "west", "amount": i} for i in range(1, 7)], timeout=30)


def submit(text, restore=None):
    """Runs a script's statements in a new session; returns the job id."""
    s = km.Session("probe")
    jid = None
    if restore:
        s.run(f"SET 'execution.state-recovery.path' = '{restore}'")
    for st in flinksql.statements(text):
        jid = s.run(st.rstrip(";")) or jid
    return jid


REST = os.environ["FLINK_REST"]
v1 = script("v1")
jid = submit(v1)
for _ in range(60):
    if km.job_state(jid) == "RUNNING":
        break
    time.sleep(1)
time.sleep(8)
sp_dir = "file://" + os.environ["REALPARTS_STATE_DIR"] + "/savepoints"
trig = km.http("POST", f"{REST}/jobs/{jid}/stop", {"targetDirectory": sp_dir, "drain": False})["request-id"]
loc = None
for _ in range(60):
    st = km.http("GET", f"{REST}/jobs/{jid}/savepoints/{trig}")
    if st["status"]["id"] == "COMPLETED":
        loc = st["operation"].get("location")
        print("savepoint:", loc, st["operation"].get("failure-cause", ""))
        break
    time.sleep(1)
if loc is None:
    sys.exit("no savepoint within 60 s")
for ver in sys.argv[2:]:
    try:
        j2 = submit(script(ver), restore=loc)
        time.sleep(10)
        state = km.job_state(j2)
        print(ver, "job", j2, state, km.job_failure(j2) if state in ("FAILED", "RESTARTING", "FAILING") else "")
        km.cancel(j2)
    except km.FlinkError as e:
        print(ver, "REFUSED:", str(e)[:600])
    time.sleep(3)
