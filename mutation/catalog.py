"""The catalog of seeded rule mutations of ``model/``.

Each mutant is one plausible protocol-rule mistake (most of them made by Kafka itself
at some release, the rest the obvious misreadings of a KIP sentence), never a rename,
a message or a property. ``old`` occurs exactly once in ``path``
(``tests/mutation/test_mutation_catalog.py`` checks it at HEAD).
"""
from __future__ import annotations

from .mutant import Mutant

CLIENT = "model/consumer/client.py"
GC = "model/consumer/coordinator.py"
STEP = "model/consumer/step.py"
LEADER = "model/consumer/leader.py"
SEL = "model/consumer/selection.py"
ASSIGNORS = "model/assignors/__init__.py"
OWN = "model/assignors/ownership.py"
RANGE = "model/assignors/range.py"
RR = "model/assignors/roundrobin.py"
STICKY = "model/assignors/sticky.py"
TASKS = "model/assignors/streams_tasks.py"
SLEADER = "model/streams_classic/leader.py"
SMEMBER = "model/streams_classic/member.py"
SSTEP = "model/streams_classic/step.py"
SREL = "model/streams_classic/releases.py"

M = Mutant

CONSUMER_CALLBACKS = (
    M("cb-join-prepare-every-join", "consumer-callbacks", CLIENT,
      "    if c.needs_join_prepare:\n        owned, events = _on_join_prepare(scope, slot, c)",
      "    if True:\n        owned, events = _on_join_prepare(scope, slot, c)",
      "onJoinPrepare runs again on every retried JoinGroup (no needsJoinPrepare guard), so a "
      "rebalance revokes or loses twice (the double-callback bug fixed with needsJoinPrepare, KAFKA-13310/KAFKA-12983)."),
    M("cb-lost-only-on-member-reset", "consumer-callbacks", CLIENT,
      "    if c.generation == NO_GENERATION or c.member_id == NO_MEMBER:\n        if owned:",
      "    if c.member_id == NO_MEMBER:\n        if owned:",
      "onJoinPrepare treats only a cleared member id as a reset, so after ILLEGAL_GENERATION "
      "(member id kept) it revokes instead of calling onPartitionsLost."),
    M("cb-reset-revokes-not-lost", "consumer-callbacks", CLIENT,
      '            return 0, (callback(slot, "lost", owned),)',
      '            return 0, (callback(slot, "revoked", owned),)',
      "pre-KIP-429 behaviour: a fenced consumer calls onPartitionsRevoked (committing offsets "
      "it no longer may) instead of onPartitionsLost."),
    M("cb-lost-but-still-claimed", "consumer-callbacks", CLIENT,
      '            return 0, (callback(slot, "lost", owned),)',
      '            return owned, (callback(slot, "lost", owned),)',
      "KAFKA-12983-like: onPartitionsLost is called but the subscription still carries the lost "
      "partitions as ownedPartitions."),
    M("cb-eager-revoke-skipped-when-empty", "consumer-callbacks", CLIENT,
      '        return 0, (callback(slot, "revoked", owned),)',
      '        return 0, ((callback(slot, "revoked", owned),) if owned else ())',
      "EAGER onJoinPrepare skips onPartitionsRevoked when nothing is owned, though EAGER always "
      "calls it, even empty (ConsumerCoordinator#onJoinPrepare)."),
    M("cb-coop-revokes-everything", "consumer-callbacks", CLIENT,
      "    unsubscribed = owned & ~of_topics(c.subscribed, scope.stride, len(scope.partitions))",
      "    unsubscribed = owned",
      "COOPERATIVE onJoinPrepare revokes every owned partition like EAGER, instead of only those "
      "of topics no longer subscribed (KIP-429)."),
    M("cb-complete-no-subscription-check", "consumer-callbacks", CLIENT,
      "    if assigned & ~subscribed:",
      "    if False:",
      "onJoinComplete applies an assignment that no longer matches the subscription (before "
      "KAFKA-10?? added SubscriptionState#checkAssignmentMatchedSubscription)."),
    M("cb-complete-no-revoke-callback", "consumer-callbacks", CLIENT,
      '    if cooperative and revoked:\n        events.append(callback(slot, "revoked", revoked))',
      "    pass",
      "COOPERATIVE onJoinComplete drops revoked partitions without calling onPartitionsRevoked."),
    M("cb-complete-assigned-skipped-when-empty", "consumer-callbacks", CLIENT,
      '    events.append(callback(slot, "assigned", added))        # always, even when empty',
      '    if added:\n        events.append(callback(slot, "assigned", added))',
      "onPartitionsAssigned is skipped when nothing new is added (KIP-429: \"even if empty\")."),
    M("cb-complete-assigned-whole-assignment", "consumer-callbacks", CLIENT,
      "    added = assigned & ~c.owned",
      "    added = assigned",
      "COOPERATIVE onPartitionsAssigned gets the whole assignment instead of only the newly added "
      "partitions, re-initialising partitions it kept."),
    M("cb-complete-no-rejoin-after-revoke", "consumer-callbacks", CLIENT,
      "    rejoin = (cooperative and revoked) or c.joined != c.subscribed or stale_snapshot(c)",
      "    rejoin = c.joined != c.subscribed or stale_snapshot(c)",
      "COOPERATIVE consumer forgets the follow-up rebalance after revoking (KIP-429: \"If the set of "
      "revoked-partitions is non-empty, call onPartitionsRevoked and rejoin\")."),
    M("cb-complete-ignores-stale-snapshot", "consumer-callbacks", CLIENT,
      "    rejoin = (cooperative and revoked) or c.joined != c.subscribed or stale_snapshot(c)",
      "    rejoin = (cooperative and revoked) or c.joined != c.subscribed",
      "the leader does not rejoin when the metadata changed since its assignment (assignmentSnapshot "
      "ignored), so new partitions stay unassigned."),
    M("cb-complete-keeps-join-prepare-done", "consumer-callbacks", CLIENT,
      "    c = c._replace(needs_join_prepare=True)\n    subscribed =",
      "    subscribed =",
      "needsJoinPrepare is not set again after onJoinComplete, so the next rebalance skips "
      "onJoinPrepare (no revocation before rejoining)."),
)

CONSUMER_ERRORS = (
    M("err-sync-rebalance-in-progress-resets", "consumer-errors", CLIENT,
      "\n        if resp.error == REBALANCE_IN_PROGRESS:\n            return Handled(c._replace(status=IDLE), ())",
      '\n        if resp.error == REBALANCE_IN_PROGRESS:\n            return Handled(fenced(scope, c, "ILLEGAL_GENERATION"), ())',
      "KAFKA-13419's change (reverted by KAFKA-14016): SyncGroup REBALANCE_IN_PROGRESS resets the generation."),
    M("err-heartbeat-rebalance-in-progress-ignored", "consumer-errors", CLIENT,
      "\n    if resp.error == REBALANCE_IN_PROGRESS:\n        return Handled(c._replace(status=IDLE), ())",
      "\n    if resp.error == REBALANCE_IN_PROGRESS:\n        return Handled(c, ())",
      "a Heartbeat REBALANCE_IN_PROGRESS does not request a rejoin, so the member never joins the new round."),
    M("err-illegal-generation-clears-member-id", "consumer-errors", CLIENT,
      "    member_id = NO_MEMBER if error == UNKNOWN_MEMBER_ID else c.member_id",
      "    member_id = NO_MEMBER",
      "ILLEGAL_GENERATION resets the member id too (old resetGeneration), forcing a new member and "
      "a second rebalance."),
    M("err-fenced-keeps-generation", "consumer-errors", CLIENT,
      "member_id=member_id, generation=NO_GENERATION,",
      "member_id=member_id, generation=c.generation,",
      "resetStateOnResponseError does not reset the generation, so the fenced consumer's stale "
      "ownedPartitions keep their old generation."),
    M("err-fenced-skips-join-prepare", "consumer-errors", CLIENT,
      "    again = c.needs_join_prepare or scope.behaviour.fenced_clears_owned",
      "    again = c.needs_join_prepare",
      "KAFKA-12983: onJoinPrepare is not run again after a fencing mid-rebalance, so the consumer "
      "rejoins still claiming its partitions."),
    M("err-late-sync-applied", "consumer-errors", CLIENT,
      'if kind == "SyncGroup" and resp.error == NONE and scope.behaviour.apply_late_sync:',
      'if kind == "SyncGroup" and resp.error == NONE:',
      "KAFKA-13419: a SyncGroup response that arrives after the consumer gave up and rejoined is "
      "still applied."),
    M("err-lost-heartbeat-rejoins", "consumer-errors", STEP,
      '        c = c._replace(awaiting="", status=IDLE if kind != "Heartbeat" else c.status)',
      '        c = c._replace(awaiting="", status=IDLE)',
      "a lost Heartbeat response makes the consumer rejoin (Kafka only marks the coordinator "
      "unknown), so a leader forces a needless rebalance."),
)

CONSUMER_LEAVE = (
    M("leave-always-revoked", "consumer-leave", CLIENT,
      "    lost = c.generation == NO_GENERATION or c.member_id == NO_MEMBER or rebalance_in_progress(c)",
      "    lost = False",
      "onLeavePrepare always calls onPartitionsRevoked on close, even after a fencing (before "
      "KAFKA-13310's lost/revoked split)."),
    M("leave-ignores-rebalance-in-progress", "consumer-leave", CLIENT,
      "    lost = c.generation == NO_GENERATION or c.member_id == NO_MEMBER or rebalance_in_progress(c)",
      "    lost = c.generation == NO_GENERATION or c.member_id == NO_MEMBER",
      "onLeavePrepare calls onPartitionsRevoked when closing mid-rebalance, though the partitions "
      "may already be reassigned."),
    M("leave-group-when-unjoined", "consumer-leave", CLIENT,
      "    return c.member_id != NO_MEMBER and not unjoined(c)",
      "    return c.member_id != NO_MEMBER",
      "maybeLeaveGroup sends LeaveGroup while UNJOINED (after an ILLEGAL_GENERATION reset)."),
    M("leave-never-sent", "consumer-leave", CLIENT,
      "    return c.member_id != NO_MEMBER and not unjoined(c)",
      "    return False",
      "close() sends no LeaveGroup, so the group waits for the session timeout to rebalance."),
    M("leave-no-callback-on-close", "consumer-leave", STEP,
      "    events = client.leave(scope, slot, c)",
      "    events = ()",
      "close() skips onLeavePrepare: the rebalance listener never hears the partitions go."),
)

COORDINATOR_REBALANCE = (
    M("gc-leader-rejoin-no-rebalance", "coordinator-rebalance", GC,
      "    if group.status == STABLE and matches and known.member_id != group.leader:",
      "    if group.status == STABLE and matches:",
      "the coordinator answers a leader rejoining a Stable group with the current generation, "
      "though Kafka forces a rebalance (\"force a rebalance if the leader sends JoinGroup\")."),
    M("gc-stable-metadata-change-ignored", "coordinator-rebalance", GC,
      "    if group.status == STABLE and matches and known.member_id != group.leader:",
      "    if group.status == STABLE and known.member_id != group.leader:",
      "the coordinator ignores a follower's changed subscription in a Stable group."),
    M("gc-stable-rejoin-always-rebalances", "coordinator-rebalance", GC,
      "    if group.status == STABLE and matches and known.member_id != group.leader:",
      "    if False:",
      "the coordinator bumps the generation on a rejoin of an unchanged member in a Stable group."),
    M("gc-completing-same-metadata-rebalances", "coordinator-rebalance", GC,
      "    if group.status == COMPLETING and matches:",
      "    if False:",
      "a member rejoining with the same metadata during CompletingRebalance starts another rebalance."),
    M("gc-new-member-no-rebalance", "coordinator-rebalance", GC,
      "        if group.status != PREPARING:\n            added = _chain(added, prepare_rebalance(",
      "        if False:\n            added = _chain(added, prepare_rebalance(",
      "a new member joining a Stable group does not start a rebalance."),
    M("gc-leave-stable-no-rebalance", "coordinator-rebalance", GC,
      "    if group.status in (STABLE, COMPLETING):",
      "    if group.status == COMPLETING:",
      "a member leaving (or timing out of) a Stable group does not start a rebalance: its "
      "partitions stay unowned."),
    M("gc-sync-waiters-not-failed", "coordinator-rebalance", GC,
      "    if group.status == COMPLETING:\n        for m in group.members:",
      "    if False:\n        for m in group.members:",
      "moving to PreparingRebalance leaves SyncGroups waiting in CompletingRebalance unanswered "
      "(no REBALANCE_IN_PROGRESS)."),
    M("gc-join-completes-on-first-member", "coordinator-rebalance", GC,
      "    if group.status != PREPARING or not all(m.joined for m in group.members):",
      "    if group.status != PREPARING or not any(m.joined for m in group.members):",
      "the join phase completes as soon as any member has rejoined instead of waiting for all."),
    M("gc-unknown-member-admitted", "coordinator-rebalance", GC,
      "        if req.member_id not in group.pending:\n            return",
      "        if False:\n            return",
      "the coordinator admits a JoinGroup with an unknown (expelled) member id instead of "
      "answering UNKNOWN_MEMBER_ID."),
    M("gc-leader-reelected-each-generation", "coordinator-rebalance", GC,
      "    leader = group.leader if group.leader in ids else min(ids)",
      "    leader = max(ids)",
      "the coordinator elects a new leader every generation instead of keeping the current one."),
)

COORDINATOR_GENERATION = (
    M("gen-sync-stale-generation-accepted", "coordinator-generation", GC,
      "    if generation != group.generation:\n        return reply(ILLEGAL_GENERATION)",
      "    if False:\n        return reply(ILLEGAL_GENERATION)",
      "the coordinator accepts a SyncGroup of a stale generation."),
    M("gen-heartbeat-stale-generation-ok", "coordinator-generation", GC,
      "    elif generation != group.generation:\n        error = ILLEGAL_GENERATION",
      "    elif False:\n        error = ILLEGAL_GENERATION",
      "Heartbeat does not check the generation, so a zombie of an old generation is never fenced."),
    M("gen-sync-preparing-returns-assignment", "coordinator-generation", GC,
      "    if group.status == PREPARING:\n        return reply(REBALANCE_IN_PROGRESS)",
      "    if group.status == PREPARING:\n        return reply(NONE, m.assignment)",
      "a SyncGroup of the current generation in PreparingRebalance is answered with the old "
      "assignment instead of REBALANCE_IN_PROGRESS."),
    M("gen-sync-stable-late-follower-empty", "coordinator-generation", GC,
      "    if group.status == STABLE:\n        return reply(NONE, m.assignment)",
      "    if group.status == STABLE:\n        return reply(NONE, 0)",
      "a follower whose SyncGroup arrives after the leader's gets an empty assignment instead of its stored one."),
    M("gen-empty-group-resets-generation", "coordinator-generation", GC,
      "        empty = group._replace(status=EMPTY, generation=generation,",
      "        empty = group._replace(status=EMPTY, generation=0,",
      "the coordinator resets the generation to 0 when the group empties, so an old generation "
      "can become current again."),
)

KIP_792 = (
    M("kip792-same-generation-first-wins", "kip-792", OWN,
      "            elif c.generation == holder_gen:\n                tied = True",
      "            elif c.generation == holder_gen:\n                pass",
      "two claims of the same generation: the first member keeps the partition instead of "
      "nobody (KAFKA-14639's fix drops both)."),
    M("kip792-lower-generation-wins", "kip-792", OWN,
      "            elif c.generation > holder_gen:",
      "            elif c.generation < holder_gen:",
      "the claim of the lower generation wins (generation comparison inverted)."),
    M("kip792-contested-not-withheld", "kip-792", OWN,
      "        if tied:\n            contested |= 1 << b",
      "        if tied:\n            pass",
      "a partition claimed twice at the same generation is dropped from both claims but not "
      "withheld, so it can be assigned while both still own it."),
    M("kip792-v1-generation-ignored", "kip-792", LEADER,
      "    generation = sub.generation if sub.version >= 2 else sub.user_generation",
      "    generation = sub.generation",
      "the leader ignores the generation cooperative-sticky kept in userData for v0/v1 "
      "subscriptions (KAFKA-12984's 2.8 fix)."),
    M("kip792-sticky-userdata-no-generation", "kip-792", CLIENT,
      "        user_generation=c.generation if sticky_family else NO_GENERATION,",
      "        user_generation=NO_GENERATION,",
      "sticky userData carries no generation (pre KIP-341), so the leader cannot tell a "
      "zombie's claim from the owner's."),
)

COOPERATIVE = (
    M("coop-withhold-ignores-contested", "cooperative", OWN,
      "        others = contested\n",
      "        others = 0\n",
      "withholding ignores partitions claimed twice, so one may be handed to a third member while "
      "both claimants still own it."),
    M("coop-withhold-own-partitions", "cooperative", OWN,
      "            if other != mid:\n                others |= owned",
      "            others |= owned",
      "withholding also excludes a member's own previously owned partitions from its assignment."),
    M("coop-no-withholding", "cooperative", LEADER,
      "    if assignor.withholds and behaviour.withhold and behaviour.leader_cooperative_aware:",
      "    if False:",
      "the cooperative assignor skips withholding maybe-revoking partitions (KIP-429)."),
    M("coop-validate-disabled", "cooperative", OWN,
      "    return added & revoked",
      "    return 0",
      "validateCooperativeAssignment never fails, letting a custom assignor move a partition in one round."),
    M("coop-validate-builtin", "cooperative", LEADER,
      "    if leader_protocol == COOPERATIVE and (not assignor.builtin or behaviour.validate_builtin):",
      "    if leader_protocol == COOPERATIVE:",
      "KAFKA-13406: validateCooperativeAssignment also runs on the built-in cooperative-sticky assignor."),
)

ASSIGNOR_RULES = (
    M("range-extra-to-last", "assignors", RANGE,
      "            n = per + (1 if i < extra else 0)",
      "            n = per + (1 if i >= len(who) - extra else 0)",
      "RangeAssignor gives the extra partitions to the last members instead of the first."),
    M("range-drops-remainder", "assignors", RANGE,
      "            n = per + (1 if i < extra else 0)",
      "            n = per",
      "RangeAssignor drops the remainder partitions when they do not divide evenly."),
    M("roundrobin-restarts-per-partition", "assignors", RR,
      "    for b in bits(every):\n        for _ in range(n):",
      "    for b in bits(every):\n        i = 0\n        for _ in range(n):",
      "RoundRobinAssignor restarts the circle at the first member for each partition."),
    M("sticky-ignores-claims", "assignors", STICKY,
      "        claims = list(bits(m.claims & every))",
      "        claims = []",
      "the sticky assignor ignores previous ownership and reassigns from scratch (not sticky, KIP-54)."),
    M("sticky-keeps-unsubscribed-claims", "assignors", STICKY,
      "    out = {m.member_id: m.claims & m.eligible for m in members}",
      "    out = {m.member_id: m.claims for m in members}",
      "the sticky assignor keeps a member's claims on topics it no longer subscribes to."),
)

PROTOCOL_SELECTION = (
    M("sel-first-member-protocol", "protocol-selection", SEL,
      "    best = max(votes.values())\n    return min(p for p, n in votes.items() if n == best)",
      "    return next(p for p in member_protocols[0] if p in common)",
      "the coordinator takes the first member's preferred protocol instead of the majority vote."),
    M("sel-rebalance-protocol-lowest", "protocol-selection", ASSIGNORS,
      "    return max(common, key=PROTOCOL_IDS.__getitem__)",
      "    return min(common, key=PROTOCOL_IDS.__getitem__)",
      "the consumer picks the lowest commonly supported rebalance protocol (EAGER) instead of the "
      "highest id (KIP-429)."),
    M("sel-supports-empty-group-check", "protocol-selection", SEL,
      "    return bool(candidates(member_protocols) & set(protocols))",
      "    return bool(set(member_protocols[-1]) & set(protocols))",
      "supportsProtocols checks the newcomer only against the last member, not every member."),
)

STREAMS_PROBING = (
    M("st-leader-encodes-own-version", "streams-probing", SLEADER,
      "    min_received = min([own.latest] + [subs[s].used for s in known])",
      "    min_received = own.latest",
      "the Streams leader encodes the assignment at its own latest version, not the lowest "
      "version it received."),
    M("st-min-supported-known-only", "streams-probing", SLEADER,
      "    counted = joined if fam == rel.KAFKA_26 else known",
      "    counted = known",
      "a 2.4+ leader leaves the future subscriptions out of minSupported (before 2.4.1's "
      "updateMinSupportedVersion).",
      equivalent="a future subscription's latestSupportedVersion is >= its used version > the leader's "
                 "latest, and own.latest is already in the min, so adding it never lowers the minimum."),
    M("st-kafka-8649-unfixed-2.1", "streams-probing", SLEADER,
      "    if fam == rel.KIP_268 and not kafka_8649_fixed(scope, own):",
      "    if fam == rel.KIP_268:",
      "KAFKA-8649 not fixed in 2.1-2.3: the leader advertises its own LATEST as the supported version."),
    M("st-probing-empties-everyone", "streams-probing", SLEADER,
      "        if s in future:\n            out.append((s, _empty(*answer, generation)))",
      "        if True:\n            out.append((s, _empty(*answer, generation)))",
      "the version-probing leader answers every member with an empty assignment, not only the "
      "future ones (KIP-268: the others keep their tasks)."),
    M("st-probing-whole-instance-tasks", "streams-probing", SLEADER,
      "    whole_instance = shipped and not fixed",
      "    whole_instance = shipped",
      "KAFKA-8649 (prev tasks) in 2.1-2.3: each thread gets its whole instance's previous tasks in a probing answer."),
    M("st-pre-probing-decodes-future", "streams-probing", SLEADER,
      "    if fam == rel.PRE_PROBING and future:",
      "    if False:",
      "a pre-2.0 leader pretends to decode a future subscription instead of failing (KAFKA-6054).",
      equivalent="a pre-2.0 leader's minReceived is at most 2, so the very next branch (a future subscription "
                 "next to a v1/v2 one) makes assign() throw in exactly the same rounds: only the exception's "
                 "name changes (IllegalStateException for TaskAssignmentException), which no rule reads."),
    M("st-kip268-probed-no-rejoin", "streams-probing", SMEMBER,
      "        rejoin = version == supported\n",
      "        rejoin = False\n",
      "KIP-268: the probed follower downgrades but does not resend its Subscription."),
    M("st-2.0-probed-no-rejoin", "streams-probing", SMEMBER,
      '        return _Versions(used, True, False, f"probed: uses v{used} and rejoins")',
      '        return _Versions(used, False, False, f"probed: uses v{used} and rejoins")',
      "Kafka 2.0: the probed member sets versionProbingFlag but no rebalance is enforced."),
    M("st-upgrade-from-ignored-version", "streams-probing", SREL,
      '    if upgrade_from is not None and _key(upgrade_from) < _key("2.0"):\n        return min(latest, 2)',
      '    if False:\n        return min(latest, 2)',
      "upgrade.from < 2.0 no longer makes the instance send SubscriptionInfo v2 (KAFKA-6054-like)."),
)

STREAMS_ON_ASSIGNMENT = (
    M("st-member-never-upgrades", "streams-onAssignment", SMEMBER,
      '    if supported > m.used:\n        return _Versions(supported, True, True, f"upgrades',
      '    if False:\n        return _Versions(supported, True, True, f"upgrades',
      "2.4+ member ignores a higher commonlySupportedVersion, so the group never upgrades its metadata."),
    M("st-member-upgrade-no-rejoin", "streams-onAssignment", SMEMBER,
      '        return _Versions(supported, True, True, f"upgrades to v{supported} and rejoins")',
      '        return _Versions(supported, False, True, f"upgrades to v{supported} and rejoins")',
      "2.4+ member upgrades its used version but does not rejoin at once (nextScheduledRebalance)."),
    M("st-member-downgrades-to-received", "streams-onAssignment", SMEMBER,
      "        used = supported if scope.behaviour.follower_downgrades else m.used\n        return _Versions(used, True, True",
      "        used = version if scope.behaviour.follower_downgrades else m.used\n        return _Versions(used, True, True",
      "2.4+ member downgrades to the received version instead of the commonly supported one."),
    M("st-2.1-version-change-creates-tasks", "streams-onAssignment", SMEMBER,
      "    return v._replace(apply=False)",
      "    return v",
      "2.1-2.3: a version change still creates the assignment's tasks before the enforced rebalance."),
    M("st-error-code-ignored", "streams-onAssignment", SMEMBER,
      "    knows = own.assignment_error or (fam == rel.KAFKA_26 and scope.behaviour.probing == rel.KAFKA_26)",
      "    knows = False",
      "a 2.7+ thread ignores ASSIGNMENT_ERROR instead of throwing TaskAssignmentException."),
    M("st-assignment-error-skips-future", "streams-onAssignment", SLEADER,
      '        return Outcome("", tuple((s, err) for s in joined),',
      '        return Outcome("", tuple((s, err) for s in joined if s not in future),',
      "2.7+ ASSIGNMENT_ERROR is sent to the known members only, not to the future ones."),
)

STREAMS_COOPERATIVE = (
    M("st-upgrade-from-keeps-cooperative", "streams-cooperative", SREL,
      '    if upgrade_from is not None and _key(upgrade_from) < _key("2.4"):\n        return EAGER',
      '    if False:\n        return EAGER',
      "upgrade.from <= 2.3 does not switch 2.4+ Streams back to EAGER for the first bounce (KIP-429)."),
    M("st-coop-no-withhold", "streams-cooperative", SLEADER,
      "            for t in bits(out[s][0] & others):",
      "            for t in bits(0):",
      "the Streams leader does not withhold a task another member still runs (KIP-429)."),
    M("st-coop-no-followup", "streams-cooperative", SLEADER,
      "                out[s][4] = True",
      "                pass",
      "the Streams leader forgets the follow-up rebalance after withholding under COOPERATIVE."),
    M("st-eager-keeps-tasks", "streams-cooperative", SMEMBER,
      "    revoked = m.active if protocol == rel.EAGER else m.active & m.learned",
      "    revoked = m.active & m.learned",
      "an EAGER thread keeps running its active tasks while it rejoins instead of revoking them all."),
    M("st-coop-revokes-everything", "streams-cooperative", SMEMBER,
      "    revoked = m.active if protocol == rel.EAGER else m.active & m.learned",
      "    revoked = m.active",
      "a COOPERATIVE thread revokes every active task at each rebalance, like EAGER."),
)

STREAMS_WARMUPS = (
    M("st-warmup-moves-before-caught-up", "streams-warmups", TASKS,
      "        ready = [c for c in stay if clients[c].ready & bit and running <= {c}]",
      "        ready = [c for c in stay if clients[c].learning & bit and running <= {c}]",
      "an active task moves to a warm-up that has not caught up yet."),
    M("st-warmup-ready-while-running", "streams-warmups", TASKS,
      "        ready = [c for c in stay if clients[c].ready & bit and running <= {c}]",
      "        ready = [c for c in stay if clients[c].ready & bit]",
      "a caught-up warm-up takes the task while its previous owner still runs it."),
    M("st-caught-up-no-rejoin", "streams-warmups", SSTEP,
      "        members[s] = m._replace(ready=m.learning, status=JOINING)",
      "        members[s] = m._replace(ready=m.learning)",
      "a caught-up warm-up does not trigger a (probing) rebalance, so it is never promoted."),
    M("st-standby-with-active", "streams-warmups", TASKS,
      "                    and not (active[c] | learning[c] | standby[c]) & bit]",
      "                    and not standby[c] & bit]",
      "a standby is placed on the instance that runs the task as active."),
    M("st-leaving-instance-kept", "streams-warmups", TASKS,
      "    stay = [c for c, cl in enumerate(clients) if not cl.leaving] or list(range(len(clients)))",
      "    stay = list(range(len(clients)))",
      "the sticky assignor keeps giving tasks to an instance that is leaving, so it never shuts down."),
)

STREAMS_TASKS = (
    M("st-sticky-no-balance", "streams-tasks", TASKS,
      "        if c in stay and (load[c] < base or (load[c] == base and extra > 0)):",
      "        if c in stay:",
      "the sticky task assignor lets previous owners keep every task, so a new instance gets none."),
    M("st-spread-not-sticky", "streams-tasks", TASKS,
      "        i = had[0] if had else None",
      "        i = None",
      "tasks are spread over an instance's threads without regard to which thread ran them."),
    M("st-standby-never-closed", "streams-tasks", SMEMBER,
      "                                standby=a.standby, learning=a.learning,",
      "                                standby=m.standby | a.standby, learning=a.learning,",
      "a thread never closes standby tasks it is no longer assigned."),
)

STREAMS_REBALANCE = (
    M("st-join-no-rebalance", "streams-rebalance", SSTEP,
      "        if g.status != PREPARING:\n            g = _rebalance(members, g)",
      "        if False:\n            g = _rebalance(members, g)",
      "a thread joining a Stable group does not make the others rejoin."),
    M("st-leave-no-rebalance", "streams-rebalance", SSTEP,
      "    if had and any(live(m) for m in members):\n        g = _rebalance(members, g)",
      "    if False:\n        g = _rebalance(members, g)",
      "a thread leaving (stopped, crashed, failed) does not start a rebalance."),
    M("st-late-receiver-no-rejoin", "streams-rebalance", SSTEP,
      "        rejoin = done.rejoin or (g.status == PREPARING and s not in g.joined)",
      "        rejoin = done.rejoin",
      "a thread that processes its assignment after a new round began does not rejoin."),
    M("st-any-member-leads", "streams-rebalance", SSTEP,
      "    return (g.leader,) if g.leader in g.joined else g.joined",
      "    return g.joined",
      "the coordinator may pick a new leader each round even while the old one is a member."),
)

MUTANTS: tuple[Mutant, ...] = (
    CONSUMER_CALLBACKS + CONSUMER_ERRORS + CONSUMER_LEAVE + COORDINATOR_REBALANCE
    + COORDINATOR_GENERATION + KIP_792 + COOPERATIVE + ASSIGNOR_RULES + PROTOCOL_SELECTION
    + STREAMS_PROBING + STREAMS_ON_ASSIGNMENT + STREAMS_COOPERATIVE + STREAMS_WARMUPS
    + STREAMS_TASKS + STREAMS_REBALANCE
)


def by_name(name: str) -> Mutant:
    for m in MUTANTS:
        if m.name == name:
            return m
    raise KeyError(f"no mutant {name!r}")
