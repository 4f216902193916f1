----------------------- MODULE MCStreamsClassicLiveness -----------------------
(* TLC's model of StreamsClassic's liveness claim SettlesUnderFairness at the  *)
(* pinned scope MCStreamsClassic of manifest.json (two Kafka Streams 2.0      *)
(* instances of one stream thread each, two tasks, a rolling bounce onto 2.3, *)
(* one crash, generations below 5), under FairSpec (weak fairness per step    *)
(* kind and slot). The same claim as                                          *)
(* `groupcheck check streams-classic --fairness` at that scope.               *)
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
