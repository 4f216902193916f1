"""A standalone reproduction script for a group-coordinator divergence found over TCP.

``write`` puts ``repro_<stem>.py`` next to the divergence's trace: a script that needs
only kafka-python (no groupcheck) and replays the shrunk scenario's calls against a
broker (``--bootstrap HOST:PORT``, default the run's): one socket per member, the
requests at the versions the run used, the waits the run had, member ids and the
generation offset learned from the broker's answers. Per step it prints the answers the
model expects and the ones observed; the last (divergent) step decides: "reproduced"
(exit 1) or "not reproduced" (exit 0). Every datum goes into the script as
``json.loads(<repr of a JSON string>)``: no string from a transcript is pasted as code.
"""
from __future__ import annotations

import json
from pathlib import Path

from ...outputs import atomic_write_text
from . import wire
from .claims import CLAIMS
from .scenarios import SCOPES, model_steps


def steps_data(scope: str, path: list[int], transcript=()) -> list[dict]:
    """The calls of the path as plain data, member ids as the model's ints (the script
    maps them to the broker's), each with the answers the model expects and those the
    run observed (``transcript``: the runner's [index, f, value, answers])."""
    same = lambda mid: mid  # noqa: E731
    seen = {row[0]: row[3] for row in transcript}
    out = []
    for step in model_steps(SCOPES[scope], path):
        call = step.call
        if call is None:
            continue
        d = {"index": step.index, "call": call.f, "member": call.slot,
             "expected": [{"member": s, **wire.response_json(r, same)} for s, r in step.expected],
             "observed_in_run": seen.get(step.index)}
        if call.f == "request":
            d["request"] = wire.request_json(call.request, same)
        elif call.f == "advance":
            d.update(reason=call.reason, members=list(call.members))
        out.append(d)
    return out


def source(claim: str, message: str, target_key: str, bootstrap: str, run: dict, steps: list[dict],
           judgement: str = "") -> str:
    """The script's text. ``run``: versions, session_ms, rebalance_ms, join_wait_s."""
    doc = (CLAIMS[claim].__doc__ or "").strip().splitlines()
    data = {"claim": claim, "message": message, "target": target_key, "bootstrap": bootstrap, **run,
            "steps": steps}
    header = ["#!/usr/bin/env python3",
              "# Standalone reproduction of a group-coordinator divergence found by groupcheck",
              "# (needs only kafka-python: pip install kafka-python). Run: python3 THIS --bootstrap HOST:PORT",
              f"# Target: {target_key!r}; claim: {claim}",
              f"# Observed in the run: {message!r}",
              "# Judgement: " + (repr(judgement) if judgement else
                                 "(to be written: a bug in the target, a documented choice, or the model)"),
              "# The claim and the Kafka source that decides it:"]
    header += ["#   " + line.strip() for line in doc]
    return "\n".join(header) + "\nimport json\n\nDATA = json.loads(" + repr(json.dumps(data)) + ")\n" + BODY


def run_of(target) -> dict:
    """What the script needs of the run: the broker's address, versions and timers."""
    from .broker import MARGIN, QUIET
    return {"bootstrap": target._where(), "versions": dict(target.versions), "session_ms": target.session_ms,
            "rebalance_ms": target.rebalance_ms, "join_wait_s": target.request_deadline("JoinGroup"),
            "quiet_s": QUIET, "margin_s": MARGIN}


def write(where: Path, stem: str, target, target_key: str, r) -> Path | None:
    """The script of divergence ``r`` (a ScenarioResult) if ``target`` is a broker over TCP."""
    if not hasattr(target, "versions"):
        return None
    claim, message, step, _ = r.violation
    run = run_of(target)
    path = where / f"repro_{stem}.py"
    text = source(claim, message, target_key, run.pop("bootstrap"), run,
                  steps_data(r.scope, r.path[:step + 1], r.transcript))
    atomic_write_text(path, text, force=True)
    return path


BODY = r'''
import argparse, select, socket, struct, sys, time
from kafka.errors import for_code
from kafka.protocol.consumer.group import (HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse,
                                           LeaveGroupRequest, LeaveGroupResponse, SyncGroupRequest, SyncGroupResponse)
from kafka.protocol.metadata import FindCoordinatorRequest, FindCoordinatorResponse

APIS = {"JoinGroup": (JoinGroupRequest, JoinGroupResponse), "SyncGroup": (SyncGroupRequest, SyncGroupResponse),
        "Heartbeat": (HeartbeatRequest, HeartbeatResponse), "LeaveGroup": (LeaveGroupRequest, LeaveGroupResponse)}
V = DATA["versions"]


def error_name(code):
    if code == 0:
        return "NONE"
    name = for_code(code).__name__[:-len("Error")]
    return "".join("_" + c if c.isupper() and i else c for i, c in enumerate(name)).upper()


def exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise OSError("connection closed by the broker")
        buf += chunk
    return buf


class Replay:
    def __init__(self, bootstrap):
        host, _, port = bootstrap.rpartition(":")
        self.group = "repro-%d" % time.time_ns()
        self.socks, self.sent, self.corr, self.ids, self.offset, self.alive = {}, {}, 0, {0: ""}, None, {}
        self.coordinator = self.find_coordinator((host.strip("[]"), int(port)))

    def find_coordinator(self, addr):
        v = V["FindCoordinator"]
        rq = (FindCoordinatorRequest(coordinator_keys=[self.group], key_type=0) if v >= 4
              else FindCoordinatorRequest(key=self.group, key_type=0))
        rq.with_header(correlation_id=1, client_id="repro")
        for _ in range(20):
            with socket.create_connection(addr, timeout=5) as s:
                s.sendall(rq.encode(version=v, header=True, framed=True))
                r = FindCoordinatorResponse.decode(exact(s, struct.unpack(">i", exact(s, 4))[0]), version=v, header=True)
            c = r.coordinators[0] if v >= 4 else r
            if c.error_code == 0:
                return c.host, c.port
            time.sleep(0.25)
        raise SystemExit("FindCoordinator: " + error_name(c.error_code))

    def wid(self, mid):
        return self.ids.get(mid, "unknown-%d" % mid)

    def message(self, req, raw):
        kind, mid = req["kind"], req["member_id"] if raw else self.wid(req["member_id"])
        rq, common = APIS[kind][0], dict(group_id=self.group, member_id=mid, group_instance_id=None)
        if kind == "JoinGroup":
            return rq(**common, session_timeout_ms=DATA["session_ms"], rebalance_timeout_ms=DATA["rebalance_ms"],
                      protocol_type="consumer", reason=None, protocols=[rq.JoinGroupRequestProtocol(
                          name=p, metadata=req["metadata"].encode()) for p in req["protocols"]])
        gen = req.get("generation", -1)
        gen += (self.offset or 0) if gen >= 0 and not raw else 0
        if kind == "SyncGroup":
            return rq(**common, generation_id=gen, protocol_type=None, protocol_name=None, assignments=[
                rq.SyncGroupRequestAssignment(member_id=self.wid(a["member_id"]), assignment=a["assignment"].encode())
                for a in req["assignments"]])
        if kind == "Heartbeat":
            return rq(**common, generation_id=gen)
        if V["LeaveGroup"] >= 3:
            return rq(group_id=self.group, members=[rq.MemberIdentity(member_id=common["member_id"],
                                                                      group_instance_id=None, reason=None)])
        return rq(group_id=self.group, member_id=common["member_id"])

    def send(self, slot, req, raw=False):
        if slot not in self.socks:
            self.socks[slot] = socket.create_connection(self.coordinator, timeout=5)
        self.corr += 1
        self.sent[(slot, self.corr)] = None if raw else req["kind"]
        msg = self.message(req, raw)
        msg.with_header(correlation_id=self.corr, client_id="repro")
        self.socks[slot].sendall(msg.encode(version=V[req["kind"]], header=True, framed=True))
        if raw:
            return
        if req["kind"] == "LeaveGroup":
            self.alive.pop(self.wid(req["member_id"]), None)

    def wait(self, seconds, want, expiring=()):
        """Answers until every wanted (member, kind) came or ``seconds`` passed; heartbeats
        every other member meanwhile on a keep-alive socket (answers dropped)."""
        got, end, beat = [], time.monotonic() + seconds, 0.0
        while time.monotonic() < end and not (want and want <= {(a["member"], a["kind"]) for a in got}):
            if time.monotonic() >= beat:
                beat = time.monotonic() + DATA["session_ms"] / 4000
                for mid, gen in list(self.alive.items()):
                    if mid not in expiring:
                        self.send("keepalive", {"kind": "Heartbeat", "member_id": mid, "generation": gen}, raw=True)
            ready, _, _ = select.select(list(self.socks.values()), [], [], 0.01)
            for slot, s in list(self.socks.items()):
                if s in ready:
                    body = exact(s, struct.unpack(">i", exact(s, 4))[0])
                    kind = self.sent.pop((slot, struct.unpack(">i", body[:4])[0]), None)
                    if kind is not None:
                        got.append(self.answer(slot, kind, APIS[kind][1].decode(body, version=V[kind], header=True)))
        return got

    @staticmethod
    def answer(slot, kind, r):
        code = r.error_code
        if kind == "LeaveGroup" and code == 0 and getattr(r, "members", None):
            code = r.members[0].error_code
        out = {"member": slot, "kind": kind + "Response", "error": error_name(code)}
        if kind == "JoinGroup":
            out.update(generation=r.generation_id, member_id=r.member_id or "", leader=r.leader or "",
                       protocol=r.protocol_name or "", members=sorted((m.member_id, bytes(m.metadata).decode())
                                                                      for m in r.members))
        elif kind == "SyncGroup":
            out["assignment"] = bytes(r.assignment or b"").decode() or "0"
        return out
'''
BODY += r'''

def learn(rp, expected, got):
    """Member ids, the generation offset and the live members, from the broker's JoinGroup answers."""
    seen = {(a["member"], a["kind"]): a for a in got}
    for e in expected:
        o = seen.get((e["member"], e["kind"]))
        if o is None or e["kind"] != "JoinGroupResponse":
            continue
        if o["member_id"] and e["member_id"] not in rp.ids:
            rp.ids[e["member_id"]] = o["member_id"]
        if e["error"] == o["error"] == "NONE":
            rp.ids.setdefault(e["leader"], o["leader"])
            rp.offset = o["generation"] - e["generation"] if rp.offset is None else rp.offset
            rp.alive[o["member_id"]] = o["generation"]


def differences(rp, expected, got):
    """(what, expected, observed) for every way the broker's answers differ from the model's."""
    want = {(e["member"], e["kind"]) for e in expected}
    have = {(a["member"], a["kind"]) for a in got if a["kind"] != "LeaveGroupResponse"}
    out = [] if want == have else [("answered requests", sorted(want), sorted(have))]
    seen = {(a["member"], a["kind"]): a for a in got}
    for e in expected:
        o, who = seen.get((e["member"], e["kind"])), "member %d %s " % (e["member"], e["kind"])
        if o is None:
            continue
        if o["error"] != e["error"]:
            out.append((who + "error", e["error"], o["error"]))
        elif e["kind"] == "JoinGroupResponse" and e["error"] == "MEMBER_ID_REQUIRED" and not o["member_id"]:
            out.append((who + "member id", "a fresh member id", o["member_id"]))
        elif e["kind"] == "JoinGroupResponse" and e["error"] == "NONE":
            if rp.offset is not None and o["generation"] - rp.offset != e["generation"]:
                out.append((who + "generation", e["generation"] + rp.offset, o["generation"]))
            if e["leader"] in rp.ids and rp.ids[e["leader"]] != o["leader"]:
                out.append((who + "leader", rp.ids[e["leader"]], o["leader"]))
            if o["protocol"] != e["protocol"]:
                out.append((who + "protocol", e["protocol"], o["protocol"]))
            members = sorted((rp.wid(m["member_id"]), m["metadata"]) for m in e["members"])
            if (e["members"] or o["member_id"] != o["leader"]) and members != o["members"]:
                out.append((who + "members", members, o["members"]))
        elif e["kind"] == "SyncGroupResponse" and e["error"] == "NONE" and o["assignment"] != e["assignment"]:
            out.append((who + "assignment", e["assignment"], o["assignment"]))
    return out


def step(rp, d):
    want = {(e["member"], e["kind"]) for e in d["expected"]}
    if d["call"] == "request":
        rp.send(d["member"], d["request"])
        wait = DATA["join_wait_s"] if d["request"]["kind"] == "JoinGroup" else DATA["margin_s"] if want else DATA["quiet_s"]
        return rp.wait(wait, want)
    if d["call"] == "advance":
        expiring = {rp.wid(m) for m in d["members"]}
        got = rp.wait((DATA["session_ms"] if d["reason"] == "session_timeout" else DATA["rebalance_ms"]) / 1000
                      + DATA["margin_s"], want, expiring)
        for m in expiring:
            rp.alive.pop(m, None)
        return got
    s = rp.socks.pop(d["member"], None)
    if s is not None:
        s.close()
    return rp.wait(DATA["quiet_s"], want)


def main():
    ap = argparse.ArgumentParser(description="Replay a group-coordinator divergence: " + DATA["claim"])
    ap.add_argument("--bootstrap", default=DATA["bootstrap"], help="HOST:PORT (default: %(default)s)")
    rp = Replay(ap.parse_args().bootstrap)
    print("claim %s, as found on %s: %s" % (DATA["claim"], DATA["target"], DATA["message"]))
    diffs = []
    for d in DATA["steps"]:
        what = d["request"]["kind"] if d["call"] == "request" else d["call"] + " " + d.get("reason", "")
        print("step %d: member %d %s" % (d["index"], d["member"], what))
        got = step(rp, d)
        print("  expected: %s" % json.dumps(d["expected"]))
        print("  observed: %s" % json.dumps(got))
        diffs = differences(rp, d["expected"], got)
        for w, e, o in diffs:
            print("  differs: %s: expected %r, observed %r" % (w, e, o))
        learn(rp, d["expected"], got)
    for s in rp.socks.values():
        s.close()
    if diffs:
        w, e, o = diffs[0]
        print("reproduced: %s: %s: expected %r, observed %r" % (DATA["claim"], w, e, o))
        return 1
    print("not reproduced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''
