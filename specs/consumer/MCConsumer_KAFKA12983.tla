------------------------ MODULE MCConsumer_KAFKA12983 -------------------------
(* TLC's model of the KAFKA-12983 variant: two consumers of cooperative-     *)
(* sticky, one topic of one partition, one pause, generation <= 2. Expected: *)
(* a violation of the step claim lost_only_when_fenced (21 steps in the      *)
(* shortest trace; 7,766 distinct states in all).                            *)
EXTENDS Consumer_KAFKA12983

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {"pause"}

\* the step claim as a temporal property
BrokenClaim == [][lost_only_when_fenced]_vars
=============================================================================
