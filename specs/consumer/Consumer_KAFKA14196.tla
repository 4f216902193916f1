------------------------- MODULE Consumer_KAFKA14196 -------------------------
(***************************************************************************)
(* KAFKA-14196 (Kafka 3.2.0-3.2.2; fixed in 3.2.3 and 3.3.0 by            *)
(* apache/kafka #12603): onJoinPrepare's auto-commit became asynchronous    *)
(* in 3.2.0 without marking the owned partitions pending revocation, so     *)
(* poll() kept returning their records while the commit was in flight; the *)
(* fix: "we mark the partitions as "pending revocation," which stops the    *)
(* Fetcher from sending new fetches or returning data from previous fetches *)
(* to the user" (ConsumerCoordinator#maybeMarkPartitionsPendingRevocation,  *)
(* EAGER only). Client-side only: this module replaces Join and CommitRead  *)
(* (the commit before the rebalance, and its retry) by ones that mark the   *)
(* partitions revoking without making them unfetchable; every other action  *)
(* is the base spec's.                                                      *)
(***************************************************************************)
EXTENDS Consumer

JoinKAFKA14196(s) == JoinWith(s, FALSE)

CommitReadKAFKA14196(s) == CommitReadWith(s, FALSE)

NextKAFKA14196 ==
    \/ \E s \in Slots : Receive(s)
    \/ \E s \in Slots : JoinKAFKA14196(s)
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
    \/ \E s \in Slots, p \in Partitions : Poll(s, p)
    \/ \E s \in Slots, p \in Partitions : Process(s, p)
    \/ \E s \in Slots : Commit(s)
    \/ \E s \in Slots : AutoCommit(s)
    \/ \E s \in Slots : CommitDeliver(s)
    \/ \E s \in Slots : CommitReadKAFKA14196(s)
    \/ \E p \in Partitions : Produce(p)

SpecKAFKA14196 == Init /\ [][NextKAFKA14196]_vars
=============================================================================
