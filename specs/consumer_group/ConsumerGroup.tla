---------------------------- MODULE ConsumerGroup ----------------------------
(***************************************************************************)
(* KIP-848 consumer groups: the ConsumerGroupHeartbeat exchange between the  *)
(* group coordinator and the consumers of one group, at message level: each *)
(* client has at most one heartbeat request or response in flight, the      *)
(* coordinator handles one heartbeat at a time (group epoch, target         *)
(* assignment epoch, member epochs, the uniform assignor, the              *)
(* CurrentAssignmentBuilder's reconciliation), and a consumer reconciles    *)
(* (revoke, then assign) in its poll. A second formalisation of groupcheck's *)
(* Python model (model/consumer_group), cross-checked state for state by    *)
(* `groupcheck spec check consumer-group`.                                  *)
(*                                                                         *)
(* Covers: dynamic or static members (group.instance.id) subscribed by name *)
(* to one topic, the `kip-848` profile (Kafka trunk's rules), the steps     *)
(* Send, Handle, Deliver, Reconcile, Restart (a process starts again as a   *)
(* new incarnation with a new member id), Resume, the coordinator's timers  *)
(* Expire (the session of a gone process) and RebalanceTimeout, the faults  *)
(* LoseResponse (the next heartbeat is sent in full: the previous-epoch     *)
(* rule), SessionTimeout (of a live member), Crash and Stall (the           *)
(* application stops polling), the operations Leave (close for good) and   *)
(* Roll (close to restart: a rolling bounce; a static member leaves with    *)
(* epoch -2 and its next incarnation takes its assignment over), and the    *)
(* convergence monitor of converges_within_k; with the constant Records,  *)
(* the record layer (Delivery.tla; model/consumer_group/delivery_steps.py): *)
(* partition logs, each application's cursors and offset commits. Leaves  *)
(* out (see README.md):                                                    *)
(* joiner slots, regular expressions, several topics, the range assignor,   *)
(* subscription and topic changes, coordinator failover, classic members    *)
(* and online migration, the other profiles. Known-bug variants are modules *)
(* that EXTEND this one (ConsumerGroup_KAFKA*.tla).                          *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences, Delivery

CONSTANTS
    Slots,          \* the clients, by slot number (0 .. members-1)
    Partitions,     \* the partitions of the one topic t0, as numbers 0 .. n-1
    Static,         \* TRUE: every consumer has a group.instance.id, its slot's, kept across restarts
    Faults,         \* a subset of {"lose_response", "session_timeout", "crash", "stall"}
    Operations,     \* a subset of {"leave", "roll"}
    Budget,         \* how many faults and operations may happen
    MaxEpoch,       \* the scope's bound on the group epoch (TLC: CONSTRAINT)
    K               \* heartbeat rounds converges_within_k allows (5)
    \* Delivery.tla declares NoValue and the record layer's Records, MaxRecords, CommitPolicy,
    \* OffsetReset

VARIABLES
    group,          \* the coordinator's consumer group
    clients,        \* slot -> the consumer in that slot
    budget,         \* faults and operations left
    calm,           \* full heartbeat rounds since the last disturbance (at most K)
    beaten,         \* slots that read the response to a heartbeat sent this round
    fresh,          \* slots whose heartbeat in flight was sent this round
    wedged,         \* slots whose lost response may have carried an assignment
    marks,          \* witnesses seen on the way: "REVOKED", "LOST_RECOVERED", "STATIC_KEPT", and
                    \* the record layer's "REDELIVERED", "KILLED_BEFORE_COMMIT", "HANDOVER_CLEAN"
    logs,           \* the record layer: partition -> Log (Delivery.tla); NoValue without Records
    apps            \* the record layer: slot -> the application behind the client (NoValue: none)

vars == <<group, clients, budget, calm, beaten, fresh, wedged, marks, logs, apps>>

-----------------------------------------------------------------------------
(* Values *)

NoFn == [x \in {} |-> 0]                 \* the empty function
None == NoValue                          \* unequal to every record, set and tuple
MemberStates == {"STABLE", "UNREVOKED", "UNRELEASED"}
ClientStates == {"DOWN", "JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "LEAVING", "UNSUBSCRIBED", "FATAL"}
InGroup == {"RECONCILING", "ACKNOWLEDGING", "STABLE"}

\* ConsumerGroupHeartbeatRequest.MemberEpoch: "-1 to leave the group; -2 to indicate that the
\* static member will rejoin"
LeaveEpoch == -1
LeaveStaticEpoch == -2

\* A member id: the client's slot and incarnation ("m<slot>.<incarnation>", KIP-1082: the
\* client makes it at startup and keeps it for the life of the process); ids are ordered as
\* Kafka's strings order them for one-digit slots. A static member's instance id is its slot's.
IdOf(s) == <<s, clients[s].incarnation>>
IdLess(a, b) == a[1] < b[1] \/ (a[1] = b[1] /\ a[2] < b[2])

\* targetEpoch: 3.7.0's targetMemberEpoch (KAFKA-16249's variant); it stays 0 here
Member == [state: MemberStates, epoch: Int, previousEpoch: Int, assigned: SUBSET Partitions,
           pendingRevocation: SUBSET Partitions, targetEpoch: Int]
Request == [epoch: Int, full: BOOLEAN, reports: BOOLEAN, owned: SUBSET Partitions]
Reply == [error: STRING, epoch: Int, hasAssignment: BOOLEAN, assignment: SUBSET Partitions]
Sent == [kind: {"none", "owned", "changed"}, owned: SUBSET Partitions]

NoSent == [kind |-> "none", owned |-> {}]

TypeOK ==
    /\ group.dead \in BOOLEAN
    /\ group.epoch \in Nat /\ group.assignmentEpoch \in Nat
    \* lost: partitions whose owner the partition-epoch map forgot (KAFKA-16147's variant); {} here
    /\ group.lost \subseteq Partitions
    /\ \A id \in DOMAIN group.members : group.members[id] \in Member
    /\ \A s \in Slots : /\ clients[s].status \in ClientStates
                        /\ clients[s].stalled \in BOOLEAN /\ clients[s].forGood \in BOOLEAN
    /\ budget \in Nat /\ calm \in 0..K
    /\ beaten \subseteq Slots /\ fresh \subseteq Slots /\ wedged \subseteq Slots

-----------------------------------------------------------------------------
(* Init: no group yet; every consumer starts, joining *)

\* stalled: the application stopped polling; forGood: it closed and will not restart
NewClient(inc, forGood) ==
    [status |-> "JOINING", incarnation |-> inc, epoch |-> 0, owned |-> {}, target |-> {},
     sent |-> NoSent, request |-> None, reply |-> None, stalled |-> FALSE, forGood |-> forGood]

NoGroup == [dead |-> TRUE, epoch |-> 0, assignmentEpoch |-> 0, members |-> NoFn, target |-> NoFn, lost |-> {}]

Init ==
    /\ group = NoGroup
    /\ clients = [s \in Slots |-> NewClient(0, FALSE)]
    /\ budget = Budget
    /\ calm = 0
    /\ beaten = {}
    /\ fresh = {}
    /\ wedged = {}
    /\ marks = {}
    /\ logs = IF Records THEN [p \in Partitions |-> NewLog] ELSE NoValue
    /\ apps = [s \in Slots |-> IF Records THEN NewApp ELSE NoValue]

-----------------------------------------------------------------------------
(* Helpers: the group *)

Running(c) == c.status \in {"JOINING", "LEAVING"} \cup InGroup
Idle(c) == c.request = None /\ c.reply = None

\* ConsumerGroup.maybeUpdateGroupState
GroupState(g) ==
    IF g.dead THEN "DEAD"
    ELSE IF DOMAIN g.members = {} THEN "EMPTY"
    ELSE IF g.epoch > g.assignmentEpoch THEN "ASSIGNING"
    ELSE IF \E id \in DOMAIN g.members :
            ~(g.members[id].state = "STABLE" /\ g.members[id].epoch = g.assignmentEpoch)
         THEN "RECONCILING"
    ELSE "STABLE"

TargetOf(g, id) == IF id \in DOMAIN g.target THEN g.target[id] ELSE {}

\* f with id mapped to v (added or replaced); f without the ids in X
Put(f, id, v) == [x \in DOMAIN f \cup {id} |-> IF x = id THEN v ELSE f[x]]
Drop(f, X) == [x \in DOMAIN f \ X |-> f[x]]

\* ConsumerGroup.staticMember: the members holding slot s's instance id (at most one)
Holders(g, s) == IF Static THEN {id \in DOMAIN g.members : id[1] = s} ELSE {}

RECURSIVE SortedIds(_)
SortedIds(S) == IF S = {} THEN <<>>
                ELSE LET m == CHOOSE x \in S : \A y \in S : ~IdLess(y, x)
                     IN <<m>> \o SortedIds(S \ {m})

RECURSIVE SortedNats(_)
SortedNats(S) == IF S = {} THEN <<>>
                 ELSE LET m == CHOOSE x \in S : \A y \in S : x <= y
                      IN <<m>> \o SortedNats(S \ {m})

Range(seq) == {seq[i] : i \in DOMAIN seq}

RECURSIVE Flatten(_)
Flatten(seqs) == IF seqs = <<>> THEN <<>> ELSE Head(seqs) \o Flatten(Tail(seqs))

RECURSIVE Offset(_, _)
\* the unassigned partitions the members before position i take (assignRemainingPartitions)
Offset(needs, i) == IF i = 1 THEN 0 ELSE Offset(needs, i - 1) + needs[i - 1]

(***************************************************************************)
(* The uniform assignor, every member subscribed to the one topic           *)
(* (UniformHomogeneousAssignmentBuilder): quotas of n \div m, the first      *)
(* n % m members in id order one more; each member keeps the lowest of its  *)
(* previous target's partitions up to its quota and gives up the rest;     *)
(* the members still short take the unassigned partitions in order: first  *)
(* those nobody's target held, then those given up, member by member.       *)
(***************************************************************************)
Uniform(g) ==
    LET ids == SortedIds(DOMAIN g.members)
        n == Len(ids)
        total == Cardinality(Partitions)
        Quota(i) == total \div n + (IF i <= total % n THEN 1 ELSE 0)
        Prev(i) == SortedNats(TargetOf(g, ids[i]) \cap Partitions)
        KeptSeq(i) == SubSeq(Prev(i), 1, IF Len(Prev(i)) <= Quota(i) THEN Len(Prev(i)) ELSE Quota(i))
        GivenUp(i) == IF Len(Prev(i)) <= Quota(i) THEN <<>> ELSE SubSeq(Prev(i), Quota(i) + 1, Len(Prev(i)))
        held == UNION {TargetOf(g, ids[i]) : i \in 1..n}
        unassigned == SortedNats(Partitions \ held) \o Flatten([i \in 1..n |-> GivenUp(i)])
        needs == [i \in 1..n |-> Quota(i) - Len(KeptSeq(i))]
    IN [id \in DOMAIN g.members |->
          LET i == CHOOSE j \in 1..n : ids[j] = id
          IN Range(KeptSeq(i)) \cup {unassigned[k] : k \in Offset(needs, i) + 1 .. Offset(needs, i) + needs[i]}]

(***************************************************************************)
(* Reconciliation (modern/consumer/CurrentAssignmentBuilder), one step of a *)
(* member towards its target. "owned" is None when the heartbeat did not    *)
(* report its partitions. A partition is unreleased while another member    *)
(* still holds it (assigned or pending revocation): it is "blocked".        *)
(***************************************************************************)
Overlaps(owned, pending) == owned = None \/ owned \cap pending # {}

Moved(m, epoch, state, assigned, pending) ==
    [m EXCEPT !.state = state, !.epoch = epoch, !.previousEpoch = m.epoch,
              !.assigned = assigned, !.pendingRevocation = pending]

NextAssignment(m, epoch, targetEpoch, target, owned, blocked) ==
    LET kept == m.assigned \cap target
        revoke == m.assigned \ kept
        wanted == target \ kept
        assign == wanted \ blocked
        unreleased == wanted \cap blocked # {}
    IN IF revoke # {} /\ Overlaps(owned, revoke)
       THEN Moved(m, epoch, "UNREVOKED", kept, revoke)
       ELSE IF assign # {}
       THEN Moved(m, targetEpoch, IF unreleased THEN "UNRELEASED" ELSE "STABLE", kept \cup assign, {})
       ELSE Moved(m, targetEpoch, IF unreleased THEN "UNRELEASED" ELSE "STABLE", kept, {})

\* what the other members hold (consumer_unreleased)
Blocking(g, id) ==
    UNION {g.members[o].assigned \cup g.members[o].pendingRevocation : o \in DOMAIN g.members \ {id}}

\* CurrentAssignmentBuilder#build for member id of g
NextMember(g, id, m, owned, blocked) ==
    LET target == TargetOf(g, id)
        te == g.assignmentEpoch
    IN CASE m.state = "STABLE" ->
              IF m.epoch = te THEN m ELSE NextAssignment(m, m.epoch, te, target, owned, blocked)
         [] m.state = "UNREVOKED" ->
              \* trunk (KAFKA-19974): the epoch does not move when the revocation completes
              IF Overlaps(owned, m.pendingRevocation) THEN m
              ELSE NextAssignment(m, m.epoch, te, target, owned, blocked)
         [] m.state = "UNRELEASED" -> NextAssignment(m, m.epoch, te, target, owned, blocked)

Reconciled(g, id, m, owned) == NextMember(g, id, m, owned, Blocking(g, id))

(***************************************************************************)
(* The coordinator's answer to one ConsumerGroupHeartbeat                   *)
(* (GroupMetadataManager#consumerGroupHeartbeat): the group after it and    *)
(* the response.                                                           *)
(***************************************************************************)
\* consumerGroupFenceMember / removeMember: the member's assignment and target entry go
\* (removePartitionEpochs of both its sets) and the group epoch is bumped; an emptied group's
\* assignment epoch catches up (KAFKA-20442's fix, "Update consumer group assignment epoch
\* when last member leaves")
RemoveMember(g, id) ==
    LET left == DOMAIN g.members \ {id}
        epoch == g.epoch + 1
    IN [g EXCEPT !.members = Drop(g.members, {id}),
                 !.target = Drop(g.target, {id}),
                 !.epoch = epoch,
                 !.assignmentEpoch = IF left = {} THEN epoch ELSE @,
                 !.lost = @ \ (g.members[id].assigned \cup g.members[id].pendingRevocation)]

\* consumerGroupStaticMemberGroupLeave: "We will write a member epoch of -2 for this departing
\* static member": its pending revocation dropped, its assignment kept, no bump
StaticLeave(g, id) ==
    [g EXCEPT !.members[id] = [@ EXCEPT !.epoch = LeaveStaticEpoch, !.pendingRevocation = {}]]

Outcome(g, error, epoch, hasAssignment, assignment) ==
    [group |-> g, error |-> error, epoch |-> epoch, hasAssignment |-> hasAssignment, assignment |-> assignment]
ErrorOutcome(g, error) == Outcome(g, error, 0, FALSE, {})

\* the member's epoch check, with KIP-848's lost-response rule: "the member may send its
\* previous epoch if the response with the bumped epoch was lost"
EpochFenced(m, r) ==
    \/ r.epoch > m.epoch
    \/ r.epoch < m.epoch /\ ~(r.epoch = m.previousEpoch /\ r.reports /\ r.owned \subseteq m.assigned)

NewMember == [state |-> "STABLE", epoch |-> 0, previousEpoch |-> -1, assigned |-> {},
              pendingRevocation |-> {}, targetEpoch |-> 0]
NewGroup == [NoGroup EXCEPT !.dead = FALSE]

\* What the heartbeat meets before its member is updated: an outcome already decided (a
\* leave, an error: done) or the group and the member as it was (old; None: a new member).
Decided(out) == [done |-> TRUE, outcome |-> out, group |-> NoGroup, old |-> None]
Admitted(g, old) == [done |-> FALSE, outcome |-> None, group |-> g, old |-> old]

\* consumerGroupLeave: the member is removed (a static member's -2 keeps it at -2); the
\* response echoes the epoch sent
LeaveGroup(g, id, r) ==
    LET left(g2) == Decided(Outcome(g2, "", r.epoch, FALSE, {}))
    IN IF g.dead THEN Decided(ErrorOutcome(g, "GROUP_ID_NOT_FOUND"))
       ELSE IF ~Static
       THEN IF id \notin DOMAIN g.members THEN Decided(ErrorOutcome(g, "UNKNOWN_MEMBER_ID"))
            ELSE left(RemoveMember(g, id))
       \* throwIfStaticMemberIsUnknown, throwIfInstanceIdIsFenced
       ELSE IF Holders(g, id[1]) = {} THEN Decided(ErrorOutcome(g, "UNKNOWN_MEMBER_ID"))
       ELSE IF Holders(g, id[1]) # {id} THEN Decided(ErrorOutcome(g, "FENCED_INSTANCE_ID"))
       ELSE IF r.epoch = LeaveStaticEpoch THEN left(StaticLeave(g, id))
       ELSE left(RemoveMember(g, id))

\* getOrMaybeSubscribeDynamicConsumerGroupMember
AdmitDynamic(g, id, r) ==
    IF id \notin DOMAIN g.members
    THEN IF r.epoch # 0 THEN Decided(ErrorOutcome(g, "UNKNOWN_MEMBER_ID")) ELSE Admitted(g, None)
    ELSE IF r.epoch = 0 THEN Admitted(g, g.members[id])        \* a known member rejoining (KAFKA-19233's fix)
    ELSE IF EpochFenced(g.members[id], r) THEN Decided(ErrorOutcome(g, "FENCED_MEMBER_EPOCH"))
    ELSE Admitted(g, g.members[id])

\* getOrMaybeSubscribeStaticConsumerGroupMember: at epoch 0 a new incarnation takes the
\* instance id over from a member that left with -2 (replaceMember: its assignment and target
\* entry under the new member id, at epoch 0, no bump); the member's own id rejoins in place
\* (the kip-848 profile, apache/kafka #23542); a holder that has not left:
\* UNRELEASED_INSTANCE_ID
AdmitStatic(g, id, r) ==
    LET hs == Holders(g, id[1])
        h == CHOOSE x \in hs : TRUE
    IN IF r.epoch = 0
       THEN IF hs = {} THEN Admitted(g, None)
            ELSE IF hs = {id} THEN Admitted(g, g.members[id])
            ELSE IF g.members[h].epoch # LeaveStaticEpoch THEN Decided(ErrorOutcome(g, "UNRELEASED_INSTANCE_ID"))
            ELSE LET m == [g.members[h] EXCEPT !.epoch = 0, !.previousEpoch = 0]
                 IN Admitted([g EXCEPT !.members = Put(Drop(g.members, {h}), id, m),
                                       !.target = Put(Drop(g.target, {h}), id, TargetOf(g, h))], m)
       ELSE IF hs = {} THEN Decided(ErrorOutcome(g, "UNKNOWN_MEMBER_ID"))
       ELSE IF hs # {id} THEN Decided(ErrorOutcome(g, "FENCED_INSTANCE_ID"))
       ELSE IF EpochFenced(g.members[id], r) THEN Decided(ErrorOutcome(g, "FENCED_MEMBER_EPOCH"))
       ELSE Admitted(g, g.members[id])

\* request validation first (GroupCoordinatorService#throwIfConsumerGroupHeartbeatRequestIsInvalid:
\* "TopicPartitions must be empty when (re-)joining."; no correct client breaks it, the
\* client-side known-bug variants do); the group is created by an epoch-0 heartbeat only
\* (getOrMaybeCreateConsumerGroup)
Admit(g, id, r) ==
    IF r.epoch = 0 /\ r.owned # {} THEN Decided(ErrorOutcome(g, "INVALID_REQUEST"))
    ELSE IF r.epoch < 0 THEN LeaveGroup(g, id, r)
    ELSE IF g.dead /\ r.epoch # 0 THEN Decided(ErrorOutcome(g, "GROUP_ID_NOT_FOUND"))
    ELSE LET g0 == IF g.dead THEN NewGroup ELSE g
         IN IF Static THEN AdmitStatic(g0, id, r) ELSE AdmitDynamic(g0, id, r)

\* steps 1-2: the member is added or kept; "The group epoch is bumped when a member joins"
\* (bump_on_join); a new target when the group epoch is ahead of the assignment epoch
Prepared(g0, id, old) ==
    LET g1 == [g0 EXCEPT !.members = Put(@, id, IF old = None THEN NewMember ELSE old),
                         !.epoch = IF old = None THEN @ + 1 ELSE @]
    IN IF g1.epoch > g1.assignmentEpoch
       THEN [g1 EXCEPT !.target = Uniform(g1), !.assignmentEpoch = g1.epoch]
       ELSE g1

\* the owned partitions the heartbeat reported (None: not reported)
OwnedOf(r) == IF r.reports THEN r.owned ELSE None

\* step 3 done (m1: the member reconciled): "The assignment is only provided in the following
\* cases: 1. The member sent a full request ... 2. The member's assignment has been updated."
Answer(g2, id, old, m1, r) ==
    LET full == r.epoch = 0 \/ r.full
        sent == full \/ old = None \/ g2.members[id].assigned # m1.assigned
    IN Outcome([g2 EXCEPT !.members = Put(@, id, m1)], "", m1.epoch, sent, IF sent THEN m1.assigned ELSE {})

Update(g0, id, old, r) ==
    LET g2 == Prepared(g0, id, old)
    IN Answer(g2, id, old, Reconciled(g2, id, g2.members[id], OwnedOf(r)), r)

Heartbeat(g, id, r) ==
    LET a == Admit(g, id, r)
    IN IF a.done THEN a.outcome ELSE Update(a.group, id, a.old, r)

(***************************************************************************)
(* The consumer (AbstractMembershipManager, ConsumerHeartbeatRequestManager) *)
(***************************************************************************)
\* HeartbeatState#buildRequestData: all fields when joining or after an error; otherwise
\* the owned partitions only if they changed since last sent; leaving: epoch -1 (-2 static)
RequestOf(c) ==
    IF c.status = "LEAVING"
    THEN [epoch |-> IF Static THEN LeaveStaticEpoch ELSE LeaveEpoch, full |-> FALSE, reports |-> FALSE, owned |-> {}]
    ELSE LET every == c.status = "JOINING" \/ c.sent.kind = "none"
             reports == every \/ c.sent.kind = "changed" \/ c.sent.owned # c.owned
         IN [epoch |-> IF c.status = "JOINING" THEN 0 ELSE c.epoch, full |-> every,
             reports |-> reports, owned |-> IF reports THEN c.owned ELSE {}]

\* onHeartbeatRequestSent; the leave heartbeat, once sent, ends the membership (a process
\* closed to restart is down until it starts again)
AfterSend(c, r) ==
    IF c.status = "LEAVING"
    THEN [c EXCEPT !.status = IF c.forGood THEN "UNSUBSCRIBED" ELSE "DOWN", !.epoch = 0, !.request = r, !.sent = NoSent]
    ELSE [c EXCEPT !.status = IF @ = "ACKNOWLEDGING" THEN IF c.target = c.owned THEN "STABLE" ELSE "RECONCILING" ELSE @,
                   !.request = r,
                   !.sent = [kind |-> "owned", owned |-> IF r.reports THEN c.owned ELSE c.sent.owned]]

\* transitionToFenced: epoch 0, onPartitionsLost, rejoin with the same member id
Fenced(c) == [c EXCEPT !.status = "JOINING", !.epoch = 0, !.owned = {}, !.target = {}, !.sent = NoSent]

\* onHeartbeatSuccess / onErrorResponse, given how a fence is taken (the known-bug variants
\* change it)
Responded(c0, rep, fenced) ==
    LET c == [c0 EXCEPT !.reply = None]
    IN IF rep.error \in {"FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"} THEN fenced
       ELSE IF rep.error # "" THEN [c EXCEPT !.status = "FATAL", !.owned = {}, !.target = {}]
       ELSE IF c.status \notin {"JOINING"} \cup InGroup \/ rep.epoch < 0 THEN c
       ELSE LET e == [c EXCEPT !.epoch = rep.epoch]
            IN IF ~rep.hasAssignment
               THEN IF e.status = "JOINING" /\ e.owned = e.target THEN [e EXCEPT !.status = "STABLE"] ELSE e
               ELSE IF rep.assignment # e.target THEN [e EXCEPT !.target = rep.assignment, !.status = "RECONCILING"]
               ELSE IF e.status = "JOINING"
               THEN [e EXCEPT !.status = IF e.owned = e.target THEN "STABLE" ELSE "RECONCILING"]
               ELSE e

OnResponse(c, rep) == Responded(c, rep, Fenced([c EXCEPT !.reply = None]))

\* maybeReconcile runs in the application's poll
CanReconcile(c) == c.status = "RECONCILING" /\ ~c.stalled

\* a client in the group at the target assignment epoch, consuming exactly its target
ConvergedWith(cs, s) ==
    LET c == cs[s]
        id == <<s, c.incarnation>>
    IN /\ c.status = "STABLE"
       /\ ~group.dead /\ id \in DOMAIN group.members
       /\ c.epoch = group.assignmentEpoch
       /\ group.members[id].state = "STABLE" /\ group.members[id].epoch = group.assignmentEpoch
       /\ c.owned = TargetOf(group, id)

\* ... judged after it reads the response it has in flight, if any
Converged(s) ==
    ConvergedWith([clients EXCEPT ![s] = IF @.reply # None THEN OnResponse(@, @.reply) ELSE @], s)

\* the round monitor (step.py's _monitor): a round ends once every running client has read
\* the response to a heartbeat sent in the round with no reconciliation left to run
Monitor(s, cs, busy, wedgedNow) ==
    LET b == beaten \cup (IF busy THEN {} ELSE {s} \cap fresh)
        want == {x \in Slots : Running(cs[x])}
    IN IF wedgedNow # {} THEN [calm |-> 0, beaten |-> {}, fresh |-> {}]
       ELSE IF want \subseteq b
       THEN [calm |-> IF calm + 1 < K THEN calm + 1 ELSE K, beaten |-> {}, fresh |-> {}]
       ELSE [calm |-> calm, beaten |-> b, fresh |-> fresh]

\* a fault or an operation: a new round begins
Disturbed == calm' = 0 /\ beaten' = {} /\ fresh' = {}

-----------------------------------------------------------------------------
(***************************************************************************)
(* The record layer (issue 30; model/consumer_group/delivery_steps.py), on  *)
(* with the constant Records: the application behind each client polls and  *)
(* processes records of the partitions it owns and commits offsets by        *)
(* CommitPolicy. Delivery.tla has the rules on logs and cursors; here: when  *)
(* each runs in a KIP-848 group and what the coordinator answers.           *)
(***************************************************************************)
\* delivery_steps.member_key: one int per (slot, incarnation), never 0
Key(cs, s) == cs[s].incarnation * 4 + s + 1

\* the application runs: its process runs and it polls
Polling(s) == Running(clients[s]) /\ ~clients[s].stalled

\* ConsumerGroup#validateOffsetCommit (coordinator.offset_commit, the kip-848 profile): the
\* answer to an OffsetCommit of member id at epoch
OffsetCommitError(g, id, epoch) ==
    IF g.dead THEN IF epoch < 0 THEN Accepted ELSE "GROUP_ID_NOT_FOUND"
    ELSE IF epoch < 0 /\ DOMAIN g.members = {} THEN Accepted
    ELSE IF id \notin DOMAIN g.members THEN "UNKNOWN_MEMBER_ID"
    ELSE IF epoch = g.members[id].epoch THEN Accepted
    ELSE "STALE_MEMBER_EPOCH"

Judge(s, req) == OffsetCommitError(group, IdOf(s), req.generation)

\* req judged and applied at once (commitSync; the auto-commit on close)
CommitNow(s, lg, req) == IF req = NoValue THEN lg ELSE ApplyCommit(lg, req, Judge(s, req))

\* ConsumerGroup#validateOffsetFetch: the OffsetFetch that initialises a position carries the
\* member id and epoch; a removed member or another epoch is refused
OffsetFetchOK(s) ==
    ~group.dead /\ IdOf(s) \in DOMAIN group.members /\ group.members[IdOf(s)].epoch = clients[s].epoch

\* a client running as a member (epoch > 0) the coordinator no longer holds
ZombieIn(g, cs, s) == Running(cs[s]) /\ cs[s].epoch > 0 /\ (g.dead \/ <<s, cs[s].incarnation>> \notin DOMAIN g.members)

\* a cursor whose position is past the partition's committed offset
Behind(app) ==
    \E p \in DOMAIN app.cursors : app.cursors[p].position # NoOffset /\ app.cursors[p].position > logs[p].committed

\* a member id the coordinator removes (a timeout): the client's records are excused from then
\* on, when it is that client's current incarnation
RemovedLogs(s, id) ==
    IF Records /\ id[2] = clients[s].incarnation /\ apps[s] # NoValue THEN Excuse(logs, Owns(apps[s])) ELSE logs

\* one connection per client, in order: a queued commit goes before the next heartbeat
\* (IF, not \/: TLC evaluates each disjunct of an action, and apps[s] may be NoValue)
MaySend(s) == IF ~Records \/ apps[s] = NoValue THEN TRUE ELSE apps[s].commit = NoValue

\* maybeReconcile(canCommit): from the application's poll, with no commit of its own under way
MayReconcile(s) == IF ~Records THEN TRUE ELSE apps[s] # NoValue /\ InPoll(apps[s]) /\ IdleCommit(apps[s])

\* close() runs between the application's batches, with no commit under way
MayClose(s) == IF ~Records \/ apps[s] = NoValue THEN TRUE ELSE InPoll(apps[s]) /\ IdleCommit(apps[s])

\* close(): policy auto commits every position, sync-on-revoke the processed offsets in
\* onPartitionsRevoked (epoch > 0)
CloseRequest(s) ==
    LET a == apps[s]
        c == clients[s]
    IN IF CommitPolicy = "auto" THEN CommitRequest(a, Key(clients, s), c.epoch, "close", FALSE, Owns(a))
       ELSE IF CommitPolicy = "sync-on-revoke" /\ c.epoch > 0
       THEN CommitRequest(a, Key(clients, s), c.epoch, "callback", TRUE, Owns(a))
       ELSE NoValue

\* the records of close(): the commit, then the partitions revoked (epoch > 0) or lost
CloseRecords(s) ==
    LET c == clients[s]
        lg == CommitNow(s, logs, CloseRequest(s))
        l == Lost(apps[s], lg, c.owned)
    IN IF ~Records \/ apps[s] = NoValue THEN UNCHANGED <<logs, apps>>
       ELSE IF c.epoch > 0 THEN logs' = lg /\ apps' = [apps EXCEPT ![s] = Revoked(apps[s], c.owned)]
       ELSE logs' = l.logs /\ apps' = [apps EXCEPT ![s] = l.app]

\* the reconciliation's records (reconcile_step): policy auto with partitions to revoke starts
\* phase 1 (mark them, commit the positions, wait: the clients do not move); otherwise it runs
\* at once, policy sync-on-revoke committing the processed offsets of the revoked partitions in
\* onPartitionsRevoked. pause: the revoked cursors turn unfetchable (KAFKA-16460's fix).
ReconcileRecords(s, pause) ==
    LET c == clients[s]
        a == apps[s]
        revoked == c.owned \ c.target
        first == CommitRequest(a, Key(clients, s), c.epoch, "revoke", FALSE, Owns(a))
        cb == IF CommitPolicy = "sync-on-revoke" /\ revoked # {}
              THEN CommitRequest(a, Key(clients, s), c.epoch, "callback", TRUE, revoked) ELSE NoValue
    IN IF CommitPolicy = "auto" /\ revoked # {} /\ first # NoValue
       THEN /\ apps' = [apps EXCEPT ![s] = RevokeCommit(a, revoked, first, "reconcile", pause)]
            /\ UNCHANGED <<clients, logs>>
       ELSE /\ clients' = [clients EXCEPT ![s].status = "ACKNOWLEDGING", ![s].owned = c.target,
                                          ![s].sent = IF @.kind = "none" THEN @ ELSE [kind |-> "changed", owned |-> {}]]
            /\ logs' = CommitNow(s, logs, cb)
            /\ apps' = [apps EXCEPT ![s] = Assigned(Revoked(a, revoked), c.target \ c.owned)]

\* phase 2 of a reconciliation that waited for its commit: onPartitionsRevoked of what phase 1
\* marked, onPartitionsAssigned of the target's additions (a client fenced meanwhile abandoned
\* it). app: the application with the answer read
FinishRevocation(s, app) ==
    LET c == clients[s]
        a == [app EXCEPT !.waiting = ""]
        marked == {p \in DOMAIN a.cursors : a.cursors[p].revoking}
        owned == (c.owned \ marked) \cup (c.target \ c.owned)
    IN IF c.status # "RECONCILING"
       THEN apps' = [apps EXCEPT ![s] = a] /\ UNCHANGED clients
       ELSE /\ clients' = [clients EXCEPT ![s].status = "ACKNOWLEDGING", ![s].owned = owned,
                                          ![s].sent = IF @.kind = "none" THEN @ ELSE [kind |-> "changed", owned |-> {}]]
            /\ apps' = [apps EXCEPT ![s] = Assigned(Revoked(a, marked), owned)]

-----------------------------------------------------------------------------
(* Actions: one per model action kind *)

\* the client sends its heartbeat
Send(s) ==
    /\ Running(clients[s]) /\ Idle(clients[s]) /\ MaySend(s)
    /\ clients' = [clients EXCEPT ![s] = AfterSend(@, RequestOf(@))]
    /\ fresh' = fresh \cup {s}
    /\ UNCHANGED <<group, budget, calm, beaten, wedged, marks, logs, apps>>

\* the coordinator's answer out reaches the client (a leave heartbeat's, or a gone process's,
\* reaches nobody); the witnesses it shows are marked
Answered(s, out) ==
    LET r == clients[s].request
        id == IdOf(s)
        before == group
        after == out.group
        old == IF ~before.dead /\ id \in DOMAIN before.members THEN before.members[id] ELSE None
        new == IF ~after.dead /\ id \in DOMAIN after.members THEN after.members[id] ELSE None
        \* a static member's next incarnation took its partitions over without a bump
        kept == /\ r.epoch = 0 /\ new # None
                /\ \E h \in Holders(before, s) : /\ h # id /\ before.members[h].assigned # {}
                                                 /\ new.assigned = before.members[h].assigned
                /\ after.epoch = before.epoch
        seen == IF out.error # "" \/ before.dead \/ after.dead THEN {}
                ELSE (IF old # None /\ new # None /\ old.state = "UNREVOKED" /\ new.state # "UNREVOKED"
                      THEN {"REVOKED"} ELSE {})
                     \cup (IF old # None /\ 0 < r.epoch /\ r.epoch = old.previousEpoch /\ old.previousEpoch < old.epoch
                           THEN {"LOST_RECOVERED"} ELSE {})
                     \cup (IF kept THEN {"STATIC_KEPT"} ELSE {})
    IN /\ group' = after
       /\ clients' = [clients EXCEPT ![s].request = None,
                                     ![s].reply = IF Running(clients[s]) /\ r.epoch >= 0
                                                  THEN [error |-> out.error, epoch |-> out.epoch,
                                                        hasAssignment |-> out.hasAssignment,
                                                        assignment |-> out.assignment]
                                                  ELSE None]
       /\ marks' = marks \cup seen
       \* the membership changes: a new round begins
       /\ IF r.epoch < 0 THEN Disturbed ELSE UNCHANGED <<calm, beaten, fresh>>
       /\ UNCHANGED <<budget, wedged, logs, apps>>

\* the coordinator handles the heartbeat and answers
Handle(s) ==
    /\ clients[s].request # None
    /\ Answered(s, Heartbeat(group, IdOf(s), clients[s].request))

\* the client c (slot s) has read its response; busy: it has a reconciliation to run first
Delivered(s, c, busy) ==
    LET cs == [clients EXCEPT ![s] = c]
        stillWedged == s \in wedged /\ ~(c.status \notin InGroup \/ ConvergedWith(cs, s))
        w == IF stillWedged THEN wedged ELSE wedged \ {s}
        mon == Monitor(s, cs, busy, w)
        \* a fence or a fatal error ran onPartitionsLost: the cursors follow, excused
        lost == clients[s].owned \ c.owned
        l == Lost(apps[s], logs, lost)
    IN /\ clients' = cs
       /\ wedged' = w
       /\ calm' = mon.calm /\ beaten' = mon.beaten /\ fresh' = mon.fresh
       /\ IF Records /\ lost # {} THEN logs' = l.logs /\ apps' = [apps EXCEPT ![s] = l.app]
          ELSE UNCHANGED <<logs, apps>>
       /\ UNCHANGED <<group, budget, marks>>

\* the client reads the response
Deliver(s) ==
    /\ clients[s].reply # None
    /\ LET c == OnResponse(clients[s], clients[s].reply)
       IN Delivered(s, c, CanReconcile(c) \/ c.status = "ACKNOWLEDGING")

\* the application's poll reconciles: commit, onPartitionsRevoked, onPartitionsAssigned (with
\* records: ReconcileRecords; pause: KAFKA-16460's fix)
ReconcileWith(s, pause) ==
    /\ CanReconcile(clients[s]) /\ MayReconcile(s)
    /\ IF Records THEN ReconcileRecords(s, pause)
       ELSE /\ clients' = [clients EXCEPT ![s].status = "ACKNOWLEDGING", ![s].owned = clients[s].target,
                                          ![s].sent = IF @.kind = "none" THEN @ ELSE [kind |-> "changed", owned |-> {}]]
            /\ UNCHANGED <<logs, apps>>
    /\ UNCHANGED <<group, budget, calm, beaten, fresh, wedged, marks>>

Reconcile(s) == ReconcileWith(s, TRUE)

\* a process that is down (crashed, or closed to restart) starts again: a new incarnation,
\* a new member id, joining. (As in the model, a process that crashed while closing for good
\* may start again, and its next incarnation is still marked closing for good.)
Restart(s) ==
    /\ clients[s].status = "DOWN" /\ clients[s].request = None
    /\ clients' = [clients EXCEPT ![s] = NewClient(@.incarnation + 1, @.forGood)]
    /\ apps' = [apps EXCEPT ![s] = IF Records THEN NewApp ELSE NoValue]
    /\ Disturbed
    /\ UNCHANGED <<group, budget, wedged, marks, logs>>

\* the session of a member whose process is gone (or is a newer incarnation now) expires
\* (consumerGroupSessionTimeoutExpired)
Expire(s) ==
    /\ ~group.dead
    /\ \E id \in DOMAIN group.members :
          /\ id[1] = s
          /\ id[2] # clients[s].incarnation \/ ~Running(clients[s])
          /\ group' = RemoveMember(group, id)
          /\ logs' = RemovedLogs(s, id)
    /\ Disturbed
    /\ UNCHANGED <<clients, budget, wedged, marks, apps>>

(***************************************************************************)
(* The coordinator's rebalance timer (scheduleConsumerGroupRebalanceTimeout) *)
(* of a member that must revoke but cannot: its application stopped        *)
(* polling, or its response was lost, so it may never see the assignment    *)
(* that asks it to. The member is removed.                                 *)
(***************************************************************************)
RebalanceTimeout(s) ==
    /\ ~group.dead
    /\ IdOf(s) \in DOMAIN group.members
    /\ Running(clients[s])
    /\ group.members[IdOf(s)].state = "UNREVOKED"
    /\ s \in wedged \/ clients[s].stalled
    /\ group' = RemoveMember(group, IdOf(s))
    /\ logs' = RemovedLogs(s, IdOf(s))
    /\ Disturbed
    /\ UNCHANGED <<clients, budget, wedged, marks, apps>>

\* the application polls again
Resume(s) ==
    /\ clients[s].stalled
    /\ clients' = [clients EXCEPT ![s].stalled = FALSE]
    /\ Disturbed
    /\ UNCHANGED <<group, budget, wedged, marks, logs, apps>>

\* fault: the response is lost; the request times out and the next heartbeat is sent in full
LoseResponse(s) ==
    /\ "lose_response" \in Faults /\ budget > 0
    /\ clients[s].reply # None
    /\ clients' = [clients EXCEPT ![s].reply = None, ![s].sent = NoSent]
    /\ wedged' = wedged \cup {s}
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, marks, logs, apps>>

\* fault: the session of a live member expires (the coordinator heard nothing in time)
SessionTimeout(s) ==
    /\ "session_timeout" \in Faults /\ budget > 0
    /\ Running(clients[s])
    /\ ~group.dead /\ IdOf(s) \in DOMAIN group.members
    /\ group' = RemoveMember(group, IdOf(s))
    /\ logs' = RemovedLogs(s, IdOf(s))
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<clients, wedged, marks, apps>>

\* fault: the process dies; a heartbeat it sent may still reach the coordinator
Crash(s) ==
    /\ "crash" \in Faults /\ budget > 0
    /\ Running(clients[s])
    /\ clients' = [clients EXCEPT ![s].status = "DOWN", ![s].epoch = 0, ![s].owned = {}, ![s].target = {},
                                  ![s].reply = None, ![s].sent = NoSent, ![s].stalled = FALSE]
    \* the application and its cursors are gone, their records excused
    /\ apps' = [apps EXCEPT ![s] = NoValue]
    /\ logs' = IF Records /\ apps[s] # NoValue THEN Excuse(logs, Owns(apps[s])) ELSE logs
    /\ marks' = marks \cup (IF Records /\ KilledBeforeCommit(logs, apps[s]) THEN {"KILLED_BEFORE_COMMIT"} ELSE {})
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, wedged>>

\* fault: the application stops polling while it has an assignment to reconcile
Stall(s) ==
    /\ "stall" \in Faults /\ budget > 0
    /\ clients[s].status = "RECONCILING" /\ ~clients[s].stalled
    /\ clients' = [clients EXCEPT ![s].stalled = TRUE]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, wedged, marks, logs, apps>>

\* close(): commit, onPartitionsRevoked, then the leave heartbeat (epoch -1, static -2);
\* forGood: the process will not restart
Close(s, forGood) ==
    /\ budget > 0
    /\ clients[s].status \in InGroup /\ Idle(clients[s]) /\ MayClose(s)
    /\ clients' = [clients EXCEPT ![s].status = "LEAVING", ![s].owned = {}, ![s].target = {},
                                  ![s].stalled = FALSE, ![s].forGood = forGood]
    /\ CloseRecords(s)
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, wedged, marks>>

\* operation: the consumer closes for good
Leave(s) == "leave" \in Operations /\ Close(s, TRUE)

\* operation: the consumer closes to restart (a rolling bounce)
Roll(s) == "roll" \in Operations /\ Close(s, clients[s].forGood)


(***************************************************************************)
(* The record layer's actions (Records only; delivery_steps.py's KINDS,     *)
(* ENVIRONMENT and FAULTS)                                                  *)
(***************************************************************************)
ProtocolUnchanged == UNCHANGED <<group, clients, budget, calm, beaten, fresh, wedged>>

\* the application's poll() on p (one record; the first initialises the position by OffsetFetch)
PollEnabled(s, p) ==
    /\ Records /\ Polling(s) /\ apps[s] # NoValue
    /\ CanPoll(apps[s], logs, p)
    /\ apps[s].cursors[p].position # NoOffset \/ OffsetFetchOK(s)

Poll(s, p) ==
    /\ PollEnabled(s, p)
    /\ LET r == PollCursor(apps[s], logs, p, Key(clients, s))
           clean == /\ apps[s].cursors[p].position = NoOffset
                    /\ CleanHandover(logs[p], r.logs[p], r.app.cursors[p].processed)
       IN /\ apps' = [apps EXCEPT ![s] = r.app]
          /\ logs' = r.logs
          /\ marks' = marks \cup (IF clean THEN {"HANDOVER_CLEAN"} ELSE {})
    /\ ProtocolUnchanged

\* the application processes the next record of p it holds (a zombie's is excused at once;
\* policy after-processing owes its commitSync from here on)
ProcessEnabled(s, p) == Records /\ Polling(s) /\ apps[s] # NoValue /\ CanProcess(apps[s], p)

Process(s, p) ==
    /\ ProcessEnabled(s, p)
    /\ LET o == apps[s].cursors[p].processed
           r == ProcessCursor(apps[s], logs, p)
       IN /\ logs' = IF ZombieIn(group, clients, s) THEN Excuse(r.logs, {p}) ELSE r.logs
          /\ apps' = [apps EXCEPT ![s] = IF CommitPolicy = "after-processing" THEN [r.app EXCEPT !.waiting = "commit"]
                                        ELSE r.app]
          /\ marks' = marks \cup (IF o \in logs[p].done /\ o \in logs[p].excused THEN {"REDELIVERED"} ELSE {})
    /\ ProtocolUnchanged

\* policy after-processing: commitSync() of the processed offsets (judged at once)
ManualRequest(s) == CommitRequest(apps[s], Key(clients, s), clients[s].epoch, "manual", TRUE, Owns(apps[s]))

CommitEnabled(s) == Records /\ Polling(s) /\ apps[s] # NoValue /\ apps[s].waiting = "commit"

Commit(s) ==
    /\ CommitEnabled(s)
    /\ logs' = CommitNow(s, logs, ManualRequest(s))
    /\ apps' = [apps EXCEPT ![s].waiting = ""]
    /\ UNCHANGED marks /\ ProtocolUnchanged

\* policy auto: the interval commit of every position, a message; onlyInPoll: KAFKA-18641's fix
AutoCommitEnabled(s, onlyInPoll) ==
    /\ Records /\ CommitPolicy = "auto" /\ Polling(s) /\ apps[s] # NoValue
    /\ clients[s].status \in InGroup /\ IdleCommit(apps[s]) /\ apps[s].waiting = ""
    /\ InPoll(apps[s]) \/ ~onlyInPoll
    /\ Behind(apps[s])

AutoCommitWith(s, onlyInPoll) ==
    /\ AutoCommitEnabled(s, onlyInPoll)
    /\ apps' = [apps EXCEPT ![s].commit = CommitRequest(apps[s], Key(clients, s), clients[s].epoch, "interval", FALSE,
                                                        Owns(apps[s]))]
    /\ UNCHANGED <<logs, marks>> /\ ProtocolUnchanged

AutoCommit(s) == AutoCommitWith(s, TRUE)

\* the commit in flight reaches the coordinator (the connection's heartbeat slot is free)
CommitDeliverEnabled(s) == Records /\ apps[s] # NoValue /\ apps[s].commit # NoValue /\ clients[s].request = None

CommitDeliver(s) ==
    /\ CommitDeliverEnabled(s)
    /\ LET error == Judge(s, apps[s].commit)
       IN /\ apps' = [apps EXCEPT ![s].commit = NoValue, ![s].reply = error]
          /\ logs' = ApplyCommit(logs, apps[s].commit, error)
    /\ UNCHANGED marks /\ ProtocolUnchanged

\* the client reads its commit's answer (lost: the request timed out, which excuses); a
\* reconciliation waiting for it goes on, STALE_MEMBER_EPOCH retried with the latest
\* positions and epoch (KAFKA-16033's fix)
ReadCommit(s, lost) ==
    LET a == [apps[s] EXCEPT !.reply = NoValue]
        error == IF lost THEN "REQUEST_TIMED_OUT" ELSE apps[s].reply
        c == clients[s]
        retry == CommitRequest(a, Key(clients, s), c.epoch, "revoke", FALSE, Owns(a))
    IN /\ logs' = IF lost THEN Excuse(logs, Owns(a)) ELSE logs
       /\ IF a.waiting # "reconcile"
          THEN apps' = [apps EXCEPT ![s] = a] /\ UNCHANGED clients
          ELSE IF error = "STALE_MEMBER_EPOCH" /\ c.status = "RECONCILING"
          THEN /\ apps' = [apps EXCEPT ![s] = [a EXCEPT !.commit = retry,
                                                        !.waiting = IF retry # NoValue THEN "reconcile" ELSE ""]]
               /\ UNCHANGED clients
          ELSE FinishRevocation(s, a)

CommitReadEnabled(s) == Records /\ apps[s] # NoValue /\ apps[s].reply # NoValue /\ ~clients[s].stalled

CommitRead(s) ==
    /\ CommitReadEnabled(s)
    /\ ReadCommit(s, FALSE)
    /\ UNCHANGED <<group, budget, calm, beaten, fresh, wedged, marks>>

\* fault: the commit's answer is lost (fault lose_response; budgeted, not a disturbance)
LoseCommitReply(s) ==
    /\ Records /\ "lose_response" \in Faults /\ budget > 0
    /\ apps[s] # NoValue /\ apps[s].reply # NoValue
    /\ ReadCommit(s, TRUE)
    /\ budget' = budget - 1
    /\ UNCHANGED <<group, calm, beaten, fresh, wedged, marks>>

\* a producer appends a record to p
Produce(p) ==
    /\ Records /\ logs[p].end < MaxRecords
    /\ logs' = Produce1(logs, p)
    /\ UNCHANGED <<apps, marks>> /\ ProtocolUnchanged

\* a record step of the application is enabled (step.py's settled: progress is left)
RecordsBusy ==
    \E s \in Slots :
        \/ \E p \in Partitions : PollEnabled(s, p) \/ ProcessEnabled(s, p)
        \/ CommitEnabled(s) \/ AutoCommitEnabled(s, TRUE) \/ CommitDeliverEnabled(s) \/ CommitReadEnabled(s)

\* the record layer's actions (the known-bug variant modules' next takes them as they are)
RecordsNext ==
    \/ \E s \in Slots, p \in Partitions : Poll(s, p) \/ Process(s, p)
    \/ \E s \in Slots : Commit(s) \/ AutoCommit(s) \/ CommitDeliver(s) \/ CommitRead(s) \/ LoseCommitReply(s)
    \/ \E p \in Partitions : Produce(p)

Next ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : Reconcile(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Expire(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ \E s \in Slots : Resume(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : Stall(s)
    \/ \E s \in Slots : Leave(s)
    \/ \E s \in Slots : Roll(s)
    \* the record layer (disabled while Records is off)
    \/ \E s \in Slots, p \in Partitions : Poll(s, p)
    \/ \E s \in Slots, p \in Partitions : Process(s, p)
    \/ \E s \in Slots : Commit(s)
    \/ \E s \in Slots : AutoCommit(s)
    \/ \E s \in Slots : CommitDeliver(s)
    \/ \E s \in Slots : CommitRead(s)
    \/ \E s \in Slots : LoseCommitReply(s)
    \/ \E p \in Partitions : Produce(p)

Spec == Init /\ [][Next]_vars

\* TLC's CONSTRAINT: the scope's bound (the model's within_bounds)
StateConstraint == group.epoch < MaxEpoch

-----------------------------------------------------------------------------
(* The record layer's claims see the clients as holders (Delivery.tla) *)

\* The clients as the record layer's claims see them (delivery_claims._holders): the member key of
\* the client's incarnation, live while its process runs, its application (zombies FALSE: a
\* client the coordinator removed shows none: what it processes is excused)
HoldersOf(g, cs, as, zombies) ==
    [s \in Slots |-> [member |-> Key(cs, s), live |-> Running(cs[s]),
                      app |-> IF zombies \/ ~ZombieIn(g, cs, s) THEN as[s] ELSE NoValue]]

\* the commit a step judged at once (the model's offset_commit events): commitSync after
\* processing (waiting "commit" ends), in onPartitionsRevoked (RECONCILING -> ACKNOWLEDGING
\* under sync-on-revoke), the commit of close() (-> LEAVING); NoValue: none
AtomicCommit(s) ==
    LET a == apps[s]
        c == clients[s]
        c2 == clients'[s]
    IN IF a = NoValue \/ apps'[s] = NoValue THEN NoValue
       ELSE IF a.waiting = "commit" /\ apps'[s].waiting = "" THEN ManualRequest(s)
       ELSE IF CommitPolicy = "sync-on-revoke" /\ c.status = "RECONCILING" /\ c2.status = "ACKNOWLEDGING"
       THEN CommitRequest(a, Key(clients, s), c.epoch, "callback", TRUE, c.owned \ c.target)
       ELSE IF c.status \in InGroup /\ c2.status = "LEAVING" THEN CloseRequest(s)
       ELSE NoValue

\* the commit in flight the step delivered (CommitDeliver)
DeliveredCommit(s) ==
    /\ apps[s] # NoValue /\ apps'[s] # NoValue
    /\ apps[s].commit # NoValue /\ apps'[s].commit = NoValue /\ apps'[s].reply # NoValue

\* every [req, error] the coordinator answered in the step
AnsweredCommits ==
    {[req |-> apps[s].commit, error |-> apps'[s].reply] : s \in {x \in Slots : DeliveredCommit(x)}}
    \cup {[req |-> AtomicCommit(s), error |-> Judge(s, AtomicCommit(s))] : s \in {x \in Slots : AtomicCommit(x) # NoValue}}

-----------------------------------------------------------------------------
(* Invariants, named as the model's properties *)

Live == {s \in Slots : Running(clients[s]) /\ ~group.dead /\ IdOf(s) \in DOMAIN group.members}

\* KIP-848: "a partition ... can only be assigned to a member once it has been revoked by its
\* previous owner". Claim: no two live clients own a partition.
no_double_ownership ==
    \A s, t \in Live : s # t => clients[s].owned \cap clients[t].owned = {}

\* the record layer (Delivery.tla's NoRecordLost: the sentence it enforces); TRUE while Records is off
no_record_lost == Records => NoRecordLost(logs, HoldersOf(group, clients, apps, TRUE))

\* KIP-848 (Assignor): a member is assigned partitions of topics it subscribes to (every
\* member subscribes to the one topic here).
assigned_within_subscription ==
    \A id \in (IF group.dead THEN {} ELSE DOMAIN group.members) :
        TargetOf(group, id) \cup group.members[id].assigned \cup group.members[id].pendingRevocation
            \subseteq Partitions

\* KIP-848 (Rebalance Process) with KAFKA-20442's fix: EMPTY => no target entry is left and
\* group epoch = assignment epoch.
empty_epochs_equal ==
    (~group.dead /\ GroupState(group) = "EMPTY") =>
        (DOMAIN group.target = {} /\ group.epoch = group.assignmentEpoch)

\* KIP-848 (Assignment Reconciliation): "each member ... converges to its target assignment"
\* once the group is quiet: after K full heartbeat rounds every running client is at its
\* target and the group is STABLE. Quiet: no client closing, down or stalled, and every
\* member is the current incarnation of a running client.
MembershipStable ==
    /\ \A s \in Slots : clients[s].status \notin {"LEAVING", "DOWN"} /\ ~clients[s].stalled
    /\ ~group.dead => \A id \in DOMAIN group.members :
                       clients[id[1]].incarnation = id[2] /\ Running(clients[id[1]])

converges_within_k ==
    (calm >= K /\ MembershipStable) =>
        (/\ \A s \in Slots : Running(clients[s]) => Converged(s)
         /\ (\E s \in Slots : Running(clients[s])) => GroupState(group) = "STABLE")

\* the OffsetCommit a consumer sends before it reconciles is accepted (validateOffsetCommit)
CommitAccepted(s) ==
    ~group.dead /\ IdOf(s) \in DOMAIN group.members /\ group.members[IdOf(s)].epoch = clients[s].epoch

\* nothing is left to do but heartbeats: no message in flight, no reconciliation or restart
\* pending, no member to expire or time out, no record step of an application left to take
\* (step.py's settled)
Settled ==
    /\ ~RecordsBusy
    /\ \A s \in Slots : /\ Idle(clients[s]) /\ ~clients[s].stalled
                        /\ clients[s].status \notin {"RECONCILING", "DOWN"}
    /\ ~group.dead => \A id \in DOMAIN group.members :
          /\ clients[id[1]].incarnation = id[2] /\ Running(clients[id[1]])
          /\ ~(group.members[id].state = "UNREVOKED" /\ id[1] \in wedged)
    /\ (\E s \in Slots : Running(clients[s])) =>
          /\ GroupState(group) = "STABLE"
          /\ \A s \in Slots : Running(clients[s]) => Converged(s)

\* Step claims
\* KIP-848: the member epoch only moves forward as the member reconciles to newer targets.
member_epoch_never_decreases ==
    /\ \A s \in Slots : clients'[s].incarnation = clients[s].incarnation
                        /\ clients'[s].epoch < clients[s].epoch => clients'[s].epoch = 0
    /\ (~group.dead /\ ~group'.dead) =>
           \A id \in DOMAIN group.members \cap DOMAIN group'.members :
               group'.members[id].epoch < group.members[id].epoch => group'.members[id].epoch \in {0, -2}

\* KIP-848: "the group coordinator ... must ensure that a partition is revoked by its previous
\* owner before it is assigned to a new one".
revoke_before_reassign ==
    (~group'.dead) =>
        \A id \in DOMAIN group'.members :
            LET before == IF ~group.dead /\ id \in DOMAIN group.members THEN group.members[id].assigned ELSE {}
                new == group'.members[id].assigned \ before
            IN \A o \in DOMAIN group'.members \ {id} :
                   new \cap (group'.members[o].assigned \cup group'.members[o].pendingRevocation) = {}

\* KIP-848 (OffsetCommit): "the member epoch ... is used to fence zombie members: an
\* OffsetCommit with a stale member epoch is rejected with STALE_MEMBER_EPOCH". The commit a
\* consumer sends before it reconciles (RECONCILING -> ACKNOWLEDGING) is accepted when its
\* member exists at that epoch. Claims: an accepted commit is of partitions its member holds,
\* and no other live client owns any of them.
commits_only_by_owner ==
    \A s \in Slots :
        (/\ clients[s].status = "RECONCILING" /\ clients'[s].status = "ACKNOWLEDGING"
         /\ clients[s].owned # {} /\ CommitAccepted(s))
        => /\ clients[s].owned \subseteq group.members[IdOf(s)].assigned \cup group.members[IdOf(s)].pendingRevocation
           /\ \A o \in Live \ {s} : clients[o].owned \cap clients[s].owned = {}

\* KIP-848 (ConsumerGroupHeartbeatRequest): MemberEpoch "0 to join the group", TopicPartitions
\* "must be empty when (re-)joining"; a fenced member "must abandon all its partitions and
\* rejoin". Claims: a heartbeat sent at epoch 0 comes from a client that runs no partition;
\* a member handled at epoch 0 has nothing pending revocation afterwards; an epoch-0
\* heartbeat of a member the group holds (not at -2) is answered without an error (KAFKA-19233's
\* fix: "Allow fenced members to rejoin consumer group with epoch 0"; judged where the answer
\* reaches the client: a crashed process reads none).
join_epoch_is_rejoin ==
    \A s \in Slots :
        /\ (clients[s].request = None /\ clients'[s].request # None /\ clients'[s].request.epoch = 0)
               => clients'[s].owned = {}
        /\ (clients[s].request # None /\ clients'[s].request = None /\ clients[s].request.epoch = 0)
               => /\ (~group'.dead /\ IdOf(s) \in DOMAIN group'.members)
                         => group'.members[IdOf(s)].pendingRevocation = {}
                  /\ (/\ ~group.dead /\ IdOf(s) \in DOMAIN group.members
                      /\ group.members[IdOf(s)].epoch # LeaveStaticEpoch /\ Running(clients[s]))
                         => clients'[s].reply.error = ""

\* the record layer's step claims (Delivery.tla: the sentences they enforce); TRUE while Records
\* is off
no_duplicate_without_failure ==
    (Records /\ CommitPolicy # "none") =>
        NoDuplicateWithoutFailure(logs, HoldersOf(group, clients, apps, FALSE), HoldersOf(group', clients', apps', TRUE))

fetch_stops_at_revocation ==
    Records => FetchStopsAtRevocation(HoldersOf(group, clients, apps, TRUE), HoldersOf(group', clients', apps', TRUE))

commits_fenced_after_handover == Records => CommitsFencedAfterHandover(logs, AnsweredCommits)

\* For TLC
\* the step claims as one temporal property (MCConsumerGroup.cfg: PROPERTY StepClaims)
StepClaimsAction == member_epoch_never_decreases /\ revoke_before_reassign /\ commits_only_by_owner
                    /\ join_epoch_is_rejoin /\ no_duplicate_without_failure /\ commits_fenced_after_handover
                    /\ fetch_stops_at_revocation
StepClaims == [][StepClaimsAction]_vars

\* Liveness under fairness (groupcheck/liveness.py's settles_under_fairness): once faults and
\* operations stop, the group converges. GroupConverged is the model's converged_group, "settled
\* but for heartbeats in flight": every running client is Converged (judged after the response
\* it has in flight) and the group is STABLE, or no client runs.
GroupConverged ==
    LET live == {s \in Slots : Running(clients[s])}
    IN live = {} \/ (GroupState(group) = "STABLE" /\ \A s \in live : Converged(s))

\* the coordinator takes slot s's heartbeat off the wire (only Handle does)
Handled(s) == clients[s].request # None /\ clients'[s].request = None

\* WF_vars(Handle(s)), stated without ENABLED (as StreamsGroup.tla's HandleFair): TLC 2.15
\* evaluates ENABLED Handle(s) by expanding the handler's LET definitions without caching.
\* Handle is enabled (and changes vars) exactly when a request is on the wire, and its steps
\* are those that take the request off it (Handled), so this is WF_vars(Handle(s)) as written:
\* <>[]ENABLED => []<>step.
HandleFair(s) == []<>(clients[s].request = None) \/ []<><<Handled(s)>>_vars

\* weak fairness per (step kind, client slot) on every step that is neither a fault nor an
\* operation (both spend the finite Budget, so they stop in every behaviour): the model's
\* (kind, slot) instances outside its fault_kinds
\* the record layer's steps (disabled while Records is off), per (kind, slot) as the model's
\* (a kind over partitions is one instance per slot; Produce one instance)
RecordsFairness ==
    /\ \A s \in Slots : WF_vars(\E p \in Partitions : Poll(s, p)) /\ WF_vars(\E p \in Partitions : Process(s, p))
    /\ \A s \in Slots : WF_vars(Commit(s)) /\ WF_vars(AutoCommit(s)) /\ WF_vars(CommitDeliver(s)) /\ WF_vars(CommitRead(s))
    /\ WF_vars(\E p \in Partitions : Produce(p))

Fairness ==
    /\ \A s \in Slots : WF_vars(Send(s)) /\ HandleFair(s) /\ WF_vars(Deliver(s)) /\ WF_vars(Reconcile(s))
    /\ \A s \in Slots : WF_vars(Restart(s)) /\ WF_vars(Expire(s)) /\ WF_vars(RebalanceTimeout(s))
    /\ \A s \in Slots : WF_vars(Resume(s))
    /\ RecordsFairness

FairSpec == Init /\ [][Next]_vars /\ Fairness

\* the claim: every fair behaviour converges again and again (after the last fault it
\* converges, and after any later step that unsettles it)
SettlesUnderFairness == []<>GroupConverged

\* the same claim for a config of INIT and NEXT (MCConsumerGroupLiveness.cfg: PROPERTY
\* FairSettles): TLC checks the fairness as the property's premise, and groupcheck's config
\* reader reads INIT/NEXT only
FairSettles == Fairness => SettlesUnderFairness

\* Witnesses
\* a member revoked partitions and the coordinator saw it leave UNREVOKED_PARTITIONS
revocation_completes == "REVOKED" \in marks

\* KIP-848: "the member ... may send its previous epoch if the response with the bumped epoch
\* was lost": a heartbeat at the member's previous epoch was accepted
lost_response_recovered == "LOST_RECOVERED" \in marks

\* KIP-848: "-2 to indicate that the static member will rejoin": a static member's next
\* incarnation (a new member id, the same instance id) got its partitions back, no bump
static_rejoin_keeps_assignment == "STATIC_KEPT" \in marks

\* a client restarted (a roll or a crash) and the group settled again, every running client
\* at its target
rolling_bounce_completes ==
    /\ \E s \in Slots : clients[s].incarnation >= 1
    /\ \E s \in Slots : Running(clients[s])
    /\ Settled
\* the record layer's witnesses (marks set by Process, Crash and Poll)
\* a record was processed again, a fault having excused it
sometimes_redelivered_after_crash == "REDELIVERED" \in marks

\* a crash fell between processing and committing
sometimes_killed_before_commit == "KILLED_BEFORE_COMMIT" \in marks

\* a new owner's OffsetFetch started it right after the records processed before
sometimes_handover_clean == "HANDOVER_CLEAN" \in marks
=============================================================================
