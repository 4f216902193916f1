"""A spec folder with one rule of its module changed, for the tests that show a changed
rule is caught by the cross-check (tests/spec/test_spec_*.py)."""
from __future__ import annotations

import shutil

from groupcheck.spec import crosscheck, manifest


def changed_bundle(bundle: manifest.Bundle, tmp_path, old: str, new: str, module: str | None = None) -> manifest.Bundle:
    """A copy of ``bundle``'s folder under ``tmp_path`` whose spec module (or ``module``, a
    variant's) has its one occurrence of ``old`` replaced by ``new``."""
    folder = tmp_path / bundle.folder.name
    shutil.copytree(bundle.folder, folder)
    module = folder / f"{module or bundle.module}.tla"
    text = module.read_text()
    assert text.count(old) == 1, old
    module.write_text(text.replace(old, new))
    crosscheck._SPECS.clear()
    return manifest.load(bundle.protocol.name, folder)


def assert_change_caught(bundle: manifest.Bundle, tmp_path, old: str, new: str, config) -> None:
    """The cross-check at ``config`` (a manifest config's name, or a Config) fails once
    ``old`` is ``new``: it reports differences, or the changed spec cannot even be evaluated
    along the model's states (an error naming the module and line)."""
    changed = changed_bundle(bundle, tmp_path, old, new)
    pinned = config if isinstance(config, manifest.Config) else next(c for c in changed.configs if c.name == config)
    try:
        report = crosscheck.check_config(changed, pinned)
    except crosscheck.SpecError as e:
        assert f"{bundle.module}.tla:" in str(e)
        return
    assert report.problems, f"changing {old!r} went unnoticed"


def spec_trace(bundle: manifest.Bundle, scope, path: list[int], tmp_path):
    """``groupcheck spec trace`` on the ITF trace groupcheck writes for ``path``: the CLI's
    result (exit_code, stdout)."""
    import json

    from typer.testing import CliRunner

    from groupcheck import traces
    from groupcheck.cli import app
    trace = tmp_path / "cx.itf.json"
    trace.write_text(json.dumps(traces.build(bundle.model, scope, path, {})))
    return CliRunner().invoke(app, ["spec", "trace", str(trace)])
