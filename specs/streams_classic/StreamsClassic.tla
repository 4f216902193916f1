---------------------------- MODULE StreamsClassic ----------------------------
(***************************************************************************)
(* Kafka Streams on the classic group protocol: each stream thread is a     *)
(* member of a classic consumer group, its StreamsPartitionAssignor runs on *)
(* the group leader, SubscriptionInfo travels in the JoinGroup's userData   *)
(* and AssignmentInfo in the SyncGroup response's. KIP-268's version        *)
(* probing (usedVersion, latestSupportedVersion, the leader's empty        *)
(* assignment, the follower's downgrade and rejoin, the final rebalance),   *)
(* `upgrade.from`, KIP-429's EAGER / COOPERATIVE switch, rolling bounces    *)
(* and crashes. A second formalisation of groupcheck's Python model         *)
(* (model/streams_classic), cross-checked state for state by                *)
(* `groupcheck spec check streams-classic`.                                 *)
(*                                                                         *)
(* A rebalance is a round: every live thread sends JoinGroup (Join, in any  *)
(* order); once all have joined, the leader's assignor runs and SyncGroup   *)
(* hands each thread its AssignmentInfo (Assign); each thread processes it  *)
(* in its own time (Receive). The facts of each Kafka Streams release the   *)
(* plan runs (its LATEST_SUPPORTED_VERSION, the version its `upgrade.from`  *)
(* makes it send, its rebalance protocol, which probing code it ships) are  *)
(* the constant Plan, filled in from model/streams_classic/releases.py.     *)
(*                                                                         *)
(* Covers: the sticky task assignor with standby replicas, stream threads,  *)
(* the three probing families (pre-2.0, 2.0-2.3, 2.4+) and the profiles    *)
(* release / kip-268 / kafka-2.6+, bounces (Stop, Start), the Crash fault,  *)
(* scale-up and KIP-429's "leaving soon" scale-down. Leaves out (see        *)
(* README.md): KIP-429's learner (warm-up) assignor and its CaughtUp step,  *)
(* task assignors of one's own (KIP-924), and the claims about warm-ups.   *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences

CONSTANTS
    Instances,      \* the Kafka Streams instances (processes), as numbers 0 .. n-1
    Threads,        \* stream threads per instance; thread t of instance i is the member in slot i * Threads + t
    Tasks,          \* the tasks (subtopology x partition), as numbers 0 .. n-1
    Standbys,       \* num.standby.replicas
    Initial,        \* instances running at the start (the others may scale up)
    StartFrom,      \* "stable": the initial instances formed a settled group; "empty": they all must join
    Plan,           \* stage -> the configuration an instance runs at that stage of the rolling upgrade
    Profile,        \* "release" (each release's own probing code), "kip-268" or "kafka-2.6+" (every release from 2.0 on)
    Faults,         \* a subset of {"crash"}
    Operations,     \* a subset of {"bounce", "scale_up", "scale_down"}
    Budget,         \* how many crashes and scale operations may happen
    MaxGeneration,  \* the scope's bound on the group generation (TLC: CONSTRAINT)
    Cap,            \* the monitors' cap (9)
    RebalancesAllowed \* rounds in a row with nothing in between that rebalances_bounded allows (3)

(* Plan[st] is a record of one Kafka Streams release's facts (releases.py):    *)
(*   release          its name ("2.3")                                         *)
(*   latest           LATEST_SUPPORTED_VERSION of SubscriptionInfo / AssignmentInfo *)
(*   used             the SubscriptionInfo version it sends at startup: `latest`, or *)
(*                    1 / 2 under upgrade.from "0.10.0" / "0.10.1".."1.1"       *)
(*   protocol         "EAGER", or "COOPERATIVE" (2.4+ unless upgrade.from <= 2.3) *)
(*   family           its probing code: "pre-probing" (< 2.0), "kip-268" (2.0-2.3), *)
(*                    "kafka-2.6+" (2.4 on)                                   *)
(*   cooperative      its assignor knows ownedPartitions and withholds (2.4+)   *)
(*   fix8649          it ships KAFKA-8649's fix (2.1+)                          *)
(*   assignmentError  its leader answers with ASSIGNMENT_ERROR and its thread   *)
(*                    dies of that code (2.7+)                                 *)

VARIABLES
    group,          \* the coordinator's classic group
    instances,      \* instance -> its process: status, plan stage, told it is leaving
    members,        \* slot -> the stream thread in that slot (a group member)
    budget,         \* crashes and scale operations left
    calm,           \* rounds since the last disturbance (capped)
    sinceStart,     \* rounds the last started instance took part in since it started (capped)
    lastStart       \* the instance started last (-1: none)

vars == <<group, instances, members, budget, calm, sinceStart, lastStart>>

-----------------------------------------------------------------------------
(* Values *)

NoLeader == -1
Probeable == 3      \* EARLIEST_PROBEABLE_VERSION: v3 (Kafka 2.0) is the first to carry latestSupportedVersion
Stages == DOMAIN Plan
LastStage == CHOOSE st \in Stages : \A x \in Stages : x <= st
Slots == 0 .. Cardinality(Instances) * Threads - 1
InstanceOf(s) == s \div Threads
SlotsOf(i) == {s \in Slots : InstanceOf(s) = i}

InstanceStates == {"absent", "up", "down", "gone"}
ThreadStates == {"off", "joining", "syncing", "stable", "failed"}
Live(m) == m.status \in {"joining", "syncing", "stable"}

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max(S) == CHOOSE x \in S : \A y \in S : y <= x
Range(seq) == {seq[k] : k \in DOMAIN seq}
CapAt(n) == IF n < Cap THEN n ELSE Cap

RECURSIVE SortedSeq(_)
SortedSeq(S) == IF S = {} THEN <<>> ELSE <<Min(S)>> \o SortedSeq(S \ {Min(S)})

\* the elements of S ordered by key[x] (distinct keys)
RECURSIVE SortedBy(_, _)
SortedBy(S, key) ==
    IF S = {} THEN <<>>
    ELSE LET x == CHOOSE x \in S : \A y \in S : key[x] <= key[y]
         IN <<x>> \o SortedBy(S \ {x}, key)

RECURSIVE Without(_, _)
Without(seq, S) == IF seq = <<>> THEN <<>>
                   ELSE (IF Head(seq) \in S THEN <<>> ELSE <<Head(seq)>>) \o Without(Tail(seq), S)

Pos(seq, x) == CHOOSE k \in DOMAIN seq : seq[k] = x

TaskSeq == SortedSeq(Tasks)

\* the configuration the instance of slot s runs
Config(s) == Plan[instances[InstanceOf(s)].stage]

\* the probing rules stage st follows: its release's own, or the profile's for every release from 2.0 on
Family(c) == IF c.family = "pre-probing" \/ Profile = "release" THEN c.family ELSE Profile

\* Why a thread died: NoFailure, or what Kafka throws ("by": "assign" for the leader's assign(),
\* "thread" for the thread's own JoinGroup or onAssignment)
NoFailure == [by |-> "none", exception |-> "", cause |-> "", detail |-> <<>>]
\* SubscriptionInfo.decode of an unknown version (0.10.0-1.1)
UndecodableSubscription(release, v, latest) ==
    [by |-> "assign", exception |-> "TaskAssignmentException", cause |-> "cannot decode subscription",
     detail |-> <<release, v, latest>>]
\* "Received a future (version probing) subscription ... and an incompatible pre Kafka 2.0 subscription"
FutureNextToOld(v, minReceived) ==
    [by |-> "assign", exception |-> "IllegalStateException", cause |-> "future next to pre-2.0 subscription",
     detail |-> <<v, minReceived>>]
\* SubscriptionInfo's constructor (2.0.1): "version must be between 1 and LATEST"
VersionOutOfRange(latest, used) ==
    [by |-> "thread", exception |-> "IllegalArgumentException", cause |-> "subscription version out of range",
     detail |-> <<latest, used>>]
\* AssignmentInfo.decode of an unknown version
UndecodableAssignment(v, latest) ==
    [by |-> "thread", exception |-> "TaskAssignmentException", cause |-> "cannot decode assignment",
     detail |-> <<v, latest>>]
\* 2.7+ StreamsRebalanceListener#onPartitionsAssigned on ASSIGNMENT_ERROR
AssignmentErrorCode ==
    [by |-> "thread", exception |-> "TaskAssignmentException", cause |-> "ASSIGNMENT_ERROR", detail |-> <<>>]
\* validateMetadataVersions (2.1+)
HigherVersion(used, v) ==
    [by |-> "thread", exception |-> "TaskAssignmentException", cause |-> "assignment version above used",
     detail |-> <<used, v>>]
SupportedAboveLatest(supported, latest) ==
    [by |-> "thread", exception |-> "TaskAssignmentException", cause |-> "commonly supported above latest",
     detail |-> <<supported, latest>>]
\* onAssignment (2.0.1): "sent a v<used> subscription but got an assignment with higher version"
IllegalVersion(used, v) ==
    [by |-> "thread", exception |-> "IllegalStateException", cause |-> "assignment version above used",
     detail |-> <<used, v>>]

\* a thread as its instance starts it: no task, no generation yet, sending version `used`
Fresh(status, used) ==
    [status |-> status, used |-> used, generation |-> -1, active |-> {}, prev |-> {}, standby |-> {},
     subscription |-> <<>>, inbox |-> <<>>, failure |-> NoFailure]

\* SubscriptionInfo plus the consumer protocol's ownedPartitions, as the JoinGroup carries them
Subscription == [used: Nat, latest: Nat, protocol: {"EAGER", "COOPERATIVE"}, owned: SUBSET Tasks,
                 prev: SUBSET Tasks, standby: SUBSET Tasks, leaving: BOOLEAN]
\* AssignmentInfo as one thread receives it ("supported": latestSupportedVersion /
\* commonlySupportedVersion, v3+; "followup": rejoin once processed)
Assignment == [version: Nat, supported: Nat, error: {"", "ASSIGNMENT_ERROR"}, active: SUBSET Tasks,
               standby: SUBSET Tasks, followup: BOOLEAN, generation: Nat]

TypeOK ==
    /\ group.status \in {"PreparingRebalance", "Stable"}
    /\ group.generation \in Nat /\ group.joined \subseteq Slots
    /\ \A i \in Instances : instances[i].status \in InstanceStates /\ instances[i].stage \in Stages
    /\ \A s \in Slots : /\ members[s].status \in ThreadStates
                        /\ members[s].active \cup members[s].prev \cup members[s].standby \subseteq Tasks
                        /\ \A x \in Range(members[s].subscription) : x \in Subscription
                        /\ \A a \in Range(members[s].inbox) : a \in Assignment
    /\ budget \in 0 .. Budget /\ calm \in 0 .. Cap /\ sinceStart \in 0 .. Cap

-----------------------------------------------------------------------------
(* The coordinator's side of the round *)

\* A round begins (or goes on): every thread holding a processed assignment hears
\* REBALANCE_IN_PROGRESS on its next heartbeat and rejoins
Rebalance(ms, g) ==
    [members |-> [s \in Slots |-> IF ms[s].status = "stable" THEN [ms[s] EXCEPT !.status = "joining"] ELSE ms[s]],
     group |-> IF g.status = "PreparingRebalance" THEN g ELSE [g EXCEPT !.status = "PreparingRebalance", !.joined = {}]]

\* Threads leave the group (stopped, crashed, shut down, or died). Kafka Streams sends no
\* LeaveGroup on close: the coordinator drops the member when its session expires; the
\* spec drops it at once and lets a restart race the round that follows. A member that had
\* joined a round (or holds a generation) leaves a rebalance behind it.
Drop(ms, g, gone, status) ==
    LET had == \E s \in gone : (ms[s].status # "off" /\ ms[s].generation >= 0) \/ ms[s].status = "syncing"
        ms1 == [s \in Slots |-> IF s \in gone
                                THEN [ms[s] EXCEPT !.status = status, !.active = {}, !.prev = {}, !.standby = {},
                                                   !.subscription = <<>>, !.inbox = <<>>]
                                ELSE ms[s]]
        g1 == [g EXCEPT !.joined = @ \ gone, !.order = Without(@, gone),
                        !.leader = IF @ \in gone THEN NoLeader ELSE @]
    IN IF had /\ \E s \in Slots : Live(ms1[s]) THEN Rebalance(ms1, g1) ELSE [members |-> ms1, group |-> g1]

-----------------------------------------------------------------------------
(* The thread's side: JoinGroup *)

\* onJoinPrepare, then JoinGroup with SubscriptionInfo: EAGER revokes every active task up
\* front; COOPERATIVE keeps them and reports them as ownedPartitions (KIP-429). v1/v2 carry no
\* latestSupportedVersion (it reads as the used one).
Joined(m, c, leaving) ==
    LET revoked == IF c.protocol = "EAGER" THEN m.active ELSE {}
        sub == [used |-> m.used, latest |-> IF m.used >= Probeable THEN c.latest ELSE m.used,
                protocol |-> c.protocol, owned |-> m.active \ revoked, prev |-> m.prev, standby |-> m.standby,
                leaving |-> leaving]
    IN [m EXCEPT !.status = "syncing", !.active = @ \ revoked, !.subscription = <<sub>>]

-----------------------------------------------------------------------------
(* The leader's StreamsPartitionAssignor#assign: version negotiation, then the sticky task *)
(* assignor on instances ("clients"), then each client's tasks over its threads           *)

\* Give each task of `ts` (ascending) to owner[t] (0: none) while that one is allowed and
\* under its share (base, the first `extra` of them base + 1); the rest go to the least
\* loaded allowed holder, the lowest index on ties. StickyTaskAssignor's "previous owners
\* keep their tasks up to their fair share", and its spread over a client's threads.
LeastLoaded(allowed, load) == CHOOSE c \in allowed : \A d \in allowed : load[c] < load[d] \/ (load[c] = load[d] /\ c <= d)

RECURSIVE KeepPass(_, _, _, _, _)
KeepPass(ts, owner, allowed, base, acc) ==
    IF ts = <<>> THEN acc
    ELSE LET t == Head(ts)
             c == owner[t]
             keeps == c \in allowed /\ (acc.load[c] < base \/ (acc.load[c] = base /\ acc.extra > 0))
         IN KeepPass(Tail(ts), owner, allowed, base,
                     IF keeps THEN [acc EXCEPT !.out[c] = @ \cup {t}, !.load[c] = @ + 1,
                                               !.extra = IF acc.load[c] = base THEN @ - 1 ELSE @]
                     ELSE [acc EXCEPT !.left = Append(@, t)])

RECURSIVE FillPass(_, _, _)
FillPass(ts, allowed, acc) ==
    IF ts = <<>> THEN acc
    ELSE LET c == LeastLoaded(allowed, acc.load)
         IN FillPass(Tail(ts), allowed, [acc EXCEPT !.out[c] = @ \cup {Head(ts)}, !.load[c] = @ + 1])

Balanced(ts, owner, n, allowed) ==
    LET k == Cardinality(allowed)
        start == [out |-> [c \in 1 .. n |-> {}], load |-> [c \in 1 .. n |-> 0], extra |-> Len(ts) % k, left |-> <<>>]
        kept == KeepPass(ts, owner, allowed, Len(ts) \div k, start)
    IN FillPass(kept.left, allowed, kept).out

\* a client's tasks over its threads (prevs: what each thread had): a thread keeps what it had
\* while under its share
SpreadOver(ts, prevs) ==
    LET m == Len(prevs)
        owner == [t \in ts |-> LET had == {j \in 1 .. m : t \in prevs[j]} IN IF had = {} THEN 0 ELSE Min(had)]
    IN Balanced(SortedSeq(ts), owner, m, 1 .. m)

\* the client that ran task t: one still running it (ownedPartitions) first, else one that had it
PreviousOwner(cl, t) ==
    LET running == {k \in DOMAIN cl : t \in cl[k].owned}
        had == {k \in DOMAIN cl : t \in cl[k].prev}
    IN IF running # {} THEN Min(running) ELSE IF had # {} THEN Min(had) ELSE 0

\* num.standby.replicas standbys of task t, never on a client running it: "to instances without
\* matching active tasks", previous holders first, then the least loaded; leaving clients get none
RECURSIVE PlaceStandby(_, _, _, _, _)
PlaceStandby(cl, t, active, r, acc) ==
    IF r = 0 THEN acc
    ELSE LET free == {k \in DOMAIN cl : ~cl[k].leaving /\ t \notin active[k] \cup acc.out[k]}
         IN IF free = {} THEN acc
            ELSE LET held == {k \in free : t \in cl[k].standby \cup cl[k].prev}
                     c == IF held # {} THEN Min(held) ELSE LeastLoaded(free, acc.load)
                 IN PlaceStandby(cl, t, active, r - 1, [acc EXCEPT !.out[c] = @ \cup {t}, !.load[c] = @ + 1])

RECURSIVE StandbyPass(_, _, _, _)
StandbyPass(cl, ts, active, acc) ==
    IF ts = <<>> THEN acc ELSE StandbyPass(cl, Tail(ts), active, PlaceStandby(cl, Head(ts), active, Standbys, acc))

Sub(ms, s) == ms[s].subscription[1]

\* The placement of a round: slot -> [active, standby, followup]. Clients are the round's
\* instances, oldest first (by their threads' seniority in the group), so every tie is broken
\* by seniority, never by instance number. Of a future subscription the leader reads only the
\* ownedPartitions (SubscriptionInfo.decode reads a future version's two version fields).
\* A leader that knows ownership (2.4+) withholds a task another member still runs and has its
\* new owner rejoin at once to collect it (KIP-429).
Placement(ms, g, own, future) ==
    LET view == [s \in g.joined |-> IF s \in future THEN [Sub(ms, s) EXCEPT !.prev = {}, !.standby = {}, !.leaving = FALSE]
                                    ELSE Sub(ms, s)]
        insts == {InstanceOf(s) : s \in g.joined}
        seniority == [i \in insts |-> Min({Pos(g.order, s) : s \in {x \in g.joined : InstanceOf(x) = i}})]
        ranked == SortedBy(insts, seniority)
        n == Len(ranked)
        slots == [k \in 1 .. n |-> SortedSeq({s \in g.joined : InstanceOf(s) = ranked[k]})]
        cl == [k \in 1 .. n |->
                 [prev |-> UNION {view[s].prev : s \in Range(slots[k])},
                  owned |-> UNION {view[s].owned : s \in Range(slots[k])},
                  standby |-> UNION {view[s].standby : s \in Range(slots[k])},
                  leaving |-> \E s \in Range(slots[k]) : view[s].leaving]]
        stay == IF \E k \in 1 .. n : ~cl[k].leaving THEN {k \in 1 .. n : ~cl[k].leaving} ELSE 1 .. n
        active == Balanced(TaskSeq, [t \in Tasks |-> PreviousOwner(cl, t)], n, stay)
        standby == StandbyPass(cl, TaskSeq, active,
                               [out |-> [k \in 1 .. n |-> {}], load |-> [k \in 1 .. n |-> 0]]).out
        actives == [k \in 1 .. n |-> SpreadOver(active[k], [j \in DOMAIN slots[k] |->
                                                  view[slots[k][j]].prev \cup view[slots[k][j]].owned])]
        standbys == [k \in 1 .. n |-> SpreadOver(standby[k], [j \in DOMAIN slots[k] |-> view[slots[k][j]].standby])]
        \* slot -> <<its client, its place among the client's threads>>
        at == [s \in g.joined |-> LET k == Pos(ranked, InstanceOf(s)) IN <<k, Pos(slots[k], s)>>]
        given == [s \in g.joined |-> actives[at[s][1]][at[s][2]]]
        others == [s \in g.joined |-> UNION {view[o].owned : o \in g.joined \ {s}}]
    IN [s \in g.joined |->
          [active |-> IF own.cooperative THEN given[s] \ others[s] ELSE given[s],
           standby |-> standbys[at[s][1]][at[s][2]],
           followup |-> own.cooperative /\ given[s] \cap others[s] # {}]]

EmptyAssignment(version, supported, generation, error) ==
    [version |-> version, supported |-> supported, error |-> error, active |-> {}, standby |-> {},
     followup |-> FALSE, generation |-> generation]

Failed(f) == [failure |-> f, assignments |-> <<>>, final |-> FALSE]
Answer(as, final) == [failure |-> NoFailure, assignments |-> as, final |-> final]

\* The leader `l` (its release's facts `own`) assigns the round of group g. minReceived is the
\* lowest usedVersion it can read and minSupported the lowest latestSupportedVersion; Kafka
\* starts both at the leader's LATEST_SUPPORTED_VERSION. Returns the failure (assign() threw),
\* the AssignmentInfo of each joined thread, and whether the leader triggers KIP-268's final
\* rebalance. (StreamsPartitionAssignor#assign, 0.10.0.1-3.9; see model/streams_classic/README.md)
LeaderAssign(ms, g, l, own) ==
    LET fam == Family(own)
        gen == g.generation + 1
        future == {s \in g.joined : Sub(ms, s).used > own.latest}
        known == g.joined \ future
        minReceived == Min({own.latest} \cup {Sub(ms, s).used : s \in known})
        \* 2.0-2.3 fold in the readable subscriptions' latestSupportedVersion, 2.4+ every one
        \* (updateMinSupportedVersion)
        counted == IF fam = "kafka-2.6+" THEN g.joined ELSE known
        minSupported == Min({own.latest} \cup {Sub(ms, s).latest : s \in counted})
        \* KAFKA-8649: 2.0 advertises its own LATEST, 2.1+ the group's lowest supported version
        advertised == IF fam = "kip-268" /\ ~own.fix8649 THEN own.latest ELSE minSupported
        supported == IF minReceived >= Probeable THEN advertised ELSE 0
        \* KIP-268: "the leader should be responsible to trigger this final rebalance" (the
        \* KIP's text; Kafka's 2.1+ members rejoin themselves)
        final == fam = "kip-268" /\ Profile = "kip-268" /\ Probeable <= minReceived /\ minReceived < advertised
        \* 2.0-2.3 versionProbingAssignment: an empty assignment for the future members, every other
        \* member its previous tasks back at minReceived. KIP-268 (and 2.0's code) answer at
        \* "(used-version == supported-version) as leader's supported-version"; with KAFKA-8649's
        \* fix (2.1-2.3) at (minReceived, minSupported). 2.0 hands each thread its whole instance's
        \* previous tasks (prevActiveTasks), 2.1+ its own (prevActiveTasksForConsumer).
        shippedFix == Profile = "release" /\ own.fix8649
        wholeInstance == Profile = "release" /\ ~own.fix8649
        mates(s) == {o \in known : InstanceOf(o) = InstanceOf(s)}
        probing == [s \in g.joined |->
                      IF s \in future
                      THEN IF shippedFix THEN EmptyAssignment(minReceived, supported, gen, "")
                           ELSE EmptyAssignment(own.latest, own.latest, gen, "")
                      ELSE [version |-> minReceived, supported |-> supported, error |-> "",
                            active |-> IF wholeInstance THEN UNION {Sub(ms, o).prev : o \in mates(s)} ELSE Sub(ms, s).prev,
                            standby |-> IF wholeInstance THEN UNION {Sub(ms, o).standby : o \in mates(s)}
                                        ELSE Sub(ms, s).standby,
                            followup |-> FALSE, generation |-> gen]]
        placed == Placement(ms, g, own, future)
    IN CASE fam = "pre-probing" /\ future # {} ->
              Failed(UndecodableSubscription(own.release, Max({Sub(ms, s).used : s \in future}), own.latest))
         [] future # {} /\ minReceived < Probeable ->
              \* no version both a future and a v1/v2 member can read: 2.7+ catch the
              \* TaskAssignmentException and send every member ASSIGNMENT_ERROR (errorAssignment),
              \* encoded at LATEST_SUPPORTED_VERSION; older leaders throw IllegalStateException
              IF fam = "kafka-2.6+" /\ (own.assignmentError \/ Profile = "kafka-2.6+")
              THEN Answer([s \in g.joined |-> EmptyAssignment(own.latest, own.latest, gen, "ASSIGNMENT_ERROR")], FALSE)
              ELSE Failed(FutureNextToOld(Sub(ms, Min(future)).used, minReceived))
         [] future # {} /\ fam = "kip-268" -> Answer(probing, FALSE)
         [] OTHER ->
              \* a normal assignment at minReceived advertising the supported version; 2.4+ place
              \* the future members too
              Answer([s \in g.joined |-> [version |-> minReceived, supported |-> supported, error |-> "",
                                          active |-> placed[s].active, standby |-> placed[s].standby,
                                          followup |-> placed[s].followup, generation |-> gen]], final)

\* SyncGroup hands out the leader's answer: the group is Stable at the next generation, each
\* joined thread holds its AssignmentInfo unread; the leader's own assignment carries the final
\* rebalance. If assign() threw, the leader's thread dies and the others rejoin.
AfterAssign(ms, g, l, out) ==
    IF out.failure # NoFailure
    THEN LET r == Drop([ms EXCEPT ![l].failure = out.failure], [g EXCEPT !.generation = @ + 1], {l}, "failed")
         IN [members |-> [s \in Slots |-> IF s \in r.group.joined
                                          THEN [r.members[s] EXCEPT !.status = "joining", !.subscription = <<>>]
                                          ELSE r.members[s]],
             group |-> [r.group EXCEPT !.status = "PreparingRebalance", !.joined = {}]]
    ELSE LET as == out.assignments
             given(s) == [as[s] EXCEPT !.followup = @ \/ (out.final /\ s = l)]
         IN [members |-> [s \in Slots |-> IF s \in DOMAIN as THEN [ms[s] EXCEPT !.inbox = <<given(s)>>] ELSE ms[s]],
             group |-> [status |-> "Stable", generation |-> g.generation + 1, leader |-> l, joined |-> {},
                        order |-> g.order, version |-> Min({as[s].version : s \in DOMAIN as})]]

-----------------------------------------------------------------------------
(* The thread's side: onAssignment and the rebalance listener, per probing family *)

\* What the version checks decide: the used version afterwards, whether the thread rejoins at
\* once, whether it creates the assignment's tasks, whether it was probed (handed a version
\* below the one it used), or why it dies.
Keep(m) == [used |-> m.used, rejoin |-> FALSE, apply |-> TRUE, probed |-> FALSE, failure |-> NoFailure]

Versions(m, c, a) ==
    LET fam == Family(c)
        version == a.version
        supported == IF version >= Probeable THEN a.supported ELSE 0
        \* 2.4+ (2.1-2.3 with KAFKA-8649's fix): validateMetadataVersions, then
        \* maybeUpdateSubscriptionVersion: (a) commonly supported above used: upgrade and
        \* rejoin; (b) received below used: downgrade to the commonly supported version and rejoin
        newest == IF version > m.used THEN [Keep(m) EXCEPT !.failure = HigherVersion(m.used, version)]
                  ELSE IF supported > c.latest THEN [Keep(m) EXCEPT !.failure = SupportedAboveLatest(supported, c.latest)]
                  ELSE IF version < Probeable THEN Keep(m)
                  ELSE IF supported > m.used THEN [Keep(m) EXCEPT !.used = supported, !.rejoin = TRUE]
                  ELSE IF version < m.used THEN [Keep(m) EXCEPT !.used = supported, !.rejoin = TRUE, !.probed = TRUE]
                  ELSE Keep(m)
        \* 2.0's code and KIP-268's text: below used (v3+) is version probing: take the received
        \* version if it equals the leader's supported one, else the supported one (the same);
        \* 2.0 creates no task and rejoins, the KIP's follower rejoins on the empty answer only
        \* ("resends a new Subscription with old version X"); at used, a higher leader supported
        \* version is taken for the next rebalance, unchecked (KAFKA-8649)
        probingText == Profile = "kip-268"
        old == IF version > m.used THEN [Keep(m) EXCEPT !.failure = IllegalVersion(m.used, version)]
               ELSE IF version < Probeable THEN Keep(m)
               ELSE IF version < m.used
                    THEN [Keep(m) EXCEPT !.used = supported, !.probed = TRUE,
                                         !.rejoin = IF probingText THEN version = supported ELSE TRUE,
                                         !.apply = probingText]
               ELSE IF supported > m.used THEN [Keep(m) EXCEPT !.used = supported]
               ELSE Keep(m)
    IN CASE fam = "kafka-2.6+" -> newest
         [] fam = "kip-268" /\ Profile # "kip-268" /\ c.fix8649 ->
              \* 2.1-2.3: a version change returns from onAssignment (VERSION_PROBING) before
              \* the tasks are created
              IF newest.rejoin THEN [newest EXCEPT !.apply = FALSE] ELSE newest
         [] fam = "kip-268" -> old
         [] OTHER -> Keep(m)      \* pre-2.0: no version logic

\* Process assignment a (of the thread's release c) with the version decision v: decode it,
\* check its error code, then create its tasks (or not) and update the used version.
Processed(m, c, a, v) ==
    LET dies(f) == [member |-> m, rejoin |-> FALSE, failure |-> f]
        done == [m EXCEPT !.used = v.used, !.generation = a.generation, !.inbox = <<>>,
                          !.active = IF v.apply THEN a.active ELSE {},
                          !.prev = IF v.apply THEN a.active ELSE @,
                          !.standby = IF v.apply THEN a.standby ELSE @]
    IN IF a.version < 1 \/ a.version > c.latest THEN dies(UndecodableAssignment(a.version, c.latest))
       ELSE IF a.error # ""
       THEN \* a non-zero errCode is recorded and onAssignment returns; 2.7+ threads die of
            \* ASSIGNMENT_ERROR, older ones carry on without the tasks (a COOPERATIVE one that
            \* owned some revokes them and rejoins)
            IF c.assignmentError \/ (Family(c) = "kafka-2.6+" /\ Profile = "kafka-2.6+")
            THEN dies(AssignmentErrorCode)
            ELSE [member |-> [m EXCEPT !.generation = a.generation, !.active = {}, !.inbox = <<>>],
                  rejoin |-> m.active # {}, failure |-> NoFailure]
       ELSE IF v.failure # NoFailure THEN dies(v.failure)
       ELSE [member |-> done, rejoin |-> v.rejoin \/ a.followup, failure |-> NoFailure]

\* The thread in slot s processed its assignment as p: it dies, shuts down (KIP-429: "the
\* leaving member will shut down itself once received the instruction to revoke all its
\* active tasks"), rejoins, or is stable. A thread whose round has moved on rejoins; one told
\* it is leaving while its last JoinGroup said otherwise rejoins to say so.
ReceiveWith(s, p) ==
    LET i == InstanceOf(s)
        inst == instances[i]
        m == p.member
    IN /\ IF p.failure # NoFailure
          THEN LET r == Drop(members, group, {s}, "failed")
               IN /\ members' = [r.members EXCEPT ![s].failure = p.failure]
                  /\ group' = r.group
                  /\ UNCHANGED instances
          ELSE IF inst.leaving /\ m.active = {}
          THEN LET r == Drop([members EXCEPT ![s] = m], group, {s}, "off")
               IN /\ members' = r.members
                  /\ group' = r.group
                  /\ instances' = IF \A o \in SlotsOf(i) : r.members[o].status = "off"
                                  THEN [instances EXCEPT ![i].status = "gone"] ELSE instances
          ELSE LET told == inst.leaving /\ ~(m.subscription # <<>> /\ m.subscription[1].leaving)
                   rejoin == p.rejoin \/ (group.status = "PreparingRebalance" /\ s \notin group.joined) \/ told
               IN /\ members' = [members EXCEPT ![s] = [m EXCEPT !.status = IF rejoin THEN "joining" ELSE "stable"]]
                  /\ UNCHANGED <<group, instances>>
       /\ UNCHANGED <<budget, calm, sinceStart, lastStart>>


-----------------------------------------------------------------------------
(* Init: the initial instances run on the plan's first configuration; with StartFrom = "stable" *)
(* they formed a settled group: each joined (in slot order), the lowest slot led the round,    *)
(* each processed its assignment.                                                             *)

Running0 == {s \in Slots : InstanceOf(s) < Initial}
Instances0 == [i \in Instances |-> [status |-> IF i < Initial THEN "up" ELSE "absent", stage |-> 0, leaving |-> FALSE]]
Members0 == [s \in Slots |-> Fresh(IF s \in Running0 THEN "joining" ELSE "off", Plan[0].used)]
Group0 == [status |-> "Stable", generation |-> 0, leader |-> NoLeader, joined |-> {}, order |-> <<>>, version |-> 0]

Settled ==
    LET joined == [s \in Slots |-> IF s \in Running0 THEN Joined(Members0[s], Plan[0], FALSE) ELSE Members0[s]]
        g == [Group0 EXCEPT !.status = "PreparingRebalance", !.joined = Running0, !.order = SortedSeq(Running0)]
        l == Min(Running0)
        r == AfterAssign(joined, g, l, LeaderAssign(joined, g, l, Plan[0]))
        done(s) == LET m == r.members[s]
                       p == Processed(m, Plan[0], m.inbox[1], Versions(m, Plan[0], m.inbox[1]))
                   IN [p.member EXCEPT !.status = IF p.rejoin THEN "joining" ELSE "stable"]
    IN [members |-> [s \in Slots |-> IF s \in Running0 THEN done(s) ELSE r.members[s]], group |-> r.group]

Init ==
    /\ instances = Instances0
    /\ members = IF StartFrom = "stable" THEN Settled.members ELSE Members0
    /\ group = IF StartFrom = "stable" THEN Settled.group ELSE Group0
    /\ budget = Budget
    /\ calm = 0
    /\ sinceStart = 0
    /\ lastStart = -1

-----------------------------------------------------------------------------
(* Actions: one per model action kind *)

\* a thread sends JoinGroup; the first JoinGroup of a Stable group begins a round. A thread
\* whose used version is above its release's LATEST (KAFKA-8649 left a 2.0 thread there)
\* cannot build its SubscriptionInfo and dies.
Join(s) ==
    /\ members[s].status = "joining"
    /\ LET c == Config(s)
           m == members[s]
       IN IF m.used < 1 \/ m.used > c.latest
          THEN LET r == Drop(members, group, {s}, "failed")
               IN /\ members' = [r.members EXCEPT ![s].failure = VersionOutOfRange(c.latest, m.used)]
                  /\ group' = r.group
          ELSE LET ms == [members EXCEPT ![s] = Joined(m, c, instances[InstanceOf(s)].leaving)]
                   r == IF group.status # "PreparingRebalance" THEN Rebalance(ms, group) ELSE [members |-> ms, group |-> group]
               IN /\ members' = r.members
                  /\ group' = [r.group EXCEPT !.joined = @ \cup {s},
                                              !.order = IF s \in Range(@) THEN @ ELSE Append(@, s)]
    /\ UNCHANGED <<instances, budget, calm, sinceStart, lastStart>>

\* who may lead: the coordinator keeps its leader while it is a member; when the leader has
\* left, Kafka picks the first of its members map (a HashMap keyed by random member ids), so
\* any member of the round may
Leaders == IF group.leader \in group.joined THEN {group.leader} ELSE group.joined

AssignEnabled(l) ==
    /\ group.status = "PreparingRebalance" /\ l \in Leaders
    /\ \A s \in Slots : Live(members[s]) => s \in group.joined

\* the round's assignment is handed out (out: the leader's answer)
Assigned(l, out) ==
    LET r == AfterAssign(members, group, l, out)
    IN /\ members' = r.members
       /\ group' = r.group
       /\ IF out.failure = NoFailure
          THEN /\ calm' = CapAt(calm + 1)
               /\ sinceStart' = IF lastStart >= 0 /\ \E s \in group.joined : InstanceOf(s) = lastStart
                                THEN CapAt(sinceStart + 1) ELSE sinceStart
          ELSE UNCHANGED <<calm, sinceStart>>
       /\ UNCHANGED <<instances, budget, lastStart>>

\* every live thread has joined: the leader's assignor runs and SyncGroup hands out the result
Assign(l) ==
    /\ AssignEnabled(l)
    /\ Assigned(l, LeaderAssign(members, group, l, Config(l)))

\* a thread processes its assignment (onAssignment, then the rebalance listener)
ReceiveEnabled(s) == members[s].status = "syncing" /\ members[s].inbox # <<>>

Receive(s) ==
    /\ ReceiveEnabled(s)
    /\ LET m == members[s]
           a == m.inbox[1]
       IN ReceiveWith(s, Processed(m, Config(s), a, Versions(m, Config(s), a)))

\* an instance goes down (stopped onto stage `stage`, or crashed); its threads leave the group
Down(i, stage) ==
    LET r == Drop(members, group, SlotsOf(i), "off")
    IN /\ instances' = [instances EXCEPT ![i] = [status |-> "down", stage |-> stage, leaving |-> FALSE]]
       /\ members' = r.members
       /\ group' = r.group
       /\ calm' = 0
       /\ UNCHANGED <<sinceStart, lastStart>>

\* A rolling bounce stops one instance at a time, onto the plan's next configuration; the
\* next bounce of the plan begins once every instance has been through the previous one.
Behind == LET running == {j \in Instances : instances[j].status \in {"up", "down"}}
          IN IF running = {} THEN 0 ELSE Min({instances[j].stage : j \in running})

Stop(i) ==
    /\ "bounce" \in Operations
    /\ instances[i].status = "up"
    /\ ~\E j \in Instances : instances[j].status = "down"
    /\ instances[i].stage = Behind /\ instances[i].stage < LastStage
    /\ Down(i, instances[i].stage + 1)
    /\ UNCHANGED budget

\* fault: the instance dies; Start restarts it on the same configuration
Crash(i) ==
    /\ "crash" \in Faults /\ budget > 0
    /\ instances[i].status = "up"
    /\ Down(i, instances[i].stage)
    /\ budget' = budget - 1

\* an instance (re)starts: fresh threads (no state directory), each sending version `used`
Started(i, used) ==
    /\ instances' = [instances EXCEPT ![i] = [status |-> "up", stage |-> instances[i].stage, leaving |-> FALSE]]
    /\ members' = [s \in Slots |-> IF s \in SlotsOf(i) THEN Fresh("joining", used) ELSE members[s]]
    /\ lastStart' = i
    /\ sinceStart' = 0
    /\ calm' = 0
    /\ UNCHANGED group

Start(i) ==
    /\ instances[i].status = "down"
    /\ Started(i, Plan[instances[i].stage].used)
    /\ UNCHANGED budget

ScaleUp(i) ==
    /\ "scale_up" \in Operations /\ budget > 0
    /\ instances[i].status = "absent"
    /\ Started(i, Plan[instances[i].stage].used)
    /\ budget' = budget - 1

\* KIP-429's scale-down: the instance is told it is "leaving soon"; its threads rejoin to say so
ScaleDown(i) ==
    /\ "scale_down" \in Operations /\ budget > 0
    /\ instances[i].status = "up" /\ ~instances[i].leaving
    /\ \E j \in Instances \ {i} : instances[j].status = "up" /\ ~instances[j].leaving
    /\ instances' = [instances EXCEPT ![i].leaving = TRUE]
    /\ members' = [s \in Slots |-> IF s \in SlotsOf(i) /\ members[s].status = "stable"
                                   THEN [members[s] EXCEPT !.status = "joining"] ELSE members[s]]
    /\ budget' = budget - 1
    /\ calm' = 0
    /\ UNCHANGED <<group, sinceStart, lastStart>>

Next ==
    \/ \E s \in Slots : Join(s)
    \/ \E l \in Slots : Assign(l)
    \/ \E s \in Slots : Receive(s)
    \/ \E i \in Instances : Stop(i)
    \/ \E i \in Instances : Start(i)
    \/ \E i \in Instances : Crash(i)
    \/ \E i \in Instances : ScaleUp(i)
    \/ \E i \in Instances : ScaleDown(i)

Spec == Init /\ [][Next]_vars

\* TLC's CONSTRAINT: the scope's bound (the model's within_bounds)
StateConstraint == group.generation < MaxGeneration

-----------------------------------------------------------------------------
(* Invariants, named as the model's properties *)

LiveSlots == {s \in Slots : Live(members[s])}

\* KIP-268: "instead of failing, the leader will send an empty assignment back encoding its
\* supported version." Claim: the leader's assign() never throws.
leader_never_fails == \A s \in Slots : members[s].failure.by # "assign"

\* KIP-268: "As long as the leader (before or after upgrade) receives at least one old version
\* X Subscription it always sends version Assignment X back." Claim: no thread is handed an
\* assignment encoded in a version above what its release supports.
assignment_readable == \A s \in Slots : members[s].inbox # <<>> => members[s].inbox[1].version <= Config(s).latest

\* KIP-268: "If an upgraded instance receives an Assignment it always checks the leaders
\* supported-version and update its downgraded "used-version" if possible." Claim: no live
\* thread's used version exceeds what its release supports (KAFKA-8649).
used_version_supported == \A s \in LiveSlots : members[s].used <= Config(s).latest

\* KIP-268: "a single rolling bounce without any config settings is sufficient as the leader
\* allows to probe its supported version instead of failing." Claim: no stream thread dies
\* from an assignment or its own subscription.
no_thread_dies == \A s \in Slots : members[s].status = "failed" => members[s].failure.by = "assign"

\* KIP-429: "any topic partition could not be re-assigned before it is revoked". Claim: no
\* task runs as active on two threads at once.
revoke_before_reassign == \A s, t \in Slots : s # t => members[s].active \cap members[t].active = {}

Quiescent == group.status = "Stable" /\ \A s \in Slots : members[s].status \in {"off", "failed", "stable"}
NoneFailed == \A s \in Slots : members[s].status # "failed"
PlanComplete == \A i \in Instances : \/ instances[i].status \in {"absent", "gone"}
                                     \/ instances[i].status = "up" /\ instances[i].stage = LastStage
SettledUpgrade == PlanComplete /\ NoneFailed /\ LiveSlots # {}
\* the highest version every live thread can use: the lowest its configuration starts with
Common == Min({Config(s).used : s \in LiveSlots})

\* KIP-268: "after the leader is upgrade and understand the new metadata version, all other
\* instances can switch back to the highest supported metadata version." Claim: once the plan
\* is complete and the group has settled, every thread uses the common version and the last
\* assignment was encoded in it.
upgrade_completes ==
    (SettledUpgrade /\ Quiescent) => (\A s \in LiveSlots : members[s].used = Common) /\ group.version = Common

\* KIP-268: "if the leader is bounced last, the metadata upgrade only finishes after one more
\* rebalance." Claim: once the plan is complete, the round the last started instance joins
\* plus at most one more leave the group's assignment on the common version.
upgrade_within_one_extra_rebalance == (sinceStart >= 2 /\ SettledUpgrade) => group.version = Common

\* KIP-268: the leader "should be responsible to trigger this final rebalance" - one more, not
\* a loop; KIP-429: a revocation triggers one follow-up. Claim: with no bounce, fault or
\* operation, at most RebalancesAllowed (3) rounds follow one another (a probe, the downgraded
\* rejoin, a follow-up).
rebalances_bounded == calm <= RebalancesAllowed

\* KIP-429 (Streams): "we need to guarantee each topic partition is assigned with exactly one
\* consumer at any time"; KIP-429: standbys go "To instances without matching active tasks".
\* Claim: once settled with every thread alive, each task is active on exactly one live thread
\* and has num.standby.replicas standbys (as many as there are other live instances) elsewhere.
settles_fully_assigned ==
    (Quiescent /\ NoneFailed /\ LiveSlots # {}) =>
        /\ \A s, t \in LiveSlots : s # t => members[s].active \cap members[t].active = {}
        /\ UNION {members[s].active : s \in LiveSlots} = Tasks
        /\ Standbys > 0 =>
             LET want == Min({Standbys, Cardinality({InstanceOf(s) : s \in LiveSlots}) - 1})
             IN \A t \in Tasks :
                  LET holders == {InstanceOf(s) : s \in {x \in LiveSlots : t \in members[x].standby}}
                      runner == {InstanceOf(s) : s \in {x \in LiveSlots : t \in members[x].active}}
                  IN Cardinality(holders \ runner) = want /\ holders \cap runner = {}

\* StickyTaskAssignor#assignActive: previous owners keep their tasks only while
\* hasUnfulfilledQuota; stickiness never outweighs balance. Claim: once settled with every
\* thread alive, the live instances' active task counts differ by at most one.
Load(i) == Cardinality(UNION {{<<s, t>> : t \in members[s].active} : s \in {x \in LiveSlots : InstanceOf(x) = i}})
settled_balanced ==
    (Quiescent /\ NoneFailed) =>
        \A i, j \in {InstanceOf(s) : s \in LiveSlots} : Load(i) <= Load(j) + 1

\* KIP-429 (scale down): "the leaving member will shut down itself once received the
\* instruction to revoke all its active tasks." Claim: once settled with a running instance
\* not leaving, no instance told it is leaving still runs.
scale_down_completes ==
    (Quiescent /\ \E i \in Instances : instances[i].status = "up" /\ ~instances[i].leaving) =>
        ~\E i \in Instances : instances[i].status = "up" /\ instances[i].leaving

\* the round handed out by a step: the threads holding an assignment of the group's generation
RoundOf(ms, g) == {s \in Slots : ms[s].inbox # <<>> /\ ms[s].inbox[1].generation = g.generation}
\* a step of Assign (a failed assign() bumps the generation too, and hands nothing out)
AssignStep == group'.generation = group.generation + 1

\* Step claims

\* KIP-429: "we need to guarantee each topic partition is assigned with exactly one consumer at
\* any time". Claim: in one generation the leader gives each task to at most one thread as active.
no_task_active_twice ==
    AssignStep => \A s, t \in RoundOf(members', group') :
                    s # t => members'[s].inbox[1].active \cap members'[t].inbox[1].active = {}

\* Kafka 2.7+ (errorAssignment walks every client, the FUTURE_ID one included). Claim: an
\* assignment error in a generation reaches every member of it.
assignment_error_reaches_everyone ==
    AssignStep => LET round == RoundOf(members', group')
                  IN (\E s \in round : members'[s].inbox[1].error # "") => \A s \in round : members'[s].inbox[1].error # ""

\* KIP-429 (Assignment Algorithm): "Assign standby tasks: [...] To instances without matching
\* active tasks". Claim: no instance gets a task as standby in the generation it runs it as active.
standby_not_with_active ==
    AssignStep => LET round == RoundOf(members', group')
                      of(i) == {s \in round : InstanceOf(s) = i}
                  IN \A i \in Instances :
                       UNION {members'[s].inbox[1].active : s \in of(i)}
                         \cap UNION {members'[s].inbox[1].standby : s \in of(i)} = {}

\* For TLC
\* the step claims as one temporal property (MCStreamsClassic.cfg: PROPERTY StepClaims)
StepClaimsAction == no_task_active_twice /\ assignment_error_reaches_everyone /\ standby_not_with_active
StepClaims == [][StepClaimsAction]_vars

\* Liveness under fairness (groupcheck/liveness.py's settles_under_fairness): once faults stop,
\* the group converges. The model defines no `converged` (a stream thread's heartbeats are not
\* modelled, so none can stay in flight), so the goal is its `settled` (is_terminal_ok): the
\* group is quiescent, or no thread is live.
GroupConverged == Quiescent \/ LiveSlots = {}

\* WF_vars(Join(s)), WF_vars(Assign(l)) and WF_vars(Receive(s)), stated without ENABLED: TLC
\* 2.15 evaluates ENABLED of these actions by expanding the assignor's and onAssignment's LET
\* definitions without caching, and did not finish MCStreamsClassicLiveness in 10 minutes. Each
\* is enabled exactly when its guard holds (Join always answers, Assign always bumps the
\* generation, Receive always empties the inbox, so each step changes vars), which makes each
\* WF_vars(A) as written: <>[]ENABLED <<A>>_vars => []<><<A>>_vars.
JoinFair(s) == []<>(members[s].status # "joining") \/ []<><<Join(s)>>_vars
AssignFair(l) == []<>~AssignEnabled(l) \/ []<><<Assign(l)>>_vars
ReceiveFair(s) == []<>~ReceiveEnabled(s) \/ []<><<Receive(s)>>_vars

\* weak fairness per (step kind, slot) on every step that is not a fault (Crash, ScaleUp and
\* ScaleDown, the model's fault_kinds, spend the finite Budget, so faults stop in every
\* behaviour): the model's join, assign and receive per thread slot, stop and start per
\* instance (a bounce is no fault: the plan's stages are finite). The model's caught_up step is
\* left out with the warm-ups.
Fairness ==
    /\ \A s \in Slots : JoinFair(s) /\ AssignFair(s) /\ ReceiveFair(s)
    /\ \A i \in Instances : WF_vars(Stop(i)) /\ WF_vars(Start(i))

FairSpec == Init /\ [][Next]_vars /\ Fairness

\* the claim: every fair behaviour converges again and again (after the last fault it
\* converges, and after any later step that unsettles it)
SettlesUnderFairness == []<>GroupConverged

\* the same claim for a config of INIT and NEXT (MCStreamsClassicLiveness.cfg): TLC checks the
\* fairness as the property's premise, and groupcheck's config reader reads INIT/NEXT only
FairSettles == Fairness => SettlesUnderFairness

\* Witnesses
\* version probing happened: a live thread uses a version below what its configuration starts with
some_thread_downgraded == \E s \in LiveSlots : members[s].used < Config(s).used

\* the plan completed and the group settled on the common version
upgrade_finished == SettledUpgrade /\ Quiescent /\ upgrade_completes
=============================================================================
