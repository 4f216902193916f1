------------------------- MODULE StreamsClassic_KAFKA8649 -------------------------
(***************************************************************************)
(* KAFKA-8649 (Kafka Streams 2.0-2.3 before 8da6993, "Send latest commonly  *)
(* supported version in assignment"; fixed in 2.4 and the 2.1-2.3          *)
(* branches): the 2.0-2.3 code without the fix.                             *)
(* - The leader advertises its own LATEST_SUPPORTED_VERSION, not the        *)
(*   group's lowest, and a member on older code raises its used version to  *)
(*   it, beyond what it can encode (used_version_supported).               *)
(* - versionProbingAssignment answers a future subscription at (LATEST,     *)
(*   LATEST) and hands every thread its whole instance's previous tasks     *)
(*   (clientMetadata.state.prevActiveTasks()), so with two stream threads   *)
(*   per instance a task is given twice (no_task_active_twice).            *)
(* - The member takes 2.0's onAssignment: no validateMetadataVersions, a    *)
(*   higher advertised version taken unchecked for the next rebalance.      *)
(* This module replaces Assign and Receive: both run a release's code with *)
(* the fix taken out (Unfixed); every other action is the base spec's.      *)
(***************************************************************************)
EXTENDS StreamsClassic

\* the release's facts, without KAFKA-8649's fix (2.1-2.3 run 2.0's code)
Unfixed(c) == [c EXCEPT !.fix8649 = FALSE]

AssignKAFKA8649(l) ==
    /\ AssignEnabled(l)
    /\ Assigned(l, LeaderAssign(members, group, l, Unfixed(Config(l))))

ReceiveKAFKA8649(s) ==
    /\ ReceiveEnabled(s)
    /\ LET m == members[s]
           a == m.inbox[1]
           c == Unfixed(Config(s))
       IN ReceiveWith(s, Processed(m, c, a, Versions(m, c, a)))

NextKAFKA8649 ==
    \/ \E s \in Slots : Join(s)
    \/ \E l \in Slots : AssignKAFKA8649(l)
    \/ \E s \in Slots : ReceiveKAFKA8649(s)
    \/ \E i \in Instances : Stop(i)
    \/ \E i \in Instances : Start(i)
    \/ \E i \in Instances : Crash(i)
    \/ \E i \in Instances : ScaleUp(i)
    \/ \E i \in Instances : ScaleDown(i)

SpecKAFKA8649 == Init /\ [][NextKAFKA8649]_vars
=============================================================================
