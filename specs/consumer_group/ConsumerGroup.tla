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
(* Covers: dynamic members subscribed by name to one topic, the `kip-848`   *)
(* profile (Kafka trunk's rules), the steps Send, Handle, Deliver,          *)
(* Reconcile, the fault LoseResponse (a heartbeat response lost, the next   *)
(* heartbeat sent in full: the previous-epoch rule) and the rebalance       *)
(* timeout it may lead to, the operation Leave (a consumer closes for good) *)
(* and the session expiry that may follow it, the convergence monitor of   *)
(* converges_within_k. Leaves out (see README.md): static members, regular *)
(* expressions, several topics, the range assignor, the session-timeout    *)
(* fault, crashes, restarts, stalls,                                       *)
(* subscription and topic changes, coordinator failover, classic members    *)
(* and online migration, the other profiles and the known-bug switches.     *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, Sequences

CONSTANTS
    Slots,          \* the clients, by slot number (0 .. members-1)
    Partitions,     \* the partitions of the one topic t0, as numbers 0 .. n-1
    Faults,         \* the faults the scope allows: a subset of {"lose_response"}
    Operations,     \* the operations the scope allows: a subset of {"leave"}
    Budget,         \* how many faults and operations may happen
    MaxEpoch,       \* the scope's bound on the group epoch (TLC: CONSTRAINT)
    K               \* heartbeat rounds converges_within_k allows (5)

VARIABLES
    group,          \* the coordinator's consumer group
    clients,        \* slot -> the consumer in that slot
    budget,         \* faults left
    calm,           \* full heartbeat rounds since the last disturbance (at most K)
    beaten,         \* slots that read the response to a heartbeat sent this round
    fresh,          \* slots whose heartbeat in flight was sent this round
    wedged,         \* slots whose lost response may have carried an assignment
    marks           \* witnesses seen on the way: "REVOKED", "LOST_RECOVERED"

vars == <<group, clients, budget, calm, beaten, fresh, wedged, marks>>

-----------------------------------------------------------------------------
(* Values *)

NoFn == [x \in {} |-> 0]                 \* the empty function
None == "none"
MemberStates == {"STABLE", "UNREVOKED", "UNRELEASED"}
ClientStates == {"JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "LEAVING", "UNSUBSCRIBED", "FATAL"}
InGroup == {"RECONCILING", "ACKNOWLEDGING", "STABLE"}

\* A member id: the client's slot and incarnation ("m<slot>.<incarnation>");
\* ids are ordered as Kafka's strings order them for one-digit slots.
IdOf(s) == <<s, clients[s].incarnation>>
IdLess(a, b) == a[1] < b[1] \/ (a[1] = b[1] /\ a[2] < b[2])

Member == [state: MemberStates, epoch: Int, previousEpoch: Int,
           assigned: SUBSET Partitions, pendingRevocation: SUBSET Partitions]
Request == [epoch: Int, full: BOOLEAN, reports: BOOLEAN, owned: SUBSET Partitions]
Reply == [error: STRING, epoch: Int, hasAssignment: BOOLEAN, assignment: SUBSET Partitions]
Sent == [kind: {"none", "owned", "changed"}, owned: SUBSET Partitions]

NoSent == [kind |-> "none", owned |-> {}]

TypeOK ==
    /\ group.dead \in BOOLEAN
    /\ group.epoch \in Nat /\ group.assignmentEpoch \in Nat
    /\ \A id \in DOMAIN group.members : group.members[id] \in Member
    /\ \A s \in Slots : clients[s].status \in ClientStates
    /\ budget \in Nat /\ calm \in 0..K
    /\ beaten \subseteq Slots /\ fresh \subseteq Slots /\ wedged \subseteq Slots

-----------------------------------------------------------------------------
(* Init: no group yet; every consumer starts, joining *)

NewClient(inc) == [status |-> "JOINING", incarnation |-> inc, epoch |-> 0, owned |-> {},
                   target |-> {}, sent |-> NoSent, request |-> None, reply |-> None]

Init ==
    /\ group = [dead |-> TRUE, epoch |-> 0, assignmentEpoch |-> 0, members |-> NoFn, target |-> NoFn]
    /\ clients = [s \in Slots |-> NewClient(0)]
    /\ budget = Budget
    /\ calm = 0
    /\ beaten = {}
    /\ fresh = {}
    /\ wedged = {}
    /\ marks = {}

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

\* f with id mapped to v (added or replaced)
Put(f, id, v) == [x \in DOMAIN f \cup {id} |-> IF x = id THEN v ELSE f[x]]

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
(* still holds it (assigned or pending revocation).                        *)
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

Reconciled(g, id, m, owned) ==
    LET others == DOMAIN g.members \ {id}
        blocked == UNION {g.members[o].assigned \cup g.members[o].pendingRevocation : o \in others}
        target == TargetOf(g, id)
        te == g.assignmentEpoch
    IN CASE m.state = "STABLE" ->
              IF m.epoch = te THEN m ELSE NextAssignment(m, m.epoch, te, target, owned, blocked)
         [] m.state = "UNREVOKED" ->
              \* trunk (KAFKA-19974): the epoch does not move when the revocation completes
              IF Overlaps(owned, m.pendingRevocation) THEN m
              ELSE NextAssignment(m, m.epoch, te, target, owned, blocked)
         [] m.state = "UNRELEASED" -> NextAssignment(m, m.epoch, te, target, owned, blocked)

(***************************************************************************)
(* The coordinator's answer to one ConsumerGroupHeartbeat                   *)
(* (GroupMetadataManager#consumerGroupHeartbeat): the group after it and    *)
(* the response.                                                           *)
(***************************************************************************)
\* consumerGroupFenceMember / removeMember: the member's assignment and target entry go and
\* the group epoch is bumped; an emptied group's assignment epoch catches up (KAFKA-20442's
\* fix, "Update consumer group assignment epoch when last member leaves")
RemoveMember(g, id) ==
    LET left == DOMAIN g.members \ {id}
        epoch == g.epoch + 1
    IN [g EXCEPT !.members = [x \in left |-> g.members[x]],
                 !.target = [x \in DOMAIN g.target \ {id} |-> g.target[x]],
                 !.epoch = epoch,
                 !.assignmentEpoch = IF left = {} THEN epoch ELSE @]

ErrorOutcome(g, error) == [group |-> g, error |-> error, epoch |-> 0, hasAssignment |-> FALSE, assignment |-> {}]

\* the member's epoch check, with KIP-848's lost-response rule: "the member may send its
\* previous epoch if the response with the bumped epoch was lost"
EpochFenced(m, r) ==
    \/ r.epoch > m.epoch
    \/ r.epoch < m.epoch /\ ~(r.epoch = m.previousEpoch /\ r.reports /\ r.owned \subseteq m.assigned)

Update(g0, id, old, r) ==
    LET fresh0 == old = None
        m0 == IF fresh0 THEN [state |-> "STABLE", epoch |-> 0, previousEpoch |-> -1,
                              assigned |-> {}, pendingRevocation |-> {}]
              ELSE old
        \* "The group epoch is bumped when a member joins" (bump_on_join)
        g1 == [g0 EXCEPT !.members = Put(@, id, m0), !.epoch = IF fresh0 THEN @ + 1 ELSE @]
        g2 == IF g1.epoch > g1.assignmentEpoch
              THEN [g1 EXCEPT !.target = Uniform(g1), !.assignmentEpoch = g1.epoch]
              ELSE g1
        owned == IF r.reports THEN r.owned ELSE None
        m1 == Reconciled(g2, id, m0, owned)
        g3 == [g2 EXCEPT !.members = Put(@, id, m1)]
        full == r.epoch = 0 \/ r.full
        sent == full \/ fresh0 \/ m0.assigned # m1.assigned
    IN [group |-> g3, error |-> "", epoch |-> m1.epoch,
        hasAssignment |-> sent, assignment |-> IF sent THEN m1.assigned ELSE {}]

\* consumerGroupLeave: the member is removed; the response echoes the epoch sent
LeaveGroup(g, id, r) ==
    IF g.dead THEN ErrorOutcome(g, "GROUP_ID_NOT_FOUND")
    ELSE IF id \notin DOMAIN g.members THEN ErrorOutcome(g, "UNKNOWN_MEMBER_ID")
    ELSE [group |-> RemoveMember(g, id), error |-> "", epoch |-> r.epoch, hasAssignment |-> FALSE, assignment |-> {}]

Heartbeat(g, id, r) ==
    IF r.epoch = -1 THEN LeaveGroup(g, id, r)
    ELSE IF g.dead
    THEN IF r.epoch # 0
         THEN ErrorOutcome(g, "GROUP_ID_NOT_FOUND")
         ELSE Update([dead |-> FALSE, epoch |-> 0, assignmentEpoch |-> 0, members |-> NoFn, target |-> NoFn],
                     id, None, r)
    ELSE IF id \notin DOMAIN g.members
    THEN IF r.epoch # 0 THEN ErrorOutcome(g, "UNKNOWN_MEMBER_ID") ELSE Update(g, id, None, r)
    ELSE IF r.epoch = 0 THEN Update(g, id, g.members[id], r)       \* a known member rejoining (KAFKA-19233's fix)
    ELSE IF EpochFenced(g.members[id], r) THEN ErrorOutcome(g, "FENCED_MEMBER_EPOCH")
    ELSE Update(g, id, g.members[id], r)

(***************************************************************************)
(* The consumer (AbstractMembershipManager, ConsumerHeartbeatRequestManager) *)
(***************************************************************************)
\* HeartbeatState#buildRequestData: all fields when joining or after an error; otherwise
\* the owned partitions only if they changed since last sent
RequestOf(c) ==
    IF c.status = "LEAVING" THEN [epoch |-> -1, full |-> FALSE, reports |-> FALSE, owned |-> {}] ELSE
    LET every == c.status = "JOINING" \/ c.sent.kind = "none"
        reports == every \/ c.sent.kind = "changed" \/ c.sent.owned # c.owned
    IN [epoch |-> IF c.status = "JOINING" THEN 0 ELSE c.epoch, full |-> every,
        reports |-> reports, owned |-> IF reports THEN c.owned ELSE {}]

\* onHeartbeatRequestSent; the leave heartbeat, once sent, ends the membership
AfterSend(c, r) ==
    IF c.status = "LEAVING" THEN [c EXCEPT !.status = "UNSUBSCRIBED", !.epoch = 0, !.request = r, !.sent = NoSent] ELSE
    [c EXCEPT !.status = IF @ = "ACKNOWLEDGING" THEN IF c.target = c.owned THEN "STABLE" ELSE "RECONCILING" ELSE @,
              !.request = r,
              !.sent = [kind |-> "owned", owned |-> IF r.reports THEN c.owned ELSE c.sent.owned]]

\* transitionToFenced: epoch 0, onPartitionsLost, rejoin with the same member id
Fenced(c) == [c EXCEPT !.status = "JOINING", !.epoch = 0, !.owned = {}, !.target = {}, !.sent = NoSent]

\* onHeartbeatSuccess / onErrorResponse
OnResponse(c0, rep) ==
    LET c == [c0 EXCEPT !.reply = None]
    IN IF rep.error \in {"FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"} THEN Fenced(c)
       ELSE IF rep.error # "" THEN [c EXCEPT !.status = "FATAL", !.owned = {}, !.target = {}]
       ELSE IF c.status \notin {"JOINING"} \cup InGroup \/ rep.epoch < 0 THEN c
       ELSE LET e == [c EXCEPT !.epoch = rep.epoch]
            IN IF ~rep.hasAssignment
               THEN IF e.status = "JOINING" /\ e.owned = e.target THEN [e EXCEPT !.status = "STABLE"] ELSE e
               ELSE IF rep.assignment # e.target THEN [e EXCEPT !.target = rep.assignment, !.status = "RECONCILING"]
               ELSE IF e.status = "JOINING"
               THEN [e EXCEPT !.status = IF e.owned = e.target THEN "STABLE" ELSE "RECONCILING"]
               ELSE e

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

-----------------------------------------------------------------------------
(* Actions: one per model action kind *)

\* the client sends its heartbeat
Send(s) ==
    /\ Running(clients[s]) /\ Idle(clients[s])
    /\ clients' = [clients EXCEPT ![s] = AfterSend(@, RequestOf(@))]
    /\ fresh' = fresh \cup {s}
    /\ UNCHANGED <<group, budget, calm, beaten, wedged, marks>>

\* the coordinator handles it and answers
Handle(s) ==
    /\ clients[s].request # None
    /\ LET r == clients[s].request
           id == IdOf(s)
           out == Heartbeat(group, id, r)
           before == group
           after == out.group
           old == IF ~before.dead /\ id \in DOMAIN before.members THEN before.members[id] ELSE None
           new == IF ~after.dead /\ id \in DOMAIN after.members THEN after.members[id] ELSE None
           seen == IF out.error # "" \/ before.dead \/ after.dead THEN {}
                   ELSE (IF old # None /\ new # None /\ old.state = "UNREVOKED" /\ new.state # "UNREVOKED"
                         THEN {"REVOKED"} ELSE {})
                        \cup (IF old # None /\ 0 < r.epoch /\ r.epoch = old.previousEpoch /\ old.previousEpoch < old.epoch
                              THEN {"LOST_RECOVERED"} ELSE {})
       IN /\ group' = after
          \* a leave heartbeat's response reaches nobody
          /\ clients' = [clients EXCEPT ![s].request = None,
                                        ![s].reply = IF Running(clients[s]) /\ r.epoch >= 0
                                                     THEN [error |-> out.error, epoch |-> out.epoch,
                                                           hasAssignment |-> out.hasAssignment,
                                                           assignment |-> out.assignment]
                                                     ELSE None]
          /\ marks' = marks \cup seen
          \* the membership changes: a new round begins
          /\ IF r.epoch < 0 THEN calm' = 0 /\ beaten' = {} /\ fresh' = {}
             ELSE UNCHANGED <<calm, beaten, fresh>>
    /\ UNCHANGED <<budget, wedged>>

\* the client reads the response
Deliver(s) ==
    /\ clients[s].reply # None
    /\ LET c == OnResponse(clients[s], clients[s].reply)
           cs == [clients EXCEPT ![s] = c]
           stillWedged == s \in wedged /\ ~(c.status \notin InGroup \/ ConvergedWith(cs, s))
           w == IF stillWedged THEN wedged ELSE wedged \ {s}
           mon == Monitor(s, cs, c.status \in {"RECONCILING", "ACKNOWLEDGING"}, w)
       IN /\ clients' = cs
          /\ wedged' = w
          /\ calm' = mon.calm /\ beaten' = mon.beaten /\ fresh' = mon.fresh
    /\ UNCHANGED <<group, budget, marks>>

\* the application's poll reconciles: commit, onPartitionsRevoked, onPartitionsAssigned
Reconcile(s) ==
    /\ clients[s].status = "RECONCILING"
    /\ clients' = [clients EXCEPT ![s].status = "ACKNOWLEDGING", ![s].owned = clients[s].target,
                                  ![s].sent = IF @.kind = "none" THEN @ ELSE [kind |-> "changed", owned |-> {}]]
    /\ UNCHANGED <<group, budget, calm, beaten, fresh, wedged, marks>>

\* fault: the response is lost; the request times out and the next heartbeat is sent in full
LoseResponse(s) ==
    /\ "lose_response" \in Faults /\ budget > 0
    /\ clients[s].reply # None
    /\ clients' = [clients EXCEPT ![s].reply = None, ![s].sent = NoSent]
    /\ wedged' = wedged \cup {s}
    /\ budget' = budget - 1
    /\ calm' = 0 /\ beaten' = {} /\ fresh' = {}
    /\ UNCHANGED <<group, marks>>

(***************************************************************************)
(* The coordinator's rebalance timer (scheduleConsumerGroupRebalanceTimeout) *)
(* of a member that must revoke but cannot: its response was lost, so it   *)
(* may never see the assignment that asks it to. The member is removed.   *)
(***************************************************************************)
RebalanceTimeout(s) ==
    /\ ~group.dead
    /\ IdOf(s) \in DOMAIN group.members
    /\ Running(clients[s])
    /\ group.members[IdOf(s)].state = "UNREVOKED"
    /\ s \in wedged
    /\ group' = RemoveMember(group, IdOf(s))
    /\ calm' = 0 /\ beaten' = {} /\ fresh' = {}
    /\ UNCHANGED <<clients, budget, wedged, marks>>

\* operation: the consumer closes for good (close(): commit, onPartitionsRevoked, then its
\* leave heartbeat, epoch -1)
Leave(s) ==
    /\ "leave" \in Operations /\ budget > 0
    /\ clients[s].status \in InGroup /\ Idle(clients[s])
    /\ clients' = [clients EXCEPT ![s].status = "LEAVING", ![s].owned = {}, ![s].target = {}]
    /\ budget' = budget - 1
    /\ calm' = 0 /\ beaten' = {} /\ fresh' = {}
    /\ UNCHANGED <<group, wedged, marks>>

\* the session of a member whose process is gone expires (consumerGroupSessionTimeoutExpired)
Expire(s) ==
    /\ ~group.dead
    /\ IdOf(s) \in DOMAIN group.members
    /\ ~Running(clients[s])
    /\ group' = RemoveMember(group, IdOf(s))
    /\ calm' = 0 /\ beaten' = {} /\ fresh' = {}
    /\ UNCHANGED <<clients, budget, wedged, marks>>

Next ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : Reconcile(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ \E s \in Slots : Leave(s)
    \/ \E s \in Slots : Expire(s)

Spec == Init /\ [][Next]_vars

\* TLC's CONSTRAINT: the scope's bound (the model's within_bounds)
StateConstraint == group.epoch < MaxEpoch

-----------------------------------------------------------------------------
(* Invariants, named as the model's properties *)

Live == {s \in Slots : Running(clients[s]) /\ ~group.dead /\ IdOf(s) \in DOMAIN group.members}

\* KIP-848: "a partition ... can only be assigned to a member once it has been revoked by its
\* previous owner". Claim: no two live clients own a partition.
no_double_ownership ==
    \A s, t \in Live : s # t => clients[s].owned \cap clients[t].owned = {}

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
\* target and the group is STABLE.
MembershipStable ==
    /\ \A s \in Slots : clients[s].status # "LEAVING"
    /\ ~group.dead => \A id \in DOMAIN group.members :
                       clients[id[1]].incarnation = id[2] /\ Running(clients[id[1]])

converges_within_k ==
    (calm >= K /\ MembershipStable) =>
        (/\ \A s \in Slots : Running(clients[s]) => Converged(s)
         /\ (\E s \in Slots : Running(clients[s])) => GroupState(group) = "STABLE")

\* the OffsetCommit a consumer sends before it reconciles is accepted (validateOffsetCommit)
CommitAccepted(s) ==
    ~group.dead /\ IdOf(s) \in DOMAIN group.members /\ group.members[IdOf(s)].epoch = clients[s].epoch

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

\* For TLC
\* the step claims as one temporal property (MCConsumerGroup.cfg: PROPERTY StepClaims)
StepClaimsAction == member_epoch_never_decreases /\ revoke_before_reassign /\ commits_only_by_owner
StepClaims == [][StepClaimsAction]_vars

\* Witnesses
\* a member revoked partitions and the coordinator saw it leave UNREVOKED_PARTITIONS
revocation_completes == "REVOKED" \in marks

\* KIP-848: "the member ... may send its previous epoch if the response with the bumped epoch
\* was lost": a heartbeat at the member's previous epoch was accepted
lost_response_recovered == "LOST_RECOVERED" \in marks
=============================================================================
