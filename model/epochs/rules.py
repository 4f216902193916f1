"""The small language request-validation rules of both epoch protocols are written in.

A rule's condition is a function of an ``Ops`` and a protocol's ``View`` of the request:
``PY`` runs it on Python values here, ``properties/smt/*_request_validation.py`` builds z3 terms
with z3's ``And`` / ``Or`` / ``Not``, so one rule list is both run and proved.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple


class Ops(NamedTuple):
    And: Callable[..., Any]
    Or: Callable[..., Any]
    Not: Callable[[Any], Any]


PY = Ops(lambda *a: all(a), lambda *a: any(a), lambda a: not a)
