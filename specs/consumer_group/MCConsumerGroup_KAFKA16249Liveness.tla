----------------- MODULE MCConsumerGroup_KAFKA16249Liveness -----------------
(* TLC's model of the KAFKA-16249 variant's liveness claim: two consumers,   *)
(* one partition, one session timeout, group epochs below 5. Under          *)
(* FairnessKAFKA16249 the group never converges again: an acknowledging    *)
(* heartbeat meets the target installed after the session timeout, and the  *)
(* member keeps a partition pending revocation that it no longer runs.      *)
(* The same lasso as `groupcheck check --fairness` with kafka-16249 on.     *)
EXTENDS ConsumerGroup_KAFKA16249

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {"session_timeout"}
MCOperations == {}
=============================================================================
