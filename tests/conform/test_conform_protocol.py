"""The adapter protocol: schemas both ways, an external program over stdio (ok, hung,
crashing, malformed), and the in-process fast path."""
import os
import re
import sys
import time
from pathlib import Path

import pytest

from groupcheck.conform.adapter import AdapterError, problems, validate
from groupcheck.conform.targets.inprocess.assignor import InProcessAdapter, style
from groupcheck.conform.targets.adapter.process import ProcessAdapter
from groupcheck.model.assignors import ASSIGNORS

SCRIPT = str(Path(__file__).parents[1] / "helpers" / "conform_adapter_script.py")
ARG = {"topics": {"t0": 3}, "members": [
    {"member_id": "consumer-001", "topics": ["t0"], "owned_partitions": [], "generation": -1, "user_data": None},
    {"member_id": "consumer-002", "topics": ["t0"], "owned_partitions": [["t0", 0]], "generation": 2,
     "user_data": {"previous_assignment": [["t0", 0]], "generation": 2}}]}


def test_schemas_accept_the_documented_session_and_name_the_path_of_an_error():
    validate("request", {"op": "open", "id": 0, "protocol": 1}, "driver")
    validate("assignor.assign", ARG, "driver")
    validate("assignor.assign.result", {"assignment": {"consumer-001": [["t0", 0]]}}, "adapter")
    assert problems("assignor.assign.result", {"assignment": {"consumer-001": [["t0", "x"]]}}) == [
        "$.assignment.consumer-001[0][1]: 'x' is not of type 'integer'"]
    assert problems("request", {"op": "dance"})[0].startswith("$.op:")
    bad = dict(ARG, members=[dict(ARG["members"][0], generation=-2)])
    with pytest.raises(AdapterError, match=r"driver: invalid assignor.assign message: \$.members\[0\].generation"):
        validate("assignor.assign", bad, "driver")


def test_process_adapter_ok_path():
    a = ProcessAdapter([sys.executable, SCRIPT, "ok"], timeout=10)
    hello = a.open()
    assert (hello.name, hello.roles, hello.assignors) == ("test-adapter", ("assignor",), ("roundrobin",))
    assert a.setup("assignor", {"assignor": "roundrobin"}).ok
    out = a.invoke("assignor", "assign", ARG)
    assert out.ok and out.value == {"assignment": {"consumer-001": [["t0", 0], ["t0", 2]], "consumer-002": [["t0", 1]]}}
    a.close()
    assert a.proc is None


def test_a_hung_adapter_is_killed_within_the_timeout_and_the_step_is_info():
    a = ProcessAdapter([sys.executable, SCRIPT, "hang"], timeout=1.0)
    a.open()
    a.setup("assignor", {"assignor": "roundrobin"})
    pid = a.proc.pid
    started = time.monotonic()
    out = a.invoke("assignor", "assign", ARG)
    assert out.type == "info" and "no reply to invoke within 1 s; killed" in out.error
    assert time.monotonic() - started < 3
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)                      # the whole process group is gone
    assert a.proc is None


def test_a_crashing_adapter_is_info_and_keeps_the_partial_trace_and_stderr():
    a = ProcessAdapter([sys.executable, SCRIPT, "crash"], timeout=5)
    a.open()
    a.setup("assignor", {"assignor": "roundrobin"})
    out = a.invoke("assignor", "assign", ARG)
    assert out.type == "info" and "exited during invoke (exit code 3)" in out.error
    assert "crashing on purpose" in out.error                     # stderr kept
    ops = [m.get("op") for d, m in a.transcript if d == ">"]
    assert ops == ["open", "setup", "invoke"] and a.transcript[-1][0] == "!"
    # the next call starts the program again (open + setup replayed); it crashes again
    assert a.invoke("assignor", "assign", ARG).type == "info" and a.restarts == 1


@pytest.mark.parametrize("mode, message", [("malformed", "not one JSON object per line"),
                                           ("invalid", r"\$.assignment.consumer-001\[0\]\[1\]")])
def test_a_malformed_reply_is_info_naming_adapter_and_path_and_the_program_is_restarted(mode, message):
    a = ProcessAdapter([sys.executable, SCRIPT, mode], timeout=5)
    a.open()
    a.setup("assignor", {"assignor": "roundrobin"})
    out = a.invoke("assignor", "assign", ARG)
    assert out.type == "info" and re.search(f"adapter .*: .*{message}", out.error), out.error
    assert a.proc is None and a.transcript[-1][0] == "!"           # killed; the garbage kept in the transcript
    assert a.invoke("assignor", "assign", ARG).type == "info" and a.restarts == 1


def test_an_adapter_that_cannot_start_is_an_error():
    with pytest.raises(AdapterError, match="cannot start"):
        ProcessAdapter(["/nonexistent/adapter"]).open()


def test_in_process_detects_kafka_python_aiokafka_and_groupcheck_styles():
    from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor as AioSticky
    from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor

    from examples.assignors import BalancedCooperative
    assert style(CooperativeStickyAssignor()) == "kafka-python"
    assert style(AioSticky()) == "aiokafka"
    assert style(BalancedCooperative()) == "groupcheck"
    a = InProcessAdapter("kp", CooperativeStickyAssignor, per_call=True)
    assert a.protocols == ("COOPERATIVE",)
    out = a.invoke("assignor", "assign", ARG)
    assert out.ok and sorted(tp for tps in out.value["assignment"].values() for tp in tps) == [["t0", 0], ["t0", 1], ["t0", 2]]


def test_in_process_an_exception_is_a_fail_naming_the_line():
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    a = InProcessAdapter("kp", RoundRobinPartitionAssignor)
    unequal = {"topics": {"t0": 2, "t1": 1}, "members": [
        {"member_id": "consumer-001", "topics": ["t1"], "owned_partitions": [], "generation": -1},
        {"member_id": "consumer-002", "topics": ["t0", "t1"], "owned_partitions": [], "generation": -1}]}
    out = a.invoke("assignor", "assign", unequal)
    assert out.type == "fail" and "KeyError" in out.error and "roundrobin.py:" in out.error


def test_an_in_process_answer_that_is_not_an_assignment_is_a_fail_not_a_crash():
    from groupcheck.api import PartitionAssignor, TopicPartition
    from groupcheck.conform.roles.assignor.role import Recorder
    from groupcheck.conform.roles.assignor.targets import Target

    class Negative(PartitionAssignor):
        name = "negative"
        supported_protocols = ("EAGER",)

        def assign(self, cluster, subscriptions):
            return {m: [TopicPartition("t0", 0)] if i else [("t0", -1)] for i, m in enumerate(sorted(subscriptions))}

    rec = Recorder(Target("python:negative", lambda: InProcessAdapter("negative", Negative), "negative", ("EAGER",), None))
    try:
        out, answer = rec.ask(ARG)
    finally:
        rec.close()
    assert out.type == "fail" and answer is None
    assert "python:negative" not in ASSIGNORS          # closing takes it out of the model's registry
    assert "$.assignment.consumer-001[0][1]: -1 is less than the minimum of 0" in out.error
