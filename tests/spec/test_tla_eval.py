"""The TLA+ evaluator (groupcheck/spec/tla_eval.py): values, expressions, TLC-style
enumeration of Init and Next, action names, steps_by, and errors naming construct and line."""
from __future__ import annotations

import pytest

from groupcheck.spec.tla_eval import Spec, SpecError
from groupcheck.spec.values import Fcn, fcn, from_itf, rec, show, to_itf, tset

TOY = r"""
---- MODULE Toy ----
EXTENDS Naturals, FiniteSets, Sequences
CONSTANTS Clients, Partitions
VARIABLES owner, log

Init == /\ owner = [p \in Partitions |-> "none"]
        /\ log = <<>>

Assign(c, p) == /\ owner[p] = "none"
                /\ owner' = [owner EXCEPT ![p] = c]
                /\ log' = Append(log, <<c, p>>)

Revoke(p) == /\ owner[p] # "none"
             /\ owner' = [owner EXCEPT ![p] = "none"]
             /\ UNCHANGED log

Pick(c) == \E p \in Partitions : /\ owner[p] = "none"
                                 /\ owner' \in {[owner EXCEPT ![p] = c]}
                                 /\ log' = log

Next == \/ \E c \in Clients, p \in Partitions : Assign(c, p)
        \/ \E p \in Partitions : Revoke(p)
        \/ \E c \in Clients : Pick(c)

Spec == Init /\ [][Next]_<<owner, log>>

AllOwned == \A p \in Partitions : owner[p] # "none"
Short == Len(log) < 2
Grow == log' # log
====
"""


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    path = tmp_path_factory.mktemp("toy") / "Toy.tla"
    path.write_text(TOY)
    return Spec.load(path, {"Clients": tset(["C1", "C2"]), "Partitions": tset([0, 1])})


def reach(spec):
    seen = set(spec.init_states())
    todo = list(seen)
    while todo:
        s = todo.pop()
        if not spec.holds("Short", s):
            continue
        for _, t in spec.successors(s):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_enumeration_names_each_step_by_its_action(toy):
    assert toy.variables == ("owner", "log")
    assert toy.action_names == ("Assign", "Revoke", "Pick")
    (init,) = toy.init_states()
    steps = toy.successors(init)
    names = sorted({n for n, _ in steps})
    assert names == ["Assign", "Pick"]
    assert len([1 for n, _ in steps if n == "Assign"]) == 4        # 2 clients x 2 partitions
    assert len([1 for n, _ in steps if n == "Pick"]) == 4
    assert all(t["owner"] != init["owner"] for _, t in steps)


def _toy_in_python():
    """The same state machine written directly in Python: (owner, log) pairs."""
    init = ((("none", "none")), ())
    seen, todo = {init}, [init]
    while todo:
        owner, log = todo.pop()
        if len(log) >= 2:
            continue
        nxt = []
        for p in (0, 1):
            if owner[p] == "none":
                for c in ("C1", "C2"):
                    o = tuple(c if i == p else owner[i] for i in (0, 1))
                    nxt += [(o, log + ((c, p),)), (o, log)]
            else:
                nxt.append((tuple("none" if i == p else owner[i] for i in (0, 1)), log))
        for t in nxt:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_reachable_states_and_steps_by(toy):
    states = reach(toy)
    direct = _toy_in_python()
    assert {(tuple(s["owner"][p] for p in (0, 1)), s["log"]) for s in states} == direct
    assert len(states) == len(direct) == 93
    (init,) = toy.init_states()
    assign = next(t for n, t in toy.successors(init) if n == "Assign")
    assert toy.steps_by("Assign", init, assign)
    assert not toy.steps_by("Revoke", init, assign)
    assert not toy.steps_by("Pick", init, assign)          # Pick keeps the log
    assert toy.holds_step("Grow", init, assign)


def test_expressions():
    spec = Spec.load(_module("X == 1"), {})
    cases = {
        "{x \\in 1..5 : x % 2 = 0}": frozenset({2, 4}),
        "{x * x : x \\in {1, 2, 3}}": frozenset({1, 4, 9}),
        "[r EXCEPT !.a = @ + 1, !.b[2] = 9]": None,
        "CHOOSE x \\in {3, 1, 2} : TRUE": 1,
        "CASE 1 > 2 -> \"a\" [] 2 > 1 -> \"b\" [] OTHER -> \"c\"": "b",
        "LET f(y) == y + 1 IN f(f(1))": 3,
        "Cardinality(SUBSET {1, 2, 3})": 8,
        "UNION {{1}, {2, 3}}": frozenset({1, 2, 3}),
        "\\A x \\in {1, 2} : \\E y \\in {2, 3} : y > x": True,
        "[x \\in {1, 2} |-> x] = <<1, 2>>": True,
        "[a |-> 1] = [x \\in {\"a\"} |-> 1]": True,
        "DOMAIN [a |-> 1, b |-> 2]": frozenset({"a", "b"}),
        "SubSeq(<<1, 2, 3>>, 2, 3) \\o Tail(<<7, 8>>)": (2, 3, 8),
        "Cardinality([{1, 2} -> {\"x\", \"y\"}])": 4,
        "(1 :> \"a\") @@ (2 :> \"b\")": fcn({1: "a", 2: "b"}),
        "IF 3 \\div 2 = 1 THEN -7 % 3 ELSE 0": 2,
    }
    r = rec(a=1, b=(5, 6))
    for text, want in cases.items():
        got = spec.evaluate(text.replace("r EXCEPT", "[a |-> 1, b |-> <<5, 6>>] EXCEPT"))
        if want is None:
            assert got == rec(a=2, b=(5, 9)) and r == rec(a=1, b=(5, 6))
        else:
            assert got == want, text


def test_values_round_trip_itf():
    v = rec(owned=tset([1, 0]), members=fcn({(0, 1): "m"}), seq=(1, 2))
    assert from_itf(to_itf(v)) == v
    assert isinstance(fcn({"a": 1}), Fcn) and fcn({1: "x", 2: "y"}) == ("x", "y") and fcn({}) == ()
    assert show(tset([2, 1])) == "{1, 2}"


def _module(body: str, name: str = "M") -> str:
    import tempfile
    from pathlib import Path
    folder = Path(tempfile.mkdtemp())
    (folder / f"{name}.tla").write_text(f"---- MODULE {name} ----\nEXTENDS Naturals, Sequences, FiniteSets, TLC\n"
                                        f"VARIABLE x\nInit == x = 0\nNext == x' = x + 1\n{body}\n====\n")
    return folder / f"{name}.tla"


@pytest.mark.parametrize("body, expect, message", [
    ("Bad == x \\cdot x", "Bad", r"M.tla:6: .*unsupported|M.tla:6: TLA\+ syntax error|unknown name"),
    ("Bad == CHOOSE y \\in {} : TRUE", "Bad", r"M.tla:6: CHOOSE: no element satisfies"),
    ("Bad == [a |-> 1].b", "Bad", r"M.tla:6: \.b: no field 'b'"),
    ("Bad == <<1>>[2]", "Bad", r"M.tla:6: f\[x\]: 2 is outside the function's domain"),
    ("Bad == 1 + \"a\"", "Bad", r"M.tla:6: \+: expected an integer"),
    ("Bad == Undefined + 1", "Bad", r"M.tla:6: unknown name Undefined"),
    ("Bad == \\E y \\in Nat : y = 1", "Bad", r"M.tla:6: \\E: a quantifier's bound must be a finite set, got Nat"),
    ("Bad == \\A <<{1}, y>> \\in {<<{1}, 2>>} : TRUE", "Bad", r"M.tla:6: unsupported TLA\+ construct: a bound name"),
])
def test_errors_name_the_line_and_the_construct(body, expect, message):
    with pytest.raises(SpecError, match=message):
        spec = Spec.load(_module(body), {})
        spec.holds(expect, spec.init_states()[0])


def test_a_syntax_error_names_the_unit_and_line():
    with pytest.raises(SpecError, match=r"M.tla:6: TLA\+ syntax error in 'Bad'"):
        Spec.load(_module("Bad == (1 + "), {})


def test_a_primed_variable_read_before_it_is_assigned_is_named():
    spec = Spec.load(_module("Next2 == x' > 0 /\\ x' = 1"), {}, next="Next2")
    with pytest.raises(SpecError, match=r"M.tla:6: x' is read before the action assigns it"):
        spec.successors(spec.init_states()[0])


def test_constants_must_match_the_declaration(tmp_path):
    path = tmp_path / "C.tla"
    path.write_text("---- MODULE C ----\nCONSTANT N\nVARIABLE x\nInit == x = N\nNext == x' = x\n====\n")
    with pytest.raises(SpecError, match="no value given for CONSTANT N"):
        Spec.load(path, {})
    with pytest.raises(SpecError, match="M given a value but not declared"):
        Spec.load(path, {"N": 1, "M": 2})
    assert Spec.load(path, {"N": 3}).init_states()[0]["x"] == 3


def test_extends_reads_modules_of_the_same_folder(tmp_path):
    (tmp_path / "Base.tla").write_text("---- MODULE Base ----\nVARIABLE x\nInit == x = 0\nStep == x' = x + 1\n====\n")
    (tmp_path / "Bug.tla").write_text("---- MODULE Bug ----\nEXTENDS Base, Naturals\n"
                                      "StepBug == x' = x + 2\nNextBug == Step \\/ StepBug\n====\n")
    spec = Spec.load(tmp_path / "Bug.tla", {}, next="NextBug")
    assert spec.action_names == ("Step", "StepBug")
    assert sorted(t["x"] for _, t in spec.successors(spec.init_states()[0])) == [1, 2]
    (tmp_path / "Lost.tla").write_text("---- MODULE Lost ----\nEXTENDS Nowhere\n====\n")
    with pytest.raises(SpecError, match="EXTENDS Nowhere: no file Nowhere.tla"):
        Spec.load(tmp_path / "Lost.tla", {})
