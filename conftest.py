"""Shared pytest setup: Hypothesis profiles (see properties/profiles.py), and fresh model
caches for every test."""
import sys

import pytest

from groupcheck.properties import profiles

profiles.load()


@pytest.fixture(autouse=True)
def _fresh_model_caches():
    """Some tests monkeypatch a model function to break a rule: the caches the model keeps
    for the search (``functools.lru_cache`` on pure helpers) must not answer with what an
    earlier test computed, nor keep a broken rule's answers for a later one."""
    for name, module in list(sys.modules.items()):
        if name == "groupcheck.model" or name.startswith("groupcheck.model."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
    yield
