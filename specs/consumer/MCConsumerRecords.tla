------------------------- MODULE MCConsumerRecords -------------------------
(* TLC's model of Consumer with the record layer at the pinned scope        *)
(* MCConsumerRecords of manifest.json: two consumers, one partition, one    *)
(* record to produce, cooperative-sticky, commit policy auto (the interval  *)
(* commit and onJoinPrepare's commit are messages), no faults, group        *)
(* generation <= 3. Expected: 4,392 distinct states (the Python model's BFS *)
(* without symmetry reduction finds the same).                              *)
EXTENDS Consumer

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {}
=============================================================================
