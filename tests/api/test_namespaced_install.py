"""The installed package lives under one name: ``groupcheck.model`` and
``groupcheck.properties``, never top-level ``model`` or ``properties`` that a user's own
project may also have. The wheel is built from this checkout and installed into a fresh
venv (without dependencies: only the layout is under test)."""
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # built from a copy of the tracked files: setuptools writes build/ into the folder it builds, and a
    # build/ left by an earlier build would put modules since removed into the wheel
    source = tmp_path_factory.mktemp("source")
    for rel in subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True,
                              text=True).stdout.split("\0"):
        src, dest = ROOT / rel, source / rel
        if rel and (src.is_symlink() or src.is_file()):
            dest.parent.mkdir(parents=True, exist_ok=True)
            if src.is_symlink():
                dest.symlink_to(src.readlink())
            else:
                shutil.copy2(src, dest)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                   check=True, cwd=source, timeout=600, capture_output=True)
    (found,) = out.glob("groupcheck-*.whl")
    return found


@pytest.mark.slow
def test_the_wheel_holds_model_and_properties_only_under_groupcheck(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"groupcheck"}, tops
    assert "groupcheck/model/core.py" in names
    assert "groupcheck/model/consumer/step.py" in names
    assert "groupcheck/properties/stateful.py" in names
    # the protocols' registry imports every room and its known bugs: both must be in the wheel
    assert "groupcheck/protocols/consumer_group.py" in names
    assert "groupcheck/properties/known_bugs/consumer_group.py" in names


@pytest.mark.slow
def test_a_fresh_venv_imports_groupcheck_model_and_no_top_level_model(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    # a clean environment: a PYTHONPATH naming a checkout would make pip see groupcheck as installed already
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=600,
                   capture_output=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    probe = ("import importlib.util, groupcheck.model.core as core; print(core.__file__); "
             "print(importlib.util.find_spec('model'), importlib.util.find_spec('properties'))")
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    where, specs = out.stdout.splitlines()
    assert where.startswith(str(env_dir)), where
    assert specs == "None None", specs
