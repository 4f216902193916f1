--------------------- MODULE Consumer_KIP429NoWithholding ---------------------
(***************************************************************************)
(* KIP-429: "For maybe-revoking-partitions, check if the owner has         *)
(* changed. If yes, exclude them from the assigned-partitions list to the  *)
(* new owner." Here the leader skips that step: a partition is handed to   *)
(* its new owner while the old one still owns it. This module replaces     *)
(* Receive (the leader's assignment); every other action is the base       *)
(* spec's. Its scope runs cooperative-sticky.                              *)
(***************************************************************************)
EXTENDS Consumer

\* the claims resolved as in the base, the sticky plan, and no withholding
AssignKIP429NoWithholding(members) == Ok(StickyPlan(members, Resolve(Claims(members)).kept))

OnResponseKIP429NoWithholding(c0, resp) ==
    IF LeaderElected(c0, resp) THEN Joined(Answered(c0), resp, AssignKIP429NoWithholding(resp.members))
    ELSE OnResponse(c0, resp)

ReceiveKIP429NoWithholding(s) == CanReceive(s) /\ Received(s, OnResponseKIP429NoWithholding(consumers[s], Head(consumers[s].inbox)))

NextKIP429NoWithholding ==
    \/ \E s \in Slots : ReceiveKIP429NoWithholding(s)
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

SpecKIP429NoWithholding == Init /\ [][NextKIP429NoWithholding]_vars
=============================================================================
