"""Records of more than five fields are built by keyword (issue 27, "records built by name").

A call anywhere in the repository's code and tests to a record class of ``model/`` (a NamedTuple or a
dataclass) with more than ``MAX_POSITIONAL`` fields passes no argument by position: the reader
sees which field each value fills (``Profile(..., False, ..., False)`` says nothing). The calls
are read with ``ast`` by ``tests/helpers/record_calls.py``.
"""
from __future__ import annotations

from tests.helpers.record_calls import MAX_POSITIONAL, ROOT, calls_in, positional_calls, record_classes


def _checked_files():
    """Every Python file of the repository's own code and tests (groupcheck/model and
    groupcheck/properties are links to model/ and properties/, read once)."""
    return [path for folder in ("model", "properties", "groupcheck", "tests", "benchmarks", "mutation", "examples")
            for path in sorted((ROOT / folder).rglob("*.py"))
            if not path.relative_to(ROOT).as_posix().startswith(("groupcheck/model/", "groupcheck/properties/"))]


def test_the_record_classes_are_found_with_their_fields_in_order():
    classes = record_classes()
    consumer = classes[(("model", "consumer", "state"), "Consumer")]
    assert len(consumer) == 16 and consumer[:3] == ("status", "config", "member_id")
    assert classes[(("model", "epochs", "world"), "Action")] == ("kind", "slot", "arg")
    member = classes[(("model", "consumer_group", "group"), "Member")]   # a dataclass
    assert member[0] == "member_id" and len(member) > MAX_POSITIONAL


def test_a_positional_call_is_found_through_imports():
    source = ("from ..state import Consumer\nfrom .. import state\nfrom groupcheck.model.consumer.state import Group\n"
              "a = Consumer(1, 2, 3)\nb = state.Consumer(status=1)\nc = state.Group(1, 2, 3, 4, 5, 6, 7)\n"
              "d = Group(status=1)\ne = dict(a=1)\n")
    found = calls_in(source, ("model", "consumer", "fake", "mod"))
    assert [(c.line, c.record, c.positional) for c in found] == [(4, "consumer.state.Consumer", 3),
                                                                 (6, "consumer.state.Group", 7)]


def test_records_of_more_than_five_fields_are_built_by_keyword():
    found = positional_calls(_checked_files())
    assert not found, (
        f"records of more than {MAX_POSITIONAL} fields built with positional arguments (name each field):\n"
        + "\n".join(f"{c.path.relative_to(ROOT)}:{c.line}: {c.record}({', '.join(c.fields[:c.positional])}, ...) "
                    f"by position" for c in found))
