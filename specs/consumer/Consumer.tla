------------------------------- MODULE Consumer -------------------------------
(***************************************************************************)
(* The classic consumer group protocol (JoinGroup, SyncGroup, Heartbeat)    *)
(* between Kafka's GroupCoordinator and the consumers' ConsumerCoordinator, *)
(* at message level: each consumer has at most one request on the wire     *)
(* (its outbox) and reads its responses from its inbox in order; the        *)
(* coordinator's join barrier, generations, leader election and SyncGroup   *)
(* barrier; the leader's assignment; onJoinPrepare / onJoinComplete, EAGER   *)
(* and COOPERATIVE (KIP-429), with KIP-792's generation in the subscription.*)
(* A second formalisation of groupcheck's Python model (model/consumer),    *)
(* cross-checked state for state by `groupcheck spec check consumer`.       *)
(*                                                                         *)
(* Covers: one topic, every consumer on one config of one assignor         *)
(* (subscription v3: ownedPartitions and generation): range or sticky      *)
(* (EAGER) or cooperative-sticky (COOPERATIVE: onJoinPrepare revokes only   *)
(* what must go, onJoinComplete revokes what the leader took away and      *)
(* rejoins; the leader resolves the ownedPartitions claims by generation   *)
(* (KIP-792), plans stickily and withholds a partition whose owner changes *)
(* until the follow-up rebalance). The steps Receive, Join, Heartbeat and   *)
(* Deliver, the faults LoseResponse and Timeout (a SyncGroup that times    *)
(* out), Crash (and Restart), Pause (and Resume: a zombie), the            *)
(* coordinator's session and rebalance timeouts, the liveness monitor of   *)
(* converges_within_k; with the constant Records, the record layer         *)
(* (Delivery.tla; model/consumer/delivery_steps.py): partition logs, each  *)
(* application's cursors and offset commits. Leaves out (see README.md):   *)
(* rolling bounces onto other configs (and LeaveGroup), metadata changes,  *)
(* subscription changes, group deletion, the callbacks' log.               *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences, Delivery

CONSTANTS
    Slots,          \* the consumers, by slot number (0 .. members-1)
    Partitions,     \* the partitions of the one topic, as numbers 0 .. n-1
    Assignor,       \* partition.assignment.strategy: "range", "sticky" or "cooperative-sticky"
    Faults,         \* the faults the scope allows: a subset of {"crash", "pause", "lose_response", "timeout"}
    Budget,         \* how many faults may happen
    MaxGeneration,  \* the scope's bound on the group generation (TLC: CONSTRAINT)
    CalmCap         \* the liveness monitor's cap (3)
    \* Delivery.tla declares NoValue and the record layer's Records, MaxRecords, CommitPolicy,
    \* OffsetReset

VARIABLES
    group,          \* the coordinator's group
    consumers,      \* slot -> the consumer process in that slot
    budget,         \* faults left
    calm,           \* leader assignments since the last disturbance (at most CalmCap)
    calmFrom,       \* the last generation begun before the last disturbance
    logs,           \* the record layer: partition -> Log (Delivery.tla); NoValue without Records
    apps            \* the record layer: slot -> the application behind the consumer (NoValue: none)

vars == <<group, consumers, budget, calm, calmFrom, logs, apps>>

-----------------------------------------------------------------------------
(* Values *)

NoFn == [x \in {} |-> 0]
NoMember == 0
NoGeneration == -1
\* every member lists the one assignor: the coordinator selects it
Protocol == Assignor
\* KIP-429: "select the one with the highest id" of the protocols all the consumer's assignors
\* support: cooperative-sticky supports COOPERATIVE and EAGER, range and sticky only EAGER
RebalanceProtocol == IF Assignor = "cooperative-sticky" THEN "COOPERATIVE" ELSE "EAGER"
Cooperative == RebalanceProtocol = "COOPERATIVE"

GroupStates == {"Empty", "PreparingRebalance", "CompletingRebalance", "Stable"}
ConsumerStates == {"down", "idle", "joining", "syncing", "stable"}

\* The subscription a JoinGroup carries (v3): ownedPartitions and their generation (KIP-792:
\* "add the 'generation' field into 'Subscription' data"), and the sticky assignors' userData:
\* KIP-54's StickyAssignor writes the previous assignment there, both sticky assignors the
\* generation ("we tried to workaround this issue by adding 'generation' field into
\* subscription 'userData' field in cooperative sticky assignor")
Subscription(c) ==
    [owned |-> c.owned, generation |-> c.generation,
     userData |-> IF Assignor = "sticky" THEN c.userData ELSE {},
     userGeneration |-> IF Assignor \in {"sticky", "cooperative-sticky"} THEN c.generation ELSE NoGeneration]

TypeOK ==
    /\ group.status \in GroupStates
    /\ Assignor \in {"range", "sticky", "cooperative-sticky"}
    /\ group.generation \in Nat
    /\ \A s \in Slots : consumers[s].status \in ConsumerStates
    /\ calm \in 0..CalmCap

-----------------------------------------------------------------------------
(* Init: an empty group; every consumer runs and must join *)

FreshConsumer == [status |-> "idle", memberId |-> NoMember, generation |-> NoGeneration, owned |-> {},
                  userData |-> {}, paused |-> FALSE, snapshot |-> -1, awaiting |-> "", outbox |-> <<>>,
                  inbox |-> <<>>, needsJoinPrepare |-> TRUE]

Init ==
    /\ group = [status |-> "Empty", generation |-> 0, protocol |-> "", leader |-> NoMember,
                members |-> NoFn, pending |-> <<>>, nextId |-> 1]
    /\ consumers = [s \in Slots |-> FreshConsumer]
    /\ budget = Budget
    /\ calm = 0
    /\ calmFrom = 0
    /\ logs = IF Records THEN [p \in Partitions |-> NewLog] ELSE NoValue
    /\ apps = [s \in Slots |-> IF Records THEN NewApp ELSE NoValue]

-----------------------------------------------------------------------------
(* The coordinator (GroupCoordinator), one request at a time. A handler     *)
(* gives the group after it, the responses as <<slot, response>> pairs,     *)
(* and whether the membership changed (a disturbance for the monitor).      *)

Ids(g) == DOMAIN g.members

Put(f, k, v) == [x \in DOMAIN f \cup {k} |-> IF x = k THEN v ELSE f[x]]

RECURSIVE SortedIds(_)
SortedIds(S) == IF S = {} THEN <<>>
                ELSE LET m == CHOOSE x \in S : \A y \in S : x <= y IN <<m>> \o SortedIds(S \ {m})

Range(seq) == {seq[i] : i \in DOMAIN seq}

RECURSIVE Remove(_, _)
Remove(seq, x) == IF seq = <<>> THEN <<>>
                  ELSE (IF Head(seq) = x THEN <<>> ELSE <<Head(seq)>>) \o Remove(Tail(seq), x)

WithChanged(r, changed) == [group |-> r.group, out |-> r.out, changed |-> changed]

JoinResponse(g, id) ==
    [kind |-> "JoinGroup", to |-> id, error |-> "NONE", generation |-> g.generation, memberId |-> id,
     leader |-> g.leader, protocol |-> g.protocol,
     members |-> IF id = g.leader THEN [x \in Ids(g) |-> g.members[x].subscription] ELSE NoFn]

ErrorJoin(to, error) ==
    [kind |-> "JoinGroup", to |-> to, error |-> error, generation |-> NoGeneration, memberId |-> NoMember,
     leader |-> NoMember, protocol |-> "", members |-> NoFn]

\* Move to PreparingRebalance; SyncGroups waiting in CompletingRebalance fail
PrepareRebalance(g) ==
    LET waiting == IF g.status = "CompletingRebalance" THEN {x \in Ids(g) : g.members[x].syncing} ELSE {}
        ids == SortedIds(waiting)
    IN [group |-> [g EXCEPT !.status = "PreparingRebalance",
                            !.members = [x \in Ids(g) |-> [@[x] EXCEPT !.joined = FALSE, !.syncing = FALSE]]],
        out |-> [i \in 1..Len(ids) |-> <<g.members[ids[i]].slot,
                   [kind |-> "SyncGroup", to |-> ids[i], error |-> "REBALANCE_IN_PROGRESS",
                    generation |-> g.generation, assignment |-> {}]>>]]

\* initNextGeneration, once every member has rejoined. Kafka keeps the leader while it is
\* a member; otherwise the model takes the lowest member id.
MaybeCompleteJoin(g) ==
    IF g.status # "PreparingRebalance" \/ \E x \in Ids(g) : ~g.members[x].joined
    THEN [group |-> g, out |-> <<>>]
    ELSE IF Ids(g) = {}
    THEN [group |-> [g EXCEPT !.status = "Empty", !.generation = @ + 1, !.protocol = "", !.leader = NoMember],
          out |-> <<>>]
    ELSE LET leader == IF g.leader \in Ids(g) THEN g.leader ELSE CHOOSE x \in Ids(g) : \A y \in Ids(g) : x <= y
             g2 == [g EXCEPT !.status = "CompletingRebalance", !.generation = @ + 1, !.protocol = Protocol,
                             !.leader = leader,
                             !.members = [x \in Ids(g) |-> [@[x] EXCEPT !.joined = FALSE, !.assignment = {}]]]
             ids == SortedIds(Ids(g2))
         IN [group |-> g2, out |-> [i \in 1..Len(ids) |-> <<g2.members[ids[i]].slot, JoinResponse(g2, ids[i])>>]]

Chain(first, second) == [group |-> second.group, out |-> first.out \o second.out]


\* removeMemberAndUpdateGroup: answer its waiting requests, then rebalance
RemoveMember(g, id) ==
    IF id \notin Ids(g) THEN [group |-> g, out |-> <<>>]
    ELSE LET m == g.members[id]
             answers == (IF m.joined THEN << <<m.slot, ErrorJoin(id, "UNKNOWN_MEMBER_ID")>> >> ELSE <<>>)
                        \o (IF m.syncing THEN << <<m.slot, [kind |-> "SyncGroup", to |-> id, error |-> "UNKNOWN_MEMBER_ID",
                                                           generation |-> g.generation, assignment |-> {}]>> >>
                            ELSE <<>>)
             g1 == [g EXCEPT !.members = [x \in Ids(g) \ {id} |-> g.members[x]],
                             !.leader = IF @ = id THEN NoMember ELSE @]
             removed == [group |-> g1, out |-> answers]
             prepared == IF g1.status \in {"Stable", "CompletingRebalance"} THEN Chain(removed, PrepareRebalance(g1))
                         ELSE removed
         IN Chain(prepared, MaybeCompleteJoin(prepared.group))

JoinGroup(g, slot, req) ==
    IF req.memberId = NoMember
    THEN \* KIP-394: MEMBER_ID_REQUIRED with a new id, to send JoinGroup again
         [group |-> [g EXCEPT !.nextId = @ + 1, !.pending = Append(@, g.nextId)],
          out |-> << <<slot, [ErrorJoin(NoMember, "MEMBER_ID_REQUIRED") EXCEPT !.memberId = g.nextId]>> >>,
          changed |-> FALSE]
    ELSE IF req.memberId \notin Ids(g)
    THEN IF req.memberId \notin Range(g.pending)
         THEN [group |-> g, out |-> << <<slot, ErrorJoin(req.memberId, "UNKNOWN_MEMBER_ID")>> >>, changed |-> FALSE]
         ELSE LET member == [slot |-> slot, subscription |-> req.subscription, joined |-> TRUE,
                             syncing |-> FALSE, assignment |-> {}]
                  g0 == [g EXCEPT !.pending = Remove(@, req.memberId)]
                  prepared == IF g0.status # "PreparingRebalance" THEN PrepareRebalance(g0)
                              ELSE [group |-> g0, out |-> <<>>]
                  g1 == [prepared.group EXCEPT !.members = Put(@, req.memberId, member)]
              IN WithChanged(Chain(prepared, MaybeCompleteJoin(g1)), TRUE)
    ELSE LET known == g.members[req.memberId]
             updated == [known EXCEPT !.slot = slot, !.subscription = req.subscription, !.joined = TRUE]
             matches == known.subscription = req.subscription
         IN IF g.status = "PreparingRebalance"
            THEN WithChanged(MaybeCompleteJoin([g EXCEPT !.members = Put(@, req.memberId, updated)]), FALSE)
            ELSE IF (g.status = "CompletingRebalance" /\ matches)
                    \/ (g.status = "Stable" /\ matches /\ req.memberId # g.leader)
            THEN \* "member is joining with the same metadata ... just return current group information"
                 [group |-> g, out |-> << <<slot, JoinResponse(g, req.memberId)>> >>, changed |-> FALSE]
            ELSE \* "force a rebalance if the leader sends JoinGroup", or the metadata changed
                 LET prepared == PrepareRebalance(g)
                     g1 == [prepared.group EXCEPT !.members = Put(@, req.memberId, updated)]
                 IN WithChanged(Chain(prepared, MaybeCompleteJoin(g1)), FALSE)

SyncReply(g, slot, req, error, assignment) ==
    [group |-> g, out |-> << <<slot, [kind |-> "SyncGroup", to |-> req.memberId, error |-> error,
                                       generation |-> req.generation, assignment |-> assignment]>> >>,
     changed |-> FALSE]

SyncGroup(g, slot, req) ==
    IF req.memberId \notin Ids(g) \/ g.status = "Empty" THEN SyncReply(g, slot, req, "UNKNOWN_MEMBER_ID", {})
    ELSE IF req.generation # g.generation THEN SyncReply(g, slot, req, "ILLEGAL_GENERATION", {})
    ELSE IF g.status = "PreparingRebalance" THEN SyncReply(g, slot, req, "REBALANCE_IN_PROGRESS", {})
    ELSE IF g.status = "Stable" THEN SyncReply(g, slot, req, "NONE", g.members[req.memberId].assignment)
    ELSE LET g1 == [g EXCEPT !.members[req.memberId].slot = slot, !.members[req.memberId].syncing = TRUE]
         IN IF req.memberId # g1.leader
            THEN [group |-> g1, out |-> <<>>, changed |-> FALSE]
            ELSE \* the leader's assignment: store it, go Stable, answer every waiting SyncGroup
                 LET given(x) == IF x \in DOMAIN req.assignments THEN req.assignments[x] ELSE {}
                     waiting == {x \in Ids(g1) : g1.members[x].syncing}
                     g2 == [g1 EXCEPT !.status = "Stable",
                                      !.members = [x \in Ids(g1) |-> [@[x] EXCEPT !.syncing = FALSE,
                                                                               !.assignment = given(x)]]]
                     ids == SortedIds(waiting)
                 IN [group |-> g2, changed |-> FALSE,
                     out |-> [i \in 1..Len(ids) |-> <<g2.members[ids[i]].slot,
                                [kind |-> "SyncGroup", to |-> ids[i], error |-> "NONE",
                                 generation |-> req.generation, assignment |-> given(ids[i])]>>]]

HeartbeatHandler(g, slot, req) ==
    LET error == IF g.status = "Empty" \/ req.memberId \notin Ids(g) THEN "UNKNOWN_MEMBER_ID"
                 ELSE IF req.generation # g.generation THEN "ILLEGAL_GENERATION"
                 ELSE IF g.status = "PreparingRebalance" THEN "REBALANCE_IN_PROGRESS"
                 ELSE "NONE"
    IN [group |-> g, out |-> << <<slot, [kind |-> "Heartbeat", to |-> req.memberId, error |-> error]>> >>,
        changed |-> FALSE]

-----------------------------------------------------------------------------
(* The consumer (ConsumerCoordinator, AbstractCoordinator) *)

\* the member's process cannot answer: paused, down, or replaced by a new incarnation
Unreachable(s, id) == consumers[s].status = "down" \/ consumers[s].paused \/ consumers[s].memberId # id

\* The leader's RangeAssignor: consecutive ranges in member-id order, the first n % m
\* members one partition more
RangeCount(n, m, i) == n \div m + (IF i <= n % m THEN 1 ELSE 0)

RECURSIVE RangeStart(_, _, _)
RangeStart(n, m, i) == IF i = 1 THEN 0 ELSE RangeStart(n, m, i - 1) + RangeCount(n, m, i - 1)

RangeAssign(members) ==
    LET ids == SortedIds(DOMAIN members)
        m == Len(ids)
        n == Cardinality(Partitions)
    IN [x \in DOMAIN members |->
          LET i == CHOOSE j \in 1..m : ids[j] = x
          IN {p \in Partitions : RangeStart(n, m, i) <= p /\ p < RangeStart(n, m, i) + RangeCount(n, m, i)}]

\* The sticky assignors (AbstractStickyAssignor): the claims a member's subscription makes
\* to its previous partitions, with their generation: KIP-54's StickyAssignor reads them from
\* userData, cooperative-sticky from ownedPartitions and the v2 GenerationId field (KIP-792)
Claims(members) ==
    [x \in DOMAIN members |->
        IF Assignor = "sticky" THEN [owned |-> members[x].userData, generation |-> members[x].userGeneration]
        ELSE [owned |-> members[x].owned, generation |-> members[x].generation]]

AllClaimed(claims) == UNION {claims[x].owned : x \in DOMAIN claims}

\* KIP-792: the leader can "identify the out-of-date members/assignments". Kafka 3.5+
\* (KAFKA-14639's fix, AbstractStickyAssignor#allSubscriptionsEqual), per partition: its
\* claimant of the highest generation keeps it; two claimants at that generation both lose
\* it (contested: it is changing owner, so nobody gets it this round)
Resolve(claims) ==
    LET kept == [x \in DOMAIN claims |->
                   {p \in claims[x].owned :
                      \A y \in DOMAIN claims \ {x} : p \in claims[y].owned => claims[y].generation < claims[x].generation}]
    IN [kept |-> kept, contested |-> AllClaimed(claims) \ UNION {kept[x] : x \in DOMAIN kept}]

\* the k lowest partitions of S
Lowest(S, k) == {p \in S : Cardinality({q \in S : q < p}) < k}

\* the constrained plan for equal subscriptions: P partitions over N members, quotas
\* low = P \div N and high = low + 1 for at most P % N members
Quota(n) == [low |-> Cardinality(Partitions) \div n, extra |-> Cardinality(Partitions) % n]

\* each member in member-id order keeps its lowest kept claims up to its quota: high while
\* fewer than `extra` members have it, else low
RECURSIVE KeepClaims(_, _, _, _)
KeepClaims(ids, kept, q, acc) ==
    IF ids = <<>> THEN acc
    ELSE LET x == Head(ids)
             high == q.extra > 0 /\ Cardinality(kept[x]) >= q.low + 1 /\ acc.atHigh < q.extra
         IN KeepClaims(Tail(ids), kept, q,
                       [acc EXCEPT !.out = Put(@, x, Lowest(kept[x], IF high THEN q.low + 1 ELSE q.low)),
                                   !.atHigh = @ + (IF high THEN 1 ELSE 0)])

\* then each member in order takes the lowest free partitions up to the low quota
RECURSIVE FillLow(_, _, _)
FillLow(ids, q, acc) ==
    IF ids = <<>> THEN acc
    ELSE LET x == Head(ids)
             got == Lowest(acc.free, q.low - Cardinality(acc.out[x]))
         IN FillLow(Tail(ids), q, [acc EXCEPT !.out[x] = @ \cup got, !.free = @ \ got])

\* then members at the low quota, in order, one more each while fewer than `extra` have high
RECURSIVE FillHigh(_, _, _)
FillHigh(ids, q, acc) ==
    IF ids = <<>> \/ acc.free = {} THEN acc
    ELSE LET x == Head(ids)
             up == Cardinality(acc.out[x]) = q.low /\ acc.atHigh < q.extra
             got == IF up THEN Lowest(acc.free, 1) ELSE {}
         IN FillHigh(Tail(ids), q, [acc EXCEPT !.out[x] = @ \cup got, !.free = @ \ got,
                                              !.atHigh = @ + (IF up THEN 1 ELSE 0)])

\* a partition still free (only when two members kept the same claim: a resolution that
\* trusts duplicates) goes to the least loaded member, the lowest id on a tie
RECURSIVE Leftover(_, _)
Leftover(ids, acc) ==
    IF acc.free = {} THEN acc.out
    ELSE LET p == CHOOSE p \in acc.free : \A r \in acc.free : p <= r
             load(x) == Cardinality(acc.out[x])
             x == CHOOSE x \in Range(ids) : \A y \in Range(ids) : load(x) < load(y) \/ (load(x) = load(y) /\ x <= y)
         IN Leftover(ids, [acc EXCEPT !.out[x] = @ \cup {p}, !.free = @ \ {p}])

\* KIP-429: "the assignor should try and be as 'sticky' as possible, meaning it should assign
\* partitions back to their previous owner as much as possible" (the kept claims), balanced
\* within one (every member subscribes to the one topic: the constrained assignment)
StickyPlan(members, kept) ==
    LET ids == SortedIds(DOMAIN members)
        q == Quota(Len(ids))
        k == KeepClaims(ids, kept, q, [out |-> NoFn, atHigh |-> 0])
        start == [out |-> k.out, atHigh |-> k.atHigh, free |-> Partitions \ UNION {k.out[x] : x \in DOMAIN k.out}]
    IN Leftover(ids, FillHigh(ids, q, FillLow(ids, q, start)))

\* KIP-429: "For maybe-revoking-partitions, check if the owner has changed. If yes, exclude
\* them from the assigned-partitions list to the new owner. The old owner will realize it
\* does not own it any more, revoke it and then trigger another rebalance for these
\* partitions to finally be reassigned" (CooperativeStickyAssignor#adjustAssignment); a
\* contested partition is changing owner too
Withhold(intended, resolved) ==
    [x \in DOMAIN intended |->
        intended[x] \ (resolved.contested \cup UNION {resolved.kept[y] : y \in DOMAIN resolved.kept \ {x}})]

\* the leader's assignment (ConsumerCoordinator#onLeaderElected), as a result that may fail
Ok(assignments) == [ok |-> TRUE, assignments |-> assignments]
Failed == [ok |-> FALSE, assignments |-> NoFn]

Assign(members) ==
    CASE Assignor = "range" -> Ok(RangeAssign(members))
      [] Assignor = "sticky" -> Ok(StickyPlan(members, Resolve(Claims(members)).kept))
      [] OTHER -> LET r == Resolve(Claims(members)) IN Ok(Withhold(StickyPlan(members, r.kept), r))

\* ConsumerCoordinator#validateCooperativeAssignment, for a COOPERATIVE leader: "added =
\* assigned - owned, revoked = owned - assigned"; a partition both added and revoked was
\* moved in one round: "Assignor supporting the COOPERATIVE protocol violates its
\* requirements". It runs for assignors other than the built-in cooperative-sticky (since
\* KAFKA-13406's fix); every assignor here is built in, so only a variant of an older
\* release runs it.
Validated(members, assignments) ==
    LET added == UNION {assignments[x] \ members[x].owned : x \in DOMAIN members}
        revoked == UNION {members[x].owned \ assignments[x] : x \in DOMAIN members}
    IN IF added \cap revoked = {} THEN Ok(assignments) ELSE Failed

\* resetStateAndRejoin: ILLEGAL_GENERATION keeps the member id, UNKNOWN_MEMBER_ID not
Fenced(c, error) ==
    [c EXCEPT !.status = "idle", !.awaiting = "", !.memberId = IF error = "UNKNOWN_MEMBER_ID" THEN NoMember ELSE @,
              !.generation = NoGeneration, !.needsJoinPrepare = TRUE]

JoinRequest(c) == [kind |-> "JoinGroup", memberId |-> c.memberId, subscription |-> Subscription(c)]

\* the consumer awaits this response (a response to another request, or addressed to a
\* member id it no longer has, is ignored)
Awaited(c, resp) == c.awaiting = resp.kind /\ resp.to = c.memberId

\* the consumer with the response at the head of its inbox taken, no longer awaiting it
Answered(c0) == [c0 EXCEPT !.inbox = Tail(@), !.awaiting = ""]

\* the response is the JoinGroup response that makes this consumer the leader
LeaderElected(c0, resp) ==
    Awaited(c0, resp) /\ resp.kind = "JoinGroup" /\ resp.error = "NONE" /\ resp.leader = resp.memberId

SyncRequest(e, assignments) ==
    [e EXCEPT !.status = "syncing", !.awaiting = "SyncGroup",
              !.outbox = <<[kind |-> "SyncGroup", memberId |-> e.memberId, generation |-> e.generation,
                            assignments |-> assignments]>>]

\* a JoinGroup response read: a follower sends SyncGroup with no assignment; the leader sends
\* the assignment it computed (``result``) and remembers the metadata it used, or, when the
\* assignment failed, rejoins (the exception surfaces from poll()). "led": it computed one.
Joined(d, resp, result) ==
    LET e == [d EXCEPT !.generation = resp.generation, !.memberId = resp.memberId, !.snapshot = -1]
    IN IF resp.leader # e.memberId THEN [consumer |-> SyncRequest(e, NoFn), led |-> FALSE]
       ELSE IF ~result.ok THEN [consumer |-> [e EXCEPT !.status = "idle"], led |-> TRUE]
       ELSE [consumer |-> SyncRequest([e EXCEPT !.snapshot = 0], result.assignments), led |-> TRUE]

\* onJoinComplete (KIP-429): "Calculate the newly-added-partitions as Minus(assigned-partitions,
\* owned-partitions) and the revoked-partitions as Minus(owned-partitions, assigned-partitions)
\* ... If the set of revoked-partitions is non-empty, call the rebalance listener's
\* onPartitionsRevoked and rejoin" (COOPERATIVE; EAGER revoked everything before joining);
\* then owned = assigned, the sticky userData, onPartitionsAssigned. The next JoinGroup runs
\* onJoinPrepare again.
Completed(d, assignment) ==
    [d EXCEPT !.needsJoinPrepare = TRUE, !.owned = assignment, !.userData = assignment,
              !.status = IF Cooperative /\ d.owned \ assignment # {} THEN "idle" ELSE "stable"]

\* what the consumer does with the response at the head of its inbox; "led": it computed an
\* assignment as the leader
OnResponse(c0, resp) ==
    LET c == [c0 EXCEPT !.inbox = Tail(@)]
    IN IF ~Awaited(c, resp)
       THEN [consumer |-> c, led |-> FALSE]          \* no longer awaited: ignored
       ELSE LET d == Answered(c0)
            IN CASE resp.kind = "JoinGroup" ->
                     IF resp.error = "MEMBER_ID_REQUIRED"
                     THEN LET e == [d EXCEPT !.memberId = resp.memberId]
                          IN [consumer |-> [e EXCEPT !.awaiting = "JoinGroup", !.outbox = <<JoinRequest(e)>>],
                              led |-> FALSE]
                     ELSE IF resp.error # "NONE"
                     THEN [consumer |-> Fenced(d, resp.error), led |-> FALSE]
                     ELSE Joined(d, resp, IF resp.leader = resp.memberId THEN Assign(resp.members) ELSE Failed)
                 [] resp.kind = "SyncGroup" ->
                     IF resp.error = "NONE"
                     THEN [consumer |-> Completed(d, resp.assignment), led |-> FALSE]
                     ELSE IF resp.error = "REBALANCE_IN_PROGRESS"
                     THEN [consumer |-> [d EXCEPT !.status = "idle"], led |-> FALSE]
                     ELSE [consumer |-> Fenced(d, resp.error), led |-> FALSE]
                 [] OTHER ->
                     IF resp.error = "NONE" THEN [consumer |-> d, led |-> FALSE]
                     ELSE IF resp.error = "REBALANCE_IN_PROGRESS"
                     THEN [consumer |-> [d EXCEPT !.status = "idle"], led |-> FALSE]
                     ELSE [consumer |-> Fenced(d, resp.error), led |-> FALSE]

-----------------------------------------------------------------------------
(***************************************************************************)
(* The record layer (issue 30; model/consumer/delivery_steps.py), on with   *)
(* the constant Records: the application behind each consumer polls and      *)
(* processes records of the partitions it owns and commits offsets by        *)
(* CommitPolicy. Delivery.tla has the rules on logs and cursors; here: where *)
(* the classic ConsumerCoordinator (Kafka 3.9) applies them. A member is its *)
(* member id, a commit's generation the consumer's.                          *)
(***************************************************************************)

\* the generation or the member id was reset (resetStateAndRejoin)
Reset(c) == c.generation = NoGeneration \/ c.memberId = NoMember

\* AbstractCoordinator#rebalanceInProgress: PREPARING_REBALANCE or COMPLETING_REBALANCE
RebalanceInProgress(c) == c.status \in {"joining", "syncing"} \/ (c.status = "idle" /\ ~c.needsJoinPrepare)

\* MemberState.STABLE with a generation: generationIfStable() is not null
StableMember(c) ==
    c.status # "down" /\ c.memberId # NoMember /\ c.generation # NoGeneration /\ ~RebalanceInProgress(c)

\* GroupCoordinator.validateOffsetCommit then doCommitOffsets (probes.offset_commit_error):
\* the answer to an OffsetCommit of member id at generation gen (Accepted: none)
OffsetCommitError(g, id, gen) ==
    IF gen < 0 /\ g.status = "Empty" THEN Accepted
    ELSE IF gen >= 0 \/ id # NoMember
    THEN IF id \notin Ids(g) THEN "UNKNOWN_MEMBER_ID"
         ELSE IF gen # g.generation THEN "ILLEGAL_GENERATION"
         ELSE IF g.status = "CompletingRebalance" THEN "REBALANCE_IN_PROGRESS" ELSE Accepted
    ELSE IF g.status # "Empty" THEN "UNKNOWN_MEMBER_ID"
    ELSE IF g.status = "CompletingRebalance" THEN "REBALANCE_IN_PROGRESS" ELSE Accepted

CurrentMember(g, id, gen) == id \in Ids(g) /\ gen = g.generation

\* a rejection the application cannot avoid (the member is not current at generation own, or
\* REBALANCE_IN_PROGRESS) excuses what the commit carried
Judged(lg, req, own) ==
    LET err == OffsetCommitError(group, req.member, req.generation)
        l1 == ApplyCommit(lg, req, err)
    IN IF err # Accepted /\ (err = "REBALANCE_IN_PROGRESS" \/ ~CurrentMember(group, req.member, own))
       THEN Excuse(l1, CommittedSet(req)) ELSE l1

\* a commitSync the client blocks on, judged in the step; sent FALSE: the client fails it
\* itself (no generationIfStable()), which excuses
CommitNow(lg, req, sent, own) ==
    IF req = NoValue THEN lg
    ELSE IF ~sent THEN Excuse(lg, CommittedSet(req))
    ELSE Judged(lg, req, own)

\* the consumer no longer counts as a member: what it processes now is a fault's doing
Zombie(s) == consumers[s].memberId \notin Ids(group)

\* the group requests wait while an OffsetCommit is in flight or its answer unread
\* (IF, not \/: TLC evaluates each disjunct of an action, and apps[s] may be NoValue)
Free(s) == IF ~Records \/ apps[s] = NoValue THEN TRUE ELSE IdleCommit(apps[s]) /\ apps[s].waiting \in {"", "commit"}

\* callbacks and the JoinGroup run inside poll(): once the application processed what poll gave
PollDone(s) == IF ~Records \/ apps[s] = NoValue THEN TRUE ELSE InPoll(apps[s])

\* the listener's calls on [app, logs] (delivery_steps._listener); was: the consumer before
\* the step (its member id and generation go with a commit in onPartitionsRevoked)
ListenLost(r, P) == Lost(r.app, r.logs, P)
ListenRevoked(r, P, was) ==
    LET req == IF CommitPolicy = "sync-on-revoke"
               THEN CommitRequest(r.app, was.memberId, was.generation, "callback", TRUE, P) ELSE NoValue
    IN [app |-> Revoked(r.app, P),
        logs |-> CommitNow(r.logs, req, was.generation # NoGeneration /\ was.memberId # NoMember, was.generation)]
ListenAssigned(r, P) == [app |-> Assigned(r.app, P), logs |-> r.logs]
ListenFenced(r) == [app |-> r.app, logs |-> Excuse(r.logs, Owns(r.app))]

\* onJoinPrepare's callbacks for consumer c (ConsumerCoordinator#onJoinPrepare): a reset one
\* loses what it owns, EAGER revokes everything, COOPERATIVE nothing (one topic)
JoinListeners(c, r, was) ==
    IF ~c.needsJoinPrepare THEN r
    ELSE IF Reset(c) THEN (IF c.owned # {} THEN ListenLost(r, c.owned) ELSE r)
    ELSE IF ~Cooperative THEN ListenRevoked(r, c.owned, was)
    ELSE r

\* the commit before the rebalance (policy auto, onJoinPrepare): maybeMarkPartitionsPendingRevocation
\* (EAGER only; pause: unfetchable too, KAFKA-14196's fix) and the positions sent; waits
PrepareCommit(c, app, pause) ==
    RevokeCommit(app, IF Cooperative THEN {} ELSE Owns(app),
                 CommitRequest(app, c.memberId, c.generation, "revoke", FALSE, Owns(app)), "prepare", pause)

\* the records of a response read (client.receive, then the listener): a fence excuses, an
\* assignment revokes (COOPERATIVE: owned - assigned) and assigns (assigned - owned)
ReceiveRecords(s) ==
    LET c == consumers[s]
        resp == Head(c.inbox)
        fenced == /\ Awaited(c, resp)
                  /\ \/ resp.kind = "JoinGroup" /\ resp.error \notin {"NONE", "MEMBER_ID_REQUIRED"}
                     \/ resp.kind # "JoinGroup" /\ resp.error \notin {"NONE", "REBALANCE_IN_PROGRESS"}
        completed == Awaited(c, resp) /\ resp.kind = "SyncGroup" /\ resp.error = "NONE"
        r0 == [app |-> apps[s], logs |-> logs]
        r1 == IF fenced THEN ListenFenced(r0) ELSE r0
        revoked == IF completed THEN c.owned \ resp.assignment ELSE {}
        r2 == IF Cooperative /\ revoked # {} THEN ListenRevoked(r1, revoked, c) ELSE r1
        r3 == IF completed THEN ListenAssigned(r2, resp.assignment \ c.owned) ELSE r2
    IN IF ~Records \/ apps[s] = NoValue THEN UNCHANGED <<logs, apps>>
       ELSE apps' = [apps EXCEPT ![s] = r3.app] /\ logs' = r3.logs

\* the members the coordinator removed from g (a timeout): what their consumers processed may
\* be redelivered by the next owner, a fault's doing
ExcuseRemoved(g, g2) ==
    LET gone == {id \in Ids(g) \ Ids(g2) : consumers[g.members[id].slot].memberId = id
                                            /\ apps[g.members[id].slot] # NoValue}
    IN IF ~Records THEN logs ELSE Excuse(logs, UNION {Owns(apps[g.members[id].slot]) : id \in gone})

-----------------------------------------------------------------------------
(* Actions: one per model action kind *)

\* (with records, a SyncGroup response is handled inside poll(): onJoinComplete's callbacks)
CanReceive(s) ==
    /\ ~consumers[s].paused /\ consumers[s].inbox # <<>>
    /\ Head(consumers[s].inbox).kind # "SyncGroup" \/ PollDone(s)

\* the consumer in slot s has handled its oldest response with result r
Received(s, r) ==
    /\ consumers' = [consumers EXCEPT ![s] = r.consumer]
    /\ ReceiveRecords(s)
    \* the monitor counts assignments for generations begun after the last disturbance
    /\ calm' = IF r.led /\ r.consumer.generation > calmFrom
               THEN (IF calm + 1 < CalmCap THEN calm + 1 ELSE CalmCap) ELSE calm
    /\ UNCHANGED <<group, budget, calmFrom>>

\* the consumer processes the oldest response in its inbox
Receive(s) == CanReceive(s) /\ Received(s, OnResponse(consumers[s], Head(consumers[s].inbox)))

\* onJoinPrepare, once per rebalance: a reset consumer calls onPartitionsLost and rejoins
\* owning nothing; EAGER revokes everything; COOPERATIVE revokes only partitions of topics no
\* longer subscribed (none: one topic, one subscription). Then JoinGroup.
JoinedConsumer(c) ==
    LET d == [c EXCEPT !.owned = IF c.needsJoinPrepare /\ (Reset(c) \/ ~Cooperative) THEN {} ELSE @,
                       !.needsJoinPrepare = FALSE]
    IN [d EXCEPT !.status = "joining", !.awaiting = "JoinGroup", !.outbox = <<JoinRequest(d)>>]

\* with records and policy auto, a stable member's first onJoinPrepare sends its commit and
\* waits (nothing else changes; CommitRead goes on); pause: KAFKA-14196's fix
JoinWith(s, pause) ==
    /\ ~consumers[s].paused
    /\ consumers[s].status = "idle" /\ consumers[s].awaiting = "" /\ consumers[s].outbox = <<>>
    /\ Free(s) /\ PollDone(s)
    /\ LET c == consumers[s]
           prep == Records /\ CommitPolicy = "auto" /\ c.needsJoinPrepare /\ StableMember(c)
           marked == PrepareCommit(c, apps[s], pause)
           r == JoinListeners(c, [app |-> IF prep THEN marked ELSE apps[s], logs |-> logs], c)
       IN IF prep /\ marked.waiting # ""
          THEN apps' = [apps EXCEPT ![s] = marked] /\ UNCHANGED <<consumers, logs>>
          ELSE /\ consumers' = [consumers EXCEPT ![s] = JoinedConsumer(c)]
               /\ IF Records /\ apps[s] # NoValue THEN apps' = [apps EXCEPT ![s] = r.app] /\ logs' = r.logs
                  ELSE UNCHANGED <<logs, apps>>
    /\ UNCHANGED <<group, budget, calm, calmFrom>>

Join(s) == JoinWith(s, TRUE)

Heartbeat(s) ==
    /\ ~consumers[s].paused
    /\ consumers[s].status = "stable" /\ consumers[s].awaiting = "" /\ consumers[s].outbox = <<>>
    /\ Free(s)
    /\ consumers' = [consumers EXCEPT ![s].awaiting = "Heartbeat",
                                      ![s].outbox = <<[kind |-> "Heartbeat", memberId |-> consumers[s].memberId,
                                                       generation |-> consumers[s].generation]>>]
    /\ UNCHANGED <<group, budget, calm, calmFrom, logs, apps>>

\* the responses of ``out`` for the consumer in slot s with member id ``id``, in order; one
\* addressed to another member id is dropped
RECURSIVE Mine(_, _, _)
Mine(out, s, id) ==
    IF out = <<>> THEN <<>>
    ELSE LET p == Head(out)
         IN (IF p[1] = s /\ (p[2].to = NoMember \/ p[2].to = id) THEN <<p[2]>> ELSE <<>>) \o Mine(Tail(out), s, id)

Delivered(cs, out) == [s \in Slots |-> IF cs[s].status = "down" THEN cs[s]
                                       ELSE [cs[s] EXCEPT !.inbox = @ \o Mine(out, s, cs[s].memberId)]]

\* the coordinator handles the consumer's request
Deliver(s) ==
    /\ consumers[s].outbox # <<>>
    /\ LET req == Head(consumers[s].outbox)
           cs == [consumers EXCEPT ![s].outbox = <<>>]
           r == CASE req.kind = "JoinGroup" -> JoinGroup(group, s, req)
                  [] req.kind = "SyncGroup" -> SyncGroup(group, s, req)
                  [] OTHER -> HeartbeatHandler(group, s, req)
       IN /\ group' = r.group
          /\ consumers' = Delivered(cs, r.out)
          \* a membership change is a disturbance: the JoinGroup round already open does not count
          /\ IF r.changed
             THEN /\ calm' = 0
                  /\ calmFrom' = LET opened == IF group.status = "PreparingRebalance" THEN 1 ELSE 0
                                 IN IF calmFrom > group.generation + opened THEN calmFrom
                                    ELSE group.generation + opened
             ELSE UNCHANGED <<calm, calmFrom>>
    /\ UNCHANGED <<budget, logs, apps>>

\* a fault (and every fault) is a disturbance: the JoinGroup round already open does not count
Disturbed ==
    /\ calm' = 0
    /\ calmFrom' = LET opened == IF group.status = "PreparingRebalance" THEN 1 ELSE 0
                   IN IF calmFrom > group.generation + opened THEN calmFrom ELSE group.generation + opened

\* fault: the oldest response is lost; the consumer sees its connection fail (a lost
\* JoinGroup or SyncGroup response: it rejoins; a lost heartbeat response: it only retries)
LoseResponse(s) ==
    /\ "lose_response" \in Faults /\ budget > 0
    /\ consumers[s].inbox # <<>>
    /\ LET c == consumers[s]
           resp == Head(c.inbox)
           d == [c EXCEPT !.inbox = Tail(@)]
       IN consumers' = [consumers EXCEPT ![s] =
                          IF c.awaiting = resp.kind /\ resp.to = c.memberId
                          THEN [d EXCEPT !.awaiting = "", !.status = IF resp.kind # "Heartbeat" THEN "idle" ELSE @]
                          ELSE d]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, logs, apps>>

\* fault: the SyncGroup times out; the consumer rejoins
Timeout(s) ==
    /\ "timeout" \in Faults /\ budget > 0
    /\ consumers[s].awaiting = "SyncGroup" /\ ~consumers[s].paused
    /\ consumers' = [consumers EXCEPT ![s].awaiting = "", ![s].status = "idle"]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, logs, apps>>

\* fault: the process dies; a member id handed out but not yet joined expires with it
Crash(s) ==
    /\ "crash" \in Faults /\ budget > 0
    /\ consumers[s].status # "down"
    /\ group' = [group EXCEPT !.pending = Remove(@, consumers[s].memberId)]
    \* (the leader's assignment snapshot stays: only a restart starts afresh)
    /\ consumers' = [consumers EXCEPT ![s] = [@ EXCEPT !.status = "down", !.memberId = NoMember,
                                                   !.generation = NoGeneration, !.owned = {}, !.userData = {},
                                                   !.paused = FALSE, !.awaiting = "", !.outbox = <<>>,
                                                   !.inbox = <<>>, !.needsJoinPrepare = TRUE]]
    \* the application and its cursors are gone, their records excused
    /\ apps' = [apps EXCEPT ![s] = NoValue]
    /\ logs' = IF Records /\ apps[s] # NoValue THEN Excuse(logs, Owns(apps[s])) ELSE logs
    /\ budget' = budget - 1
    /\ Disturbed

Restart(s) ==
    /\ consumers[s].status = "down"
    /\ consumers' = [consumers EXCEPT ![s] = FreshConsumer]
    /\ apps' = [apps EXCEPT ![s] = IF Records THEN NewApp ELSE NoValue]
    /\ Disturbed
    /\ UNCHANGED <<group, budget, logs>>

\* fault: the application stops polling past its session timeout (a zombie in the making)
Pause(s) ==
    /\ "pause" \in Faults /\ budget > 0
    /\ consumers[s].status # "down" /\ ~consumers[s].paused
    /\ consumers' = [consumers EXCEPT ![s].paused = TRUE]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, logs, apps>>

Resume(s) ==
    /\ consumers[s].status # "down" /\ consumers[s].paused
    /\ consumers' = [consumers EXCEPT ![s].paused = FALSE]
    /\ Disturbed
    /\ UNCHANGED <<group, budget, logs, apps>>

\* the coordinator's answers go out to the consumers that still listen
Broker(r) ==
    /\ group' = r.group
    /\ consumers' = Delivered(consumers, r.out)
    /\ logs' = ExcuseRemoved(group, r.group)
    /\ Disturbed
    /\ UNCHANGED <<budget, apps>>

\* the session of a member whose process cannot answer expires
SessionTimeout(s) ==
    \E id \in Ids(group) : /\ group.members[id].slot = s /\ Unreachable(s, id)
                          /\ Broker(RemoveMember(group, id))

RECURSIVE RemoveAll(_, _)
RemoveAll(r, ids) == IF ids = <<>> THEN r ELSE RemoveAll(Chain(r, RemoveMember(r.group, Head(ids))), Tail(ids))

\* the rebalance timeout removes the members that did not rejoin, then completes the join
RebalanceTimeout ==
    LET stragglers == {id \in Ids(group) : ~group.members[id].joined /\ Unreachable(group.members[id].slot, id)}
        r == RemoveAll([group |-> group, out |-> <<>>], SortedIds(stragglers))
    IN /\ group.status = "PreparingRebalance" /\ stragglers # {}
       /\ Broker(Chain(r, MaybeCompleteJoin(r.group)))


(***************************************************************************)
(* The record layer's actions (Records only; delivery_steps.py's KINDS)      *)
(***************************************************************************)
ProtocolUnchanged == UNCHANGED <<group, consumers, budget, calm, calmFrom>>

Polling(s) == Records /\ apps[s] # NoValue /\ ~consumers[s].paused

\* the application's poll() on p: one record (the first initialises the position by
\* OffsetFetch; a zombie's takes nothing over: the log keeps its fetcher)
Poll(s, p) ==
    /\ Polling(s) /\ CanPoll(apps[s], logs, p)
    /\ LET r == PollCursor(apps[s], logs, p, IF Zombie(s) THEN logs[p].fetcher ELSE consumers[s].memberId)
       IN apps' = [apps EXCEPT ![s] = r.app] /\ logs' = r.logs
    /\ ProtocolUnchanged

\* the application processes the next record of p it holds (a zombie's is excused at once;
\* policy after-processing owes its commitSync from here on)
Process(s, p) ==
    /\ Polling(s) /\ CanProcess(apps[s], p)
    /\ LET o == apps[s].cursors[p].processed
           r == ProcessCursor(apps[s], logs, p)
       IN /\ logs' = IF Zombie(s) THEN ExcuseOffset(r.logs, p, o) ELSE r.logs
          /\ apps' = [apps EXCEPT ![s] = IF CommitPolicy = "after-processing" THEN [r.app EXCEPT !.waiting = "commit"]
                                        ELSE r.app]
    /\ ProtocolUnchanged

\* policy after-processing: commitSync() of the processed offsets, judged at once (failed by
\* the client itself while the member is not stable)
ManualRequest(s) == CommitRequest(apps[s], consumers[s].memberId, consumers[s].generation, "manual", TRUE, Owns(apps[s]))

Commit(s) ==
    /\ Polling(s) /\ apps[s].waiting = "commit"
    /\ logs' = CommitNow(logs, ManualRequest(s), StableMember(consumers[s]), consumers[s].generation)
    /\ apps' = [apps EXCEPT ![s].waiting = ""]
    /\ ProtocolUnchanged

\* policy auto: ConsumerCoordinator.poll -> maybeAutoCommitOffsetsAsync of the positions, a
\* message; only inside poll, only while the member is stable, with no group request queued
AutoCommit(s) ==
    /\ Polling(s) /\ CommitPolicy = "auto"
    /\ IdleCommit(apps[s]) /\ apps[s].waiting = "" /\ consumers[s].outbox = <<>>
    /\ InPoll(apps[s]) /\ StableMember(consumers[s])
    /\ \E p \in DOMAIN apps[s].cursors : apps[s].cursors[p].position > logs[p].committed
    /\ apps' = [apps EXCEPT ![s].commit = CommitRequest(apps[s], consumers[s].memberId, consumers[s].generation,
                                                        "interval", FALSE, Owns(apps[s]))]
    /\ UNCHANGED logs /\ ProtocolUnchanged

\* the commit in flight reaches the coordinator (also while paused: it is on the wire)
CommitDeliver(s) ==
    /\ Records /\ apps[s] # NoValue /\ apps[s].commit # NoValue
    /\ LET req == apps[s].commit
           err == OffsetCommitError(group, req.member, req.generation)
       IN /\ apps' = [apps EXCEPT ![s].commit = NoValue, ![s].reply = err]
          /\ logs' = Judged(logs, req, req.generation)
    /\ ProtocolUnchanged

\* the client reads its commit's answer: UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION reset the
\* member (resetGenerationOnResponseError); in the prepare phase this is onJoinPrepare again: a
\* retriable error commits again, anything else goes on to the callbacks and the JoinGroup
\* (pause: KAFKA-14196's fix, as in Join)
CommitReadWith(s, pause) ==
    /\ Polling(s) /\ apps[s].reply # NoValue
    /\ apps[s].waiting # "prepare" \/ InPoll(apps[s])
    /\ LET c0 == consumers[s]
           err == apps[s].reply
           fence == err \in {"UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"}
           c1 == IF fence THEN Fenced(c0, err) ELSE c0
           a0 == [apps[s] EXCEPT !.reply = NoValue]
           r1 == IF fence THEN ListenFenced([app |-> a0, logs |-> logs]) ELSE [app |-> a0, logs |-> logs]
           r2 == JoinListeners(c1, [app |-> [r1.app EXCEPT !.waiting = ""], logs |-> r1.logs], c0)
       IN IF apps[s].waiting # "prepare"
          THEN consumers' = [consumers EXCEPT ![s] = c1] /\ apps' = [apps EXCEPT ![s] = r1.app] /\ logs' = r1.logs
          ELSE IF err = "COORDINATOR_NOT_AVAILABLE"
          THEN /\ consumers' = [consumers EXCEPT ![s] = c1]
               /\ apps' = [apps EXCEPT ![s] = PrepareCommit(c1, r1.app, pause)] /\ logs' = r1.logs
          ELSE /\ consumers' = [consumers EXCEPT ![s] = JoinedConsumer(c1)]
               /\ apps' = [apps EXCEPT ![s] = r2.app] /\ logs' = r2.logs
    /\ UNCHANGED <<group, budget, calm, calmFrom>>

CommitRead(s) == CommitReadWith(s, TRUE)

\* a producer appends a record to p
Produce(p) ==
    /\ Records /\ logs[p].end < MaxRecords
    /\ logs' = Produce1(logs, p)
    /\ UNCHANGED apps /\ ProtocolUnchanged

\* the record layer's actions (the known-bug variant modules' next takes them as they are)
RecordsNext ==
    \/ \E s \in Slots, p \in Partitions : Poll(s, p) \/ Process(s, p)
    \/ \E s \in Slots : Commit(s) \/ AutoCommit(s) \/ CommitDeliver(s) \/ CommitRead(s)
    \/ \E p \in Partitions : Produce(p)

Next ==
    \/ \E s \in Slots : Receive(s)
    \/ \E s \in Slots : Join(s)
    \/ \E s \in Slots : Heartbeat(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : Timeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Pause(s)
    \/ \E s \in Slots : Resume(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ RebalanceTimeout
    \* the record layer (disabled while Records is off)
    \/ \E s \in Slots, p \in Partitions : Poll(s, p)
    \/ \E s \in Slots, p \in Partitions : Process(s, p)
    \/ \E s \in Slots : Commit(s)
    \/ \E s \in Slots : AutoCommit(s)
    \/ \E s \in Slots : CommitDeliver(s)
    \/ \E s \in Slots : CommitRead(s)
    \/ \E p \in Partitions : Produce(p)

Spec == Init /\ [][Next]_vars

\* TLC's CONSTRAINT: the scope's bound (the model's within_bounds)
StateConstraint == group.generation <= MaxGeneration

-----------------------------------------------------------------------------
(* Invariants, named as the model's properties *)

Current(s) == /\ consumers[s].status # "down"
              /\ consumers[s].memberId \in Ids(group) /\ consumers[s].generation = group.generation

\* KIP-429: "in order to ensure safe resource management and clear ownership, the assignor
\* must make sure a partition is revoked by its previous owner before it can be assigned to
\* a new one." Claim: no two live, current members own the same partition.
no_double_ownership ==
    \A s, t \in Slots : s # t /\ Current(s) /\ Current(t) /\ ~consumers[s].paused /\ ~consumers[t].paused
                        => consumers[s].owned \cap consumers[t].owned = {}

\* KIP-429: "when consumer's being kicked out of the group, since it no longer owns the
\* partitions the `commit` call would doom to fail." Claim: in a Stable group, of two
\* consumers owning the same partition at most one is current (could commit).
fenced_commits_rejected ==
    group.status = "Stable" =>
        \A s, t \in Slots : s # t /\ Current(s) /\ Current(t) => consumers[s].owned \cap consumers[t].owned = {}

\* KIP-429: "Only consider protocols that are supported by all the assignors."
selected_protocol_everywhere ==
    group.status \in {"CompletingRebalance", "Stable"} => group.protocol = Protocol

Live == {s \in Slots : consumers[s].status # "down"}

\* the consumers as the record layer's claims see them (properties._holders): live while the
\* process runs (paused too)
HoldersOf(cs, as) == [s \in Slots |-> [member |-> cs[s].memberId, live |-> cs[s].status # "down", app |-> as[s]]]

\* the record layer (Delivery.tla's NoRecordLost: the sentence it enforces); TRUE while Records is off
no_record_lost == Records => NoRecordLost(logs, HoldersOf(consumers, apps))

\* KIP-429: "any time a partition has to be revoked it will trigger a follow up rebalance" -
\* one follow-up, no more. Claim (bounded liveness): with no fault, no operation and no
\* membership change, the leader computes at most 1 assignment (EAGER) or 2 (a running
\* COOPERATIVE consumer: revoke, then assign) before the group settles.
converges_within_k == calm <= (IF Cooperative /\ Live # {} THEN 2 ELSE 1)

Quiescent ==
    /\ group.status = "Stable"
    /\ Live # {} /\ Cardinality(Ids(group)) = Cardinality(Live)
    /\ \A s \in Live : /\ consumers[s].status = "stable" /\ Current(s) /\ ~consumers[s].paused
                        /\ consumers[s].awaiting = "" /\ consumers[s].outbox = <<>> /\ consumers[s].inbox = <<>>

\* KIP-429: revoked partitions are reassigned "in the second rebalance". Claim: when the
\* group has settled, every partition has exactly one owner.
settles_fully_owned ==
    Quiescent =>
        /\ UNION {consumers[s].owned : s \in Live} = Partitions
        /\ \A s, t \in Live : s # t => consumers[s].owned \cap consumers[t].owned = {}

\* KIP-429: "the assignor should try and be as 'sticky' as possible" - and the sticky
\* assignors keep the assignment balanced. Claim: once settled under sticky or
\* cooperative-sticky (equal subscriptions: one topic), owned counts differ by at most 1.
sticky_balanced ==
    (group.protocol \in {"sticky", "cooperative-sticky"} /\ Quiescent) =>
        \A s, t \in Live : Cardinality(consumers[s].owned) <= Cardinality(consumers[t].owned) + 1

(* What a step did, told from the variables: the step claims below are the model's claims *)
(* on its transitions, judged from the state before and after.                         *)

\* the response at the head of s's inbox is awaited and answers one of ``errors``
AwaitedError(s, errors) ==
    /\ consumers[s].inbox # <<>> /\ Head(consumers[s].inbox).error \in errors
    /\ Awaited(consumers[s], Head(consumers[s].inbox))

\* the consumer in slot s read the response at the head of its inbox (losing it spends the
\* fault budget)
Read(s) ==
    /\ consumers[s].inbox # <<>> /\ consumers'[s].inbox = Tail(consumers[s].inbox) /\ budget' = budget

\* the response at the head of s's inbox was lost (a crash, which also spends the budget,
\* takes the process down)
LostResponse(s) ==
    /\ consumers[s].inbox # <<>> /\ consumers'[s].inbox = Tail(consumers[s].inbox)
    /\ budget' = budget - 1 /\ consumers'[s].status # "down"

\* the coordinator handled the request in s's outbox (a crash empties it too, taking the
\* process down)
Handled(s) == consumers[s].outbox # <<>> /\ consumers'[s].outbox = <<>> /\ consumers'[s].status # "down"

\* the consumer in slot s sent JoinGroup after onJoinPrepare's decision: only Join takes a
\* consumer from idle to joining
SentJoin(s) == consumers[s].status = "idle" /\ consumers'[s].status = "joining"

\* the commit a step judged at once (the model's offset_commit events): commitSync after
\* processing (waiting "commit" ends; none when the client fails it itself), in
\* onPartitionsRevoked under sync-on-revoke: EAGER's onJoinPrepare (Join: idle -> joining) or
\* COOPERATIVE's onJoinComplete (a SyncGroup response read); NoValue: none
AtomicCommit(s) ==
    LET a == apps[s]
        c == consumers[s]
        resp == Head(c.inbox)
        callback(P) == CommitRequest(a, c.memberId, c.generation, "callback", TRUE, P)
    IN IF a = NoValue \/ apps'[s] = NoValue THEN NoValue
       ELSE IF a.waiting = "commit" /\ apps'[s].waiting = "" THEN IF StableMember(c) THEN ManualRequest(s) ELSE NoValue
       ELSE IF CommitPolicy # "sync-on-revoke" \/ Reset(c) THEN NoValue
       ELSE IF c.status = "idle" /\ consumers'[s].status = "joining" /\ c.needsJoinPrepare /\ ~Cooperative
       THEN callback(c.owned)
       ELSE IF /\ Cooperative /\ Read(s) /\ Awaited(c, resp) /\ resp.kind = "SyncGroup" /\ resp.error = "NONE"
       THEN callback(c.owned \ resp.assignment)
       ELSE NoValue

\* the commit in flight the step delivered (CommitDeliver)
DeliveredCommit(s) ==
    /\ apps[s] # NoValue /\ apps'[s] # NoValue
    /\ apps[s].commit # NoValue /\ apps'[s].commit = NoValue /\ apps'[s].reply # NoValue

\* every [req, error] the coordinator answered in the step
AnsweredCommits ==
    {[req |-> apps[s].commit, error |-> apps'[s].reply] : s \in {x \in Slots : DeliveredCommit(x)}}
    \cup {[req |-> AtomicCommit(s), error |-> OffsetCommitError(group, AtomicCommit(s).member, AtomicCommit(s).generation)] :
          s \in {x \in Slots : AtomicCommit(x) # NoValue}}

\* a consumer still a member processed a record in the step (a zombie's is a fault's doing)
ProcessedByMember(s) ==
    /\ apps[s] # NoValue /\ apps'[s] # NoValue /\ consumers[s].memberId \in Ids(group)
    /\ \E p \in Owns(apps[s]) \cap Owns(apps'[s]) : apps'[s].cursors[p].processed > apps[s].cursors[p].processed

\* Step claims
\* KIP-429: "If received UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION from join-group / sync-group /
\* commit / heartbeat response: reset generation / clear member-id correspondingly, call
\* rebalance listener's onPartitionsLost for all the partition and then re-join group with
\* empty assigned partition." (Kafka's resetStateOnResponseError keeps the member id on
\* ILLEGAL_GENERATION.) Claim: a consumer answered so to the request it awaits resets its
\* generation, clears its member id exactly on UNKNOWN_MEMBER_ID, and will rejoin.
fencing_resets_generation ==
    \A s \in Slots :
        (AwaitedError(s, {"UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"}) /\ Read(s))
        => /\ consumers'[s].generation = NoGeneration
           /\ (consumers'[s].memberId = NoMember) = (Head(consumers[s].inbox).error = "UNKNOWN_MEMBER_ID")
           /\ consumers'[s].status = "idle" /\ consumers'[s].awaiting = ""

\* Kafka's AbstractCoordinator: a Heartbeat answered REBALANCE_IN_PROGRESS means
\* requestRejoin("group is already rebalancing"); a SyncGroup answered so: "The group began
\* another rebalance. Need to re-join the group." (no reset since KAFKA-14016, 3.3). Claim: the
\* consumer will rejoin, keeping its member id, generation and owned partitions.
rebalance_in_progress_rejoins ==
    \A s \in Slots :
        (/\ AwaitedError(s, {"REBALANCE_IN_PROGRESS"}) /\ Head(consumers[s].inbox).kind \in {"Heartbeat", "SyncGroup"}
         /\ Read(s))
        => /\ consumers'[s].status = "idle" /\ consumers'[s].awaiting = ""
           /\ consumers'[s].memberId = consumers[s].memberId /\ consumers'[s].generation = consumers[s].generation
           /\ consumers'[s].owned = consumers[s].owned

\* Kafka's AbstractCoordinator: a Heartbeat that fails on the connection only marks the
\* coordinator unknown and is retried. Claim: losing a Heartbeat response leaves the
\* consumer's status, membership and ownership as they were.
heartbeat_loss_keeps_membership ==
    \A s \in Slots :
        (consumers[s].inbox # <<>> /\ Head(consumers[s].inbox).kind = "Heartbeat" /\ LostResponse(s))
        => /\ consumers'[s].status = consumers[s].status /\ consumers'[s].memberId = consumers[s].memberId
           /\ consumers'[s].generation = consumers[s].generation /\ consumers'[s].owned = consumers[s].owned

\* KIP-429: "Listener#onPartitionsLost: if the member has missed a rebalance and fallen out of
\* the group, this new callback will be invoked on the set of all owned partitions (unless
\* empty). The member will then rejoin the group" - "with empty assigned partition". Claim: a
\* reset consumer (generation or member id reset) sends its JoinGroup owning nothing. (The
\* model's other clause, onPartitionsLost only when fenced, judges its callback log: here the
\* only onPartitionsLost is this one, metadata changes and close being left out.)
lost_only_when_fenced ==
    \A s \in Slots : (SentJoin(s) /\ Reset(consumers[s])) => consumers'[s].owned = {}

\* Kafka's GroupCoordinator: a known member rejoining a Stable group "force[s] a rebalance if
\* the leader sends JoinGroup"; "for followers with no actual change to their metadata, just
\* return group information for the current generation"; a new member and a removed one start
\* a rebalance. Claims: the group starts a rebalance only when its membership changes, a
\* member's metadata (its subscription) changes, or the leader rejoins a Stable group; and
\* each of these, in a Stable or CompletingRebalance group, does start one.
rebalance_on_change_only ==
    LET began == group.status # "PreparingRebalance"
                 /\ (group'.status = "PreparingRebalance" \/ group'.generation > group.generation)
        rejoined(s) == LET r == Head(consumers[s].outbox)
                       IN /\ r.kind = "JoinGroup" /\ r.memberId \in Ids(group)
                          /\ \/ group.members[r.memberId].subscription # r.subscription
                             \/ group.status = "Stable" /\ r.memberId = group.leader
        why == Ids(group) # Ids(group') \/ \E s \in Slots : Handled(s) /\ rejoined(s)
    IN /\ began => why
       /\ (why /\ group.status \in {"Stable", "CompletingRebalance"} /\ Ids(group') # {}) => began

\* Kafka's GroupMetadata#initNextGeneration: once every member has rejoined,
\* "generationId += 1", the group CompletingRebalance (or Empty when no member is left).
\* Claims: the generation moves only by one, only when a join phase completes; a completed
\* phase leaves the group CompletingRebalance with a leader among its members (or Empty), and
\* every member that stays had rejoined.
generation_per_round ==
    IF group'.generation = group.generation
    THEN ~(group.status = "PreparingRebalance" /\ group'.status \in {"CompletingRebalance", "Empty"})
    ELSE LET joining == {Head(consumers[s].outbox).memberId :
                           s \in {t \in Slots : Handled(t) /\ Head(consumers[t].outbox).kind = "JoinGroup"}}
         IN /\ group'.generation = group.generation + 1
            /\ group'.status \in {"CompletingRebalance", "Empty"}
            /\ group'.status = "CompletingRebalance" => group'.leader \in Ids(group')
            /\ group.status = "PreparingRebalance" =>
                   \A x \in Ids(group') \cap Ids(group) : group.members[x].joined \/ x \in joining

\* Kafka's GroupCoordinator#doSyncGroup and #handleHeartbeat, state by state: an unknown
\* member or an Empty group gets UNKNOWN_MEMBER_ID; another generation ILLEGAL_GENERATION;
\* "case PreparingRebalance => REBALANCE_IN_PROGRESS"; a follower's SyncGroup in
\* CompletingRebalance waits for the leader's; in Stable a SyncGroup gets "memberMetadata.
\* assignment, Errors.NONE"; a Heartbeat in CompletingRebalance or Stable NONE. Claim: each
\* SyncGroup and Heartbeat the coordinator handles is answered so.
coordinator_answers ==
    \A s \in Slots :
        (Handled(s) /\ Head(consumers[s].outbox).kind \in {"SyncGroup", "Heartbeat"})
        => LET req == Head(consumers[s].outbox)
               want == IF req.memberId \notin Ids(group) \/ group.status = "Empty" THEN "UNKNOWN_MEMBER_ID"
                       ELSE IF req.generation # group.generation THEN "ILLEGAL_GENERATION"
                       ELSE IF group.status = "PreparingRebalance" THEN "REBALANCE_IN_PROGRESS"
                       ELSE IF req.kind = "SyncGroup" /\ group.status = "CompletingRebalance"
                               /\ req.memberId # group.leader THEN "wait for the leader"
                       ELSE "NONE"
               inbox == consumers'[s].inbox
               answered == Len(inbox) > Len(consumers[s].inbox)
           IN IF want = "wait for the leader" THEN ~answered
              ELSE /\ answered /\ inbox[Len(inbox)].error = want
                   /\ (req.kind = "SyncGroup" /\ want = "NONE" /\ group.status = "Stable")
                      => inbox[Len(inbox)].assignment = group.members[req.memberId].assignment

\* the record layer's step claims (Delivery.tla: the sentences they enforce); TRUE while Records
\* is off. A Poll that initialises a position moves processed from NoOffset: no duplicate.
no_duplicate_without_failure ==
    (Records /\ CommitPolicy # "none") =>
        \A s \in Slots : ProcessedByMember(s) =>
            NoDuplicateWithoutFailure(logs, HoldersOf(consumers, apps), HoldersOf(consumers', apps'))

fetch_stops_at_revocation == Records => FetchStopsAtRevocation(HoldersOf(consumers, apps), HoldersOf(consumers', apps'))

commits_fenced_after_handover == Records => CommitsFencedAfterHandover(logs, AnsweredCommits)

\* For TLC
\* the step claims as one temporal property (MCConsumer.cfg: PROPERTY StepClaims)
StepClaimsAction ==
    /\ fencing_resets_generation /\ rebalance_in_progress_rejoins /\ heartbeat_loss_keeps_membership
    /\ lost_only_when_fenced /\ rebalance_on_change_only /\ generation_per_round /\ coordinator_answers
    /\ no_duplicate_without_failure /\ fetch_stops_at_revocation /\ commits_fenced_after_handover
StepClaims == [][StepClaimsAction]_vars

\* Liveness under fairness (groupcheck/liveness.py's settles_under_fairness): once faults stop,
\* the group converges. GroupConverged is the model's converged (model/consumer/properties.py),
\* Quiescent but for heartbeat traffic: Stable, every live consumer current, synced and not
\* paused, one member per live consumer, nothing on the wire but heartbeats and their
\* error-free responses.
GroupConverged ==
    /\ group.status = "Stable"
    /\ Live # {} /\ Cardinality(Ids(group)) = Cardinality(Live)
    /\ \A s \in Live :
           LET c == consumers[s]
           IN /\ c.status = "stable" /\ Current(s) /\ ~c.paused /\ c.awaiting \in {"", "Heartbeat"}
              /\ \A i \in DOMAIN c.outbox : c.outbox[i].kind = "Heartbeat"
              /\ \A i \in DOMAIN c.inbox : c.inbox[i].kind = "Heartbeat" /\ c.inbox[i].error = "NONE"

\* WF_vars(A) for the handlers' actions, stated without ENABLED: TLC 2.15 evaluates ENABLED of
\* an action by expanding its LET definitions without caching (the coordinator's handlers, the
\* leader's assignment): with ENABLED, MCConsumerLiveness ran over 10 minutes, unfinished, where
\* it takes 3 s without. Each of these actions is enabled exactly when its guard holds (the
\* handler always gives a next state), and every step of it changes vars (an inbox or outbox
\* shrinks, a member leaves), so each XFair below is WF_vars(A) as written:
\* <>[]ENABLED <<A>>_vars => []<><<A>>_vars, that is []<>~guard \/ []<><<A>>_vars. (One operator
\* taking the action as an argument would do, but TLC 2.15 cannot handle that temporal formula.)
\* The guards not named elsewhere: a member in slot s whose process cannot answer
\* (SessionTimeout); a rebalance waiting for a member that cannot rejoin (RebalanceTimeout).
Expirable(s) == \E id \in Ids(group) : group.members[id].slot = s /\ Unreachable(s, id)
Straggling ==
    /\ group.status = "PreparingRebalance"
    /\ \E id \in Ids(group) : ~group.members[id].joined /\ Unreachable(group.members[id].slot, id)

ReceiveFair(s) == []<>~CanReceive(s) \/ []<><<Receive(s)>>_vars
DeliverFair(s) == []<>(consumers[s].outbox = <<>>) \/ []<><<Deliver(s)>>_vars
SessionTimeoutFair(s) == []<>~Expirable(s) \/ []<><<SessionTimeout(s)>>_vars
RebalanceTimeoutFair == []<>~Straggling \/ []<><<RebalanceTimeout>>_vars

\* weak fairness per (step kind, client slot) on every step that is not a fault (crash, pause,
\* lose_response and timeout spend the finite Budget, so faults stop in every behaviour): the
\* model's non-fault kinds receive, join, heartbeat, deliver, restart, resume and
\* session_timeout per slot, and the coordinator's rebalance_timeout (slot -1) as one instance
\* (refresh_metadata and bounce are left out of the spec)
\* the record layer's steps (disabled while Records is off), per (kind, slot) as the model's
\* (a kind over partitions is one instance per slot; Produce one instance)
RecordsFairness ==
    /\ \A s \in Slots : WF_vars(\E p \in Partitions : Poll(s, p)) /\ WF_vars(\E p \in Partitions : Process(s, p))
    /\ \A s \in Slots : WF_vars(Commit(s)) /\ WF_vars(AutoCommit(s)) /\ WF_vars(CommitDeliver(s)) /\ WF_vars(CommitRead(s))
    /\ WF_vars(\E p \in Partitions : Produce(p))

Fairness ==
    /\ \A s \in Slots : ReceiveFair(s) /\ WF_vars(Join(s)) /\ WF_vars(Heartbeat(s))
    /\ \A s \in Slots : DeliverFair(s)
    /\ \A s \in Slots : WF_vars(Restart(s)) /\ WF_vars(Resume(s))
    /\ \A s \in Slots : SessionTimeoutFair(s)
    /\ RebalanceTimeoutFair
    /\ RecordsFairness

FairSpec == Init /\ [][Next]_vars /\ Fairness

\* the claim: every fair behaviour converges again and again (after the last fault it
\* converges, and after any later step that unsettles it)
SettlesUnderFairness == []<>GroupConverged

\* the same claim for a config of INIT and NEXT (MCConsumerLiveness.cfg): TLC checks the
\* fairness as the property's premise, and groupcheck's config reader reads INIT/NEXT only
FairSettles == Fairness => SettlesUnderFairness

\* Witnesses
\* the group settles with every partition owned
sometimes_settled == Quiescent

\* a paused consumer still believes it owns partitions after the group expelled it: the
\* zombie the fencing exists for
sometimes_zombie == \E s \in Slots : consumers[s].paused /\ consumers[s].owned # {} /\ consumers[s].memberId \notin Ids(group)

\* records: a fault struck between processing a record and committing it: an offset at or above
\* the committed offset was processed and its redelivery is excused
sometimes_killed_before_commit ==
    Records /\ \E p \in DOMAIN logs : \E o \in logs[p].done \cap logs[p].excused : o >= logs[p].committed
=============================================================================
