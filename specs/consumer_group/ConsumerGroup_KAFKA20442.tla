----------------------- MODULE ConsumerGroup_KAFKA20442 -----------------------
(***************************************************************************)
(* KAFKA-20442 (Kafka 4.0-4.2; fixed in 4.3 by "Update consumer group      *)
(* assignment epoch when last member leaves"): removing the last member     *)
(* bumps the group epoch, and no heartbeat is left to compute a target, so  *)
(* the EMPTY group keeps group epoch > assignment epoch. This module        *)
(* replaces the removal in the two actions that remove a member at this    *)
(* variant's scope (leaves, no faults): the handling of a leave heartbeat   *)
(* (Handle) and the session expiry (Expire); every other action is the base *)
(* spec's. (The session-timeout fault and the rebalance timeout remove a    *)
(* member too, but need faults this variant's scope does not have.)         *)
(***************************************************************************)
EXTENDS ConsumerGroup

\* removeMember without the catch-up of an emptied group's assignment epoch
RemoveMemberKAFKA20442(g, id) == [RemoveMember(g, id) EXCEPT !.assignmentEpoch = g.assignmentEpoch]

HeartbeatKAFKA20442(g, id, r) ==
    IF r.epoch = LeaveEpoch /\ ~g.dead /\ id \in DOMAIN g.members
    THEN Outcome(RemoveMemberKAFKA20442(g, id), "", r.epoch, FALSE, {})
    ELSE Heartbeat(g, id, r)

HandleKAFKA20442(s) ==
    /\ clients[s].request # None
    /\ Answered(s, HeartbeatKAFKA20442(group, IdOf(s), clients[s].request))

ExpireKAFKA20442(s) ==
    /\ ~group.dead
    /\ \E id \in DOMAIN group.members :
          /\ id[1] = s
          /\ id[2] # clients[s].incarnation \/ ~Running(clients[s])
          /\ group' = RemoveMemberKAFKA20442(group, id)
          /\ logs' = RemovedLogs(s, id)
    /\ Disturbed
    /\ UNCHANGED <<clients, budget, wedged, marks, apps>>

NextKAFKA20442 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA20442(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : Reconcile(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : ExpireKAFKA20442(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ \E s \in Slots : Resume(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : Stall(s)
    \/ \E s \in Slots : Leave(s)
    \/ \E s \in Slots : Roll(s)
    \/ RecordsNext

SpecKAFKA20442 == Init /\ [][NextKAFKA20442]_vars
=============================================================================
