----------------------- MODULE StreamsGroup_KAFKA19233 ------------------------
(***************************************************************************)
(* KAFKA-19233 (fixed by apache/kafka PR #21312, merged 2026-01): before   *)
(* the fix, throwIfStreamsGroupMemberEpochIsInvalid also checked an epoch-0*)
(* heartbeat, so a member the coordinator still held at a higher epoch     *)
(* (shipped Kafka keeps a fenced member: nothing is written on             *)
(* FENCED_MEMBER_EPOCH) was answered FENCED_MEMBER_EPOCH again on its      *)
(* rejoin, and on every retry. KIP-1071's join (epoch 0) has no member-    *)
(* epoch check. This module replaces Handle with the unfixed rule; every   *)
(* other action is the base spec's.                                        *)
(***************************************************************************)
EXTENDS StreamsGroup

HandleKAFKA19233(s) == HandleWith(s, [Rules EXCEPT !.epoch0RejoinResets = FALSE])

NextKAFKA19233 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA19233(s)
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

SpecKAFKA19233 == Init /\ [][NextKAFKA19233]_vars

\* the liveness claim on this variant: the base Fairness, whose HandleFair(s) is stated by the
\* request leaving the wire, which in NextKAFKA19233 only HandleKAFKA19233 does; TLC finds a fair
\* lasso (MCStreamsGroup_KAFKA19233Liveness): a member fenced again on every rejoin never converges
FairSettlesKAFKA19233 == Fairness => SettlesUnderFairness
=============================================================================
