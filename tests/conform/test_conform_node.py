"""The Node adapter (adapters/node/adapter.js): kafkajs's real roundRobin assigner
behind the conformance protocol v1, driven over stdio as the driver drives it, every
reply checked against the repo's JSON Schemas with Python's jsonschema."""
from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from groupcheck.api import Subscription, assign as model_assign, validate_cooperative_assignment
from groupcheck.api.values import CooperativeAssignmentError

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "adapters" / "node" / "adapter.js"
SCHEMAS = ROOT / "groupcheck" / "conform" / "schema"
NODE = shutil.which("node")

pytestmark = [pytest.mark.skipif(NODE is None, reason="node is not installed: the kafkajs adapter needs Node.js"), pytest.mark.slow]

_schemas = {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
_registry = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in _schemas.values())
ENVELOPE = _schemas["envelope.schema.json"]["$id"]
ASSIGNOR = _schemas["assignor.schema.json"]["$id"]


def schema_errors(instance, ref: str) -> list[str]:
    validator = Draft202012Validator({"$ref": ref}, registry=_registry)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]


class Adapter:
    """One adapter process: a request per line in, a reply per line out."""

    def __init__(self):
        self.proc = subprocess.Popen([NODE, str(ADAPTER)], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_line(self, line: str) -> dict:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        try:
            out = self.lines.get(timeout=30)
        except queue.Empty:
            pytest.fail(f"no reply to {line[:200]} within 30 s")
        assert out is not None, f"adapter exited ({self.proc.wait()}): {self.proc.stderr.read()[-2000:]}"
        reply = json.loads(out)
        assert schema_errors(reply, ENVELOPE) == [], reply     # every reply is an envelope reply
        assert "op" not in reply
        return reply

    def ask(self, op: str, **fields) -> dict:
        request = {"op": op, "id": self.next_id, **fields}
        self.next_id += 1
        reply = self.send_line(json.dumps(request))
        assert reply.get("id") == request["id"]
        return reply

    def open(self) -> dict:
        reply = self.ask("open", protocol=1)
        assert reply["type"] == "ok", reply
        return reply["value"]

    def setup(self, assignor: str) -> dict:
        return self.ask("setup", role="assignor", config={"assignor": assignor})

    def assign(self, topics: dict, members: list) -> dict:
        value = {"topics": topics, "members": members}
        assert schema_errors(value, f"{ASSIGNOR}#/$defs/assignArgument") == []
        return self.ask("invoke", role="assignor", f="assign", value=value)

    def close(self) -> int:
        assert self.ask("close")["type"] == "ok"
        return self.proc.wait(timeout=30)


@pytest.fixture
def adapter():
    if not (ADAPTER.parent / "node_modules" / "kafkajs").is_dir():
        pytest.fail("adapters/node/node_modules is missing: run npm ci --prefix adapters/node (the README's test command does)")
    a = Adapter()
    yield a
    if a.proc.poll() is None:
        a.proc.kill()
        a.proc.wait()
    a.proc.stdin.close()
    a.proc.stdout.close()
    a.proc.stderr.close()


def member(mid: str, topics: list[str], owned=(), generation: int = -1) -> dict:
    return {"member_id": mid, "topics": topics, "owned_partitions": [list(tp) for tp in owned],
            "generation": generation, "user_data": None}


def assigned(reply: dict) -> dict[str, list[tuple[str, int]]]:
    assert reply["type"] == "ok", reply
    assert schema_errors(reply["value"], f"{ASSIGNOR}#/$defs/assignResult") == []
    return {m: [tuple(tp) for tp in tps] for m, tps in reply["value"]["assignment"].items()}


def every_partition(topics: dict) -> list[tuple[str, int]]:
    return [(t, p) for t, n in topics.items() for p in range(n)]


def kafkajs_version() -> str:
    lock = json.loads((ADAPTER.parent / "package-lock.json").read_text())
    return lock["packages"]["node_modules/kafkajs"]["version"]


def test_hello_names_kafkajs_its_version_and_assignors(adapter):
    hello = adapter.open()
    assert schema_errors(hello, f"{ENVELOPE}#/$defs/hello") == []
    assert hello["name"] == "kafkajs"
    assert hello["version"] == kafkajs_version() == "2.2.4"
    assert hello["roles"] == ["assignor"]
    assert hello["assignors"] == ["roundrobin", "broken-duplicate", "broken-skip-last-member",
                                  "broken-cooperative-ignores-owned"]
    assert hello["protocol_names"]["roundrobin"] == "RoundRobinAssigner"     # kafkajs's JoinGroup name
    assert hello["protocols"]["roundrobin"] == ["EAGER"] and hello["balanced"]["roundrobin"] == "always"
    assert hello["wire"]["subscription_version"] == hello["wire"]["assignment_version"] == 0
    assert adapter.close() == 0


@pytest.mark.parametrize("topics,ids", [
    ({"t0": 3, "t1": 2}, ["consumer-001", "consumer-002"]),
    ({"t0": 4, "t1": 3}, ["consumer-001", "consumer-002", "consumer-003"]),
    ({"t0": 1, "t1": 1}, ["consumer-003", "consumer-001", "consumer-002"]),     # fewer partitions than members
])
def test_roundrobin_is_a_valid_roundrobin_assignment(adapter, topics, ids):
    adapter.open()
    assert adapter.setup("roundrobin") == {"type": "ok", "id": 1}
    members = [member(m, sorted(topics)) for m in sorted(ids)]
    got = assigned(adapter.assign(topics, members))
    counts = Counter(tp for tps in got.values() for tp in tps)
    assert sorted(counts) == sorted(every_partition(topics))      # every partition assigned ...
    assert set(counts.values()) == {1}                             # ... exactly once
    assert set(got) <= set(ids)
    sizes = [len(got.get(m, [])) for m in ids]
    assert max(sizes) - min(sizes) <= 1
    # equal subscriptions, topics listed in sorted order: the same answer as Kafka's
    # RoundRobinAssignor (the model's roundrobin)
    expected = model_assign("roundrobin", topics, {m["member_id"]: Subscription(m["topics"]) for m in members})
    assert {m: got.get(m, []) for m in ids} == {m: [(tp.topic, tp.partition) for tp in tps]
                                                for m, tps in expected.items()}
    assert adapter.ask("teardown")["type"] == "ok"
    assert adapter.close() == 0


def test_kafkajs_hands_partitions_to_members_not_subscribed_to_them(adapter):
    """kafkajs's roundRobin deals the group's topics to every member, whatever each
    subscribed to (Kafka's skips a member not subscribed to the topic)."""
    adapter.open()
    adapter.setup("roundrobin")
    topics = {"t0": 2, "t1": 1}
    members = [member("consumer-001", ["t0"]), member("consumer-002", ["t0", "t1"])]
    got = assigned(adapter.assign(topics, members))
    assert got == {"consumer-001": [("t0", 0), ("t1", 0)], "consumer-002": [("t0", 1)]}
    kafka = model_assign("roundrobin", topics, {m["member_id"]: Subscription(m["topics"]) for m in members})
    assert ("t1", 0) not in [(tp.topic, tp.partition) for tp in kafka["consumer-001"]]


def test_kafkajs_deals_topics_in_subscription_order_not_sorted(adapter):
    adapter.open()
    adapter.setup("roundrobin")
    got = assigned(adapter.assign({"t0": 1, "t1": 1}, [member("consumer-001", ["t1", "t0"]),
                                                       member("consumer-002", ["t1", "t0"])]))
    assert got == {"consumer-001": [("t1", 0)], "consumer-002": [("t0", 0)]}    # Kafka's: t0-0 to 001


@pytest.mark.parametrize("value,path", [
    ({"topics": {"t0": 2}, "members": [{"member_id": "consumer-001", "owned_partitions": [], "generation": -1}]},
     "/value/members/0/topics"),
    ({"topics": {"t0": 0}, "members": [member("consumer-001", ["t0"])]}, "/value/topics/t0"),
    ({"topics": {"t0": 2}, "members": []}, "/value/members"),
    ({"topics": {"t0": 2}, "members": [member("consumer-001", ["t0"], owned=[("t0", -1)])]},
     "/value/members/0/owned_partitions/0/1"),
    ({"topics": {"t0": 2}, "members": [{**member("consumer-001", ["t0"]), "rack": "r1"}]}, "/value/members/0/rack"),
])
def test_a_malformed_assign_fails_naming_the_field(adapter, value, path):
    adapter.open()
    adapter.setup("roundrobin")
    reply = adapter.ask("invoke", role="assignor", f="assign", value=value)
    assert reply["type"] == "fail"
    assert reply["error"].startswith(f"invalid invoke request: {path}: "), reply["error"]
    assert assigned(adapter.assign({"t0": 1}, [member("consumer-001", ["t0"])])) == {"consumer-001": [("t0", 0)]}
    assert adapter.close() == 0


def test_malformed_requests_fail_and_the_session_goes_on(adapter):
    adapter.open()
    unknown_op = adapter.ask("frobnicate")
    assert unknown_op["type"] == "fail" and "/op: must be equal to one of the allowed values" in unknown_op["error"]
    assert adapter.ask("invoke", role="assignor", f="assign", value={"topics": {}, "members": []})["error"] \
        == "invalid invoke request: invoke before setup"
    not_json = adapter.send_line("{not json")
    assert not_json["type"] == "fail" and not_json["error"].startswith("not JSON") and "id" not in not_json
    extra = adapter.ask("setup", role="assignor", config={"assignor": "roundrobin", "seed": 1})
    assert extra["error"] == "invalid setup request: /config/seed: must NOT have additional properties"
    unknown = adapter.setup("range")
    assert unknown["type"] == "fail" and unknown["error"].startswith('invalid setup request: /config/assignor: unknown assignor "range"')
    role = adapter.ask("setup", role="group-coordinator", config={})
    assert role["type"] == "fail" and role["error"].startswith("invalid setup request: /role:")
    assert adapter.setup("roundrobin")["type"] == "ok"
    f = adapter.ask("invoke", role="assignor", f="onAssignment", value={})
    assert f["error"] == 'invalid invoke request: /f: "onAssignment" is not a function of role assignor (assign)'
    assert adapter.close() == 0


def test_an_error_thrown_by_kafkajs_is_a_fail_with_its_message(adapter):
    """A topic name longer than an INT16-prefixed string holds: kafkajs's Encoder throws."""
    adapter.open()
    adapter.setup("roundrobin")
    long = "t" * 40000
    reply = adapter.assign({long: 1}, [member("consumer-001", [long])])
    assert reply["type"] == "fail"
    assert "out of range" in reply["error"] and "32767" in reply["error"], reply["error"]
    assert adapter.close() == 0


def test_stdin_closed_without_close_ends_the_adapter(adapter):
    adapter.open()
    adapter.proc.stdin.close()
    assert adapter.proc.wait(timeout=30) == 0
    assert "stdin closed without close" in adapter.proc.stderr.read()


def test_broken_duplicate_gives_a_partition_to_two_members(adapter):
    adapter.open()
    adapter.setup("broken-duplicate")
    topics = {"t0": 2, "t1": 2}
    got = assigned(adapter.assign(topics, [member(m, ["t0", "t1"]) for m in ("consumer-001", "consumer-002")]))
    counts = Counter(tp for tps in got.values() for tp in tps)
    assert [tp for tp, n in counts.items() if n > 1] == [("t0", 0)]
    assert ("t0", 0) in got["consumer-001"] and ("t0", 0) in got["consumer-002"]
    assert sorted(counts) == every_partition(topics)


def test_broken_skip_last_member_starves_the_last_member(adapter):
    adapter.open()
    adapter.setup("broken-skip-last-member")
    topics = {"t0": 3, "t1": 3}
    ids = ["consumer-001", "consumer-002", "consumer-003"]
    got = assigned(adapter.assign(topics, [member(m, ["t0", "t1"]) for m in ids]))
    counts = Counter(tp for tps in got.values() for tp in tps)
    assert sorted(counts) == every_partition(topics) and set(counts.values()) == {1}     # still valid
    sizes = [len(got.get(m, [])) for m in ids]
    assert sizes == [3, 3, 0]                                                            # but unbalanced


def test_broken_cooperative_moves_an_owned_partition_in_one_round(adapter):
    """consumer-001 owns both partitions; consumer-002 joins. A COOPERATIVE assignor must
    leave t0-1 with 001 this round (revoke first); this one hands it straight over."""
    hello = adapter.open()
    assert hello["protocols"]["broken-cooperative-ignores-owned"] == ["COOPERATIVE"]
    adapter.setup("broken-cooperative-ignores-owned")
    owned = {"consumer-001": [("t0", 0), ("t0", 1)], "consumer-002": []}
    got = assigned(adapter.assign({"t0": 2}, [member(m, ["t0"], owned=tps, generation=4) for m, tps in owned.items()]))
    assert got == {"consumer-001": [("t0", 0)], "consumer-002": [("t0", 1)]}
    with pytest.raises(CooperativeAssignmentError, match="t0-1"):
        validate_cooperative_assignment(owned, got)


# ---- judged by the conformance core (branch conform): adapter_targets starts the
# ---- adapter with ProcessAdapter, claims.judge applies the per-invocation claims

EQUAL = [   # every member subscribed to the same topics
    {"topics": {"t0": 3, "t1": 2}, "members": [member(m, ["t0", "t1"]) for m in ("consumer-001", "consumer-002")]},
    {"topics": {"t0": 4, "t1": 3}, "members": [member(m, ["t0", "t1"]) for m in
                                               ("consumer-001", "consumer-002", "consumer-003")]},
    {"topics": {"t0": 2}, "members": [member(m, ["t0"]) for m in ("consumer-001", "consumer-002", "consumer-003")]},
]
UNEQUAL = {"topics": {"t0": 2, "t1": 1},
           "members": [member("consumer-001", ["t0"]), member("consumer-002", ["t0", "t1"])]}
HANDOVER = {"topics": {"t0": 2}, "members": [member("consumer-001", ["t0"], owned=[("t0", 0), ("t0", 1)], generation=4),
                                             member("consumer-002", ["t0"], generation=4)]}


def judged(target, contract, inputs) -> dict[str, list[str]]:
    """Claim name -> the violations the conformance claims found over ``inputs``."""
    from groupcheck.conform.roles.assignor.claims import NOT_APPLICABLE, judge
    mode = "COOPERATIVE" if "COOPERATIVE" in target.protocols else "EAGER"
    adapter = target.make()
    adapter.open()
    try:
        assert adapter.setup("assignor", {"assignor": target.assignor}).ok
        found: dict[str, list[str]] = {}
        for arg in inputs:
            out = adapter.invoke("assignor", "assign", arg)
            assert out.ok, out
            for name, verdict in judge(arg, out.value["assignment"], mode, contract).items():
                if verdict not in (None, NOT_APPLICABLE):
                    found.setdefault(name, []).append(verdict)
        return found
    finally:
        adapter.close()


def test_conformance_passes_kafkajs_roundrobin_and_flags_each_broken_assigner():
    targets_module = pytest.importorskip("groupcheck.conform.roles.assignor.targets",
                                         reason="the conformance core (branch conform) is not merged yet")
    if not (ADAPTER.parent / "node_modules" / "kafkajs").is_dir():
        pytest.fail("adapters/node/node_modules is missing: run npm ci --prefix adapters/node")
    targets = {t.assignor: t for t in targets_module.adapter_targets(f"{NODE} {ADAPTER}", timeout=30)}
    assert sorted(targets) == sorted(["roundrobin", "broken-duplicate", "broken-skip-last-member",
                                      "broken-cooperative-ignores-owned"])
    assert targets["roundrobin"].name == "kafkajs:roundrobin" and targets["roundrobin"].balanced == "always"
    assert targets["broken-cooperative-ignores-owned"].protocols == ("COOPERATIVE",)
    # the balance contract each assignor's hello entry declares (the driver knows roundrobin's by name only)
    probe = targets["roundrobin"].make()
    declared = probe.open().extra["balanced"]
    probe.close()
    contract = {name: t.balanced or declared[name] for name, t in targets.items()}
    assert contract == dict.fromkeys(targets, "always")

    assert judged(targets["roundrobin"], contract["roundrobin"], EQUAL + [HANDOVER]) == {}
    duplicate = judged(targets["broken-duplicate"], contract["broken-duplicate"], EQUAL)
    assert duplicate["assignment_valid"] == ["t0-0 assigned to 2 members: consumer-001, consumer-002"] * 3
    assert set(duplicate) == {"assignment_valid", "assignment_balanced"}    # the second member has one too many
    assert list(judged(targets["broken-skip-last-member"], contract["broken-skip-last-member"], EQUAL)) \
        == ["assignment_balanced"]
    coop = judged(targets["broken-cooperative-ignores-owned"], contract["broken-cooperative-ignores-owned"], [HANDOVER])
    assert coop == {"validate_cooperative_assignment":
                    ["t0-1 both added to one member and revoked from another in one round"]}


def test_conformance_flags_kafkajs_roundrobin_on_unequal_subscriptions():
    """A real divergence of kafkajs: it deals every topic of the group to every member."""
    targets_module = pytest.importorskip("groupcheck.conform.roles.assignor.targets",
                                         reason="the conformance core (branch conform) is not merged yet")
    target = next(t for t in targets_module.adapter_targets(f"{NODE} {ADAPTER}", timeout=30)
                  if t.assignor == "roundrobin")
    assert judged(target, "always", [UNEQUAL]) == {
        "assignment_valid": ["t1-0 assigned to consumer-001, which is not subscribed to t1"]}
