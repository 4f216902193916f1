------------------------ MODULE MCConsumer_KAFKA12984 -------------------------
(* TLC's model of the KAFKA-12984 variant: two consumers of cooperative-     *)
(* sticky, one topic of two partitions, one pause, generation <= 3 (the      *)
(* older leader rules first change a state at generation 3; 17,996 distinct  *)
(* states). Expected: a violation of the step claim lost_only_when_fenced    *)
(* (21 steps in the shortest trace).                                         *)
EXTENDS Consumer_KAFKA12984

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {"pause"}

\* the step claim as a temporal property
BrokenClaim == [][lost_only_when_fenced]_vars
=============================================================================
