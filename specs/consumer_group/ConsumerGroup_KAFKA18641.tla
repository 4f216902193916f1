----------------------- MODULE ConsumerGroup_KAFKA18641 -----------------------
(***************************************************************************)
(* KAFKA-18641 (the new consumer before 4.0.0; fixed by apache/kafka       *)
(* #18737): the background thread's interval auto-commit committed          *)
(* allConsumed(), the fetch positions, whenever its timer fired, also while *)
(* the application still held records poll() had returned; a crash before   *)
(* it processed them loses them (the next owner starts at the committed     *)
(* offset). The fix commits only from the application's poll, every record  *)
(* returned before processed (Rules.commit_only_in_poll). Client-side only: *)
(* this module replaces AutoCommit by one without the in-poll guard; every  *)
(* other action is the base spec's.                                        *)
(***************************************************************************)
EXTENDS ConsumerGroup

AutoCommitKAFKA18641(s) == AutoCommitWith(s, FALSE)

NextKAFKA18641 ==
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
    \/ \E s \in Slots, p \in Partitions : Poll(s, p)
    \/ \E s \in Slots, p \in Partitions : Process(s, p)
    \/ \E s \in Slots : Commit(s)
    \/ \E s \in Slots : AutoCommitKAFKA18641(s)
    \/ \E s \in Slots : CommitDeliver(s)
    \/ \E s \in Slots : CommitRead(s)
    \/ \E s \in Slots : LoseCommitReply(s)
    \/ \E p \in Partitions : Produce(p)

SpecKAFKA18641 == Init /\ [][NextKAFKA18641]_vars
=============================================================================
