"""A Kafka broker's classic group coordinator as a target of role group-coordinator,
reached over TCP with real Kafka requests encoded by kafka-python's protocol classes.

``open`` asks the bootstrap broker's ApiVersions and picks, per request, the highest
version both sides speak (the note names them; it goes into the verdict), then reads
the broker's timing: ``group.min.session.timeout.ms`` and
``group.initial.rebalance.delay.ms`` by DescribeConfigs when the broker answers it, and
the delay before a lone first JoinGroup is answered by a probe join (the truth, when the
two differ). The session timeout is chosen from those, the rebalance timeout is twice
the session timeout (distinct, as a real consumer's max.poll.interval.ms is).

Each scenario (``setup``) finds the group's coordinator (FindCoordinator, so a
multi-broker cluster works) and opens one connection per member slot, lazily. A call
sends its request and then waits for the responses the model says this step produces
(``expect``, told by the runner): it returns as soon as they have all arrived, or at
the step's deadline with what came. A step the model answers with nothing waits its
whole deadline (that an answer is held can only be seen by waiting).

Time passes on a real broker between steps, but in the model only at ``advance``: so
while a call waits, a keep-alive connection heartbeats every member the group holds
(their answers are dropped), except the members whose timers the model lets expire.

Effects only: the roles import this module, never the reverse. Besides the adapter
interface above (role group-coordinator's classic paths), a broker target offers the newer
group protocols' effects as small methods a role calls; the role owns the scenarios, the
loop, the comparison with the model and the judgements (KIP-848:
``roles/group_coordinator/compare_848.py``):

    target.name                          the name the verdict gives the target's answers
    target.judgements_key                the name known judgements are keyed by (default ``name``)
    target.address                       "host:port" of the bootstrap broker (for messages)
    target.advertised                    ApiVersions, after ``open``: {api key: (min, max)}
    target.ensure_topic(name, partitions) -> its topic id (str): made by CreateTopics when the
                                         broker speaks it (already there is fine), read by
                                         Metadata v10+ (``topics.py``); BrokerError otherwise
    target.coordinator_for(group)        -> "host:port" of the group's coordinator (FindCoordinator)
    target.connect(address)              -> a ``Connection`` (``connection.py``)
                                         to that broker: ``heartbeat(**fields)`` sends one
                                         ConsumerGroupHeartbeat and returns the decoded answer;
                                         ``exchange(frame) -> bytes`` sends any framed request
                                         (a pure codec of ``model/wire/`` encodes and decodes it);
                                         ``close()``
    target.speaks_kip1071()              -> whether API 88 is advertised at v0 (KIP-1071:
                                         ``roles/group_coordinator/compare_1071.py``)
    target.ensure_topics({name: partitions})  each made by CreateTopics when the broker speaks it
    target.streams_group_heartbeat(group, member, request) -> the decoded answer to one
                                         StreamsGroupHeartbeat, on that member's own connection
                                         to the group's coordinator (``kip1071.py``)
    target.close_streams_members()       closes those connections

Failures are OSError (the connection) or the codec's WireError; the role turns them into
one line naming the broker (``BrokerError``, exit 2).
"""
from __future__ import annotations

import re
import socket
import struct
import threading
import time

from kafka.errors import for_code
from kafka.protocol.admin import DescribeConfigsRequest, DescribeConfigsResponse
from kafka.protocol.admin.groups import DescribeGroupsRequest, DescribeGroupsResponse
from kafka.protocol.admin.topics import CreateTopicsRequest, CreateTopicsResponse
from kafka.protocol.consumer.group import (
    HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, OffsetCommitRequest, OffsetCommitResponse, OffsetFetchRequest, OffsetFetchResponse,
    SyncGroupRequest, SyncGroupResponse,
)
from kafka.protocol.metadata import (ApiVersionsRequest, ApiVersionsResponse, FindCoordinatorRequest,
                                     FindCoordinatorResponse)

from ...adapter import AdapterError, Hello, Outcome
from ..inprocess.coordinator import ROLE
from .connection import Connection
from . import topics

# request -> (request class, response class, lowest version groupcheck speaks)
APIS = {"JoinGroup": (JoinGroupRequest, JoinGroupResponse, 1), "SyncGroup": (SyncGroupRequest, SyncGroupResponse, 0),
        "Heartbeat": (HeartbeatRequest, HeartbeatResponse, 0), "LeaveGroup": (LeaveGroupRequest, LeaveGroupResponse, 0),
        "FindCoordinator": (FindCoordinatorRequest, FindCoordinatorResponse, 0),
        "DescribeConfigs": (DescribeConfigsRequest, DescribeConfigsResponse, 0),
        "OffsetCommit": (OffsetCommitRequest, OffsetCommitResponse, 2),
        "OffsetFetch": (OffsetFetchRequest, OffsetFetchResponse, 1),
        "DescribeGroups": (DescribeGroupsRequest, DescribeGroupsResponse, 0),
        "CreateTopics": (CreateTopicsRequest, CreateTopicsResponse, 0)}
# the highest version groupcheck sends: OffsetCommit v9+ carries a KIP-848 member epoch, OffsetFetch v8+
# batches groups; the classic coordinator's rules are those of the versions below
CAPS = {"OffsetCommit": 8, "OffsetFetch": 7}
OPTIONAL = ("DescribeConfigs", "CreateTopics", "OffsetCommit", "OffsetFetch", "DescribeGroups")  # if spoken
PROBES = ("OffsetCommit", "OffsetFetch", "DescribeGroups")
TOPIC = "groupcheck-offsets"     # the one-partition topic OffsetCommit commits to (made in ``open``)
QUIET = 0.3          # s: how long a step that expects no answer waits for one (non-JoinGroup requests)
MARGIN = 1.5         # s: added to a timer's length before its expiry is given up on
GRACE = 0.05         # s: after the expected answers, for one more that would come with them


class BrokerError(AdapterError):
    """The broker could not be reached or refused a request the target needs (exit 2)."""


def error_name(code: int) -> str:
    """Kafka's name of an error code (``UNKNOWN_MEMBER_ID``), as the model spells it."""
    name = for_code(code).__name__.removesuffix("Error")
    return "NONE" if code == 0 else re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); ValueError with the reason."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r} is not HOST:PORT")
    return host.strip("[]"), int(port)


def exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise OSError("connection closed by the broker")
        buf += chunk
    return buf


def roundtrip(addr, request, response_cls, version: int, timeout: float = 5.0):
    """One request on a fresh connection, its decoded response."""
    request.with_header(correlation_id=1, client_id="groupcheck")
    with socket.create_connection(addr, timeout=timeout) as s:
        s.sendall(request.encode(version=version, header=True, framed=True))
        body = exact(s, struct.unpack(">i", exact(s, 4))[0])
    return response_cls.decode(body, version=version, header=True)


class BrokerCoordinator:
    """Any Kafka broker (or cluster) at ``bootstrap`` (``HOST:PORT``)."""

    name = "kafka"
    keepalive = True
    rebalance_factor = 2             # rebalance timeout = this x session timeout
    fixed_versions: dict = {}        # request -> version, instead of the highest common one

    def __init__(self, bootstrap: str, name: str | None = None):
        self.bootstrap = parse_address(bootstrap)
        self.name = name or f"kafka:{bootstrap}"
        self.judgements_key = self.name
        self.note = f"a Kafka broker at {bootstrap} (classic group coordinator, over TCP)"
        self.config: dict = {}
        self.lock = threading.Lock()
        self.conns: dict = {}
        self.expected: tuple = ()

    # ---- open: versions and timing ----
    def open(self) -> Hello:
        try:
            self.versions = self._versions()
            self._create_topic()
            self.timing = self._timing()
        except OSError as e:
            raise BrokerError(f"broker {self._where()}: {e}") from None
        self.session_ms = self.timing["session_timeout_ms"]
        self.rebalance_ms = self.rebalance_factor * self.session_ms
        self.config = {"session_timeout_ms": self.session_ms}
        used = ", ".join(f"{k} v{v}" for k, v in self.versions.items())
        self.note += (f"; requests {used}; session timeout {self.session_ms} ms, rebalance timeout "
                      f"{self.rebalance_ms} ms; {self.timing['source']}")
        probes = [k for k in PROBES if self.versions[k] >= APIS[k][2]
                  and (self.topic_ready or k == "DescribeGroups")]
        return Hello(self.name, self.software, (ROLE,), extra={"kip394": self.versions["JoinGroup"] >= 4,
                                                                "probes": probes})

    def _versions(self) -> dict:
        try:
            r = roundtrip(self.bootstrap, ApiVersionsRequest(), ApiVersionsResponse, 0)
        except OSError as e:
            raise BrokerError(f"broker {self._where()}: {e}") from None
        have = {a.api_key: (a.min_version, a.max_version) for a in r.api_keys}
        self.advertised = have
        self.software = f"ApiVersions: {len(have)} APIs"
        out = {}
        for kind, (rq, _, low) in APIS.items():
            lo, hi = have.get(rq.API_KEY, (0, -1))
            v = self.fixed_versions.get(kind, min(hi, rq.max_version, CAPS.get(kind, hi)))
            if v < max(lo, low) and kind not in OPTIONAL:
                raise BrokerError(f"broker {self._where()} does not speak {kind} v{low}+ (it advertises {lo}-{hi})")
            out[kind] = v
        return out

    def not_run(self, key: str) -> list[str]:
        """One line per newer group protocol this role did not run on the target: KIP-848
        (ConsumerGroupHeartbeat, API 68) and KIP-1071 (StreamsGroupHeartbeat, API 88), gated
        on what ApiVersions advertised. A broker that advertises API 68 gets the role's KIP-848
        comparison over TCP (``roles/group_coordinator/compare_848.py``), one that advertises
        API 88 at v0 the KIP-1071 one (``compare_1071.py`` through ``streams_group_heartbeat``)."""
        out = []
        for api, name, kip in ((68, "ConsumerGroupHeartbeat", "KIP-848"), (88, "StreamsGroupHeartbeat", "KIP-1071")):
            if api == 68 and api in self.advertised or api == 88 and self.speaks_kip1071():
                continue                        # run by the role (compare_848, compare_1071)
            if api not in self.advertised:
                out.append(f"{key} does not advertise {name} (API {api}): the {kip} scenarios were not run")
            else:
                lo, hi = self.advertised[api]
                out.append(f"{key} advertises {name} (API {api}) v{lo}-{hi}, but groupcheck speaks v0 only: "
                           f"the {kip} scenarios were not run")
        return out

    # ---- effects the roles call (see the module's docstring) ----
    def create_topic(self, name: str, partitions: int) -> bool:
        """``name`` made by CreateTopics (already there is fine); False when the broker does
        not speak CreateTopics (``topics.create_topic``)."""
        return topics.create_topic(self, name, partitions)

    def ensure_topic(self, name: str, partitions: int) -> str:
        """``name`` made if it can be, checked to have ``partitions``; its topic id."""
        self.create_topic(name, partitions)
        return topics.topic_id(self, name, partitions)

    def coordinator_for(self, group: str) -> str:
        """``host:port`` of ``group``'s coordinator (FindCoordinator)."""
        host, port = self._find_coordinator(group)
        return f"{host}:{port}"

    def connect(self, address: str) -> Connection:
        """A new connection to the broker at ``host:port``, one request at a time."""
        return Connection(address)

    def speaks_kip1071(self) -> bool:
        """Whether ApiVersions advertised StreamsGroupHeartbeat (API 88) at v0."""
        from . import kip1071
        return kip1071.speaks(self.advertised)

    def streams_group_heartbeat(self, group: str, member: str, request):
        """Send one StreamsGroupHeartbeat (a ``model.streams_group.StreamsGroupHeartbeat``) for
        ``member`` of ``group`` to the group's coordinator, on that member's connection; the
        decoded StreamsGroupHeartbeatResponse (``kip1071.Members``). A connection lost or an
        answer that cannot be read is a BrokerError naming the broker (one line, exit 2)."""
        from groupcheck.model.wire.streams_group_heartbeat import DecodeError

        from . import kip1071
        if getattr(self, "streams_members", None) is None:
            self.streams_members = kip1071.Members(self)
        try:
            return self.streams_members.heartbeat(group, member, request)
        except (OSError, DecodeError) as e:
            raise BrokerError(f"broker {self._where()}: StreamsGroupHeartbeat: {e}") from None

    def close_streams_members(self) -> None:
        if getattr(self, "streams_members", None) is not None:
            self.streams_members.close()

    def ensure_topics(self, wanted: dict) -> None:
        """Each topic (name -> partitions) made by CreateTopics when the broker speaks it."""
        try:
            for name, partitions in wanted.items():
                self.create_topic(name, partitions)
        except OSError as e:
            raise BrokerError(f"broker {self._where()}: CreateTopics: {e}") from None

    def _create_topic(self) -> None:
        """The topic OffsetCommit commits to (a broker refuses a commit to an unknown topic:
        UNKNOWN_TOPIC_OR_PARTITION). ``topic_ready``: False when the broker does not speak
        CreateTopics (then no commit or fetch is probed)."""
        self.topic_ready = self.create_topic(TOPIC, 1)

    @property
    def address(self) -> str:
        return self._where()

    def _where(self) -> str:
        return f"{self.bootstrap[0]}:{self.bootstrap[1]}"

    def _describe_configs(self) -> dict:
        """The broker's group.* settings, or {} if it does not answer DescribeConfigs."""
        v = self.versions["DescribeConfigs"]
        if v < 0:
            return {}
        rq = DescribeConfigsRequest(resources=[DescribeConfigsRequest.DescribeConfigsResource(
            resource_type=4, resource_name="", configuration_keys=None)], include_synonyms=False,
            include_documentation=False)
        try:
            r = roundtrip(self.bootstrap, rq, DescribeConfigsResponse, v)
        except (OSError, ValueError):
            return {}
        return {c.name: c.value for res in r.results if res.error_code == 0 for c in res.configs
                if c.name.startswith("group.")}

    def _timing(self) -> dict:
        """The session timeout to use and the delay a first join waits, read from the broker:
        its minimum session timeout (DescribeConfigs), then a probe join at that session
        timeout (Tansu's delay is half the session timeout, Kafka's a fixed setting); a
        delay as long as the session timeout doubles it once."""
        conf = self._describe_configs()
        session = max(2000, int(conf.get("group.min.session.timeout.ms") or 0))
        delay = self.probe_join_delay(session)
        if delay * 1000 >= session / 2 + 500:
            session = 2 * int(delay * 1000) + 1000
            delay = self.probe_join_delay(session)
        said = ", ".join(f"{k}={v}" for k, v in sorted(conf.items()) if "session" in k or "delay" in k)
        return {"session_timeout_ms": session, "join_delay_s": delay,
                "source": f"a lone first JoinGroup answered after {delay:.2f} s (probe); DescribeConfigs: "
                          + (said or "not answered")}

    def probe_join_delay(self, session_ms: int) -> float:
        """Seconds a lone member's first JoinGroup (with its id) waits on a new group."""
        self.session_ms, self.rebalance_ms = session_ms, 2 * session_ms
        self.setup(ROLE, {"group": f"gc-probe-delay-{time.monotonic_ns()}"})
        try:
            self._send(0, {"kind": "JoinGroup", "member_id": "", "protocols": ["range"], "metadata": ""})
            got = self.wait(5.0, want=1)
            mid = got[0]["response"]["member_id"] if got else ""
            start = time.monotonic()
            self._send(0, {"kind": "JoinGroup", "member_id": mid, "protocols": ["range"], "metadata": ""})
            got = self.wait(session_ms / 1000 + 15.0, want=1)
            if not got or got[0]["response"]["error"] != "NONE":
                raise BrokerError(f"broker {self._where()}: a lone JoinGroup was not answered in time "
                                  f"({got[0]['response']['error'] if got else 'no answer'})")
            return time.monotonic() - start
        finally:
            self.close_connections()

    # ---- connections ----
    def setup(self, role: str, config: dict) -> Outcome:
        self.close_connections()
        self.group = config["group"]
        self.sent, self.arrived, self.corr, self.alive, self.expiring = {}, [], 0, {}, set()
        try:
            self.coordinator = self._find_coordinator()
        except (OSError, ValueError, BrokerError) as e:
            return Outcome("info", error=f"FindCoordinator for {self.group}: {e}")
        return Outcome("ok", {})

    def _find_coordinator(self, group: str | None = None) -> tuple[str, int]:
        """The coordinator of ``group`` (default: this scenario's)."""
        group = group or self.group
        v = self.versions["FindCoordinator"]
        rq = (FindCoordinatorRequest(coordinator_keys=[group], key_type=0) if v >= 4
              else FindCoordinatorRequest(key=group, key_type=0))
        for _ in range(20):                    # COORDINATOR_NOT_AVAILABLE while the broker loads
            r = roundtrip(self.bootstrap, rq, FindCoordinatorResponse, v)
            c = r.coordinators[0] if v >= 4 else r
            if c.error_code == 0:
                return c.host, c.port
            time.sleep(0.25)
        raise BrokerError(f"answered {error_name(c.error_code)}")

    def _conn(self, slot) -> socket.socket:
        if slot not in self.conns:
            s = socket.create_connection(self.coordinator, timeout=5)
            s.settimeout(None)
            self.conns[slot] = s
            threading.Thread(target=self._read, args=(slot, s), daemon=True).start()
        return self.conns[slot]

    def _read(self, slot, s: socket.socket) -> None:
        try:
            while True:
                body = exact(s, struct.unpack(">i", exact(s, 4))[0])
                corr = struct.unpack(">i", body[:4])[0]
                with self.lock:
                    kind, to, cls, version = self.sent.pop((slot, corr))
                    if slot != "keepalive":
                        self.arrived.append((slot, kind, to, cls.decode(body, version=version, header=True)))
        except (OSError, KeyError, ValueError):
            return

    # ---- requests ----
    def _message(self, req: dict):
        kind, v = req["kind"], self.versions[req["kind"]]
        rq = APIS[kind][0]
        instance = req.get("group_instance_id")       # a static member (KIP-345): JoinGroup v5+, LeaveGroup v3+
        common = dict(group_id=self.group, member_id=req["member_id"], group_instance_id=instance)
        if kind == "JoinGroup":
            return rq(**common, session_timeout_ms=self.session_ms, rebalance_timeout_ms=self.rebalance_ms,
                      protocol_type="consumer", reason=None,
                      protocols=[rq.JoinGroupRequestProtocol(name=p, metadata=req["metadata"].encode())
                                 for p in req["protocols"]])
        if kind == "SyncGroup":
            return rq(**common, generation_id=req["generation"], protocol_type=None, protocol_name=None,
                      assignments=[rq.SyncGroupRequestAssignment(member_id=a["member_id"],
                                                                 assignment=a["assignment"].encode())
                                   for a in req["assignments"]])
        if kind == "Heartbeat":
            return rq(**common, generation_id=req["generation"])
        if kind in ("OffsetCommit", "OffsetFetch", "DescribeGroups"):
            return self._probe_message(kind, req, rq)
        if v >= 3:
            return rq(group_id=self.group, members=[rq.MemberIdentity(member_id=req["member_id"],
                                                                      group_instance_id=instance, reason=None)])
        return rq(group_id=self.group, member_id=req["member_id"])

    def _probe_message(self, kind: str, req: dict, rq):
        """OffsetCommit (partition 0 of ``TOPIC``), OffsetFetch of it, DescribeGroups."""
        if kind == "DescribeGroups":
            return rq(groups=[self.group], include_authorized_operations=False)
        if kind == "OffsetFetch":
            return rq(group_id=self.group, require_stable=False,
                      topics=[rq.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])])
        part = rq.OffsetCommitRequestTopic.OffsetCommitRequestPartition(
            partition_index=0, committed_offset=req["offset"], committed_leader_epoch=-1, commit_timestamp=-1,
            committed_metadata="")
        return rq(group_id=self.group, generation_id_or_member_epoch=req["generation"], member_id=req["member_id"],
                  group_instance_id=req.get("group_instance_id"), retention_time_ms=-1,
                  topics=[rq.OffsetCommitRequestTopic(name=TOPIC, partitions=[part])])

    def _send(self, slot, req: dict) -> None:
        kind = req["kind"]
        msg = self._message(req)
        with self.lock:
            self.corr += 1
            corr = self.corr
            self.sent[(slot, corr)] = (kind + "Response", req["member_id"], APIS[kind][1], self.versions[kind])
        msg.with_header(correlation_id=corr, client_id="groupcheck")
        self._conn(slot).sendall(msg.encode(version=self.versions[kind], header=True, framed=True))
        if kind == "LeaveGroup":
            self.alive.pop(req["member_id"], None)

    # ---- waiting ----
    def expect(self, responses) -> None:
        """The runner tells the next call's answers: ``((slot, response kind), ...)``."""
        self.expected = tuple(responses)

    def wait(self, deadline_s: float, want: int | None = None) -> list[dict]:
        """The answers that arrive until ``want`` of them (default: the expected ones)
        have, or ``deadline_s`` passes; the keep-alive heartbeats run meanwhile."""
        want_keys = None if want is not None else {(s, k) for s, k in self.expected}
        end, beat = time.monotonic() + deadline_s, 0.0
        while True:
            now = time.monotonic()
            if self.keepalive and now >= beat:
                self._heartbeat_alive()
                beat = now + self.session_ms / 4000
            with self.lock:
                got = [(s, k) for s, k, _, _ in self.arrived]
            done = (len(got) >= want) if want is not None else (bool(want_keys) and want_keys <= set(got))
            if done or now >= end:
                break
            time.sleep(0.01)
        if done and want is None:
            time.sleep(GRACE)
        with self.lock:
            got, self.arrived = self.arrived, []
        self.expected = ()
        out = [{"member": slot, "response": self._response(kind, to, r)} for slot, kind, to, r in got]
        for a in out:
            r = a["response"]
            if r["kind"] == "JoinGroupResponse" and r["error"] == "NONE":
                self.alive[r["member_id"]] = r["generation"]
        return out

    def _heartbeat_alive(self) -> None:
        """Heartbeat, on the keep-alive connection, every member the model keeps in time."""
        for mid, gen in list(self.alive.items()):
            if mid in self.expiring:
                continue
            try:
                self._send("keepalive", {"kind": "Heartbeat", "member_id": mid, "generation": gen})
            except OSError:
                return

    @staticmethod
    def _response(kind: str, to: str, r) -> dict:
        code = getattr(r, "error_code", 0)
        if kind == "LeaveGroupResponse" and code == 0 and getattr(r, "members", None):
            code = r.members[0].error_code
        out = {"kind": kind, "to": to, "error": error_name(code)}
        if kind == "JoinGroupResponse":
            out.update(generation=r.generation_id, member_id=r.member_id or "", leader=r.leader or "",
                       protocol=r.protocol_name or "",
                       members=[{"member_id": m.member_id, "metadata": bytes(m.metadata).decode()} for m in r.members])
        elif kind == "SyncGroupResponse":
            out["assignment"] = bytes(r.assignment or b"").decode()
        elif kind == "OffsetCommitResponse":
            out["error"] = error_name(r.topics[0].partitions[0].error_code) if r.topics else "NONE"
        elif kind == "OffsetFetchResponse":
            p = r.topics[0].partitions[0] if r.topics and r.topics[0].partitions else None
            if code == 0 and p is not None:
                out["error"], out["offset"] = error_name(p.error_code), p.committed_offset
            else:
                out["offset"] = -1
        elif kind == "DescribeGroupsResponse":
            g = r.groups[0]
            out.update(error=error_name(g.error_code), state=g.group_state, protocol=g.protocol_data or "",
                       member_ids=[m.member_id for m in g.members])
        return out

    # ---- deadlines, per call (a subclass changes them for a target with other timers) ----
    def request_deadline(self, kind: str) -> float:
        if kind == "JoinGroup":
            return self.timing["join_delay_s"] + MARGIN
        return QUIET if not self.expected else MARGIN

    def advance_deadline(self, reason: str) -> float:
        return (self.session_ms if reason == "session_timeout" else self.rebalance_ms) / 1000 + MARGIN

    # ---- the adapter interface ----
    def invoke(self, role: str, f: str, value) -> Outcome:
        try:
            if f == "request":
                self._send(value["member"], value["request"])
                return Outcome("ok", {"responses": self.wait(self.request_deadline(value["request"]["kind"]))})
            if f == "advance":
                self.expiring = set(value.get("members", ()))
                try:
                    return Outcome("ok", {"responses": self.wait(self.advance_deadline(value["reason"]))})
                finally:
                    for m in self.expiring:
                        self.alive.pop(m, None)
                    self.expiring = set()
            if f == "disconnect":
                s = self.conns.pop(value["member"], None)
                if s is not None:
                    s.close()
                return Outcome("ok", {"responses": self.wait(QUIET)})
        except OSError as e:
            return Outcome("info", error=f"broker connection: {e}")
        return Outcome("fail", error=f"unknown function {f!r}")

    def close_connections(self) -> None:
        for s in self.conns.values():
            try:
                s.close()
            except OSError:
                pass
        self.conns = {}

    def teardown(self) -> None:
        self.close_connections()

    def close(self) -> None:
        self.close_connections()
