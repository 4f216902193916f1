"""The leader's StreamsPartitionAssignor#assign: version negotiation, then task placement.

Version rules (``../shared/kafka-behavior.md`` A1), with ``minReceived`` the lowest
usedVersion the leader can read and ``minSupported`` the lowest latestSupportedVersion:

* pre-probing (< 2.0): a subscription newer than the leader knows cannot be decoded;
  assign() throws and the leader's thread dies (KAFKA-6054).
* kip-268 (2.0-2.5): future subscriptions get "an empty Assignment back [...] encoding
  both version numbers (used-version == supported-version) as leader's supported-version";
  every other member gets its previous tasks back at minReceived. A future subscription
  next to a v1/v2 one is an IllegalStateException (the leader dies).
* kafka-2.6+: a normal assignment encoded at minReceived advertising minSupported; a
  future subscription next to a v1/v2 one gives every member ASSIGNMENT_ERROR.
"""
from __future__ import annotations

from typing import NamedTuple

from ..assignors import streams_tasks as tasks
from ..partitions import bits
from . import releases as rel
from .scope import StreamsScope, family
from .state import ASSIGNMENT_ERROR, Assignment, State, Subscription


class Outcome(NamedTuple):
    failure: str                                   # why assign() threw; "" when it did not
    assignments: tuple[tuple[int, Assignment], ...]
    note: str                                      # one line for a story
    learner: bool = False                          # placed by seed 002's learner assignor


def _empty(version: int, supported: int, generation: int, error: str = "") -> Assignment:
    return Assignment(version, supported, error, 0, 0, 0, 0, False, generation)


def assign(scope: StreamsScope, state: State, leader: int, generation: int) -> Outcome:
    cfg = scope.plan[state.instances[leader // scope.threads].stage]
    own = rel.release(cfg.release)
    fam = family(scope, cfg.release)
    joined = state.group.joined
    subs = {s: state.members[s].sub for s in joined}
    future = [s for s in joined if subs[s].used > own.latest]
    known = [s for s in joined if s not in future]
    if fam == rel.PRE_PROBING and future:
        v = max(subs[s].used for s in future)
        return Outcome(f"Kafka Streams {own.name} cannot decode a v{v} subscription (knows up to "
                       f"v{own.latest}): TaskAssignmentException", (), "")
    min_received = min(subs[s].used for s in known)
    min_supported = min(subs[s].latest for s in joined)
    if future and min_received < rel.EARLIEST_PROBEABLE_VERSION:
        if fam == rel.KIP_268:
            return Outcome(f"IllegalStateException: a future (v{subs[future[0]].used}) and a pre-2.0 "
                           f"(v{min_received}) subscription at the same time", (), "")
        # StreamsPartitionAssignor#errorAssignment encodes at LATEST_SUPPORTED_VERSION: the
        # error code exists only from AssignmentInfo v4
        err = _empty(own.latest, own.latest, generation, ASSIGNMENT_ERROR)
        return Outcome("", tuple((s, err) for s in joined),
                       f"future v{subs[future[0]].used} next to v{min_received}: ASSIGNMENT_ERROR to everyone")
    if fam == rel.KIP_268 and not scope.behaviour.advertise_group_min:
        advertised = own.latest          # KAFKA-8649: the leader's own version
    else:
        advertised = min_supported
    supported = advertised if min_received >= rel.EARLIEST_PROBEABLE_VERSION else 0
    if future and fam == rel.KIP_268:
        out = [(s, Assignment(min_received, supported, "", subs[s].prev, subs[s].standby, 0, 0, False,
                              generation)) for s in known]
        out += [(s, _empty(own.latest, own.latest, generation)) for s in future]
        return Outcome("", tuple(sorted(out)),
                       f"version probing: v{own.latest} leader answers future subscription(s) with an empty "
                       f"assignment; the rest keep their tasks at v{min_received}")
    # KIP-268: "the leader should be responsible to trigger this final rebalance"; Kafka's
    # 2.1-2.5 members trigger it themselves (member.on_assignment), so only the kip-268
    # profile's leader does
    final = (fam == rel.KIP_268 and scope.behaviour.probing == rel.KIP_268
             and scope.behaviour.leader_final_rebalance
             and rel.EARLIEST_PROBEABLE_VERSION <= min_received < advertised)
    placed, learner = _place(scope, state, leader, joined, own.cooperative)
    out = []
    for s in joined:
        active, standby, learning, learned, followup = placed[s]
        out.append((s, Assignment(min_received, supported, "", active, standby, learning, learned,
                                  followup or (final and s == leader), generation)))
    note = f"v{min_received}" + (f", supported v{supported}" if supported else "")
    if final:
        note += "; the leader will trigger the final rebalance"
    return Outcome("", tuple(sorted(out)), note, learner)


def _place(scope: StreamsScope, state: State, leader: int, joined: tuple[int, ...],
           cooperative_aware: bool) -> tuple[dict[int, tuple[int, int, int, int, bool]], bool]:
    """Per member slot: (active, standby, learning, learned, followup)."""
    # clients oldest first (by their threads' place in the group's member order): every
    # tie below is broken by seniority, so renaming instances renames the outcome
    by_instance: dict[int, list[int]] = {}
    for s in sorted(joined):
        by_instance.setdefault(s // scope.threads, []).append(s)
    order = state.group.order
    ranked = sorted(by_instance.items(), key=lambda kv: min(order.index(s) for s in kv[1]))
    history = state.members[leader].history
    clients = []
    for inst, slots in ranked:
        subs: list[Subscription] = [state.members[s].sub for s in slots]
        clients.append(tasks.Client(
            inst, _or(x.prev for x in subs), _or(x.owned for x in subs), _or(x.standby for x in subs),
            _or(x.learning for x in subs), _or(x.ready for x in subs), any(x.leaving for x in subs),
            history >= 0 and not history >> inst & 1))
    learner = scope.task_assignor == "learner" and cooperative_aware
    if learner:
        lead = [c.instance for c in clients].index(leader // scope.threads)
        placement = tasks.learner(clients, scope.all_tasks, scope.standbys, lead)
    else:
        placement = tasks.sticky(clients, scope.all_tasks, scope.standbys)
    out: dict[int, list] = {}
    for c, (inst, slots) in enumerate(ranked):
        prevs = [state.members[s].sub.prev | state.members[s].sub.owned for s in slots]
        actives = tasks.spread(placement.active[c], prevs)
        standbys = tasks.spread(placement.standby[c], [state.members[s].sub.standby for s in slots])
        learnings = tasks.spread(placement.learning[c], [state.members[s].sub.learning for s in slots])
        elsewhere = _or(placement.learning[d] for d in range(len(clients)) if d != c)
        for i, s in enumerate(slots):
            out[s] = [actives[i], standbys[i], learnings[i], actives[i] & elsewhere, False]
    if cooperative_aware:
        # KIP-429: a task another member still runs is withheld this round; the member
        # it goes to rejoins right away (nextRebalanceTime 0) to collect it.
        for s in joined:
            others = _or(state.members[o].sub.owned for o in joined if o != s)
            for t in bits(out[s][0] & others):
                out[s][0] &= ~(1 << t)
                out[s][3] &= ~(1 << t)
                out[s][4] = True
    return {s: tuple(v) for s, v in out.items()}, learner


def _or(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out
