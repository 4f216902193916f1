--------------------------- MODULE MCStreamsGroup ----------------------------
(* TLC's model of StreamsGroup at the pinned scope MCStreamsGroup of          *)
(* manifest.json: two Streams processes of one member each, one stateless   *)
(* subtopology whose source topic has two partitions (the sticky assignor), *)
(* the kip-1071 profile, no faults. Expected: 1,178 distinct states (the     *)
(* Python model's BFS without symmetry reduction finds the same states).    *)
EXTENDS StreamsGroup

MCSlots == {0, 1}
MCPartitions == <<2>>
MCFaults == {}
MCOperations == {}
=============================================================================
