--------------------- MODULE MCConsumerGroup_KAFKA16460 ---------------------
(* TLC's model of the KAFKA-16460 variant: two consumers, one partition, two *)
(* records, commit policy auto, no faults. Expected: a violation of the step *)
(* claim fetch_stops_at_revocation (the model's shortest counterexample has  *)
(* 13 steps: the owner's reconciliation sends its commit before revocation   *)
(* and polls a record of the partition it is revoking). The whole state     *)
(* space (88,760 distinct states, the same on both sides) is beyond CI's     *)
(* budget for a state-for-state comparison; the counterexample is compared.  *)
EXTENDS ConsumerGroup_KAFKA16460

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {}
MCOperations == {}

\* the step claim as a temporal property (TLC checks it with PROPERTY)
Claim == [][fetch_stops_at_revocation]_vars
=============================================================================
