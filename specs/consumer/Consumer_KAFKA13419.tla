------------------------- MODULE Consumer_KAFKA13419 -------------------------
(***************************************************************************)
(* KAFKA-13419 (Kafka 3.0-3.1, reverted by KAFKA-14016 in 3.3): a consumer  *)
(* that has stopped waiting for its SyncGroup response (it timed out and     *)
(* rejoins) still applies that response when it arrives late: it takes     *)
(* ownership of the stale generation's assignment while the group moves     *)
(* on, so two consumers own the same partition. This module replaces       *)
(* Receive (the late SyncGroup response is applied instead of ignored);    *)
(* every other action is the base spec's.                                  *)
(***************************************************************************)
EXTENDS Consumer

OnResponseKAFKA13419(c0, resp) ==
    IF ~Awaited(c0, resp) /\ resp.kind = "SyncGroup" /\ resp.error = "NONE"
    THEN \* the late response changes ownership only: the consumer is mid-rejoin
         [consumer |-> [c0 EXCEPT !.inbox = Tail(@), !.needsJoinPrepare = TRUE,
                                  !.owned = resp.assignment, !.userData = resp.assignment],
          led |-> FALSE]
    ELSE OnResponse(c0, resp)

ReceiveKAFKA13419(s) == CanReceive(s) /\ Received(s, OnResponseKAFKA13419(consumers[s], Head(consumers[s].inbox)))

NextKAFKA13419 ==
    \/ \E s \in Slots : ReceiveKAFKA13419(s)
    \/ \E s \in Slots : Join(s)
    \/ \E s \in Slots : Heartbeat(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : Timeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Pause(s)
    \/ \E s \in Slots : Resume(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ RebalanceTimeout
    \/ RecordsNext

SpecKAFKA13419 == Init /\ [][NextKAFKA13419]_vars
=============================================================================
