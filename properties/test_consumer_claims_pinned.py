"""Each of the consumer model's Kafka-rule claims (``model/consumer/coordinator_claims.py``,
``listener_claims.py``) is pinned: the seeded rule mistake it was written to catch
(``mutation/catalog.py``) makes BFS at the named reference scope fail with exactly that
claim. Weaken a claim (say, make it never report) and its row here fails.

Each row copies ``model/`` to a temporary folder, applies the mutant there, and runs BFS
in a subprocess that imports the copy, so the repository's model is never touched."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mutation.catalog import by_name
from mutation.mutant import apply

ROOT = Path(__file__).resolve().parents[1]

# (claim, the catalog mutant it catches, the consumer reference scope that shows it)
PINS = [
    ("rebalance_on_change_only", "gc-leader-rejoin-no-rebalance", "eager-v0-metadata"),
    ("generation_per_round", "gc-join-completes-on-first-member", "cooperative"),
    ("coordinator_answers", "gen-sync-preparing-returns-assignment", "cooperative"),
    ("leave_group_on_close", "leave-never-sent", "upgrade"),
    ("callbacks_before_join", "cb-join-prepare-every-join", "eager"),
    ("callbacks_on_leave", "leave-always-revoked", "downgrade"),
    ("fencing_resets_generation", "err-fenced-keeps-generation", "cooperative"),
    ("heartbeat_loss_keeps_membership", "err-lost-heartbeat-rejoins", "cooperative"),
    ("callbacks_consistent", "cb-complete-no-subscription-check", "metadata"),
    ("rebalance_in_progress_rejoins", "err-heartbeat-rebalance-in-progress-ignored", "cooperative"),
    ("lost_only_when_fenced", "cb-lost-but-still-claimed", "cooperative"),
]

PROBE = """
import sys
from groupcheck import checker
from groupcheck.protocols import get
import groupcheck.model
assert groupcheck.model.__file__.startswith(sys.argv[1]), groupcheck.model.__file__
p = get("consumer")
r = checker.bfs(p.model, p.default_scopes()[sys.argv[2]], max_states=400_000)
print(r.violation.property if r.violation else "none")
"""


@pytest.mark.slow
@pytest.mark.parametrize("claim, mutant, scope", PINS, ids=[p[0] for p in PINS])
def test_the_claim_catches_the_rule_mistake_it_was_written_for(tmp_path, claim, mutant, scope):
    # the copy imports as groupcheck.model through the copied package's groupcheck/model link
    shutil.copytree(ROOT / "groupcheck", tmp_path / "groupcheck", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "model", tmp_path / "model", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "properties").symlink_to(ROOT / "properties")   # groupcheck/properties links here: this checkout's
    apply(tmp_path, by_name(mutant))
    env_path = f"{tmp_path}:{ROOT}"
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path), scope], capture_output=True, text=True,
                         env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"}, cwd=tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == claim, f"{mutant} at consumer/{scope}: {out.stdout.strip()}"
