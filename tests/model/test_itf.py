"""ITF traces: the structure groupcheck writes, and reading any ITF trace's values."""
from __future__ import annotations

import json

import pytest

from groupcheck.model import itf


def test_trace_structure_follows_adr_015():
    tr = itf.trace({"protocol": "consumer"}, [{"x": 1}, {"x": 2}], ["init", "step"])
    assert tr["#meta"]["format"] == "ITF" and tr["#meta"]["protocol"] == "consumer"
    assert tr["vars"] == ["action_taken", "x"]
    assert [s["#meta"]["index"] for s in tr["states"]] == [0, 1]
    assert [s["action_taken"] for s in tr["states"]] == ["init", "step"]
    assert itf.load(itf.dumps(tr)) == tr


def test_values_round_trip_through_the_itf_encodings():
    encoded = {"owned": itf.itf_set(["t0-1", "t0-0"]), "big": itf.number(2 ** 60), "small": itf.number(7),
               "members": itf.itf_map([("m1", {"gen": 3})]), "pair": {"#tup": [1, "a"]}, "seq": [1, 2]}
    text = json.dumps(encoded)
    assert itf.decode(json.loads(text)) == {
        "owned": frozenset({"t0-0", "t0-1"}), "big": 2 ** 60, "small": 7,
        "members": {"m1": {"gen": 3}}, "pair": (1, "a"), "seq": (1, 2)}
    assert encoded["big"] == {"#bigint": str(2 ** 60)}


def test_reads_a_quint_style_trace():
    quint = {"#meta": {"format": "ITF", "source": "spec.qnt"}, "vars": ["n", "s"],
             "states": [{"#meta": {"index": 0}, "n": {"#bigint": "0"}, "s": {"#set": []}},
                        {"#meta": {"index": 1}, "n": {"#bigint": "1"}, "s": {"#set": [{"#tup": [1, 2]}]}}]}
    tr = itf.load(json.dumps(quint))
    assert [itf.decode(st["n"]) for st in tr["states"]] == [0, 1]
    assert itf.decode(tr["states"][1]["s"]) == frozenset({(1, 2)})


def test_malformed_values_raise_trace_errors():
    with pytest.raises(itf.TraceError, match="#bigint"):
        itf.decode({"#bigint": "twelve"})
    with pytest.raises(itf.TraceError, match=r"\[key, value\] pairs"):
        itf.decode({"#map": [[1, 2, 3]]})
    with pytest.raises(itf.TraceError, match="missing 'states'"):
        itf.load('{"vars": []}')
