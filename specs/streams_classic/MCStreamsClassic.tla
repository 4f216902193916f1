--------------------------- MODULE MCStreamsClassic ---------------------------
(* TLC's model of StreamsClassic at the pinned scope MCStreamsClassic of       *)
(* manifest.json: two Kafka Streams 2.0 instances of one stream thread each,  *)
(* two tasks, a rolling bounce onto 2.3 (KIP-268's version probing: the 2.0   *)
(* leader answers a v4 subscription with the empty assignment) and one crash, *)
(* generations below 5. Expected: 4,696 distinct states (the Python model's   *)
(* BFS finds them, with the 252 past its bounds it keeps), no invariant    *)
(* violated.                                                                   *)
EXTENDS StreamsClassic

MCInstances == {0, 1}
MCTasks == {0, 1}
\* releases.py: 2.0 is the KIP-268 release (v3, without KAFKA-8649's fix), 2.3 sends v4 and has it
MCPlan == [st \in 0 .. 1 |->
             IF st = 0
             THEN [release |-> "2.0", latest |-> 3, used |-> 3, protocol |-> "EAGER", family |-> "kip-268",
                   cooperative |-> FALSE, fix8649 |-> FALSE, assignmentError |-> FALSE]
             ELSE [release |-> "2.3", latest |-> 4, used |-> 4, protocol |-> "EAGER", family |-> "kip-268",
                   cooperative |-> FALSE, fix8649 |-> TRUE, assignmentError |-> FALSE]]
MCFaults == {"crash"}
MCOperations == {"bounce"}
=============================================================================
