"""Deliberately broken group coordinators: each breaks one rule of Kafka's GroupCoordinator
and must be flagged by ``groupcheck conform --role group-coordinator`` with the claim in
``EXPECTED``. Use one in process: ``--coordinator groupcheck.conform.targets.broken.coordinators:NoGenerationBump``.
"""
from __future__ import annotations

from groupcheck.model import consumer as gc
from groupcheck.model.consumer import ILLEGAL_GENERATION, NONE, PREPARING, REBALANCE_IN_PROGRESS

from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator


class NoGenerationBump(ReferenceCoordinator):
    """Completes a join without incrementing the generation (the first one excepted)."""

    name = "no-generation-bump"

    def after(self, before, outcome):
        g = outcome.group
        if g.generation == before.generation + 1 and before.generation >= 1:
            out = tuple((s, r._replace(generation=before.generation) if r.kind == "JoinGroupResponse" else r)
                        for s, r in outcome.out)
            return outcome._replace(group=g._replace(generation=before.generation), out=out)
        return outcome


class HeartbeatHidesRebalance(ReferenceCoordinator):
    """Answers a Heartbeat during PreparingRebalance with NONE instead of
    REBALANCE_IN_PROGRESS (and a stale one with NONE instead of ILLEGAL_GENERATION): the
    members never learn that they must rejoin."""

    name = "heartbeat-hides-rebalance"

    def after(self, before, outcome):
        out = tuple((s, r._replace(error=NONE) if r.kind == "HeartbeatResponse"
                     and r.error in (ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS) else r) for s, r in outcome.out)
        return outcome._replace(out=out)


class EagerJoin(ReferenceCoordinator):
    """Completes a join as soon as the rebalance starts, without waiting for every member."""

    name = "eager-join"

    def after(self, before, outcome):
        g = outcome.group
        if g.status != PREPARING or not g.members:
            return outcome
        joined = g._replace(members=tuple(m for m in g.members if m.joined))
        done = gc.maybe_complete_join(joined)
        return gc.chain(outcome, done)


class SilentSyncAbort(ReferenceCoordinator):
    """Starts a rebalance without answering the SyncGroups waiting in CompletingRebalance."""

    name = "silent-sync-abort"

    def after(self, before, outcome):
        out = tuple((s, r) for s, r in outcome.out
                    if not (r.kind == "SyncGroupResponse" and r.error == REBALANCE_IN_PROGRESS))
        return outcome._replace(out=out)


class StaleCommitAccepted(ReferenceCoordinator):
    """Accepts an OffsetCommit carrying another generation (ILLEGAL_GENERATION in Kafka's
    GroupCoordinator.validateOffsetCommit): a fenced zombie's commits overwrite the new
    owner's."""

    name = "stale-commit-accepted"

    def after(self, before, outcome):
        out = tuple((s, r._replace(error=NONE) if r.kind == "OffsetCommitResponse"
                     and r.error == ILLEGAL_GENERATION else r) for s, r in outcome.out)
        return outcome._replace(out=out)


BROKEN = {c.name: c for c in (NoGenerationBump, HeartbeatHidesRebalance, EagerJoin, SilentSyncAbort,
                              StaleCommitAccepted)}
# the claim each must be flagged with
EXPECTED = {"no-generation-bump": "generation_rules", "heartbeat-hides-rebalance": "same_errors",
            "eager-join": "same_held", "silent-sync-abort": "same_held", "stale-commit-accepted": "commit_fencing"}
