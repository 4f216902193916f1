------------------------- MODULE MCConsumer_KAFKA14196 -------------------------
(* TLC's model of the KAFKA-14196 variant: two consumers, one partition, one   *)
(* record, the range assignor (EAGER), commit policy auto, no faults, group    *)
(* generation <= 3. Expected: a violation of the step claim                    *)
(* fetch_stops_at_revocation (the model's shortest counterexample has 18       *)
(* steps: onJoinPrepare sends its commit and the application polls the         *)
(* partition it is about to revoke).                                           *)
EXTENDS Consumer_KAFKA14196

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {}

\* the step claim as a temporal property (TLC checks it with PROPERTY)
Claim == [][fetch_stops_at_revocation]_vars
=============================================================================
