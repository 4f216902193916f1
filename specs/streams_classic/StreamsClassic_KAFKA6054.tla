------------------------- MODULE StreamsClassic_KAFKA6054 -------------------------
(***************************************************************************)
(* KAFKA-6054 (Kafka Streams 0.10.1-1.1 before the fix): `upgrade.from` did *)
(* not exist or was ignored, so a 0.10.1+ instance always sent              *)
(* SubscriptionInfo at its LATEST version (v2); a 0.10.0 leader cannot      *)
(* decode it (SubscriptionInfo.decode: TaskAssignmentException) and its     *)
(* thread dies, so no rolling bounce from 0.10.0 works. KIP-268: "config    *)
(* upgrade.from tells the application to send Subscription using old        *)
(* encoding (version 1 or 2), to be compatible with potential version 1 or  *)
(* 2 leader in the group". This module replaces Start (a restarted         *)
(* instance sends its LATEST version whatever its upgrade.from says);       *)
(* every other action is the base spec's. (Init and ScaleUp keep the        *)
(* configured version: the bug's scope starts from a configuration without  *)
(* upgrade.from and scales nothing.)                                        *)
(***************************************************************************)
EXTENDS StreamsClassic

StartKAFKA6054(i) ==
    /\ instances[i].status = "down"
    /\ Started(i, Plan[instances[i].stage].latest)
    /\ UNCHANGED budget

NextKAFKA6054 ==
    \/ \E s \in Slots : Join(s)
    \/ \E l \in Slots : Assign(l)
    \/ \E s \in Slots : Receive(s)
    \/ \E i \in Instances : Stop(i)
    \/ \E i \in Instances : StartKAFKA6054(i)
    \/ \E i \in Instances : Crash(i)
    \/ \E i \in Instances : ScaleUp(i)
    \/ \E i \in Instances : ScaleDown(i)

SpecKAFKA6054 == Init /\ [][NextKAFKA6054]_vars
=============================================================================
