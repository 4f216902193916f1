------------------------------- MODULE Consumer -------------------------------
(***************************************************************************)
(* The classic consumer group protocol (JoinGroup, SyncGroup, Heartbeat)    *)
(* between Kafka's GroupCoordinator and the consumers' ConsumerCoordinator, *)
(* at message level: each consumer has at most one request on the wire     *)
(* (its outbox) and reads its responses from its inbox in order; the        *)
(* coordinator's join barrier, generations, leader election and SyncGroup   *)
(* barrier; the leader's assignment; onJoinPrepare / onJoinComplete (KIP-429,*)
(* KIP-792's generation in the subscription). A second formalisation of     *)
(* groupcheck's Python model (model/consumer), cross-checked state for      *)
(* state by `groupcheck spec check consumer`.                               *)
(*                                                                         *)
(* Covers: one topic, every consumer on one config of the EAGER range       *)
(* assignor (subscription v3: ownedPartitions and generation), the steps    *)
(* Receive, Join, Heartbeat and Deliver, the faults LoseResponse and        *)
(* Timeout (a SyncGroup that times out), Crash (and Restart), Pause (and   *)
(* Resume: a zombie), the coordinator's session and rebalance timeouts,    *)
(* the liveness monitor of converges_within_k. Leaves out (see README.md): *)
(* COOPERATIVE and the sticky assignors (KIP-429's withholding, KIP-792's   *)
(* claim resolution), rolling bounces onto other configs (and LeaveGroup), *)
(* metadata changes, subscription changes, group deletion.                 *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, Sequences

CONSTANTS
    Slots,          \* the consumers, by slot number (0 .. members-1)
    Partitions,     \* the partitions of the one topic, as numbers 0 .. n-1
    Faults,         \* the faults the scope allows: a subset of {"crash", "pause", "lose_response", "timeout"}
    Budget,         \* how many faults may happen
    MaxGeneration,  \* the scope's bound on the group generation (TLC: CONSTRAINT)
    CalmCap         \* the liveness monitor's cap (3)

VARIABLES
    group,          \* the coordinator's group
    consumers,      \* slot -> the consumer process in that slot
    budget,         \* faults left
    calm,           \* leader assignments since the last disturbance (at most CalmCap)
    calmFrom        \* the last generation begun before the last disturbance

vars == <<group, consumers, budget, calm, calmFrom>>

-----------------------------------------------------------------------------
(* Values *)

NoFn == [x \in {} |-> 0]
NoMember == 0
NoGeneration == -1
Protocol == "range"

GroupStates == {"Empty", "PreparingRebalance", "CompletingRebalance", "Stable"}
ConsumerStates == {"down", "idle", "joining", "syncing", "stable"}

\* The subscription a JoinGroup carries (v3): ownedPartitions and their generation
Subscription(c) == [owned |-> c.owned, generation |-> c.generation]

TypeOK ==
    /\ group.status \in GroupStates
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

\* resetStateAndRejoin: ILLEGAL_GENERATION keeps the member id, UNKNOWN_MEMBER_ID not
Fenced(c, error) ==
    [c EXCEPT !.status = "idle", !.awaiting = "", !.memberId = IF error = "UNKNOWN_MEMBER_ID" THEN NoMember ELSE @,
              !.generation = NoGeneration, !.needsJoinPrepare = TRUE]

JoinRequest(c) == [kind |-> "JoinGroup", memberId |-> c.memberId, subscription |-> Subscription(c)]

\* what the consumer does with the response at the head of its inbox; "led": it computed an
\* assignment as the leader
OnResponse(c0, resp) ==
    LET c == [c0 EXCEPT !.inbox = Tail(@)]
    IN IF c.awaiting # resp.kind \/ resp.to # c.memberId
       THEN [consumer |-> c, led |-> FALSE]          \* no longer awaited: ignored
       ELSE LET d == [c EXCEPT !.awaiting = ""]
            IN CASE resp.kind = "JoinGroup" ->
                     IF resp.error = "MEMBER_ID_REQUIRED"
                     THEN LET e == [d EXCEPT !.memberId = resp.memberId]
                          IN [consumer |-> [e EXCEPT !.awaiting = "JoinGroup", !.outbox = <<JoinRequest(e)>>],
                              led |-> FALSE]
                     ELSE IF resp.error # "NONE"
                     THEN [consumer |-> Fenced(d, resp.error), led |-> FALSE]
                     ELSE LET e == [d EXCEPT !.generation = resp.generation, !.memberId = resp.memberId,
                                             !.snapshot = -1]
                              leads == resp.leader = e.memberId
                              assignments == IF leads THEN RangeAssign(resp.members) ELSE NoFn
                              f == IF leads THEN [e EXCEPT !.snapshot = 0] ELSE e
                          IN [consumer |-> [f EXCEPT !.status = "syncing", !.awaiting = "SyncGroup",
                                                     !.outbox = <<[kind |-> "SyncGroup", memberId |-> f.memberId,
                                                                   generation |-> f.generation,
                                                                   assignments |-> assignments]>>],
                              led |-> leads]
                 [] resp.kind = "SyncGroup" ->
                     IF resp.error = "NONE"
                     THEN \* onJoinComplete: owned = assigned, then onPartitionsAssigned
                          [consumer |-> [d EXCEPT !.needsJoinPrepare = TRUE, !.owned = resp.assignment,
                                                  !.userData = resp.assignment, !.status = "stable"],
                           led |-> FALSE]
                     ELSE IF resp.error = "REBALANCE_IN_PROGRESS"
                     THEN [consumer |-> [d EXCEPT !.status = "idle"], led |-> FALSE]
                     ELSE [consumer |-> Fenced(d, resp.error), led |-> FALSE]
                 [] OTHER ->
                     IF resp.error = "NONE" THEN [consumer |-> d, led |-> FALSE]
                     ELSE IF resp.error = "REBALANCE_IN_PROGRESS"
                     THEN [consumer |-> [d EXCEPT !.status = "idle"], led |-> FALSE]
                     ELSE [consumer |-> Fenced(d, resp.error), led |-> FALSE]

-----------------------------------------------------------------------------
(* Actions: one per model action kind *)

\* the consumer processes the oldest response in its inbox
Receive(s) ==
    /\ ~consumers[s].paused
    /\ consumers[s].inbox # <<>>
    /\ LET r == OnResponse(consumers[s], Head(consumers[s].inbox))
       IN /\ consumers' = [consumers EXCEPT ![s] = r.consumer]
          \* the monitor counts assignments for generations begun after the last disturbance
          /\ calm' = IF r.led /\ r.consumer.generation > calmFrom
                     THEN (IF calm + 1 < CalmCap THEN calm + 1 ELSE CalmCap) ELSE calm
    /\ UNCHANGED <<group, budget, calmFrom>>

\* onJoinPrepare (once per rebalance: EAGER revokes everything; a reset consumer loses it),
\* then JoinGroup
Join(s) ==
    /\ ~consumers[s].paused
    /\ consumers[s].status = "idle" /\ consumers[s].awaiting = "" /\ consumers[s].outbox = <<>>
    /\ LET c == consumers[s]
           d == [c EXCEPT !.owned = IF c.needsJoinPrepare THEN {} ELSE @, !.needsJoinPrepare = FALSE]
       IN consumers' = [consumers EXCEPT ![s] = [d EXCEPT !.status = "joining", !.awaiting = "JoinGroup",
                                                          !.outbox = <<JoinRequest(d)>>]]
    /\ UNCHANGED <<group, budget, calm, calmFrom>>

Heartbeat(s) ==
    /\ ~consumers[s].paused
    /\ consumers[s].status = "stable" /\ consumers[s].awaiting = "" /\ consumers[s].outbox = <<>>
    /\ consumers' = [consumers EXCEPT ![s].awaiting = "Heartbeat",
                                      ![s].outbox = <<[kind |-> "Heartbeat", memberId |-> consumers[s].memberId,
                                                       generation |-> consumers[s].generation]>>]
    /\ UNCHANGED <<group, budget, calm, calmFrom>>

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
    /\ UNCHANGED budget

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
    /\ UNCHANGED group

\* fault: the SyncGroup times out; the consumer rejoins
Timeout(s) ==
    /\ "timeout" \in Faults /\ budget > 0
    /\ consumers[s].awaiting = "SyncGroup" /\ ~consumers[s].paused
    /\ consumers' = [consumers EXCEPT ![s].awaiting = "", ![s].status = "idle"]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED group

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
    /\ budget' = budget - 1
    /\ Disturbed

Restart(s) ==
    /\ consumers[s].status = "down"
    /\ consumers' = [consumers EXCEPT ![s] = FreshConsumer]
    /\ Disturbed
    /\ UNCHANGED <<group, budget>>

\* fault: the application stops polling past its session timeout (a zombie in the making)
Pause(s) ==
    /\ "pause" \in Faults /\ budget > 0
    /\ consumers[s].status # "down" /\ ~consumers[s].paused
    /\ consumers' = [consumers EXCEPT ![s].paused = TRUE]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED group

Resume(s) ==
    /\ consumers[s].status # "down" /\ consumers[s].paused
    /\ consumers' = [consumers EXCEPT ![s].paused = FALSE]
    /\ Disturbed
    /\ UNCHANGED <<group, budget>>

\* the coordinator's answers go out to the consumers that still listen
Broker(r) ==
    /\ group' = r.group
    /\ consumers' = Delivered(consumers, r.out)
    /\ Disturbed
    /\ UNCHANGED budget

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

\* KIP-429: "any time a partition has to be revoked it will trigger a follow up rebalance" -
\* one follow-up, no more; an EAGER group: at most one assignment after a disturbance.
converges_within_k == calm <= 1

Live == {s \in Slots : consumers[s].status # "down"}

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

\* Witnesses
\* the group settles with every partition owned
sometimes_settled == Quiescent

\* a paused consumer still believes it owns partitions after the group expelled it: the
\* zombie the fencing exists for
sometimes_zombie == \E s \in Slots : consumers[s].paused /\ consumers[s].owned # {} /\ consumers[s].memberId \notin Ids(group)
=============================================================================
