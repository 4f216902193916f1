------------------- MODULE MCStreamsGroup_KAFKA19233Liveness ------------------
(* TLC's model of the KAFKA-19233 variant's liveness claim at the model's   *)
(* scope for the bug (kafka-4.1, two Streams processes of one member each,  *)
(* one stateless subtopology of one partition, two lost responses): a       *)
(* member fenced while the coordinator still holds it at a higher epoch is *)
(* answered FENCED_MEMBER_EPOCH on its rejoin, and on every retry. Under    *)
(* Fairness TLC finds a fair lasso that never converges, as `groupcheck     *)
(* check --protocol streams-group --fairness` does at that scope.           *)
EXTENDS StreamsGroup_KAFKA19233

MCSlots == {0, 1}
MCPartitions == <<1>>
MCFaults == {"lose_response"}
MCOperations == {}
=============================================================================
