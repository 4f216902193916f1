"""The leader's StreamsPartitionAssignor#assign: version negotiation, then task placement.

Version rules (``../shared/kafka-behavior.md`` A1, checked against Kafka's source; the
README's audit table lists every branch). ``minReceived`` is the lowest usedVersion the
leader can read and ``minSupported`` the lowest latestSupportedVersion; Kafka starts both
at the leader's LATEST_SUPPORTED_VERSION, so with no readable subscription they stay there.

* pre-probing (< 2.0): a subscription newer than the leader knows cannot be decoded;
  assign() throws and the leader's thread dies (KAFKA-6054).
* kip-268 (2.0-2.3): future subscriptions get "an empty Assignment back"; every other
  member gets its previous tasks back at minReceived. A future subscription next to a
  v1/v2 one is an IllegalStateException (the leader dies).
* kafka-2.6+ (2.4 on): a normal assignment encoded at minReceived advertising
  minSupported, future members included; a future subscription next to a v1/v2 one is an
  IllegalStateException up to 2.6 and ASSIGNMENT_ERROR for every member from 2.7.

``assign`` never lets a Python error escape on any set of subscriptions: a round it is
handed must have the leader among the joined members and a subscription from each
(``RoundError`` says what is missing otherwise).
"""
from __future__ import annotations

from typing import NamedTuple

from ..assignors import streams_tasks as tasks
from ..partitions import bits
from . import releases as rel
from .scope import StreamsScope, family
from .state import ASSIGNMENT_ERROR, Assignment, State, Subscription

PROBEABLE = rel.EARLIEST_PROBEABLE_VERSION


class RoundError(ValueError):
    """``leader.assign`` was handed something that is not a round Kafka's leader could see."""


class Outcome(NamedTuple):
    failure: str                                   # why assign() threw; "" when it did not
    assignments: tuple[tuple[int, Assignment], ...]
    note: str                                      # one line for a story
    learner: bool = False                          # placed by KIP-429's learner assignor


def _empty(version: int, supported: int, generation: int, error: str = "") -> Assignment:
    return Assignment(version=version, supported=supported, error=error, active=0, standby=0, learning=0, learned=0,
                      followup=False, generation=generation)


def kafka_8649_fixed(scope: StreamsScope, release: rel.Release) -> bool:
    """The release ships KAFKA-8649's fix (2.1+) and the scope has not switched it off."""
    return release.kafka_8649_fix and scope.behaviour.advertise_group_min


def answers_with_error(scope: StreamsScope, release: rel.Release) -> bool:
    """A kafka-2.6+ leader answers a future subscription next to a v1/v2 one with
    ASSIGNMENT_ERROR (2.7+, and every release under the kafka-2.6+ profile) rather than
    throwing IllegalStateException (2.4-2.6)."""
    return release.assignment_error or scope.behaviour.probing == rel.KAFKA_26


def _check_round(scope: StreamsScope, state: State, leader: int) -> None:
    """What Kafka's leader always has: its own subscription among the joined members'."""
    def bad(why: str) -> RoundError:
        return RoundError(f"leader.assign(leader={leader}): {why}; call it on a state where every "
                          f"joined member has sent JoinGroup, the leader among them (as step's assign does)")

    n = len(state.members)
    if not 0 <= leader < n:
        raise bad(f"no member slot {leader} (the state has {n})")
    if leader not in state.group.joined:
        raise bad("the leader has not joined the round")
    for s in state.group.joined:
        if not 0 <= s < n or state.members[s].sub is None:
            raise bad(f"joined slot {s} has no subscription")
        if s // scope.threads >= len(state.instances) or \
                not 0 <= state.instances[s // scope.threads].stage < len(scope.plan):
            raise bad(f"slot {s}'s instance runs no configuration of the plan")


def assign(scope: StreamsScope, state: State, leader: int, generation: int) -> Outcome:
    """StreamsPartitionAssignor#assign as the group leader runs it: decode the subscriptions
    (version probing, KIP-268), then the task assignor, then encode each member's assignment."""
    _check_round(scope, state, leader)
    cfg = scope.plan[state.instances[leader // scope.threads].stage]
    own = rel.release(cfg.release)
    fam = family(scope, cfg.release)
    joined = state.group.joined
    subs = {s: state.members[s].sub for s in joined}
    future = tuple(s for s in joined if subs[s].used > own.latest)
    known = tuple(s for s in joined if s not in future)
    if fam == rel.PRE_PROBING and future:
        # SubscriptionInfo.decode (0.10.0-1.1): "unable to decode subscription data"
        v = max(subs[s].used for s in future)
        return Outcome(f"TaskAssignmentException: Kafka Streams {own.name} cannot decode a v{v} "
                       f"subscription (knows up to v{own.latest})", (), "")
    min_received = min([own.latest] + [subs[s].used for s in known])
    # 2.0-2.3 fold in the readable subscriptions' latestSupportedVersion, 2.4+ every one
    # (updateMinSupportedVersion, 2.4.1). (v1/v2 carry none; with one of them readable,
    # minReceived < 3 and no supported version goes on the wire)
    counted = joined if fam == rel.KAFKA_26 else known
    min_supported = min([own.latest] + [subs[s].latest for s in counted])
    if future and min_received < PROBEABLE:
        return _future_next_to_old(scope, own, fam, joined, future, subs, min_received, generation)
    if fam == rel.KIP_268 and not kafka_8649_fixed(scope, own):
        advertised = own.latest          # 2.0 (and KAFKA-8649's switch): the leader's own LATEST
    else:
        advertised = min_supported
    supported = advertised if min_received >= PROBEABLE else 0
    if future and fam == rel.KIP_268:
        return _probing_answer(scope, state, own, joined, future, min_received, supported, generation)
    # KIP-268: "the leader should be responsible to trigger this final rebalance"; Kafka's
    # 2.1+ members trigger it themselves (member.on_assignment), so only the kip-268
    # profile's leader does
    final = (fam == rel.KIP_268 and scope.behaviour.probing == rel.KIP_268
             and scope.behaviour.leader_final_rebalance
             and PROBEABLE <= min_received < advertised)
    try:
        placed, learner = _place(scope, state, leader, joined, future, own.cooperative)
    except tasks.PlacementError as e:      # a registered task assignor's invalid answer
        return Outcome(str(e), (), "")
    out = []
    for s in joined:
        active, standby, learning, learned, followup = placed[s]
        out.append((s, Assignment(version=min_received, supported=supported, error="", active=active, standby=standby,
                                  learning=learning, learned=learned, followup=followup or (final and s == leader),
                                  generation=generation)))
    note = f"v{min_received}" + (f", supported v{supported}" if supported else "")
    if future:
        note += f"; future v{max(subs[s].used for s in future)} member(s) placed too"
    if final:
        note += "; the leader will trigger the final rebalance"
    return Outcome("", tuple(sorted(out)), note, learner)


def _future_next_to_old(scope, own, fam, joined, future, subs, min_received, generation) -> Outcome:
    """A future subscription next to a v1/v2 one: no version both can read.
    StreamsPartitionAssignor#assign / checkMetadataVersions: "Received a future (version
    probing) subscription [...] and an incompatible pre Kafka 2.0 subscription"."""
    v = subs[future[0]].used
    if fam == rel.KAFKA_26 and answers_with_error(scope, own):
        # 2.7+: caught, errorAssignment to every member (the future ones too: they sit in
        # the FUTURE_ID client), encoded at LATEST_SUPPORTED_VERSION
        err = _empty(own.latest, own.latest, generation, ASSIGNMENT_ERROR)
        return Outcome("", tuple((s, err) for s in joined),
                       f"future v{v} next to v{min_received}: ASSIGNMENT_ERROR to everyone")
    return Outcome(f"IllegalStateException: a future (v{v}) and a pre-2.0 (v{min_received}) "
                   f"subscription at the same time", (), "")


def _probing_answer(scope, state, own, joined, future, min_received, supported, generation) -> Outcome:
    """2.0-2.3 versionProbingAssignment: the future members get an empty assignment, every
    other member its previous active and standby tasks back at minReceived.

    KIP-268 (and Kafka 2.0, or with KAFKA-8649's switch off) encodes the empty answer at
    "(used-version == supported-version) as leader's supported-version"; with the fix
    (2.1-2.3) it is AssignmentInfo(minReceived, minSupported). Before the fix each thread
    got its whole instance's previous tasks (clientMetadata.state.prevActiveTasks()), after
    it its own (prevActiveTasksForConsumer)."""
    shipped = scope.behaviour.probing == "release"
    fixed = kafka_8649_fixed(scope, own)
    answer = (min_received, supported) if shipped and fixed else (own.latest, own.latest)
    whole_instance = shipped and not fixed
    out = []
    for s in joined:
        if s in future:
            out.append((s, _empty(*answer, generation)))
            continue
        sub = state.members[s].sub
        prev, standby = sub.prev, sub.standby
        if whole_instance:
            mates = [o for o in joined if o // scope.threads == s // scope.threads and o not in future]
            prev = _or(state.members[o].sub.prev for o in mates)
            standby = _or(state.members[o].sub.standby for o in mates)
        out.append((s, Assignment(version=min_received, supported=supported, error="", active=prev, standby=standby,
                                  learning=0, learned=0, followup=False, generation=generation)))
    return Outcome("", tuple(out),
                   f"version probing: v{own.latest} leader answers future subscription(s) with an empty "
                   f"v{answer[0]} assignment; the rest keep their tasks at v{min_received}")


def _place(scope: StreamsScope, state: State, leader: int, joined: tuple[int, ...], future: tuple[int, ...],
           cooperative_aware: bool) -> tuple[dict[int, tuple[int, int, int, int, bool]], bool]:
    """Per member slot: (active, standby, learning, learned, followup)."""
    # clients oldest first (by their threads' place in the group's member order): every
    # tie below is broken by seniority, so renaming instances renames the outcome
    by_instance: dict[int, list[int]] = {}
    for s in sorted(joined):
        by_instance.setdefault(s // scope.threads, []).append(s)
    rank = {s: i for i, s in enumerate(state.group.order)}
    ranked = sorted(by_instance.items(), key=lambda kv: min(rank.get(s, len(rank) + s) for s in kv[1]))
    history = state.members[leader].history
    view = {s: _readable(state.members[s].sub, s in future) for s in joined}
    clients = []
    for inst, slots in ranked:
        subs: list[Subscription] = [view[s] for s in slots]
        clients.append(tasks.Client(instance=inst, prev=_or(x.prev for x in subs), owned=_or(x.owned for x in subs),
                                    standby=_or(x.standby for x in subs), learning=_or(x.learning for x in subs),
                                    ready=_or(x.ready for x in subs), leaving=any(x.leaving for x in subs),
                                    new=history >= 0 and not history >> inst & 1))
    learner = scope.task_assignor == "learner" and cooperative_aware
    registered = tasks.REGISTERED.get(scope.task_assignor) if scope.task_assignor not in tasks.BUILT_IN else None
    if registered is not None:
        lead = [c.instance for c in clients].index(leader // scope.threads)
        threads = tuple(len(slots) for _, slots in ranked)
        placement = registered(tasks.Request(clients=tuple(clients), tasks=scope.all_tasks, standbys=scope.standbys,
                                             threads=threads, leader=lead, cooperative=cooperative_aware))
    elif learner:
        lead = [c.instance for c in clients].index(leader // scope.threads)
        placement = tasks.learner(clients, scope.all_tasks, scope.standbys, lead)
    else:
        placement = tasks.sticky(clients, scope.all_tasks, scope.standbys)
    out: dict[int, list] = {}
    for c, (inst, slots) in enumerate(ranked):
        prevs = [view[s].prev | view[s].owned for s in slots]
        actives = tasks.spread(placement.active[c], prevs)
        standbys = tasks.spread(placement.standby[c], [view[s].standby for s in slots])
        learnings = tasks.spread(placement.learning[c], [view[s].learning for s in slots])
        elsewhere = _or(placement.learning[d] for d in range(len(clients)) if d != c)
        followup = bool(placement.followup) and placement.followup[c]
        for i, s in enumerate(slots):
            out[s] = [actives[i], standbys[i], learnings[i], actives[i] & elsewhere, followup]
    if cooperative_aware:
        # KIP-429: a task another member still runs is withheld this round; the member
        # it goes to rejoins right away (nextRebalanceTime 0) to collect it.
        for s in joined:
            others = _or(view[o].owned for o in joined if o != s)
            for t in bits(out[s][0] & others):
                out[s][0] &= ~(1 << t)
                out[s][3] &= ~(1 << t)
                out[s][4] = True
    return {s: tuple(v) for s, v in out.items()}, learner


def _readable(sub: Subscription, future: bool) -> Subscription:
    """What the leader reads of a subscription: of a future one only the consumer
    protocol's ownedPartitions (SubscriptionInfo.decode reads a future version's two
    version fields and nothing else, so its taskOffsetSums / prevTasks are empty)."""
    return sub._replace(prev=0, standby=0, learning=0, ready=0, leaving=False) if future else sub


def _or(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out
