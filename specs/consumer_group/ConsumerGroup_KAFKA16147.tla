----------------------- MODULE ConsumerGroup_KAFKA16147 -----------------------
(***************************************************************************)
(* KAFKA-16147 (3.7.0's coordinator; fixed in 3.8.0 by apache/kafka        *)
(* #15212): ConsumerGroup#maybeUpdatePartitionEpoch removed the old         *)
(* assigned partitions' epochs and added the new ones, then removed the old *)
(* pending-revocation ones and added the new: a partition that moves from a *)
(* member's pending revocation back into its assigned set is added, then    *)
(* removed, so the partition-epoch map forgets its owner and another member *)
(* may be given it ("Partition is assigned to two members at the same      *)
(* time"). The move needs 3.7.0's KAFKA-16249 rule too (both are in the    *)
(* kafka-3.7 profile), so this module EXTENDS that variant and replaces its *)
(* heartbeat handling (Handle): the forgotten owners (group.lost) block     *)
(* nothing, and each update writes the map 3.7.0's way. A removal forgets  *)
(* the member's partitions (removePartitionEpochs): the base spec's        *)
(* RemoveMember.                                                           *)
(***************************************************************************)
EXTENDS ConsumerGroup_KAFKA16249

\* 3.7.0's maybeUpdatePartitionEpoch, on the partitions the map lost
EpochMapAfter(lost, old, new) ==
    LET kept == IF old.assigned # new.assigned THEN lost \ new.assigned ELSE lost
    IN IF old.pendingRevocation # new.pendingRevocation
       THEN (kept \cup (old.pendingRevocation \cap new.assigned)) \ new.pendingRevocation
       ELSE kept

UpdateKAFKA16147(g0, id, old, r) ==
    LET g2 == Prepared(g0, id, old)
        m0 == g2.members[id]
        m1 == ReconciledKAFKA16249(g2, id, m0, OwnedOf(r), Blocking(g2, id) \ g2.lost)
        out == Answer(g2, id, old, m1, r)
    IN [out EXCEPT !.group.lost = EpochMapAfter(g2.lost, m0, m1)]

HeartbeatKAFKA16147(g, id, r) ==
    LET a == Admit(g, id, r)
    IN IF a.done THEN a.outcome ELSE UpdateKAFKA16147(a.group, id, a.old, r)

HandleKAFKA16147(s) ==
    /\ clients[s].request # None
    /\ Answered(s, HeartbeatKAFKA16147(group, IdOf(s), clients[s].request))

NextKAFKA16147 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA16147(s)
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

SpecKAFKA16147 == Init /\ [][NextKAFKA16147]_vars

\* the liveness claim on this variant (MCConsumerGroup_KAFKA16147Liveness.cfg): its fairness is the base
\* spec's Fairness, since the one action it replaces, the heartbeat's handling, is fair there
\* as HandleFair(s), stated by the request leaving the wire (Handled) rather than by Handle(s):
\* in NextKAFKA16147's behaviours only HandleKAFKA16147(s) takes slot s's request off, and it is
\* enabled exactly when one is on it, so HandleFair(s) is WF_vars(HandleKAFKA16147(s))
FairnessKAFKA16147 == Fairness
FairSettlesKAFKA16147 == FairnessKAFKA16147 => SettlesUnderFairness
=============================================================================
