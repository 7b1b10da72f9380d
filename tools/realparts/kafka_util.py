"""Kafka helpers for tests against the real broker that tools/realparts/up.sh
starts. Needs confluent-kafka (installed by install.sh into the venv that
REALPARTS_PYTHON names). Every call has a bounded timeout.

    import kafka_util as ku
    ku.create_topics(["orders"])
    ku.produce("orders", [{"k": "a", "v": 1}, ("a", {"k": "a", "v": 2}), ("a", None)])
    ku.read_all("orders", timeout=10)  # -> [(None, {...}), ("a", {...}), ("a", None)]

The bootstrap address defaults to $KAFKA_BOOTSTRAP (from up.sh's env file).
Reading uses assign() on explicit partitions, never subscribe(): no consumer
group, no rebalance wait, and it reads from the first offset to the high
watermark each partition had when the call started.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Iterable

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def bootstrap(explicit: str | None = None) -> str:
    b = explicit or os.environ.get("KAFKA_BOOTSTRAP")
    if not b:
        raise RuntimeError("no Kafka bootstrap: pass bootstrap= or set KAFKA_BOOTSTRAP")
    return b


def _admin(bs: str | None) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap(bs)})


def wait_ready(timeout: float = 60.0, bs: str | None = None) -> dict:
    """Waits until the broker answers a metadata request and lists itself."""
    deadline = time.monotonic() + timeout
    admin = _admin(bs)
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            md = admin.list_topics(timeout=min(5.0, max(0.5, deadline - time.monotonic())))
            if md.brokers:
                return {"cluster_id": md.cluster_id, "brokers": sorted(md.brokers)}
        except KafkaException as e:  # not up yet
            last = e
        time.sleep(0.3)
    raise TimeoutError(f"Kafka at {bootstrap(bs)} answered no metadata request in {timeout}s: {last}")


def create_topics(topics: Iterable[str] | dict[str, int], partitions: int = 1,
                  config: dict[str, str] | None = None, exist_ok: bool = True,
                  timeout: float = 30.0, bs: str | None = None) -> None:
    """Creates topics (replication factor 1). `topics` is a list of names or
    a {name: partitions} dict. `config` applies to every topic, e.g.
    {"cleanup.policy": "compact"}."""
    spec = topics if isinstance(topics, dict) else {t: partitions for t in topics}
    if not spec:
        return
    new = [NewTopic(t, num_partitions=n, replication_factor=1, config=dict(config or {}))
           for t, n in spec.items()]
    admin = _admin(bs)  # keep the client alive until its futures resolve
    futures = admin.create_topics(new, operation_timeout=timeout, request_timeout=timeout)
    for name, fut in futures.items():
        try:
            fut.result(timeout=timeout)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if exist_ok and isinstance(err, KafkaError) and err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                continue
            raise
    # metadata propagates asynchronously: wait until every topic is listed
    deadline = time.monotonic() + timeout
    while True:
        md = admin.list_topics(timeout=5)
        missing = [t for t in spec if t not in md.topics or md.topics[t].error is not None]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"topics not visible after {timeout}s: {missing}")
        time.sleep(0.2)


def delete_topics(topics: Iterable[str], timeout: float = 30.0, bs: str | None = None) -> None:
    admin = _admin(bs)  # keep the client alive until its futures resolve
    futures = admin.delete_topics(list(topics), operation_timeout=timeout, request_timeout=timeout)
    for fut in futures.values():
        try:
            fut.result(timeout=timeout)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if not (isinstance(err, KafkaError) and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
                raise


def _encode(x: Any) -> bytes | None:
    if x is None:
        return None
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode()
    return json.dumps(x, separators=(",", ":")).encode()


def produce(topic: str, records: Iterable[Any], timeout: float = 30.0,
            bs: str | None = None, partition: int | None = None) -> int:
    """Produces records in order and waits until all are acknowledged.

    Each record is either a value (dict/list/number is JSON-encoded, str is
    sent as is, bytes raw) or a (key, value) pair; a value of None is a
    tombstone. Returns the number of records written; raises if any failed."""
    p = Producer({"bootstrap.servers": bootstrap(bs), "acks": "all",
                  "enable.idempotence": True, "linger.ms": 0})
    errors: list[str] = []
    count = 0

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(str(err))

    for r in records:
        key, value = (r if isinstance(r, tuple) and len(r) == 2 else (None, r))
        kwargs = {"key": _encode(key), "value": _encode(value), "on_delivery": on_delivery}
        if partition is not None:
            kwargs["partition"] = partition
        p.produce(topic, **kwargs)
        p.poll(0)
        count += 1
    left = p.flush(timeout)
    if left:
        raise TimeoutError(f"{left} of {count} records to {topic} not acknowledged in {timeout}s")
    if errors:
        raise RuntimeError(f"producing to {topic} failed: {errors[:5]}")
    return count


def _decode(b: bytes | None, mode: str) -> Any:
    if b is None or mode == "bytes":
        return b
    s = b.decode("utf-8", errors="replace")
    if mode == "json":
        try:
            return json.loads(s)
        except ValueError:
            return s
    return s


def read_all(topic: str, timeout: float = 30.0, bs: str | None = None, decode: str = "json",
             isolation: str = "read_committed", missing_ok: bool = False) -> list[tuple[Any, Any]]:
    """Reads every record of `topic` from the beginning up to the end each
    partition had when the call started; returns [(key, value)] in partition
    and offset order. Tombstones come back with value None. decode: "json"
    (parse, falling back to str), "str" or "bytes". Raises TimeoutError if
    the end is not reached within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    c = Consumer({"bootstrap.servers": bootstrap(bs), "group.id": "streamform-realparts-reader",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "isolation.level": isolation, "allow.auto.create.topics": False})
    try:
        md = c.list_topics(topic, timeout=max(1.0, deadline - time.monotonic()))
        tmd = md.topics.get(topic)
        if tmd is None or tmd.error is not None:
            if missing_ok:
                return []
            raise ValueError(f"topic {topic!r} does not exist ({tmd.error if tmd else 'no metadata'})")
        ends: dict[int, tuple[int, int]] = {}
        for pid in sorted(tmd.partitions):
            lo, hi = c.get_watermark_offsets(TopicPartition(topic, pid),
                                             timeout=max(1.0, deadline - time.monotonic()))
            if hi > lo:
                ends[pid] = (lo, hi)
        if not ends:
            return []
        c.assign([TopicPartition(topic, pid, lo) for pid, (lo, _) in ends.items()])
        got: dict[int, list[tuple[Any, Any]]] = {pid: [] for pid in ends}
        pos = {pid: lo for pid, (lo, _) in ends.items()}

        def done() -> bool:
            return all(pos[pid] >= hi for pid, (_, hi) in ends.items())

        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"read_all({topic}): reached {pos} of {dict((p, h) for p, (_, h) in ends.items())} "
                    f"in {timeout}s")
            msg = c.poll(0.5)
            if msg is None:
                # control records (transaction markers) advance the position
                # without a message: ask the consumer where it is.
                for tp in c.position([TopicPartition(topic, pid) for pid in ends]):
                    if tp.offset >= 0:
                        pos[tp.partition] = max(pos[tp.partition], tp.offset)
                continue
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise KafkaException(msg.error())
            pid = msg.partition()
            if msg.offset() < ends[pid][1]:
                got[pid].append((_decode(msg.key(), decode), _decode(msg.value(), decode)))
            pos[pid] = max(pos[pid], msg.offset() + 1)
        return [r for pid in sorted(got) for r in got[pid]]
    finally:
        c.close()


def latest_by_key(records: Iterable[tuple[Any, Any]]) -> dict[str, Any]:
    """The table an upsert topic describes: the last value per key, tombstones
    removing the key. Keys are compared by their JSON text."""
    table: dict[str, Any] = {}
    for k, v in records:
        kk = json.dumps(k, sort_keys=True) if not isinstance(k, str) else k
        if v is None:
            table.pop(kk, None)
        else:
            table[kk] = v
    return table


def _main(argv: list[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap")
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wait-ready")
    w.add_argument("--timeout", type=float, default=60)
    ct = sub.add_parser("create")
    ct.add_argument("topics", nargs="+")
    ct.add_argument("--partitions", type=int, default=1)
    pr = sub.add_parser("produce", help="one JSON value per stdin line, or {\"key\":..,\"value\":..} with --keyed")
    pr.add_argument("topic")
    pr.add_argument("--keyed", action="store_true")
    rd = sub.add_parser("read")
    rd.add_argument("topic")
    rd.add_argument("--timeout", type=float, default=30)
    a = ap.parse_args(argv)
    if a.cmd == "wait-ready":
        print(json.dumps(wait_ready(a.timeout, a.bootstrap)))
    elif a.cmd == "create":
        create_topics(a.topics, a.partitions, bs=a.bootstrap)
    elif a.cmd == "produce":
        recs = []
        for line in sys.stdin:
            if line.strip():
                j = json.loads(line)
                recs.append((j.get("key"), j.get("value")) if a.keyed else j)
        print(produce(a.topic, recs, bs=a.bootstrap))
    elif a.cmd == "read":
        for k, v in read_all(a.topic, a.timeout, a.bootstrap):
            print(json.dumps({"key": k, "value": v}))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
