------------------------- MODULE MCConsumerLiveness --------------------------
(* TLC's model of Consumer's liveness claim SettlesUnderFairness at the     *)
(* pinned scope MCConsumer of manifest.json (two consumers of the range     *)
(* assignor, one topic of one partition, one fault among crash, pause and   *)
(* a lost response), under Fairness (weak fairness per step kind and slot). *)
(* The same claim as `groupcheck check --protocol consumer --fairness`.     *)
EXTENDS Consumer

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {"crash", "pause", "lose_response"}
=============================================================================
