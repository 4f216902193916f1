----------------------- MODULE MCStreamsGroupLiveness ------------------------
(* TLC's model of StreamsGroup's liveness claim SettlesUnderFairness at the  *)
(* pinned scope MCStreamsGroup of manifest.json (two Streams processes of   *)
(* one member each, one stateless subtopology of two partitions, kip-1071,  *)
(* no faults), under FairSpec (weak fairness per step kind and slot). The   *)
(* same claim as `groupcheck check --protocol streams-group --fairness`.    *)
EXTENDS StreamsGroup

MCSlots == {0, 1}
MCPartitions == <<2>>
MCFaults == {}
MCOperations == {}
=============================================================================
