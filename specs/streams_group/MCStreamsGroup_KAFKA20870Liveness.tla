------------------- MODULE MCStreamsGroup_KAFKA20870Liveness -------------------
(* TLC's model of the KAFKA-20870 variant's liveness claim at its scope in    *)
(* manifest.json: two Streams processes of one member each, one stateless    *)
(* subtopology of two partitions, kip-1071, no faults; the client omits each  *)
(* unchanged owned-task list on its own. Under the variant's fairness         *)
(* (FairnessKAFKA20870, weak fairness per step kind and slot) a revocation is *)
(* never acknowledged: TLC finds a fair lasso that never converges, as        *)
(* `groupcheck check --protocol streams-group --fairness` does at that scope. *)
EXTENDS StreamsGroup_KAFKA20870

MCSlots == {0, 1}
MCPartitions == <<2>>
MCFaults == {}
MCOperations == {}
=============================================================================
