----------------------- MODULE ConsumerGroup_KAFKA16249 -----------------------
(***************************************************************************)
(* KAFKA-16249 (3.7.0's coordinator; fixed in 3.8.0 by apache/kafka #15364, *)
(* "Improve reconciliation state machine"): CurrentAssignmentBuilder#build  *)
(* began with "if (targetAssignmentEpoch != member.targetMemberEpoch())     *)
(* return transitionToNewTargetAssignmentState();", which starts over from  *)
(* the member's assigned and pending-revocation partitions and does not     *)
(* read the owned partitions the same heartbeat reports: an acknowledgement *)
(* (or a rejoin's empty owned list) that meets a new target is lost, and    *)
(* the member keeps partitions pending revocation that it no longer runs.  *)
(* Coordinator-side: this module replaces the heartbeat's handling (Handle);*)
(* every other action is the base spec's. The member's targetEpoch is       *)
(* 3.7.0's targetMemberEpoch (the base spec keeps it at 0).                 *)
(***************************************************************************)
EXTENDS ConsumerGroup

\* 3.7.0's CurrentAssignmentBuilder#build: a new target epoch restarts the member from
\* assigned \cup pending revocation, the owned partitions reported unread
ReconciledKAFKA16249(g, id, m, owned, blocked) ==
    IF g.assignmentEpoch # m.targetEpoch
    THEN NextMember(g, id, [m EXCEPT !.state = "STABLE", !.assigned = m.assigned \cup m.pendingRevocation,
                                     !.pendingRevocation = {}, !.targetEpoch = g.assignmentEpoch],
                    None, blocked)
    ELSE NextMember(g, id, m, owned, blocked)

UpdateKAFKA16249(g0, id, old, r) ==
    LET g2 == Prepared(g0, id, old)
    IN Answer(g2, id, old, ReconciledKAFKA16249(g2, id, g2.members[id], OwnedOf(r), Blocking(g2, id)), r)

HeartbeatKAFKA16249(g, id, r) ==
    LET a == Admit(g, id, r)
    IN IF a.done THEN a.outcome ELSE UpdateKAFKA16249(a.group, id, a.old, r)

HandleKAFKA16249(s) ==
    /\ clients[s].request # None
    /\ Answered(s, HeartbeatKAFKA16249(group, IdOf(s), clients[s].request))

NextKAFKA16249 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA16249(s)
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
    \/ RecordsNext

SpecKAFKA16249 == Init /\ [][NextKAFKA16249]_vars

\* the liveness claim on this variant (MCConsumerGroup_KAFKA16249Liveness.cfg): its fairness is the base
\* spec's Fairness, since the one action it replaces, the heartbeat's handling, is fair there
\* as HandleFair(s), stated by the request leaving the wire (Handled) rather than by Handle(s):
\* in NextKAFKA16249's behaviours only HandleKAFKA16249(s) takes slot s's request off, and it is
\* enabled exactly when one is on it, so HandleFair(s) is WF_vars(HandleKAFKA16249(s))
FairnessKAFKA16249 == Fairness
FairSettlesKAFKA16249 == FairnessKAFKA16249 => SettlesUnderFairness
=============================================================================
