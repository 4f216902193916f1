"""``spec mc`` (groupcheck/spec/tlc_config.py) holds to TLC's semantics, measured on real
TLC 2.15 (``java -cp tla2tools.jar tlc2.TLC -workers 1 -config MCX.cfg MCX.tla``) over the
tiny spec in fixtures/tlc_semantics, whose configs' comments give what TLC reported:

* a state that breaks the CONSTRAINT is neither counted nor explored (the initial x = 7
  and x = 3 below), yet TLC checks every invariant on it and every action property on
  the step to it;
* a state with no successor is a deadlock unless the config says CHECK_DEADLOCK FALSE; a
  state whose successors all break the CONSTRAINT is not one."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from groupcheck.spec import tlc_config
from groupcheck.spec.tla_context import SpecError

FIXTURES = Path(__file__).parent / "fixtures" / "tlc_semantics"


def _run(name: str, **kw) -> tlc_config.Run:
    return tlc_config.run(tlc_config.read(FIXTURES / f"{name}.cfg"), **kw)


def test_states_past_the_constraint_are_not_counted_nor_explored_and_are_no_deadlock():
    run = _run("MCBounded")
    assert (run.states, run.depth, run.violation) == (6, 4, None)    # TLC: 6 distinct states, depth 4


def test_invariants_are_checked_on_a_state_past_the_constraint():
    run = _run("MCPastBound")
    name, steps = run.violation
    assert name == "NeverThree" and len(steps) - 1 == 3
    assert run.states == 5                  # TLC: 5 distinct states found by then, x = 3 not among them
    assert steps[-1][1]["x"] == 3


def test_an_action_property_is_checked_on_the_step_past_the_constraint():
    run = _run("MCStepPastBound")
    name, steps = run.violation
    assert name == "NotToThree" and len(steps) - 1 == 3 and run.states == 5


def test_invariants_are_checked_on_an_initial_state_past_the_constraint():
    name, steps = _run("MCInitPastBound").violation
    assert name == "NeverSeven" and len(steps) == 1


def test_deadlock_is_checked_unless_the_config_says_check_deadlock_false():
    run = _run("MCDeadlock")
    name, steps = run.violation
    assert name == tlc_config.DEADLOCK and [s["x"] for _, s in steps] == [7, 8, 9] and run.states == 12
    run = _run("MCNoDeadlock")
    assert (run.states, run.depth, run.violation) == (20, 8, None)
    # TLC's -continue stops at a deadlock all the same (TLC: 12 distinct states by then)
    whole = _run("MCDeadlock", stop=False)
    assert whole.violated == [tlc_config.DEADLOCK] and whole.states == 12


def test_check_deadlock_of_newer_tlcs_is_read_too(tmp_path):
    """TLC 2.15 reads no CHECK_DEADLOCK (the specs' configs say -deadlock on their TLC
    command line); TLC 2.16 and later do, and so does spec mc."""
    shutil.copytree(FIXTURES, tmp_path / "f")
    cfg = tmp_path / "f" / "MCDeadlock.cfg"
    text = cfg.read_text()
    cfg.write_text(text + "CHECK_DEADLOCK FALSE\n")
    assert tlc_config.run(tlc_config.read(cfg)).violation is None
    cfg.write_text(text + "CHECK_DEADLOCK maybe\n")
    with pytest.raises(SpecError, match="CHECK_DEADLOCK needs TRUE or FALSE, got maybe"):
        tlc_config.read(cfg)


def _consumer_group_with_leaves(tmp_path, broken: bool) -> Path:
    """The consumer-group folder with one leave allowed at MCConsumerGroup's scope; with
    ``broken``, RemoveMember no longer catches up an emptied group's assignment epoch (the
    rule KAFKA-20442 broke)."""
    from groupcheck.spec import manifest
    copy = tmp_path / ("broken" if broken else "intact")
    shutil.copytree(manifest.folders()["consumer-group"], copy)
    mc = copy / "MCConsumerGroup.tla"
    mc.write_text(mc.read_text().replace("MCOperations == {}", 'MCOperations == {"leave"}'))
    cfg = copy / "MCConsumerGroup.cfg"
    cfg.write_text(cfg.read_text().replace("Budget = 0", "Budget = 1"))
    if broken:
        spec = copy / "ConsumerGroup.tla"
        rule = "!.assignmentEpoch = IF left = {} THEN epoch ELSE @,"
        assert rule in spec.read_text()
        spec.write_text(spec.read_text().replace(rule, "!.assignmentEpoch = @,"))
    return cfg


def test_spec_mc_fails_on_a_spec_with_a_broken_rule(tmp_path):
    """The same config holds with the rule and breaks empty_epochs_equal without it: exit 1
    and the claim named (tests/spec/test_tlc_real.py shows real TLC failing the same way)."""
    from typer.testing import CliRunner

    from groupcheck.cli import app
    runner = CliRunner()
    intact = runner.invoke(app, ["spec", "mc", str(_consumer_group_with_leaves(tmp_path, False)), "--no-states"])
    assert intact.exit_code == 0, intact.stdout
    broken = runner.invoke(app, ["spec", "mc", str(_consumer_group_with_leaves(tmp_path, True)), "--no-states"])
    assert broken.exit_code == 1, broken.stdout
    assert "empty_epochs_equal is violated" in broken.stdout
