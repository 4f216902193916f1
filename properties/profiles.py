"""Hypothesis profiles: ``dev`` (fast), ``ci`` (derandomized) and ``thorough``.

Choose one with pytest's ``--hypothesis-profile NAME`` or the environment variable
``GROUPCHECK_HYPOTHESIS_PROFILE``; the default is ``ci`` when ``CI`` is set, else
``dev``. The example database (``.hypothesis/``) is kept, so a failure found once is
tried first next time.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile("dev", max_examples=60, stateful_step_count=60, **COMMON)
settings.register_profile("ci", max_examples=200, stateful_step_count=80, derandomize=True,
                          print_blob=True, **COMMON)
settings.register_profile("thorough", max_examples=3000, stateful_step_count=150, **COMMON)


def load() -> str:
    name = os.environ.get("GROUPCHECK_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    settings.load_profile(name)
    return name
