------------------------ MODULE MCConsumerGroupRecords ------------------------
(* TLC's model of ConsumerGroup with the record layer at the pinned scope     *)
(* MCConsumerGroupRecords of manifest.json: two consumers that start         *)
(* together, one partition, one record to produce, commit policy auto        *)
(* (enable.auto.commit: the interval commit and the commit before a           *)
(* revocation are messages), no faults. Expected: 29,241 distinct states     *)
(* (the Python model's BFS without symmetry reduction finds the same).       *)
EXTENDS ConsumerGroup

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {}
MCOperations == {}
=============================================================================
