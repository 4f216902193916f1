"""A small assignor adapter speaking groupcheck's conformance protocol (PROTOCOL.md) over
stdio, for the tests. ``python conform_adapter_script.py MODE``:

    ok         a correct round robin (RoundRobinAssignor over members in member-id order)
    hang       answers open and setup, then never answers an invoke
    crash      answers open and setup, then exits with code 3 on the first invoke
    malformed  answers an invoke with a line that is not JSON
    invalid    answers an invoke with an assignment that breaks the schema
"""
import json
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"


def reply(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def roundrobin(value):
    members = sorted(value["members"], key=lambda m: m["member_id"])
    out = {m["member_id"]: [] for m in members}
    i = 0
    for topic in sorted(value["topics"]):
        for p in range(value["topics"][topic]):
            for _ in range(len(members)):
                m = members[i % len(members)]
                i += 1
                if topic in m["topics"]:
                    out[m["member_id"]].append([topic, p])
                    break
    return {"assignment": out}


for line in sys.stdin:
    req = json.loads(line)
    op, rid = req["op"], req.get("id")
    if op == "open":
        reply({"type": "ok", "id": rid, "value": {"name": "test-adapter", "version": "1.0", "roles": ["assignor"],
                                                 "assignors": ["roundrobin"]}})
    elif op in ("setup", "teardown"):
        reply({"type": "ok", "id": rid})
    elif op == "close":
        reply({"type": "ok", "id": rid})
        break
    elif op == "invoke":
        if mode == "hang":
            time.sleep(3600)
        elif mode == "crash":
            print("adapter: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "malformed":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        elif mode == "invalid":
            reply({"type": "ok", "id": rid, "value": {"assignment": {"consumer-001": [["t0", "zero"]]}}})
        else:
            reply({"type": "ok", "id": rid, "value": roundrobin(req["value"])})
