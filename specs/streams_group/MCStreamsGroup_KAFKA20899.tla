----------------------- MODULE MCStreamsGroup_KAFKA20899 -----------------------
(* TLC's model of the KAFKA-20899 variant at its scope in manifest.json: two   *)
(* Streams processes of one member each, one stateful subtopology of one      *)
(* partition, one standby replica, kafka-4.5, one poll timeout, max epoch 4.  *)
(* Expected: 4,867 distinct states and a violation of standby_not_with_active *)
(* after 11 steps (the standby pass hands the task's standby back to the      *)
(* member that now runs it as active).                                        *)
EXTENDS StreamsGroup_KAFKA20899

MCSlots == {0, 1}
MCPartitions == <<1>>
MCFaults == {}
MCOperations == {"poll_timeout"}
=============================================================================
