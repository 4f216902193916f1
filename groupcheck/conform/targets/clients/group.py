"""Real consumers, each its own OS process, in one classic group on a real broker.

A ``ProcessGroup`` starts one ``worker`` process per member (c1..cN; the same
interpreter, PYTHONPATH preserved; for kafkajs ``node adapters/node/consumer-worker.js``,
which speaks the same JSON lines), reads their JSON lines in one reader thread each
(data only: a line that is not a JSON object is recorded as an ``error`` event), and
applies faults by real means: SIGKILL (``kill``), SIGSTOP / SIGCONT (``sigstop`` /
``sigcont``: the whole process, heartbeats included, stops), the ``stall`` / ``resume``
commands (the application stops polling, heartbeats go on until max.poll.interval.ms),
``close`` and ``commit`` commands, and ``grow_topic``: a new topic the members' pattern
subscription matches (``<topic>-g<k>``, created with CreateTopics), so the group's
partitions grow by as many as the first topic has. With ``Settings.commit_policy`` the
members process records (``app_records.py``): ``produce`` writes numbered records through
the harness's one producer (``records_io.py``; a ``produced`` event per record), ``hold``
makes a member process one more record and block before committing it (a ``kill`` of it
waits for its ``held`` line), and ``offsets`` records the broker's final end and
committed offsets after every worker stopped (``Settings.harness``: through kafka-python, or
confluent-kafka on librdkafka's mock). ``Settings.group_protocol = "consumer"`` runs
confluent-kafka members with ``group.protocol=consumer`` (KIP-848). Events are the same dicts as the mock target's
(``librdkafka/client.py``), with ``t`` seconds since the group started, sorted by time
(the workers stamp their lines with the wall clock of this machine).
The client ``java`` (Apache Kafka's KafkaConsumer) runs the launcher ``adapters/java/build.sh``
wrote in the folder ``GROUPCHECK_JAVA_CLIENT`` names; it speaks the same JSON lines.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

WORKER = "groupcheck.conform.targets.clients.worker"
NODE_WORKER = Path(__file__).resolve().parents[4] / "adapters" / "node" / "consumer-worker.js"
NODE_CLIENTS = {"kafkajs": ("roundrobin",)}   # run by NODE_WORKER (Node.js); kafkajs ships no range
# Apache Kafka's KafkaConsumer: GROUPCHECK_JAVA_CLIENT names the folder adapters/java/build.sh built
JAVA_CLIENTS = {"java": ("range", "roundrobin", "sticky", "cooperative-sticky")}


def worker_command(client: str) -> list[str]:
    """The program for one member: ``node consumer-worker.js`` for kafkajs, else this
    interpreter's ``worker`` module, or java's launcher. ValueError (one line) when Node.js,
    the adapter's packages or the Java build are missing."""
    if client in JAVA_CLIENTS:
        built = os.environ.get("GROUPCHECK_JAVA_CLIENT", "")
        launcher = Path(built) / "consumer-worker"
        if not built or not launcher.is_file():
            raise ValueError(f"{client} needs GROUPCHECK_JAVA_CLIENT naming a folder adapters/java/build.sh built")
        return [str(launcher)]
    if client not in NODE_CLIENTS:
        return [sys.executable, "-m", WORKER]
    node = shutil.which("node")
    if node is None:
        raise ValueError(f"{client} needs Node.js: no 'node' on PATH")
    if not (NODE_WORKER.parent / "node_modules" / "kafkajs").is_dir():
        raise ValueError(f"{client} needs the Node adapter's packages: run npm ci --prefix adapters/node")
    return [node, str(NODE_WORKER)]


@dataclass
class Settings:
    """One target's client and timing. Tansu answers JoinGroup half a session timeout
    after it arrives, so sessions are >= 6 s; max.poll.interval.ms (the rebalance
    timeout the clients send) must be >= the session timeout."""
    client: str = "kafka-python"
    assignor: str = "range"
    static: bool = False             # every member has group.instance.id = its name
    broken: str | None = None
    commit_policy: str | None = None  # the record layer: workers process records, commit by this
    group_protocol: str = "classic"  # "consumer": KIP-848 (confluent-kafka's group.protocol=consumer)
    harness: str = "kafka-python"    # the library of the harness's producer and offset reader (records_io)
    mock: bool = False               # the broker is librdkafka's mock cluster (librdkafka/mock_broker.py)
    partitions: int = 4
    session_timeout_ms: int = 6000
    heartbeat_interval_ms: int = 1000
    max_poll_interval_ms: int = 9000
    op_bound_s: float = 90.0         # no single operation runs longer than this


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen
    stalled: bool = False            # application stall (stdin) or SIGSTOP
    stopped: bool = False            # SIGSTOP
    closed: bool = False
    sample: dict = field(default_factory=dict)   # its latest (generation, member_id, assignment)
    sample_wall: float = 0.0         # when the worker took it
    fresh_after: float = 0.0         # a settle trusts only samples taken after this (resume, SIGCONT)
    hold_from: int | None = None     # asked to hold: its count of held lines then


class ProcessGroup:
    """One group id and topic on the broker at ``bootstrap``; members c1..cN."""

    def __init__(self, settings: Settings, bootstrap: str, group: str, topic: str, deadline: float | None = None,
                 create_topic=None):
        self.settings, self.bootstrap, self.group, self.topic = settings, bootstrap, group, topic
        self.deadline = deadline
        self.create_topic = create_topic      # (name, partitions) -> None; members subscribe by pattern if set
        self.partitions = settings.partitions     # grows with grow_topic
        self.grown = 0
        self.wall0 = time.time()
        self.lock = threading.Lock()
        self.raw: list[dict] = []
        self.members: dict[str, Worker] = {}
        self.callbacks = 0               # callbacks seen so far (settle's quiet check)
        self.producer = None             # records_io.NumberedProducer, at the first produce

    # -- recording --------------------------------------------------------------------

    def record(self, kind: str, wall: float | None = None, **fields) -> dict:
        ev = {"t": round((wall if wall is not None else time.time()) - self.wall0, 4), "kind": kind, **fields}
        with self.lock:
            self.raw.append(ev)
            if kind in ("assign", "revoke", "lost"):
                self.callbacks += 1
        return ev

    @property
    def events(self) -> list[dict]:
        with self.lock:
            return sorted(self.raw, key=lambda e: e["t"])

    def _read(self, w: Worker) -> None:
        for line in w.proc.stdout:
            try:
                msg = json.loads(line)
                if not isinstance(msg, dict) or not isinstance(msg.get("kind"), str):
                    raise ValueError("not an event")
                wall = float(msg.pop("wall", time.time()))
            except (ValueError, TypeError):
                self.record("error", member=w.name, error=f"worker wrote {line[:200]!r}")
                continue
            kind = msg.pop("kind")
            if kind == "sample":
                changed, w.sample, w.sample_wall = msg != w.sample, msg, wall
                if not changed:
                    continue                # a periodic sample: fresh, not news
            if kind not in ("ready", "closed"):
                self.record(kind, wall=wall, member=w.name, **msg)

    # -- operations -------------------------------------------------------------------

    def join(self, name: str) -> None:
        """Start a worker process for ``name``; it subscribes and polls at once."""
        if name in self.members and not self.members[name].closed:
            raise ValueError(f"{name} already joined")
        s = self.settings
        cmd = worker_command(s.client) + ["--client", s.client, "--assignor", s.assignor,
               "--bootstrap", self.bootstrap, "--group", self.group, "--topic", self.topic, "--name", name,
               "--session-timeout-ms", str(s.session_timeout_ms), "--heartbeat-interval-ms",
               str(s.heartbeat_interval_ms), "--max-poll-interval-ms", str(s.max_poll_interval_ms)]
        if s.static:
            cmd += ["--instance-id", name]
        if self.create_topic is not None:
            cmd += ["--pattern", "--partitions", str(s.partitions)]
        if s.broken:
            cmd += ["--broken", s.broken]
        if s.commit_policy:
            cmd += ["--commit-policy", s.commit_policy]
        if s.group_protocol != "classic":
            cmd += ["--group-protocol", s.group_protocol]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, bufsize=1, env=dict(os.environ), start_new_session=True)
        w = self.members[name] = Worker(name, proc)
        threading.Thread(target=self._read, args=(w,), daemon=True).start()

    def _send(self, w: Worker, command: str) -> None:
        try:
            w.proc.stdin.write(command + "\n")
            w.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass                            # it died: its exit shows in the events' silence

    def command(self, name: str, command: str) -> None:
        """``stall`` / ``resume`` / ``commit`` on a running member."""
        w = self._running(name)
        if command in ("stall", "resume"):
            w.stalled = command == "stall"
            w.fresh_after = time.time()
        self._send(w, command)

    def produce(self, count: int) -> None:
        """``count`` numbered records to each partition, through the harness's one producer."""
        from .records_io import producer
        if self.producer is None:
            self.producer = producer(self.bootstrap, self.topic, self.partitions, self.settings.harness)
        for p, offset, value in self.producer.produce(count):
            self.record("produced", partition=p, offset=offset, value=value)

    def hold(self, name: str, before_processing: bool = False) -> None:
        """Ask ``name`` to process one more record and block before committing it (returns
        once it took the command); ``before_processing`` (the ``grab`` op): to block before
        processing the record poll returned. It holds at its next record (a later ``produce``
        may bring it). A ``kill`` of it waits for its ``held`` line first."""
        if not self.settings.commit_policy:
            raise ValueError("hold needs members that process records (a commit policy)")
        if before_processing and self.settings.client in NODE_CLIENTS:
            raise ValueError(f"grab: the {self.settings.client} worker has no grab command")
        w = self._running(name)
        w.hold_from, asked = len(self._held(name)), len(self._held(name, "hold_asked"))
        self._send(w, "grab" if before_processing else "hold")
        end = time.monotonic() + 30
        while len(self._held(name, "hold_asked")) <= asked:     # it reads commands between polls
            if time.monotonic() >= end or self.past_deadline():
                raise ValueError(f"{name} did not take the hold command within 30 s")
            time.sleep(0.05)

    def _held(self, name: str, kind: str = "held") -> list[dict]:
        return [e for e in self.events if e["kind"] == kind and e.get("member") == name]

    def _await_held(self, w: "Worker", bound_s: float = 30.0) -> None:
        """Wait until ``w`` said it holds (ValueError after ``bound_s``: nothing reached it)."""
        end = time.monotonic() + min(bound_s, self.settings.op_bound_s)
        while len(self._held(w.name)) <= w.hold_from:
            if time.monotonic() >= end or self.past_deadline():
                raise ValueError(f"{w.name} held no record within {bound_s:.0f} s (nothing to process?)")
            time.sleep(0.05)
        w.hold_from = None

    def final_offsets(self) -> None:
        """Record the broker's end and committed offsets (call once every worker stopped)."""
        from .records_io import read_offsets
        if self.producer is not None:
            self.producer.close()
            self.producer = None
        self.record("offsets", **read_offsets(self.bootstrap, self.group, self.topic, self.partitions,
                                              self.settings.harness))

    def grow(self) -> str:
        """Create the next sibling topic ``<topic>-g<k>`` (as many partitions as the
        first); the members' pattern subscriptions pick it up. Returns its name."""
        if self.create_topic is None:
            raise ValueError("grow_topic needs members that subscribe by pattern (the scenario's first op decides)")
        name = f"{self.topic}-g{self.grown + 1}"
        self.create_topic(name, self.settings.partitions)
        self.grown += 1
        self.partitions += self.settings.partitions
        return name

    def close(self, name: str) -> None:
        """Ask the worker to close its consumer (revoke or lose, LeaveGroup) and exit."""
        w = self._running(name)
        if w.stopped:
            self.signal(name, "sigcont")
        w.stalled = False
        self._send(w, "close")
        try:
            w.proc.wait(self.settings.op_bound_s)
        except subprocess.TimeoutExpired:
            self._kill(w)
        w.closed = True

    def signal(self, name: str, what: str) -> None:
        """``kill`` (SIGKILL), ``sigstop``, ``sigcont`` the member's process."""
        w = self._running(name)
        if what == "kill" and w.hold_from is not None:
            self._await_held(w)           # the SIGKILL lands between processing and committing
        if what == "kill":
            self._kill(w)
            w.closed = True
        else:
            os.kill(w.proc.pid, signal.SIGSTOP if what == "sigstop" else signal.SIGCONT)
            w.stopped = w.stalled = what == "sigstop"
            w.fresh_after = time.time()

    @staticmethod
    def _kill(w: Worker) -> None:
        if w.proc.poll() is None:
            w.proc.kill()
        w.proc.wait()

    def _running(self, name: str) -> Worker:
        w = self.members.get(name)
        if w is None or w.closed:
            raise ValueError(f"{name} is not a running member")
        return w

    def live(self) -> list[Worker]:
        return [w for w in self.members.values() if not w.closed and not w.stalled]

    def past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def wait(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.past_deadline():
            time.sleep(min(0.1, max(0.0, end - time.monotonic())))

    def settled(self) -> bool:
        """Every live member reports a member id and the same generation, and the clients'
        own assignments (not the application's view) cover the topic exactly once, in
        samples taken after its last resume or SIGCONT (a stale one says nothing)."""
        live = self.live()
        if not live:
            return True
        if any(w.sample_wall <= w.fresh_after for w in live):
            return False
        samples = [w.sample for w in live]
        gens = {s.get("generation", -1) for s in samples}
        if len(gens) != 1 or min(gens) < 0 or any(not s.get("member_id") for s in samples):
            return False
        owned = sorted(p for s in samples for p in s.get("assignment", ()))
        return owned == list(range(self.partitions))

    def settle(self, max_s: float, quiet_s: float) -> tuple[bool, float]:
        """Wait until ``settled()`` has held, with no callback, for ``quiet_s``; give up
        after ``max_s``. Returns (settled, seconds taken)."""
        start = time.monotonic()
        end = start + min(max_s, self.settings.op_bound_s)
        stable_since, seen = None, self.callbacks
        while time.monotonic() < end and not self.past_deadline():
            time.sleep(0.1)
            changed, seen = self.callbacks != seen, self.callbacks
            if changed or not self.settled():
                stable_since = None
            elif stable_since is None:
                stable_since = time.monotonic()
            elif time.monotonic() - stable_since >= quiet_s:
                return True, time.monotonic() - start
        return False, time.monotonic() - start

    def shutdown(self) -> None:
        """Close every member still running (SIGCONT first), kill one that does not exit
        within 15 s; never raises and never leaves a worker behind."""
        running = [w for w in self.members.values() if not w.closed]
        for w in running:
            self.record("op", op="close", args={"member": w.name, "teardown": True})
            try:
                if w.stopped:
                    os.kill(w.proc.pid, signal.SIGCONT)
                self._send(w, "close")
            except OSError:
                pass
        end = time.monotonic() + 15
        for w in running:
            try:
                w.proc.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._kill(w)
            w.closed = True
            self.record("op", op="closed", args={"member": w.name, "teardown": True})

    def kill_all(self) -> None:
        """SIGKILL every worker (SIGINT / SIGTERM path); idempotent."""
        for w in self.members.values():
            try:
                self._kill(w)
            except OSError:
                pass
