"""A tiny external streams-assignor adapter for the tests: `python conform_streams_adapter_script.py MODE`.

ok          the model's sticky placement (examples' round-robin would do as well)
bad-result  answers assign with a value that breaks the schema (tasks not a list)
no-role     its hello lists only the assignor role
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from groupcheck.conform.targets.inprocess.streams_assignor import ReferenceSticky  # noqa: E402

MODE = sys.argv[1]


def main() -> None:
    for line in sys.stdin:
        req = json.loads(line)
        op, rid = req["op"], req["id"]
        if op == "open":
            roles = ["assignor"] if MODE == "no-role" else ["streams-assignor"]
            value = {"name": "test-streams", "version": "1", "roles": roles, "assignors": ["sticky-js"],
                     "contracts": {"sticky-js": ["balanced", "leaving"]}}
            reply = {"type": "ok", "id": rid, "value": value}
        elif op == "invoke":
            answer = ReferenceSticky().assign(req["value"])
            if MODE == "bad-result":
                answer = {"assignment": [{"process_id": "process-1", "tasks": "0_0"}]}
            reply = {"type": "ok", "id": rid, "value": answer}
        else:
            reply = {"type": "ok", "id": rid}
        print(json.dumps(reply), flush=True)
        if op == "close":
            return


if __name__ == "__main__":
    main()
