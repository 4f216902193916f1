"""A group-coordinator adapter speaking groupcheck's conformance protocol (PROTOCOL.md) over
stdio, for the tests. ``python conform_coordinator_adapter_script.py MODE``:

    ok       a correct coordinator: the reference (the model's coordinator) behind JSON lines
    hang     answers open and setup, then never answers an invoke
    invalid  answers every invoke with a response that breaks the schema (error "none")
"""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator  # noqa: E402

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
coordinator = ReferenceCoordinator()


def reply(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    req = json.loads(line)
    op, rid = req["op"], req.get("id")
    if op == "open":
        reply({"type": "ok", "id": rid, "value": {"name": f"coordinator-{mode}", "version": "1.0",
                                                 "roles": ["group-coordinator"], "kip394": True}})
    elif op == "setup":
        coordinator.setup(req["role"], req["config"])
        reply({"type": "ok", "id": rid, "value": {}})
    elif op == "teardown":
        reply({"type": "ok", "id": rid})
    elif op == "close":
        reply({"type": "ok", "id": rid})
        break
    elif op == "invoke":
        if mode == "hang":
            time.sleep(3600)
        elif mode == "invalid":
            reply({"type": "ok", "id": rid, "value": {"responses": [
                {"member": 0, "response": {"kind": "JoinGroupResponse", "to": "", "error": "none"}}]}})
        else:
            out = coordinator.invoke(req["role"], req["f"], req["value"])
            reply({"type": out.type, "id": rid, "value": out.value, **({"error": out.error} if out.error else {})})
