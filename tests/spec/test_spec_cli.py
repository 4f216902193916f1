"""``groupcheck spec``: its exits and messages on bad input, and a trace judged."""
from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from groupcheck.cli import app
from groupcheck.spec import manifest

runner = CliRunner()


def _run(*args):
    result = runner.invoke(app, ["spec", *args])
    return result.exit_code, " ".join((result.stdout + (result.stderr or "")).split())


def test_unknown_protocol_is_named_and_exits_2():
    code, text = _run("check", "kafka-magic")
    assert code == 2
    assert "unknown protocol 'kafka-magic'" in text or "no TLA+ spec for protocol 'kafka-magic'" in text


def test_a_trace_file_that_is_missing_or_not_ours_exits_2(tmp_path):
    code, text = _run("trace", str(tmp_path / "nope.itf.json"))
    assert code == 2 and "cannot read" in text
    quint = tmp_path / "q.itf.json"
    quint.write_text(json.dumps({"#meta": {"source": "quint"}, "vars": ["x"], "states": [{"x": 1}]}))
    code, text = _run("trace", str(quint))
    assert code == 2 and "not groupcheck" in text


def test_a_spec_with_unsupported_tla_exits_2_naming_the_construct(tmp_path, monkeypatch):
    """A spec the evaluator cannot read is bad input: one line naming the construct and
    its line, no traceback."""
    folder = manifest.folders()["consumer-group"]
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    module = copy / "ConsumerGroup.tla"
    lines = module.read_text().replace("\nInit ==", "\nInit0 ==", 1).splitlines()
    end = max(i for i, line in enumerate(lines) if line.startswith("===="))
    lines.insert(end, "Init == Init0 /\\ ENABLED Next")
    module.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(manifest, "SPECS", tmp_path)
    code, text = _run("check", "consumer-group", "--walks", "0")
    assert code == 2, text
    assert f"ConsumerGroup.tla:{end + 1}: unsupported TLA+ construct: ENABLED" in text
    assert "Traceback" not in text


def test_spec_check_of_the_consumer_group_spec_agrees():
    code, text = _run("check", "consumer-group", "--walks", "2", "--length", "20")
    assert code == 0, text
    assert "consumer-group names: agrees" in text and "differs" not in text
