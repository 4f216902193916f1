"""``groupcheck spec mc`` on a config with a temporal PROPERTY that is not ``[][A]_v`` (a
liveness claim) or a SPECIFICATION (groupcheck/spec/tlc_config.py, tlc_formula.py): it
checks what it can (invariants, [][A]_v properties, deadlock as configured), names what it
leaves to TLC, and exits 3 when the rest held, 1 when something broke; a SPECIFICATION is
read as Init /\\ [][Next]_vars [/\\ Fairness], any other form gets one line (exit 2)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.spec import manifest, tlc_config
from groupcheck.spec.tla_context import SpecError

FIXTURES = Path(__file__).parent / "tlc_fixtures"
runner = CliRunner()


def _mc(cfg):
    result = runner.invoke(app, ["spec", "mc", str(cfg), "--no-states"])
    return result.exit_code, " ".join((result.stdout + (result.stderr or "")).split())


def test_a_liveness_config_is_checked_but_for_its_property_which_is_left_to_tlc():
    cfg = manifest.folders()["streams-group"] / "MCStreamsGroupLiveness.cfg"
    code, text = _mc(cfg)
    assert code == 3, text
    assert "MCStreamsGroupLiveness.cfg: 1,178 distinct states" in text
    assert f"left to TLC (not checked here): PROPERTY FairSettles; run `groupcheck spec tlc {cfg}` to check it" in text
    assert "no invariant, [][A]_v property or deadlock broken; the rest is TLC's: not proved here" in text


def _counter(tmp_path, cfg_text: str) -> Path:
    folder = tmp_path / "counter"
    shutil.copytree(FIXTURES, folder)
    (folder / "MCCounter_Live.cfg").write_text(cfg_text)
    return folder / "MCCounter_Live.cfg"


def test_a_specification_is_read_as_init_next_and_fairness_left_to_tlc(tmp_path):
    config = tlc_config.read(FIXTURES / "MCCounter_Live.cfg")     # SPECIFICATION FairSpec == Spec /\ WF_vars(Up)
    assert (config.init, config.next, config.fairness) == ("Init", "Next", ["the WF conjunct of FairSpec"])
    code, text = _mc(FIXTURES / "MCCounter_Live.cfg")
    assert code == 3, text
    assert "6 distinct states" in text
    assert "left to TLC (not checked here): PROPERTY ReachesMax, fairness (the WF conjunct of FairSpec)" in text
    named = _counter(tmp_path, "CONSTANT Max = 2\nSPECIFICATION Named\nPROPERTY ReachesMax\n")
    (named.parent / "MCCounter_Live.tla").write_text(
        "---- MODULE MCCounter_Live ----\nEXTENDS Counter\nFair == WF_vars(Up) /\\ WF_vars(Down)\n"
        "Named ==\n    /\\ Spec\n    /\\ Fair\n====\n")
    assert tlc_config.read(named).fairness == ["Fair"]


def test_something_broken_beside_a_temporal_property_exits_1(tmp_path):
    cfg = _counter(tmp_path, "CONSTANT Max = 3\nSPECIFICATION FairSpec\nINVARIANT Small\nPROPERTY ReachesMax\n")
    code, text = _mc(cfg)
    assert code == 1, text
    assert "Small is violated after 3 steps" in text and "left to TLC (not checked here): PROPERTY ReachesMax" in text


def test_fairness_alone_is_no_claim_left_to_tlc(tmp_path):
    code, text = _mc(_counter(tmp_path, "CONSTANT Max = 2\nSPECIFICATION FairSpec\nINVARIANT Safe\n"))
    assert code == 0 and "no invariant or property broken" in text and "left to TLC" not in text, text


@pytest.mark.parametrize("cfg, message", [
    ("CONSTANT Max = 2\nSPECIFICATION Odd\n", r"SPECIFICATION Odd is not of the form Init /\\ \[\]\[Next\]_vars "
                                              r"\[/\\ Fairness\], the form read here; give INIT and NEXT instead"),
    ("CONSTANT Max = 2\nSPECIFICATION Nope\n", "SPECIFICATION Nope is not defined in MCCounter_Live.tla or what it"),
    ("CONSTANT Max = 2\nSPECIFICATION Spec\nINIT Init\n", "give SPECIFICATION with one formula name, or INIT and NEXT"),
])
def test_a_specification_of_another_form_is_one_clear_line(tmp_path, cfg, message):
    path = _counter(tmp_path, cfg)
    (path.parent / "MCCounter_Live.tla").write_text(
        "---- MODULE MCCounter_Live ----\nEXTENDS Counter\nOdd == Init /\\ [](x >= 0)\n====\n")
    with pytest.raises(SpecError, match=message):
        tlc_config.read(path)
    code, text = _mc(path)
    assert code == 2 and "Traceback" not in text, text


def test_an_undefined_property_is_bad_input(tmp_path):
    code, text = _mc(_counter(tmp_path, "CONSTANT Max = 2\nINIT Init\nNEXT Next\nPROPERTY Missing\n"))
    assert code == 2 and "PROPERTY Missing is not defined in it or what it extends" in text, text
