------------------------- MODULE Consumer_KAFKA12984 --------------------------
(***************************************************************************)
(* KAFKA-12984, Kafka 2.4-2.8: cooperative-sticky's leader trusts every    *)
(* ownedPartitions claim whatever its generation, ConsumerCoordinator      *)
(* validates the built-in assignor's result                                *)
(* (validateCooperativeAssignment), and a fenced consumer rejoins without  *)
(* onJoinPrepare (KAFKA-12983). This module replaces Receive (the leader's *)
(* assignment and the reset); every other action is the base spec's. Its   *)
(* scope runs cooperative-sticky.                                          *)
(***************************************************************************)
EXTENDS Consumer

\* resetStateAndRejoin leaves needsJoinPrepare as it was: a consumer fenced mid-rebalance
\* skips onJoinPrepare (no onPartitionsLost) and rejoins claiming its partitions
Fencing(c0, resp) == Awaited(c0, resp) /\ resp.error \in {"UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"}

\* every claim kept, whatever its generation; then withheld and validated
AssignKAFKA12984(members) ==
    LET kept == [x \in DOMAIN members |-> members[x].owned]
    IN Validated(members, Withhold(StickyPlan(members, kept), [kept |-> kept, contested |-> {}]))

OnResponseKAFKA12984(c0, resp) ==
    LET r == IF LeaderElected(c0, resp) THEN Joined(Answered(c0), resp, AssignKAFKA12984(resp.members))
             ELSE OnResponse(c0, resp)
    IN IF Fencing(c0, resp) THEN [r EXCEPT !.consumer.needsJoinPrepare = c0.needsJoinPrepare] ELSE r

ReceiveKAFKA12984(s) == CanReceive(s) /\ Received(s, OnResponseKAFKA12984(consumers[s], Head(consumers[s].inbox)))

NextKAFKA12984 ==
    \/ \E s \in Slots : ReceiveKAFKA12984(s)
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

SpecKAFKA12984 == Init /\ [][NextKAFKA12984]_vars
=============================================================================
