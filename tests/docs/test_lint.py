"""The linter: ``ruff check`` on the repository, with the settings in pyproject.toml's [tool.ruff]."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_check_is_clean():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"ruff check found problems:\n{run.stdout}{run.stderr}"
