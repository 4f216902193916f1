------------------ MODULE MCStreamsGroup_LostResponseLiveness ----------------
(* TLC's model of StreamsGroup's liveness claim FairSettles at the scope of  *)
(* the model's finding lost-response-strands-task (kafka-4.5, two Streams   *)
(* processes of one member each, one stateless subtopology of two          *)
(* partitions, one lost response), with the base Next: the finding is      *)
(* Kafka's own rule (task lists are answered only on join or change), so   *)
(* a response lost after it handed on a task is never repeated, and the    *)
(* task the coordinator believes the member runs is run by nobody: a fair  *)
(* behaviour that never converges. The same claim as `groupcheck check     *)
(* --protocol streams-group --fairness` at the finding's scope.            *)
EXTENDS StreamsGroup

MCSlots == {0, 1}
MCPartitions == <<2>>
MCFaults == {"lose_response"}
MCOperations == {}
=============================================================================
