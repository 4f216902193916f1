"""Known bugs and KIP-described hazards, as behaviours kept apart from the reference: one
``Variant`` type, one module per protocol holding its ``VARIANTS`` (and ``FINDINGS``):

* ``consumer.py``, ``streams_classic.py``: the reference with a buggy release's rules
  switched on through the scope's ``Behaviour`` (profile ``custom``);
* ``streams_group.py``, ``consumer_group.py``: a reference scope with rules switched
  (the scope's ``switches``, named in the model's ``SWITCHES``), and ``FINDINGS``: what
  Kafka itself does (no rule switched) and the model's properties reject, each with the
  model's candidate fix.

Each variant is the smallest scope in which the bug shows and the property expected to
catch it; the reference passes every variant's own (reference) scope. The protocol's room
(``groupcheck/protocols/<package>.py``) runs them in the main job.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, kw_only=True)
class Variant:
    key: str            # JIRA key, hazard or finding name
    title: str
    scope: object       # the reference scope: the reference passes it
    buggy: object       # the same scope with the bug's rules on: the scope that shows it
    expect: str         # the property BFS's shortest counterexample violates
    doc: str
    also: tuple[str, ...] = ()        # other properties a longer run may break first
    hypothesis_finds: bool = True     # False: deeper than Hypothesis reaches at CI budget
    # steps per Hypothesis test case when hunting it: a bug that needs its faults early (two
    # lost join responses in a row) is found by many short cases sooner than by a few long ones
    hunt_steps: int = 100
    fixed: object = None    # a finding: its scope under the model's candidate fix (None: not a finding)

    @property
    def caught_by(self) -> tuple[str, ...]:
        return (self.expect,) + self.also

    @property
    def behaviour(self):
        """The buggy scope's behaviour (a ``Behaviour``, or the epoch protocols' ``Rules``:
        profile and switches): a profile whose behaviour is this one ships the bug."""
        return self.buggy.behaviour

    def buggy_scope(self):
        return self.buggy

    def reference_scope(self):
        return self.scope

    def fixed_scope(self):
        if self.fixed is None:
            raise ValueError(f"{self.key} is not a finding: it has no candidate fix")
        return self.fixed


def with_behaviour(*, behaviour, scope, **fields) -> Variant:
    """A variant whose buggy scope is ``scope`` under ``behaviour`` (profile ``custom``):
    the consumer's and streams-classic's known bugs."""
    return Variant(scope=scope, buggy=replace(scope, profile="custom", behaviour=behaviour), **fields)


def with_rules(*, rules, scope, fix: tuple[str, ...] = (), fix_profile: str | None = None, **fields) -> Variant:
    """A variant whose buggy scope is ``scope`` under ``rules`` (a profile and switches):
    the epoch protocols' known bugs. A finding names the model's candidate fix: the
    switches ``fix`` and, where the fix is a profile, ``fix_profile``."""
    fixed = None
    if fix or fix_profile:
        fixed = replace(scope, switches=fix, profile=fix_profile or scope.profile)
    return Variant(scope=scope, buggy=replace(scope, profile=rules.profile, switches=rules.switches), fixed=fixed,
                   **fields)


def lookup(variants: tuple[Variant, ...], key: str, unknown: str) -> Variant:
    """The variant ``key``; a KeyError ``unknown`` (naming what is looked up) lists the known."""
    for v in variants:
        if v.key == key:
            return v
    raise KeyError(f"{unknown} {key!r}; known: {', '.join(v.key for v in variants)}")
