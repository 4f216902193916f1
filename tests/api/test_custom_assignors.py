"""A user's own assignor: registered by import path, object or entry point, run by the
model's leader on Kafka's terms, and its mistakes reported as clear errors (exit 2)."""
from __future__ import annotations

import textwrap

import pytest
from typer.testing import CliRunner

from groupcheck.api import (AssignorLoadError, InvalidAssignment, PartitionAssignor, Subscription, TopicPartition,
                            load, register_assignor)
from groupcheck.api import custom
from groupcheck.api.custom import ENTRY_POINT_GROUP, adapt, register_plan_assignors
from groupcheck.cli import app
from groupcheck.model import assignors
from groupcheck.model.assignors import ASSIGNORS, COOPERATIVE, Member, lookup, rebalance_protocol
from groupcheck.model.scopes import ScopeError

runner = CliRunner()


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """Each test registers into its own copy of the model's registry."""
    monkeypatch.setattr(assignors, "ASSIGNORS", dict(ASSIGNORS))
    monkeypatch.setattr(custom, "_TRUSTED", set())
    yield
    rebalance_protocol.cache_clear()


class Recording(PartitionAssignor):
    name = "recording"
    supported_protocols = (COOPERATIVE,)
    reads_owned_partitions = True

    def __init__(self, answer=None):
        self.seen = []
        self.answer = answer

    def assign(self, cluster, subscriptions):
        self.seen.append((cluster, subscriptions))
        return self.answer if self.answer is not None else {m: [] for m in subscriptions}


def test_the_plan_hands_the_assignor_kafkas_view_of_the_members():
    """Topics t0, t1; member ids in the model's member order; raw ownedPartitions and
    generation; the cluster has the subscribed topics that exist (t1 has 0 partitions)."""
    user = Recording({"consumer-002": [TopicPartition("t0", 1)], "consumer-001": [("t0", 0)]})
    plan = adapt(user, "recording").plan
    out = plan((Member(member_id=1, eligible=0b0011, claims=0, topics=0b11, owned=0b0001, generation=4),
                Member(member_id=2, eligible=0b0011, claims=0, topics=0b01, owned=0b0001, generation=2)), 2)
    assert out == {1: 0b01, 2: 0b10}
    cluster, subs = user.seen[0]
    assert cluster == {"t0": 2}
    assert subs == {"consumer-001": Subscription(["t0", "t1"], [("t0", 0)], 4),
                    "consumer-002": Subscription(["t0"], [("t0", 0)], 2)}


def test_answers_are_cached_so_an_assignor_runs_once_per_distinct_input():
    user = Recording()
    plan = adapt(user, "recording").plan
    members = (Member(member_id=1, eligible=0b1, claims=0),)
    plan(members, 1)
    plan(members, 1)
    assert len(user.seen) == 1


@pytest.mark.parametrize("answer, message", [
    ([("t0", 0)], "returned: expected a mapping of member id to a list of partitions, got list"),
    ({"consumer-001": 3}, "returned['consumer-001']: expected a list, got int"),
    ({"consumer-001": ["t0-0"]}, "returned['consumer-001'][0]: expected a TopicPartition"),
    ({"consumer-009": [("t0", 0)]}, "partitions for 'consumer-009', which is not a member of the group"),
    ({"consumer-001": [("t0", 5)]}, "gave 'consumer-001' partition t0-5, which does not exist"),
    ({"consumer-001": [("orders", 0)]}, "partition orders-0, which does not exist"),
])
def test_garbage_from_the_assignor_is_an_error_naming_what_is_wrong(answer, message):
    plan = adapt(Recording(answer), "recording").plan
    with pytest.raises(InvalidAssignment, match="assignor recording") as e:
        plan((Member(member_id=1, eligible=0b11, claims=0),), 2)
    assert message in str(e.value)


def test_an_exception_in_the_assignor_is_reported_with_where_it_was_raised():
    class Failing(Recording):
        def assign(self, cluster, subscriptions):
            return 1 // 0
    with pytest.raises(InvalidAssignment, match=r"assign\(\) raised ZeroDivisionError: .* \(at .*test_custom"):
        adapt(Failing(), "failing").plan((Member(member_id=1, eligible=0b1, claims=0),), 1)


def test_register_by_import_path_and_by_object():
    key = register_assignor("examples.assignors:BalancedCooperative")
    assert key == "examples.assignors:BalancedCooperative"
    assert rebalance_protocol((key,)) == COOPERATIVE and not lookup(key).builtin
    assert lookup(key).claims_from == "owned"
    assert register_assignor(Recording()) == "recording"
    assert register_assignor(Recording(), name="other") == "other"


@pytest.mark.parametrize("spec, message", [
    ("no_such_package.mod:X", "cannot import 'no_such_package.mod': ModuleNotFoundError"),
    ("examples.assignors:Nope", "'examples.assignors' has no attribute 'Nope'"),
    ("examples.assignors:", "give an import path package.module:attribute"),
    ("examples.assignors:TopicPartition", "TopicPartition() raised TypeError"),
])
def test_an_import_path_that_does_not_resolve_is_an_error_naming_it(spec, message):
    with pytest.raises(AssignorLoadError) as e:
        load(spec)
    assert message in str(e.value)


@pytest.mark.parametrize("attrs, message", [
    ({"supported_protocols": ("LAZY",)}, "supported_protocols"),
    ({"supported_protocols": ()}, "supported_protocols"),
    ({"assign": None}, "has no assign(cluster, subscriptions) method"),
    ({"reads_owned_partitions": "yes"}, "reads_owned_partitions"),
    ({"name": "range"}, "'range' is a packaged assignor"),
    ({"name": ""}, "give the assignor a name"),
])
def test_an_assignor_missing_kafkas_surface_is_refused(attrs, message):
    user = type("Odd", (Recording,), attrs)()
    with pytest.raises(AssignorLoadError) as e:
        register_assignor(user)
    assert message in str(e.value)


def test_an_entry_point_in_the_groupcheck_assignors_group(tmp_path, monkeypatch):
    (tmp_path / "my_assignors.py").write_text("from examples.assignors import BalancedCooperative as Mine\n")
    dist = tmp_path / "my_assignors-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-assignors\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nmine = my_assignors:Mine\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert register_assignor("mine") == "mine"
    assert rebalance_protocol(("mine",)) == COOPERATIVE
    with pytest.raises(AssignorLoadError, match=r"unknown assignor\(s\): theirs; known: .*mine; your own assignor"):
        register_assignor("theirs")


def test_a_scope_loads_only_the_assignors_the_command_line_trusted():
    """A scope naming an import path the command line did not name is refused with the
    flag that trusts it (nothing imported); once trusted it is registered, and a trusted
    name that does not resolve names its place in the plan."""
    scope = {"plan": [{"assignors": ["range"]}, {"assignors": ["examples.assignors:BalancedCooperative"]}]}
    with pytest.raises(ScopeError, match=r"scope.plan\[1\].assignors names assignor examples.assignors:Balanced"
                                         r"Cooperative, .* add --assignor examples.assignors:BalancedCooperative"):
        register_plan_assignors(scope)
    assert "examples.assignors:BalancedCooperative" not in assignors.ASSIGNORS
    custom.trust(["examples.assignors:BalancedCooperative", "nope.x:Y"])
    assert register_plan_assignors(scope) is scope
    assert "examples.assignors:BalancedCooperative" in assignors.ASSIGNORS
    with pytest.raises(ScopeError, match=r"scope.plan\[1\].assignors: .*cannot import"):
        register_plan_assignors({"plan": [{"assignors": ["range"]}, {"assignors": ["nope.x:Y"]}]})


# ------------------------------------------------------------------------------ the CLI: exit 2, no traceback

def test_cli_an_import_path_that_does_not_resolve_exits_2():
    result = runner.invoke(app, ["check", "consumer", "--plan", "nope.x:Mine"])
    assert result.exit_code == 2, result.output
    assert "scope.plan[0].assignors: nope.x:Mine: cannot import 'nope.x'" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_cli_an_assignor_returning_garbage_exits_2_naming_it(tmp_path, monkeypatch):
    (tmp_path / "garbage_assignor.py").write_text(textwrap.dedent("""
        class Garbage:
            name = "garbage"
            supported_protocols = ("COOPERATIVE",)
            def assign(self, cluster, subscriptions):
                return {"someone-else": [("t0", 0)]}
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    result = runner.invoke(app, ["check", "consumer", "--plan", "garbage_assignor:Garbage", "--budget", "0",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "returned partitions for 'someone-else', which is not a member of the group" in " ".join(
        result.output.split())
    assert "Traceback" not in result.output
