----------------------- MODULE Consumer_KIP429OldLeader -----------------------
(***************************************************************************)
(* KIP-429: "we want to avoid the situation where leader is on old byte-   *)
(* code and only recognize eager ... and hence just go ahead and do the    *)
(* assignment while new versioned members did not revoke their partitions  *)
(* before joining the group". The leader reads no ownedPartitions          *)
(* (subscription v0) and withholds nothing. This module replaces Receive   *)
(* (the leader's assignment); every other action is the base spec's. Its   *)
(* scope runs cooperative-sticky.                                          *)
(***************************************************************************)
EXTENDS Consumer

\* no claim read: the plan starts from nothing, and nothing is withheld
AssignKIP429OldLeader(members) == Ok(StickyPlan(members, [x \in DOMAIN members |-> {}]))

OnResponseKIP429OldLeader(c0, resp) ==
    IF LeaderElected(c0, resp) THEN Joined(Answered(c0), resp, AssignKIP429OldLeader(resp.members))
    ELSE OnResponse(c0, resp)

ReceiveKIP429OldLeader(s) == CanReceive(s) /\ Received(s, OnResponseKIP429OldLeader(consumers[s], Head(consumers[s].inbox)))

NextKIP429OldLeader ==
    \/ \E s \in Slots : ReceiveKIP429OldLeader(s)
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

SpecKIP429OldLeader == Init /\ [][NextKIP429OldLeader]_vars
=============================================================================
