----------------------- MODULE ConsumerGroup_KAFKA16460 -----------------------
(***************************************************************************)
(* KAFKA-16460 (the new consumer before 4.0.0; fixed by apache/kafka       *)
(* #17777): the reconciliation marked the partitions to revoke pending      *)
(* revocation (markPendingRevocationToPauseFetching) only after the commit  *)
(* before revocation completed, so the application went on fetching and     *)
(* processing them while that commit was in flight; what it processed then  *)
(* the next owner processes again, from the committed offset. Client-side   *)
(* only: this module replaces Reconcile by one whose phase 1 marks the      *)
(* partitions revoking without making them unfetchable (pause FALSE); every *)
(* other action is the base spec's.                                        *)
(***************************************************************************)
EXTENDS ConsumerGroup

ReconcileKAFKA16460(s) == ReconcileWith(s, FALSE)

NextKAFKA16460 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : ReconcileKAFKA16460(s)
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
    \/ \E s \in Slots, p \in Partitions : Poll(s, p)
    \/ \E s \in Slots, p \in Partitions : Process(s, p)
    \/ \E s \in Slots : Commit(s)
    \/ \E s \in Slots : AutoCommit(s)
    \/ \E s \in Slots : CommitDeliver(s)
    \/ \E s \in Slots : CommitRead(s)
    \/ \E s \in Slots : LoseCommitReply(s)
    \/ \E p \in Partitions : Produce(p)

SpecKAFKA16460 == Init /\ [][NextKAFKA16460]_vars
=============================================================================
