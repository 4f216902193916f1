"""``groupcheck spec``: its exits and messages on bad input, and a trace judged."""
from __future__ import annotations

import json

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
    folder = next(iter(manifest.folders().values()))
    copy = tmp_path / folder.name
    copy.mkdir()
    for f in folder.iterdir():
        copy.joinpath(f.name).write_text(f.read_text()) if f.is_file() else None
    data = json.loads((copy / "manifest.json").read_text())
    module = copy / f"{data['module']}.tla"
    lines = module.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Init"))
    lines.insert(at, "Broken == [][TRUE]_<<>> \\cdot TRUE")
    lines.insert(at + 1, "Init2 == Broken")
    module.write_text("\n".join(lines).replace("Init ==", "Init == Broken /\\", 1))
    monkeypatch.setattr(manifest, "SPECS", tmp_path)
    code, text = _run("check", data["protocol"], "--walks", "0")
    assert code == 2, text
    assert f"{data['module']}.tla:{at + 1}" in text
    assert "Traceback" not in text
