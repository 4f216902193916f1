------------------------- MODULE Consumer_KAFKA12983 --------------------------
(***************************************************************************)
(* KAFKA-12983 (fixed in 2.8.1 and 3.0.0): resetStateAndRejoin did not set *)
(* needsJoinPrepare, so a consumer answered UNKNOWN_MEMBER_ID or           *)
(* ILLEGAL_GENERATION mid-rebalance skipped onJoinPrepare: no              *)
(* onPartitionsLost, and it rejoined still claiming its partitions         *)
(* (KIP-429: "re-join group with empty assigned partition"). This module   *)
(* replaces Receive (the reset keeps needsJoinPrepare); every other action *)
(* is the base spec's. Its scope runs cooperative-sticky.                  *)
(***************************************************************************)
EXTENDS Consumer

\* resetStateAndRejoin leaves needsJoinPrepare as it was: a consumer fenced mid-rebalance
\* skips onJoinPrepare (no onPartitionsLost) and rejoins claiming its partitions
Fencing(c0, resp) == Awaited(c0, resp) /\ resp.error \in {"UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"}

OnResponseKAFKA12983(c0, resp) ==
    LET r == OnResponse(c0, resp)
    IN IF Fencing(c0, resp) THEN [r EXCEPT !.consumer.needsJoinPrepare = c0.needsJoinPrepare] ELSE r

ReceiveKAFKA12983(s) == CanReceive(s) /\ Received(s, OnResponseKAFKA12983(consumers[s], Head(consumers[s].inbox)))

NextKAFKA12983 ==
    \/ \E s \in Slots : ReceiveKAFKA12983(s)
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

SpecKAFKA12983 == Init /\ [][NextKAFKA12983]_vars
=============================================================================
