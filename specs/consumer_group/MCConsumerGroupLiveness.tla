----------------------- MODULE MCConsumerGroupLiveness -----------------------
(* TLC's model of ConsumerGroup's liveness claim SettlesUnderFairness at the *)
(* pinned scope MCConsumerGroup of manifest.json (two consumers, one topic  *)
(* of two partitions, no faults), under Fairness (weak fairness per step    *)
(* kind and slot). The same claim as                                        *)
(* `groupcheck check --protocol consumer-group --fairness`.                 *)
EXTENDS ConsumerGroup

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {}
MCOperations == {}
=============================================================================
