----------------- MODULE MCConsumerGroup_KAFKA16147Liveness -----------------
(* TLC's model of the KAFKA-16147 variant's liveness claim: two consumers,   *)
(* one partition, one roll (a consumer closes and restarts), group epochs   *)
(* below 5. Under FairnessKAFKA16147 the group never converges again. The   *)
(* stuck member is the KAFKA-16249 rule this variant EXTENDS (3.7.0 had     *)
(* both): KAFKA-16249's variant alone is stuck at this scope too; the       *)
(* forgotten owner of KAFKA-16147 is a safety bug (revoke_before_reassign). *)
(* The same lasso as `groupcheck check --fairness` with kafka-16249 and     *)
(* kafka-16147 on.                                                          *)
EXTENDS ConsumerGroup_KAFKA16147

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {}
MCOperations == {"roll"}
=============================================================================
