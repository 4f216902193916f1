---------------------- MODULE StreamsGroup_KAFKA21370 -----------------------
(***************************************************************************)
(* KAFKA-21370 (Kafka 4.1-4.4; fixed in 4.5): KIP-1071 (Request Handling   *)
(* 2.iii): "If ER=EG, check if topology metadata in the request is equal to*)
(* the topology metadata of the group, otherwise fail with                 *)
(* STREAMS_INVALID_TOPOLOGY_EPOCH". Up to 4.4 GroupMetadataManager#        *)
(* maybeUpdateTopology answers any topology other than the group's, the    *)
(* same epoch included, with INVALID_REQUEST "Topology updates are not     *)
(* supported yet.", so a client that redeployed a changed topology without *)
(* bumping its epoch is not told why. This module replaces Handle with that*)
(* rule.                                                                   *)
(***************************************************************************)
EXTENDS StreamsGroup

HandleKAFKA21370(s) == HandleWith(s, [Rules EXCEPT !.sameEpochMismatch = "INVALID_REQUEST"])

NextKAFKA21370 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA21370(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Bounce(s)
    \/ \E s \in Slots : Expire(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ CreateTopic
    \/ TopicsCreated
    \/ \E s \in Slots : CatchUp(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : TopologyUpdate(s)
    \/ TopicChange
    \/ \E s \in Slots : ShutdownRequest(s)
    \/ \E s \in Slots : Roll(s)
    \/ \E s \in Slots : Redeploy(s)
    \/ \E s \in Slots : PollTimeout(s)
    \/ \E s \in Slots : ShutdownLeave(s)

SpecKAFKA21370 == Init /\ [][NextKAFKA21370]_vars
=============================================================================
