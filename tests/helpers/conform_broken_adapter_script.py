"""A broken conformance adapter for the tests: it speaks PROTOCOL.md's handshake (open,
setup) correctly for any role, then misbehaves on every invoke.

    python conform_broken_adapter_script.py ROLE MODE [ASSIGNOR=PROTOCOL+PROTOCOL ...]

ROLE is assignor, streams-assignor or group-coordinator. MODE:

    hang          never answers an invoke
    hang-setup    never answers a setup
    exit          exits (code 3) on an invoke, mid-session
    flood         answers an invoke with replies to another request id, without end
    garbage       answers with a line that is not a reply: not JSON, a JSON array, bytes
                  that are not UTF-8, a reply without its type (by request id, in turn)
    wrong-shape   answers ok with a value of the wrong shape for the request: a missing
                  field, a wrong type, a response of the wrong kind of object
    wrong-answer  answers ok with a value of the right shape that is wrong: an assignment
                  for members that do not exist, tasks on a process that does not exist,
                  a response of another request's kind (judged: a divergence)

The assignors the hello lists (assignor and streams-assignor roles) are the remaining
arguments, each ``name=PROTOCOL[+PROTOCOL]`` (``roundrobin=EAGER``); default ``roundrobin=EAGER``.
"""
import json
import sys
import time

role, mode = sys.argv[1], sys.argv[2]
assignors = dict(a.split("=") for a in sys.argv[3:]) or {"roundrobin": "EAGER"}


def reply(msg) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def hello() -> dict:
    value = {"name": f"broken-{mode}", "version": "1", "roles": [role], "assignors": list(assignors),
             "protocols": {name: given.split("+") for name, given in assignors.items()}}
    if role == "group-coordinator":
        value = {"name": f"broken-{mode}", "version": "1", "roles": [role], "kip394": True}
    return value


def garbage(rid: int) -> None:
    lines = [b"this is not json\n", b"[1, 2, 3]\n", b"\xff\xfe\xfd not utf-8\n",
             json.dumps({"id": rid, "value": {}}).encode() + b"\n"]
    sys.stdout.buffer.write(lines[rid % len(lines)])
    sys.stdout.flush()


def wrong_shape(rid: int) -> dict:
    """A value of the wrong shape for the role's invoke, varied by request id."""
    shapes = {
        "assignor": [{}, {"assignment": {"consumer-001": "t0"}}, {"assignment": [["t0", 0]]}],
        "streams-assignor": [{}, {"assignment": [{"tasks": []}]}, {"assignment": {"process-1": ["0_0"]}}],
        "group-coordinator": [{}, {"responses": [{"member": 0}]},
                              {"responses": [{"member": 0, "response": {"kind": "JoinGroupResponse", "to": "",
                                                                        "error": "NONE"}}]}],
    }[role]
    return shapes[rid % len(shapes)]


def wrong_answer(value: dict) -> dict:
    """A value of the right shape, wrong for the request."""
    if role == "assignor":
        return {"assignment": {"no-such-member": [[t, p] for t, n in sorted(value["topics"].items())
                                                  for p in range(n)]}}
    if role == "streams-assignor":
        return {"assignment": [{"process_id": "no-such-process",
                                "tasks": [{"id": t["id"], "type": "ACTIVE"} for t in value["tasks"]]}]}
    member = value.get("member", 0)
    return {"responses": [{"member": member if isinstance(member, int) else 0,
                           "response": {"kind": "HeartbeatResponse", "to": "", "error": "NONE"}}]}


opened = False
for line in sys.stdin:
    req = json.loads(line)
    op, rid = req["op"], req.get("id", 0)
    if op == "open":
        opened = True
        reply({"type": "ok", "id": rid, "value": hello()})
    elif not opened:                    # a driver that restarted the program must open it again
        reply({"type": "fail", "id": rid, "error": f"{op} before open"})
    elif op == "setup" and mode == "hang-setup":
        time.sleep(3600)
    elif op in ("setup", "teardown"):
        reply({"type": "ok", "id": rid, "value": {}})
    elif op == "close":
        reply({"type": "ok", "id": rid})
        break
    elif mode == "hang":
        time.sleep(3600)
    elif mode == "flood":
        while True:
            reply({"type": "ok", "id": rid + 1000, "value": {}})
    elif mode == "exit":
        print("broken adapter: exiting mid-session on purpose", file=sys.stderr, flush=True)
        sys.exit(3)
    elif mode == "garbage":
        garbage(rid)
    elif mode == "wrong-shape":
        reply({"type": "ok", "id": rid, "value": wrong_shape(rid)})
    else:
        reply({"type": "ok", "id": rid, "value": wrong_answer(req["value"])})
