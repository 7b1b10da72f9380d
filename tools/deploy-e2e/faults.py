#!/usr/bin/env python3
"""The fault suite: one job with an exactly-once and an at-least-once Kafka
sink over the same source, run on the real parts that run.sh started for the
deploy e2e (the same cluster), through real faults. Each fault has events
produced before, during and after it; then every sink topic is compared with
the simulator (`streamform run`) over all the events: the exactly-once sink,
read `read_committed`, must hold every record once; the at-least-once sink
must miss nothing, and its duplicates are counted, not hidden.

  taskmanager   the TaskManager is SIGKILLed right after a checkpoint, with
                records written since, and started again
  broker        the Kafka broker is SIGKILLed with records written since the
                last checkpoint, and started again on its own log
  jobmanager    the JobManager is SIGKILLed right after a checkpoint, with
                records written since, events are produced while it is
                down, and it is started again: under ZooKeeper HA
                (REALPARTS_HA=zookeeper, which run.sh sets) it recovers the
                job, same id, from its last checkpoint
  stop          the TaskManager is SIGKILLed while `apply` (an upgrade: a new
                model) stops the job with a savepoint, and started again;
                the apply restores the savepoint if Flink wrote it, else
                fails, the job recovers, and the next apply upgrades it
  rollback      not a fault: a rebuild (another source topic) names its
                rollback savepoint; events are written to the old topic;
                the previous version is applied `--from-savepoint` it and
                continues from the savepoint's read positions

FAULTS=taskmanager,broker runs a subset.

The table of records produced / missing / duplicated per fault and mode is
printed at the end (docs/deploy.md reproduces it). Every wait is bounded.
"""

from __future__ import annotations

import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import e2e  # noqa: E402  (re-executes under the Kafka client's Python)
from e2e import check, ku, say, sf, sim_output

HERE = Path(__file__).resolve().parent
PROJECT = {
    "streamform.yml": """name: faults
version: 1
models:
  eo:
    sink: {connector: kafka, topic: EO_TOPIC, delivery: exactly-once}
  alo:
    sink: {connector: kafka, topic: ALO_TOPIC}
targets:
  e2e:
    backend: flink
    flink:
      gateway: GATEWAY_URL
      rest: REST_URL
      savepoint_dir: SAVEPOINT_DIR
      checkpoint_interval: 10s
    kafka:
      bootstrap_servers: KAFKA_BOOTSTRAP
""",
    "sources.yml": """sources:
  events:
    connector: kafka
    topic: EVENTS_TOPIC
    schema:
      seq: int64
      user_id: string
      amount: int64
""",
    "models/eo.sql": "SELECT seq, user_id, amount\nFROM source('events')\n",
    "models/alo.sql": "SELECT seq, user_id, amount\nFROM source('events')\n",
}


def rest(path: str, method: str = "GET") -> dict:
    req = urllib.request.Request(os.environ["FLINK_REST"] + path, method=method)
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def wait(what: str, cond, timeout: float, every: float = 0.3):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            v = cond()
        except OSError:
            v = None
        if v:
            return v
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout}s")


def completed_checkpoints(job: str) -> int:
    return rest(f"/jobs/{job}/checkpoints")["counts"]["completed"]


def job_running(job: str) -> bool:
    j = rest(f"/jobs/{job}")
    return j["state"] == "RUNNING" and all(v["status"] == "RUNNING" for v in j["vertices"])


def owned_pid(pidname: str) -> int:
    """The pid up.sh recorded for a part, checked to be ours (not another state dir's)."""
    pid = int((Path(os.environ["REALPARTS_STATE_DIR"]) / f"pids/{pidname}.pid").read_text().strip())
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert f"STREAMFORM_REALPARTS_OWNER={os.environ['REALPARTS_STATE_DIR']}".encode() in environ, f"not our {pidname}"
    return pid


# Parts killed and not yet started again: a failing fault leaves none down
# for the next fault or suite.
KILLED: dict[str, list[str]] = {}


def gone(pid: int) -> bool:
    """The process has exited (a part this suite relaunched is its child:
    reap it, or it lingers as a zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"
    except (FileNotFoundError, IndexError):
        return True


def kill(pidname: str) -> list[str]:
    """SIGKILLs a part up.sh started (its process group) and returns its
    command line, so `relaunch` starts it again exactly as it was."""
    pid = owned_pid(pidname)
    argv = [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
    KILLED[pidname] = argv
    os.killpg(pid, signal.SIGKILL)
    wait(f"the killed {pidname} is gone", lambda: gone(pid), 20)
    say(f"killed the {pidname} (pid {pid}, SIGKILL)")
    return argv


def relaunch(pidname: str, argv: list[str]) -> None:
    """Starts a killed part again with its command line and environment, so
    down.sh stops it, and waits (bounded) until it serves."""
    KILLED.pop(pidname, None)
    if pidname in ("taskmanager", "jobmanager"):
        e2e.start_part(pidname, f"{pidname}.sh")
        return
    log = open(Path(os.environ["REALPARTS_LOG_DIR"]) / f"{pidname}.restarted.out", "w")
    p = subprocess.Popen(argv, env=dict(os.environ, STREAMFORM_REALPARTS_OWNER=os.environ["REALPARTS_STATE_DIR"]), stdin=subprocess.DEVNULL,
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    (Path(os.environ["REALPARTS_STATE_DIR"]) / f"pids/{pidname}.pid").write_text(f"{p.pid}\n")
    wait("the broker answers again", lambda: subprocess.run([sys.executable, str(Path(os.environ["REALPARTS_DIR"]) / "kafka_util.py"), "--bootstrap", os.environ["KAFKA_BOOTSTRAP"], "wait-ready", "--timeout", "3"],
                                                          capture_output=True).returncode == 0, 90, 1)
    say(f"the {pidname} is back (pid {p.pid})")


def records(topic: str) -> list[dict]:
    """Every value in the topic, read `read_committed` (kafka_util's default)."""
    return [v for _, v in ku.read_all(topic, 20)]


def tally(got: list[dict], expected: list[dict]) -> dict:
    g, e = Counter(json.dumps(r, sort_keys=True) for r in got), Counter(json.dumps(r, sort_keys=True) for r in expected)
    missing = sum((e - g).values())
    extra = g - e
    return {"produced": sum(e.values()), "read": sum(g.values()), "missing": missing, "duplicated": sum(extra.values())}


class Run:
    """One fault's own project, topics and job (an exactly-once and an
    at-least-once sink over one source), and the events produced to it."""

    def __init__(self, fault: str):
        env = os.environ
        run = format(int(time.time() * 1000) % 10**9, "x")
        self.proj = Path(env["REALPARTS_STATE_DIR"]) / f"faults-{fault}-{run}"
        self.topics = {"EVENTS_TOPIC": f"f-{run}-events", "EO_TOPIC": f"f-{run}-eo", "ALO_TOPIC": f"f-{run}-alo", "EXTRA_TOPIC": f"f-{run}-extra"}
        subst = dict(self.topics, GATEWAY_URL=env["FLINK_GATEWAY"], REST_URL=env["FLINK_REST"], SAVEPOINT_DIR=env["FLINK_SAVEPOINT_DIR"], KAFKA_BOOTSTRAP=env["KAFKA_BOOTSTRAP"])
        for rel, text in PROJECT.items():
            for k, v in subst.items():
                text = text.replace(k, v)
            (self.proj / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.proj / rel).write_text(text)
        ku.create_topics(list(self.topics.values()))
        self.events: list[dict] = []
        r = sf(self.proj, "apply", "--yes")
        check(r.returncode == 0 and "is running" in r.stdout, f"{fault}: the job with an exactly-once and an at-least-once sink runs")
        self.job = self.applied_job()

    def applied_job(self) -> str:
        return json.loads((self.proj / ".streamform/applied/e2e.json").read_text())["jobs"][0]

    def produce(self, n: int) -> None:
        e = self.events
        batch = [{"seq": len(e) + i, "user_id": "abc"[(len(e) + i) % 3], "amount": len(e) + i} for i in range(n)]
        ku.produce(self.topics["EVENTS_TOPIC"], batch)
        e.extend(batch)

    def alo_count(self) -> int:
        return len(records(self.topics["ALO_TOPIC"]))

    def checkpointed_then_written(self) -> int:
        """20 events committed by a checkpoint, then 20 written since it
        (the at-least-once sink shows them). Returns the checkpoint count."""
        self.produce(20)
        wait("the at-least-once sink has the first 20", lambda: self.alo_count() >= 20, 60)
        # Triggered after they were written: one already in flight would
        # hold read positions from before them.
        seen = time.time() * 1000
        wait("a checkpoint triggered after the first 20 completes", lambda: ((rest(f"/jobs/{self.job}/checkpoints").get("latest") or {}).get("completed") or {}).get("trigger_timestamp", 0) > seen, 30, 0.1)
        self.produce(20)
        wait("the at-least-once sink has all 40 (written since the checkpoint)", lambda: self.alo_count() >= 40, 30, 0.1)
        return completed_checkpoints(self.job)

    def settle(self, fault: str, table: list) -> None:
        """After the fault: 20 more events; then both sinks against the
        simulator over every event, each waited for (bounded)."""
        self.produce(20)
        expected = [json.loads(line)["columns"] for line in sim_output(self.proj, self.events, "eo", "changelog")]
        check(len(expected) == len(self.events), f"{fault}: the simulator's output holds the {len(self.events)} events")
        complete = lambda topic: (lambda g: g if tally(g, expected)["missing"] == 0 else None)(records(topic))  # noqa: E731
        eo = tally(wait(f"{fault}: the exactly-once sink holds the simulator's output (read_committed)", lambda: complete(self.topics["EO_TOPIC"]), 90), expected)
        alo = tally(wait(f"{fault}: the at-least-once sink holds the simulator's output", lambda: complete(self.topics["ALO_TOPIC"]), 90), expected)
        check(eo["missing"] == 0 and eo["duplicated"] == 0, f"{fault}: exactly-once: every record once: {eo}")
        check(alo["missing"] == 0, f"{fault}: at-least-once: nothing missing, duplicates counted: {alo}")
        table += [(fault, "exactly-once", eo), (fault, "at-least-once", alo)]

    def close(self) -> None:
        sf(self.proj, "stop", "--discard-state")
        shutil.rmtree(self.proj, ignore_errors=True)


def recovered(job: str, since: float, what: str) -> None:
    """The JobManager records the failover, and every task runs again."""
    wait(f"{what}: the JobManager records the failover", lambda: rest(f"/jobs/{job}/exceptions")["exceptionHistory"]["entries"], 120)
    wait(f"{what}: the job runs again", lambda: job_running(job), 120)
    say(f"{what}: the job runs again {time.monotonic() - since:.1f}s after the fault")


def taskmanager(r: Run, table: list) -> None:
    fault = "TaskManager killed after a checkpoint, restarted"
    before = r.checkpointed_then_written()
    argv = kill("taskmanager")
    t = time.monotonic()
    check(completed_checkpoints(r.job) == before, "taskmanager: it died with records written since its last checkpoint")
    relaunch("taskmanager", argv)
    recovered(r.job, t, "taskmanager")
    st = sf(r.proj, "status")
    check(re.search(r"\n  last checkpoint \d+, completed \d+s ago\n", st.stdout) is not None, "taskmanager: status names the last completed checkpoint and its age")
    r.settle(fault, table)
    check(table[-1][2]["duplicated"] == 20, "taskmanager: the at-least-once sink wrote again exactly the 20 records after the checkpoint", str(table[-1][2]))


def broker(r: Run, table: list) -> None:
    fault = "Kafka broker killed, restarted"
    r.checkpointed_then_written()
    argv = kill("kafka")
    t = time.monotonic()
    time.sleep(3)
    relaunch("kafka", argv)
    say(f"broker: down for {time.monotonic() - t:.1f}s")
    wait("broker: every task runs", lambda: job_running(r.job), 120)
    r.settle(fault, table)


def jobmanager(r: Run, table: list) -> None:
    fault = "JobManager killed after a checkpoint, restarted (ZooKeeper HA)"
    r.checkpointed_then_written()
    argv = kill("jobmanager")
    t = time.monotonic()
    r.produce(10)  # while no JobManager runs
    relaunch("jobmanager", argv)
    # The new JobManager knows the job under its id only by recovering it
    # from the HA store; it restores the last checkpoint the store holds.
    wait("jobmanager: the job is recovered, restored from a checkpoint", lambda: (rest(f"/jobs/{r.job}/checkpoints").get("latest") or {}).get("restored"), 120)
    wait("jobmanager: the recovered job runs and checkpoints", lambda: job_running(r.job) and completed_checkpoints(r.job) > 0, 120)
    say(f"jobmanager: the job runs again {time.monotonic() - t:.1f}s after the fault")
    st = sf(r.proj, "status")
    check(st.returncode == 0 and f"job {r.job}  running" in st.stdout, "jobmanager: status finds the recorded job running under the new JobManager", st.stdout + st.stderr)
    r.settle(fault, table)


def stop(r: Run, table: list) -> None:
    fault = "TaskManager killed during apply's stop-with-savepoint"
    r.checkpointed_then_written()
    (r.proj / "models/extra.sql").write_text("SELECT seq\nFROM source('events')\nWHERE amount > 1000\n")
    yml = r.proj / "streamform.yml"
    yml.write_text(yml.read_text().replace("models:\n", f"models:\n  extra:\n    sink: {{connector: kafka, topic: {r.topics['EXTRA_TOPIC']}}}\n", 1))
    applying = subprocess.Popen([e2e.SF, "apply", "--yes"], cwd=r.proj, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    jdir = r.proj / ".streamform/journal/e2e"
    stopping = lambda: any(json.loads(p.read_text())["transitions"][-1]["state"] == "stopping" for p in jdir.glob("*.json"))  # noqa: E731
    wait("stop: apply starts stopping the job", lambda: stopping() or applying.poll() is not None, 60, 0.01)
    argv = kill("taskmanager")
    relaunch("taskmanager", argv)
    out, err = applying.communicate(timeout=300)
    say(f"stop: the interrupted apply -> exit {applying.returncode}\n{out}{err}")
    # Flink ends such a stop one of two ways: the savepoint fails (the job
    # recovers from its last checkpoint and keeps running), or it is written
    # and the job fails while stopping (the savepoint is consistent; apply
    # restores it). Either way the next apply (if one is needed) upgrades.
    if applying.returncode == 0:
        check("restored from file:" in out, "stop: the savepoint was written before the job failed; apply restored it")
    else:
        check(applying.returncode == 1 and "savepoint" in err, "stop: the apply whose savepoint the kill broke fails, and says why")
        # The job may still look RUNNING before the JobManager notices the
        # lost TaskManager: only a checkpoint completed after the kill shows
        # that every task runs again on a live one.
        done = completed_checkpoints(r.job)
        ended = lambda: rest(f"/jobs/{r.job}")["state"] in ("FAILED", "FINISHED", "CANCELED")  # noqa: E731
        wait("stop: the old job has checkpointed again on a live TaskManager, or has ended", lambda: ended() or (job_running(r.job) and completed_checkpoints(r.job) > done), 180)
        res = sf(r.proj, "apply", "--yes")
        check(res.returncode == 0 and "restored from file:" in res.stdout, "stop: the next apply upgrades, restoring a savepoint")
    r.job = r.applied_job()
    r.settle(fault, table)


def rollback(r: Run, table: list) -> None:
    fault = "a rebuild, then `apply --from-savepoint` back to its rollback savepoint"
    r.produce(20)
    wait("rollback: the at-least-once sink has the first 20", lambda: r.alo_count() >= 20, 60)
    v1 = {rel: (r.proj / rel).read_text() for rel in PROJECT}
    # Another source topic: the source's state cannot carry over, a rebuild.
    src = r.proj / "sources.yml"
    src.write_text(src.read_text().replace(r.topics["EVENTS_TOPIC"], r.topics["EXTRA_TOPIC"]))
    rebuilt = sf(r.proj, "apply", "--yes", "--allow-state-loss")
    m = re.search(r"\nrollback: job (\w+)'s state is kept in savepoint (\S+) \(journal (\S+)\); to return to it, check out the version of the project it ran and run `streamform apply --target e2e --from-savepoint (\S+)`\n", rebuilt.stdout)
    check(rebuilt.returncode == 0 and "deploy: rebuild" in rebuilt.stdout and m is not None and m[1] == r.job and m[2] == m[4],
          "rollback: the rebuild names its rollback savepoint and the command that returns to it", rebuilt.stdout)
    sp = m[2]
    check(json.loads((r.proj / m[3]).read_text())["savepoint"] == sp, "rollback: the rebuild's journal entry records the savepoint")
    rebuilt_job = r.applied_job()
    r.produce(10)  # on the old topic, while the rebuilt job reads the other
    refused = sf(r.proj, "apply", "--yes", "--from-savepoint", sp)
    check(refused.returncode == 2 and "cannot roll back to it: savepoint" in refused.stderr and f"written by job {r.job}" in refused.stderr,
          "rollback: the rebuilt version is refused the old job's savepoint", refused.stderr)
    for rel, text in v1.items():
        (r.proj / rel).write_text(text)
    back = sf(r.proj, "apply", "--yes", "--from-savepoint", sp)
    check(back.returncode == 0 and f"deploy: restore: stop job {rebuilt_job} with a savepoint, then submit the application restored from savepoint {sp}\n" in back.stdout and f"restored from {sp}" in back.stdout,
          "rollback: the previous version restores the rollback savepoint", back.stdout + back.stderr)
    r.job = r.applied_job()
    # Restored read positions: the 10 events written meanwhile are read once;
    # a start from the earliest offset would write the first 20 again.
    r.settle(fault, table)


FAULTS = {"taskmanager": taskmanager, "broker": broker, "jobmanager": jobmanager, "stop": stop, "rollback": rollback}


def main() -> int:
    table: list = []
    chosen = [f for f in os.environ.get("FAULTS", ",".join(FAULTS)).split(",") if f]
    if "jobmanager" in chosen and os.environ.get("REALPARTS_HA") != "zookeeper":
        # Without HA a restarted JobManager forgets its jobs: nothing to recover.
        check("FAULTS" not in os.environ, "jobmanager: the parts run with REALPARTS_HA=zookeeper")
        say("jobmanager: not run: the parts run without HA (start them with REALPARTS_HA=zookeeper)")
        chosen.remove("jobmanager")
    for name in chosen:
        r = Run(name)
        try:
            FAULTS[name](r, table)
        finally:
            for part, argv in list(KILLED.items()):
                relaunch(part, argv)
            r.close()
    print("\n| fault | delivery | produced | read | missing | duplicated |\n|---|---|---|---|---|---|")
    for fault, mode, t in table:
        print(f"| {fault} | {mode} | {t['produced']} | {t['read']} | {t['missing']} | {t['duplicated']} |")
    print(f"{e2e.CHECKS} checks passed, 0 failed")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("fault suite timed out")))
    signal.alarm(int(os.environ.get("FAULTS_TIMEOUT", "900")))
    sys.exit(main())
