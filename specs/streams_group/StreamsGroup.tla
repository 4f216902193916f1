---------------------------- MODULE StreamsGroup -----------------------------
(***************************************************************************)
(* KIP-1071 streams groups: the StreamsGroupHeartbeat exchange between the  *)
(* group coordinator and the members (consumers) of Kafka Streams processes, *)
(* at message level: each client has at most one heartbeat request or       *)
(* response in flight, the coordinator handles one heartbeat at a time      *)
(* (group epoch, target assignment epoch, member epochs, the topology epoch *)
(* and topology fencing, NOT_READY while internal topics are missing, the   *)
(* broker's task assignor with active, standby and warm-up tasks, the       *)
(* CurrentAssignmentBuilder's reconciliation), and a Streams client         *)
(* reconciles its tasks (revoke, then assign) as it reads a response. A     *)
(* second formalisation of groupcheck's Python model (model/streams_group   *)
(* on the epoch core model/epochs), cross-checked state for state by        *)
(* `groupcheck spec check streams-group`. It mirrors ConsumerGroup.tla      *)
(* (KIP-848 on the same epochs) where the two protocols agree.              *)
(*                                                                         *)
(* Covers: dynamic members of Streams processes, one topology of one or     *)
(* more subtopologies (one source topic each), stateless (the `sticky`      *)
(* assignor) or stateful (changelog topics the coordinator creates, the     *)
(* `highly_available` assignor: standbys, warm-ups while a task is staged,  *)
(* task offsets), the profiles kip-1071 (the KIP's text), kafka-4.1 and     *)
(* kafka-4.5 (what Kafka ships) as the constant Profile; the steps Send,    *)
(* Handle, Deliver, Restart, Bounce, Expire, RebalanceTimeout, CreateTopic, *)
(* TopicsCreated, CatchUp; the faults LoseResponse, SessionTimeout, Crash;  *)
(* the operations TopologyUpdate (KIP-1071's rolling topology update),      *)
(* TopicChange (a source topic deleted or grown), ShutdownRequest, Roll,    *)
(* Redeploy, PollTimeout, ShutdownLeave; the convergence monitor of         *)
(* converges_within_k. Leaves out (see README.md): static members, classic  *)
(* members and migration, coordinator failover (the record log), the group  *)
(* size limit, source-topic regexes, repartition topics, copartitioning.    *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Sequences

CONSTANTS
    Slots,              \* the clients, by slot number (0 .. members-1)
    MembersPerProcess,  \* members (stream threads) per Streams process
    Partitions,         \* per subtopology (a sequence): its source topic's partitions
    Stateful,           \* TRUE: every subtopology has a changelog topic
    Standbys,           \* num.standby.replicas
    Warmups,            \* num.warmup.replicas (kip-1071 only: task offsets)
    Profile,            \* "kip-1071", "kafka-4.1" or "kafka-4.5"
    Faults,             \* a subset of {"lose_response", "session_timeout", "crash"}
    Operations,         \* a subset of {"topology_update", "topic_change", "shutdown_request",
                        \*   "roll", "redeploy", "poll_timeout", "shutdown_leave"}
    Budget,             \* how many faults and operations may happen
    MaxEpoch,           \* the scope's bound on the group epoch (TLC: CONSTRAINT)
    K,                  \* heartbeat rounds converges_within_k allows (5)
    MaxPartitions,      \* the most partitions a source topic may have (4): topic_change adds one only below it
    NoValue             \* a TLC model value: "no value" (no request, no reply, not reported)

VARIABLES
    group,          \* the coordinator's streams group
    shutdown,       \* the member that requested SHUTDOWN_APPLICATION (soft state), or None
    topics,         \* the cluster's topics: topic -> partitions
    creating,       \* internal topics whose CreateTopics is in flight: topic -> partitions
    clients,        \* slot -> the Streams client (member) in that slot
    budget,         \* faults and operations left
    calm,           \* full heartbeat rounds since the last disturbance (at most K)
    beaten,         \* slots that read the response to a heartbeat sent this round
    fresh,          \* slots whose heartbeat in flight was sent this round
    wedged,         \* slots whose lost response may have carried tasks they never saw
    marks           \* witnesses seen on the way: "WARMUP_PROMOTED", "BECAME_READY"

vars == <<group, shutdown, topics, creating, clients, budget, calm, beaten, fresh, wedged, marks>>

-----------------------------------------------------------------------------
(* Values *)

NoFn == [x \in {} |-> 0]                 \* the empty function
None == NoValue                          \* unequal to every record, set and tuple
Roles == {"active", "standby", "warmup"}
NoTasks == [r \in Roles |-> {}]
Subtopologies == 0 .. Len(Partitions) - 1

\* a stateless scope with topic_change may add a partition to the first source topic (while it
\* has fewer than MaxPartitions): its task gets a number from the start
CanAddPartition == "topic_change" \in Operations /\ ~Stateful /\ Partitions[1] < MaxPartitions
Capacity(i) == Partitions[i + 1] + (IF i = 0 /\ CanAddPartition THEN 1 ELSE 0)

RECURSIVE TaskBase(_)
\* tasks are numbered over the subtopologies in order, partitions 0 .. n-1 each
TaskBase(i) == IF i = 0 THEN 0 ELSE TaskBase(i - 1) + Capacity(i - 1)
NumTasks == TaskBase(Len(Partitions))
Tasks == 0 .. NumTasks - 1
SubOf(t) == CHOOSE i \in Subtopologies : TaskBase(i) <= t /\ t < TaskBase(i) + Capacity(i)
PartitionOf(t) == t - TaskBase(SubOf(t))

\* topics: a subtopology's source topic "t<i>" and changelog topic "app-<i>-changelog"
Source(i) == <<"source", i>>
Changelog(i) == <<"changelog", i>>

MemberStates == {"STABLE", "UNREVOKED", "UNRELEASED"}
ClientStates == {"JOINING", "MEMBER", "LEAVING", "DOWN", "STOPPED", "FAILED"}
Errors == {"", "UNKNOWN_MEMBER_ID", "INVALID_REQUEST", "GROUP_ID_NOT_FOUND", "FENCED_MEMBER_EPOCH",
           "STREAMS_INVALID_TOPOLOGY_EPOCH", "STREAMS_TOPOLOGY_FENCED"}
Statuses == {"STALE_TOPOLOGY", "MISSING_SOURCE_TOPICS", "INCORRECTLY_PARTITIONED_TOPICS",
             "MISSING_INTERNAL_TOPICS", "SHUTDOWN_APPLICATION"}

\* A member id: the client's slot and incarnation ("m<slot>.<incarnation>"); a restart is
\* a new incarnation (Kafka's member id lives as long as the process). Ids are ordered as
\* Kafka's strings order them for one-digit slots; a slot's process is slot \div
\* MembersPerProcess ("p<process>").
IdOf(s) == <<s, clients[s].incarnation>>
IdLess(a, b) == a[1] < b[1] \/ (a[1] = b[1] /\ a[2] < b[2])
Proc(s) == s \div MembersPerProcess

IsTasks(x) == DOMAIN x = Roles /\ \A r \in Roles : x[r] \subseteq Tasks
IsMember(m) ==
    /\ m.state \in MemberStates /\ m.epoch \in Int /\ m.previousEpoch \in Int /\ m.topologyEpoch \in Int
    /\ IsTasks(m.assigned) /\ IsTasks(m.pendingRevocation) /\ m.revocationEpoch \in Int
IsRequest(r) ==
    /\ r.epoch \in Int /\ IsTasks(r.owned) /\ r.topologyEpoch \in Nat /\ r.shutdown \in BOOLEAN
    /\ r.caught \subseteq Tasks /\ r.joining \in BOOLEAN /\ r.unsent \subseteq Roles /\ r.redeployed \in BOOLEAN
IsReply(r) ==
    /\ r.error \in Errors /\ r.epoch \in Int /\ (r.tasks = None \/ IsTasks(r.tasks))
    /\ \A i \in DOMAIN r.statuses : r.statuses[i] \in Statuses

TypeOK ==
    /\ group.dead \in BOOLEAN
    /\ group.epoch \in Nat /\ group.assignmentEpoch \in Nat
    /\ group.topology = None \/ (group.topology.epoch \in Nat /\ group.topology.stateful \in BOOLEAN)
    /\ \A id \in DOMAIN group.members : IsMember(group.members[id])
    /\ \A id \in DOMAIN group.target : IsTasks(group.target[id])
    /\ shutdown = None \/ (shutdown[1] \in Slots /\ shutdown[2] \in Nat)
    /\ \A s \in Slots : /\ clients[s].status \in ClientStates /\ IsTasks(clients[s].owned)
                        /\ clients[s].request = None \/ IsRequest(clients[s].request)
                        /\ clients[s].reply = None \/ IsReply(clients[s].reply)
    /\ budget \in Nat /\ calm \in 0..K
    /\ beaten \subseteq Slots /\ fresh \subseteq Slots /\ wedged \subseteq Slots
    /\ marks \subseteq {"WARMUP_PROMOTED", "BECAME_READY"}

-----------------------------------------------------------------------------
(* Init: no group yet; the source topics exist; every client starts, joining *)

NewClient(inc, te, redeployed) ==
    [status |-> "JOINING", incarnation |-> inc, epoch |-> 0, owned |-> NoTasks, topologyEpoch |-> te,
     caught |-> {}, shutdown |-> FALSE, request |-> None, reply |-> None, redeployed |-> redeployed,
     sent |-> None]

\* StreamsGroup's constructor: what the coordinator creates on first use
NewGroup == [dead |-> FALSE, epoch |-> 0, assignmentEpoch |-> 0, topology |-> None, validatedEpoch |-> -1,
             metadata |-> NoFn, configs |-> None, members |-> NoFn, target |-> NoFn]

Init ==
    /\ group = [NewGroup EXCEPT !.dead = TRUE]
    /\ shutdown = None
    /\ topics = [t \in {Source(i) : i \in Subtopologies} |-> Partitions[t[2] + 1]]
    /\ creating = NoFn
    /\ clients = [s \in Slots |-> NewClient(0, 0, FALSE)]
    /\ budget = Budget
    /\ calm = 0
    /\ beaten = {}
    /\ fresh = {}
    /\ wedged = {}
    /\ marks = {}

-----------------------------------------------------------------------------
(* The rules of the profile (coordinator_update.CoordinatorProfile)        *)

(***************************************************************************)
(* Where the KIP's text and shipped Kafka decide differently (the model's    *)
(* profiles.py; Kafka: GroupMetadataManager#maybeUpdateTopology, KAFKA-21370, *)
(* KAFKA-19779). A known-bug variant replaces an action with one that reads *)
(* these rules with the bug's switched (the last five are the reference).   *)
(***************************************************************************)
Rules ==
    [topologyUpdates |-> Profile = "kip-1071",        \* KIP: "If ER=EG+1, update the topology"
     staleJoinFenced |-> Profile = "kip-1071",        \* KIP: "If ER<EG, fail with STREAMS_TOPOLOGY_FENCED"
     \* the same topology epoch with other topology metadata (4.1: "Topology updates are not
     \* supported yet."; KIP and 4.5, KAFKA-21370: STREAMS_INVALID_TOPOLOGY_EPOCH)
     sameEpochMismatch |-> IF Profile = "kafka-4.1" THEN "INVALID_REQUEST" ELSE "STREAMS_INVALID_TOPOLOGY_EPOCH",
     \* KIP: "FENCED_MEMBER_EPOCH is returned otherwise. The member is also removed from the
     \* group." Kafka throws FencedMemberEpochException: nothing is written.
     fencedRemovesMember |-> Profile = "kip-1071",
     tracksRevocationEpoch |-> Profile = "kafka-4.5",    \* KAFKA-19779 (trunk's revocation epoch)
     taskListsAllOrNone |-> Profile # "kip-1071",        \* "If one task-type is non-null, all must be non-null."
     epoch0RejoinResets |-> TRUE,          \* KAFKA-19233's fix: an epoch-0 heartbeat of a known member is a rejoin
     sendAllTaskLists |-> TRUE,            \* KAFKA-20870: the client sends the three owned-task lists together
     standbyFirstHolderChecked |-> TRUE,   \* KAFKA-20899's fix (StickyTaskAssignor#findPrevMemberWithLeastLoad)
     leaveRecordsShutdown |-> TRUE,        \* KAFKA-19190's fix: a leave heartbeat's ShutdownApplication counts
     ignoreNegativeEpochResponse |-> TRUE] \* KAFKA-19335's fix (StreamsMembershipManager#onHeartbeatSuccess)

-----------------------------------------------------------------------------
(* Helpers: the group *)

Running(c) == c.status \in {"JOINING", "MEMBER", "LEAVING"}
Idle(c) == c.request = None /\ c.reply = None

TopologyOf(epoch, redeployed) == [epoch |-> epoch, stateful |-> Stateful # redeployed]

\* StreamsGroup#maybeUpdateGroupState (first match wins)
GroupState(g) ==
    IF g.dead THEN "DEAD"
    ELSE IF DOMAIN g.members = {} THEN "EMPTY"
    ELSE IF g.topology = None \/ g.topology.epoch # g.validatedEpoch THEN "NOT_READY"
    ELSE IF g.epoch > g.assignmentEpoch THEN "ASSIGNING"
    ELSE IF \E id \in DOMAIN g.members :
            ~(g.members[id].state = "STABLE" /\ g.members[id].epoch = g.assignmentEpoch)
         THEN "RECONCILING"
    ELSE "STABLE"

TargetOf(g, id) == IF id \in DOMAIN g.target THEN g.target[id] ELSE NoTasks

\* f with id mapped to v (added or replaced), f without id
Put(f, id, v) == [x \in DOMAIN f \cup {id} |-> IF x = id THEN v ELSE f[x]]
Drop(f, id) == [x \in DOMAIN f \ {id} |-> f[x]]

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Pair(a, b) == IF a <= b THEN <<a, b>> ELSE <<b, a>>
Union(t) == t.active \cup t.standby \cup t.warmup
SubsetOf(a, b) == \A r \in Roles : a[r] \subseteq b[r]

RECURSIVE SortedIds(_)
SortedIds(S) == IF S = {} THEN <<>>
                ELSE LET m == CHOOSE x \in S : \A y \in S : ~IdLess(y, x)
                     IN <<m>> \o SortedIds(S \ {m})

RECURSIVE SortedNats(_)
SortedNats(S) == IF S = {} THEN <<>> ELSE LET m == Min(S) IN <<m>> \o SortedNats(S \ {m})

RECURSIVE Sum(_)
\* the sum of the second components of a set of pairs
Sum(S) == IF S = {} THEN 0 ELSE LET x == CHOOSE x \in S : TRUE IN x[2] + Sum(S \ {x})

(***************************************************************************)
(* "Topology configuration" (InternalTopicManager#configureTopics), in the *)
(* KIP's order of precedence: MISSING_SOURCE_TOPICS, then                  *)
(* INCORRECTLY_PARTITIONED_TOPICS (a changelog topic whose partitions are  *)
(* not its subtopology's task count), then MISSING_INTERNAL_TOPICS (the    *)
(* changelog topics to create, with that count). A subtopology has as many *)
(* tasks as its source topic has partitions. The partition metadata (the   *)
(* model keeps counts where Kafka keeps their hash) covers every topic the *)
(* topology names that exists.                                             *)
(***************************************************************************)
Named(top) == {Source(i) : i \in Subtopologies} \cup (IF top.stateful THEN {Changelog(i) : i \in Subtopologies} ELSE {})
Metadata(top) == [t \in Named(top) \cap DOMAIN topics |-> topics[t]]
Configure(top) ==
    IF \E i \in Subtopologies : Source(i) \notin DOMAIN topics
    THEN [status |-> "MISSING_SOURCE_TOPICS", create |-> {}]
    ELSE LET changelogs == IF top.stateful THEN {Changelog(i) : i \in Subtopologies} ELSE {}
             wrong == {c \in changelogs \cap DOMAIN topics : topics[c] # topics[Source(c[2])]}
             missing == changelogs \ DOMAIN topics
         IN IF wrong # {} THEN [status |-> "INCORRECTLY_PARTITIONED_TOPICS", create |-> {}]
            ELSE IF missing # {} THEN [status |-> "MISSING_INTERNAL_TOPICS", create |-> missing]
            ELSE [status |-> "", create |-> {}]
\* throwIfRequestContainsInvalidTasks, once the topology is configured: "Each element of
\* ActiveTasks, StandbyTasks and WarmupTasks has to be a valid task ID in the topology
\* initialized for the group ID" (a task of a partition its source topic no longer has)
OutsideTopology(r) ==
    /\ ~r.joining /\ r.epoch > 0
    /\ \E x \in Roles \ r.unsent : \E t \in r.owned[x] : PartitionOf(t) >= topics[Source(SubOf(t))]

\* the tasks of the configured topology (the source topics exist)
ConfiguredTasks == {t \in Tasks : PartitionOf(t) < topics[Source(SubOf(t))]}
Configs == [standbys |-> Standbys, warmups |-> Warmups, lag |-> 0]   \* LastAssignmentConfigs

(***************************************************************************)
(* The topology-epoch decision at join (KIP-1071 "Request Handling" 2.iii): *)
(* "If ER=EG, check if topology metadata in the request is equal to the     *)
(* topology metadata of the group, otherwise fail with                      *)
(* STREAMS_INVALID_TOPOLOGY_EPOCH; If ER<EG, fail with                      *)
(* STREAMS_TOPOLOGY_FENCED; If ER>EG+1, fail with                           *)
(* STREAMS_INVALID_TOPOLOGY_EPOCH; If ER=EG+1, update the topology". Kafka  *)
(* 4.1-4.5 keep a group topology of a higher epoch (the member is stale)    *)
(* and refuse any other: "Topology updates are not supported yet."          *)
(***************************************************************************)
Decide(rules, top, gtop) ==
    IF gtop = None THEN [kind |-> "INITIALIZE", error |-> ""]
    ELSE IF top.epoch = gtop.epoch
    THEN IF top.stateful = gtop.stateful THEN [kind |-> "ACCEPT", error |-> ""]
         ELSE [kind |-> "REJECT", error |-> rules.sameEpochMismatch]
    ELSE IF top.epoch < gtop.epoch
    THEN IF rules.staleJoinFenced THEN [kind |-> "REJECT", error |-> "STREAMS_TOPOLOGY_FENCED"]
         ELSE [kind |-> "KEEP_GROUP", error |-> ""]
    ELSE IF ~rules.topologyUpdates THEN [kind |-> "REJECT", error |-> "INVALID_REQUEST"]
    ELSE IF top.epoch = gtop.epoch + 1 THEN [kind |-> "UPDATE", error |-> ""]
    ELSE [kind |-> "REJECT", error |-> "STREAMS_INVALID_TOPOLOGY_EPOCH"]

-----------------------------------------------------------------------------
(***************************************************************************)
(* The broker's task assignors (streams/assignor/StickyTaskAssignor, and   *)
(* highly_available: trunk's target assignment with AssignmentRefinerImpl). *)
(* KIP-1071: "If no task assignor is configured ... highly_available for    *)
(* stateful topologies and sticky for stateless topologies". Members are    *)
(* numbered 1..n in member-id order; each brings its process, its topology  *)
(* epoch and its previous *target* (TargetAssignmentBuilder). X is one      *)
(* call's context: the group, the ids, the lag levels (changelog end offset *)
(* minus offset) of the tasks the handled heartbeat reported on its         *)
(* member's process (a copy is caught up at a lag of at most                *)
(* acceptable.recovery.lag, 0), and the rules. A work value W holds the     *)
(* tasks given so far per role and the task pairs seen on one process.      *)
(***************************************************************************)
AP(X, m) == Proc(X.ids[m][1])
Prev(X, m) == TargetOf(X.g, X.ids[m])
MembersOf(X, p) == {m \in 1 .. X.n : AP(X, m) = p}
Procs(X) == {AP(X, m) : m \in 1 .. X.n}
MaxPairs(X) == (Len(X.tasks) * (Len(X.tasks) - 1)) \div 2
\* "members with a topology epoch that does not correspond to the group's topology epoch will
\* not get any new tasks assigned": a stale member keeps a task only in the role it holds it in
MayTake(X, m, t, role) == X.g.members[X.ids[m]].topologyEpoch >= X.g.topology.epoch \/ t \in Prev(X, m)[role]
Known(X, t, p) == p = X.lagProc /\ t \in DOMAIN X.lags
CaughtUp(X, t, p) == Known(X, t, p) /\ X.lags[t] <= 0
\* the member whose previous target has t active (0: none)
Owner(X, t) == LET os == {m \in 1 .. X.n : t \in Prev(X, m).active} IN IF os = {} THEN 0 ELSE Min(os)
\* highly_available counts warm-ups as load, sticky gives none
TasksOf(X, W, m) == W.active[m] \cup W.standby[m] \cup (IF X.ha THEN W.warmup[m] ELSE {})
ProcTasks(X, W, p) == UNION {TasksOf(X, W, m) : m \in MembersOf(X, p)}
Held(X, W, p) == Sum({<<m, Cardinality(TasksOf(X, W, m))>> : m \in MembersOf(X, p)})
\* ProcessState#load (tasks per member of the process), compared as fractions
LoadLess(X, W, p, q) == Held(X, W, p) * Cardinality(MembersOf(X, q)) < Held(X, W, q) * Cardinality(MembersOf(X, p))
\* TaskPairs#hasNewPair: t on p forms a task pair not yet seen on one process
HasNewPair(X, W, t, p) ==
    IF Cardinality(W.pairs) = MaxPairs(X) THEN FALSE
    ELSE ProcTasks(X, W, p) = {} \/ \E u \in ProcTasks(X, W, p) : Pair(t, u) \notin W.pairs
\* ProcessState#addTask, then the task pairs of its process
Add(X, W, m, t, role) ==
    LET W1 == [W EXCEPT ![role][m] = @ \cup {t}]
    IN [W1 EXCEPT !.pairs = @ \cup {Pair(t, u) : u \in ProcTasks(X, W1, AP(X, m)) \ {t}}]
\* findMemberWithLeastLoad: of the candidates' processes those forming a new pair (else all),
\* the least loaded (ties: the lower process); there a preferred member, else its least loaded
\* member (ties: the lower); 0: none
LeastLoaded(X, W, cands, t, role, prefer) ==
    LET cs == {m \in cands : MayTake(X, m, t, role)}
        procs == {AP(X, m) : m \in cs}
        paired == {p \in procs : HasNewPair(X, W, t, p)}
        among == IF paired = {} THEN procs ELSE paired
        p == CHOOSE p \in among : \A q \in among : ~LoadLess(X, W, q, p) /\ (~LoadLess(X, W, p, q) => p <= q)
        pref == {m \in prefer : AP(X, m) = p /\ MayTake(X, m, t, role)}
        inside == {m \in MembersOf(X, p) : MayTake(X, m, t, role)}
        Size(m) == Cardinality(TasksOf(X, W, m))
    IN IF cs = {} THEN 0
       ELSE IF pref # {} THEN Min(pref)
       ELSE IF inside = {} THEN 0
       ELSE CHOOSE m \in inside : \A x \in inside : Size(m) < Size(x) \/ (Size(m) = Size(x) /\ m <= x)
\* the copies an orphaned active task goes to first: sticky, the previous standbys;
\* highly_available, the previous standby and warm-up holders with the lowest known lag ("the
\* client with the maximal cumulative task changelog offset"), all of them if none is known
\* (one process reports lags, so the known ones are equal)
CopyHolders(X, t) ==
    IF ~X.ha THEN {m \in 1 .. X.n : t \in Prev(X, m).standby}
    ELSE LET holders == {m \in 1 .. X.n : t \in Prev(X, m).standby \cup Prev(X, m).warmup}
             known == {m \in holders : Known(X, t, AP(X, m))}
         IN IF known = {} THEN holders ELSE known
PerMember(tasks, capacity) == IF capacity = 0 THEN 0 ELSE (tasks + capacity - 1) \div capacity
\* an active task placed; a process reaching tasksPerMember leaves the quota (maybeUpdateTasksPerMember)
Place(X, A, m, t) ==
    LET W1 == Add(X, A.w, m, t, "active")
        inProc == Sum({<<x, Cardinality(W1.active[x])>> : x \in MembersOf(X, AP(X, m))})
    IN IF inProc = A.tpm
       THEN [w |-> W1, tasks |-> A.tasks - inProc, capacity |-> A.capacity - 1,
             tpm |-> PerMember(A.tasks - inProc, A.capacity - 1)]
       ELSE [A EXCEPT !.w = W1]

RECURSIVE Pass(_, _, _, _)
\* assignActive's passes over the tasks left, in order: (1) "re-assigning existing active tasks
\* to clients that previously had the same active tasks" and (2) to previous copy holders, both
\* under the quota; (3) "assign any remaining unassigned tasks" to the least loaded member
Pass(X, k, A, ts) ==
    IF ts = <<>> THEN [a |-> A, left |-> <<>>]
    ELSE LET t == Head(ts)
             m == CASE k = 1 -> Owner(X, t)
                    [] k = 2 -> LeastLoaded(X, A.w, CopyHolders(X, t), t, "active", CopyHolders(X, t))
                    [] OTHER -> LeastLoaded(X, A.w, 1 .. X.n, t, "active", {})
             placed == m # 0 /\ (k = 3 \/ Cardinality(TasksOf(X, A.w, m)) < A.tpm)
             rest == Pass(X, k, IF placed THEN Place(X, A, m, t) ELSE A, Tail(ts))
         IN IF placed THEN rest ELSE [rest EXCEPT !.left = <<t>> \o @]

Actives(X) ==
    LET W0 == [active |-> [m \in 1 .. X.n |-> {}], standby |-> [m \in 1 .. X.n |-> {}],
               warmup |-> [m \in 1 .. X.n |-> {}], pairs |-> {}]
        P1 == Pass(X, 1, [w |-> W0, tasks |-> Len(X.tasks), capacity |-> X.n, tpm |-> PerMember(Len(X.tasks), X.n)],
                   X.tasks)
        P2 == Pass(X, 2, P1.a, P1.left)
    IN Pass(X, 3, P2.a, P2.left).a.w

RECURSIVE Stage(_, _, _)
\* AssignmentRefinerImpl#analyzeTasks: a stateful active task whose target owner is on another
\* process than its holder waits on the holder ("staged"), unless the holder is still restoring
\* it or the target's process "already holds a caught-up copy of the task"
Stage(X, S, ts) ==
    IF ts = <<>> THEN S
    ELSE LET t == Head(ts)
             owners == {m \in 1 .. X.n : t \in S.w.active[m]}
             target == IF owners = {} THEN 0 ELSE Min(owners)
             holder == Owner(X, t)
             moves == /\ target # 0 /\ holder # 0 /\ target # holder
                      /\ ~(Known(X, t, AP(X, holder)) /\ ~CaughtUp(X, t, AP(X, holder)))
                      /\ AP(X, holder) # AP(X, target)
                      /\ ~(CaughtUp(X, t, AP(X, target)) /\
                           \E x \in MembersOf(X, AP(X, target)) : t \in Prev(X, x).standby \cup Prev(X, x).warmup)
         IN Stage(X, IF moves THEN [w |-> [S.w EXCEPT !.active[target] = @ \ {t}, !.active[holder] = @ \cup {t}],
                                    staged |-> Append(S.staged, <<t, target>>)]
                     ELSE S, Tail(ts))

RECURSIVE KeepWarm(_, _, _)
\* warm-ups for the staged moves, num.warmup.replicas in the group: first a warm-up the target's
\* process runs already keeps running on the member that has it ...
KeepWarm(X, B, ss) ==
    IF ss = <<>> THEN B
    ELSE LET t == Head(ss)[1]
             warm == {m \in MembersOf(X, AP(X, Head(ss)[2])) : t \in Prev(X, m).warmup}
         IN KeepWarm(X, IF warm # {} /\ B.budget > 0
                        THEN [w |-> Add(X, B.w, Min(warm), t, "warmup"), budget |-> B.budget - 1] ELSE B, Tail(ss))

RECURSIVE NewWarm(_, _, _)
\* ... then a target process with no copy at all gets a new warm-up on the target owner
NewWarm(X, B, ss) ==
    IF ss = <<>> THEN B
    ELSE LET t == Head(ss)[1]
             target == Head(ss)[2]
             bare == \A x \in MembersOf(X, AP(X, target)) : t \notin Union(Prev(X, x))
         IN NewWarm(X, IF B.budget > 0 /\ MayTake(X, target, t, "warmup") /\ bare
                       THEN [w |-> Add(X, B.w, target, t, "warmup"), budget |-> B.budget - 1] ELSE B, Tail(ss))

\* isLoadBalanced: under capacity, or the least loaded process
Balanced(X, W, p) == Held(X, W, p) < Cardinality(MembersOf(X, p)) \/ \A q \in Procs(X) : ~LoadLess(X, W, q, p)

\* previous standbys, and (highly_available) caught-up warm-ups: "Each warm-up task that has
\* reached acceptable.recovery.lag must be turned into an active task or a standby task"
StandbyHolders(X, t) ==
    {m \in 1 .. X.n : t \in Prev(X, m).standby \/ (X.ha /\ t \in Prev(X, m).warmup /\ CaughtUp(X, t, AP(X, m)))}

\* assignStandby, one standby of t: on a process not holding t, the previous active owner, else a
\* previous standby holder, when its process is balanced, else the least loaded member. Unfixed
\* KAFKA-20899 (rules.standbyFirstHolderChecked FALSE): the first previous holder, unchecked.
StandbyFor(X, W, t) ==
    LET free == {p \in Procs(X) : t \notin ProcTasks(X, W, p)}
        cands == {m \in 1 .. X.n : AP(X, m) \in free}
        o == Owner(X, t)
        holders == StandbyHolders(X, t) \cap cands
        m1 == IF ~X.rules.standbyFirstHolderChecked /\ StandbyHolders(X, t) # {} THEN Min(StandbyHolders(X, t))
              ELSE IF holders # {} THEN LeastLoaded(X, W, holders, t, "standby", holders) ELSE 0
        m2 == IF o \in cands /\ MayTake(X, o, t, "standby") /\ Balanced(X, W, AP(X, o)) /\ HasNewPair(X, W, t, AP(X, o))
              THEN o
              ELSE IF m1 # 0 /\ ~Balanced(X, W, AP(X, m1)) THEN 0 ELSE m1
    IN IF m2 # 0 THEN m2 ELSE LeastLoaded(X, W, cands, t, "standby", {})

RECURSIVE Standby(_, _, _, _)
\* num.standby.replicas standbys per task, "There is not enough available capacity." stops early
Standby(X, W, ts, k) ==
    IF ts = <<>> THEN W
    ELSE IF k = 0 THEN Standby(X, W, Tail(ts), Standbys)
    ELSE LET m == StandbyFor(X, W, Head(ts))
         IN IF m = 0 THEN Standby(X, W, Tail(ts), Standbys)
            ELSE Standby(X, Add(X, W, m, Head(ts), "standby"), ts, k - 1)

\* the new target assignment of every member (GroupMetadataManager#updateStreamsTargetAssignment):
\* nothing while the topology is not ready ("all members will get an empty assignment when the
\* group is in NOT_READY state")
NewTarget(g, ready, lagProc, lags, rules) ==
    IF ~ready THEN [id \in DOMAIN g.members |-> NoTasks] ELSE
    LET ids == SortedIds(DOMAIN g.members)
        X == [g |-> g, ids |-> ids, n |-> Len(ids), lagProc |-> lagProc, lags |-> lags,
              ha |-> g.topology.stateful, rules |-> rules, tasks |-> SortedNats(ConfiguredTasks)]
        S == Stage(X, [w |-> Actives(X), staged |-> <<>>], X.tasks)
        Warm == NewWarm(X, KeepWarm(X, [w |-> S.w, budget |-> Warmups], S.staged), S.staged).w
        Final == IF X.ha THEN Standby(X, Warm, X.tasks, Standbys) ELSE Actives(X)
    IN [id \in DOMAIN g.members |->
          LET m == CHOOSE i \in 1 .. X.n : ids[i] = id
          IN [active |-> Final.active[m], standby |-> Final.standby[m], warmup |-> Final.warmup[m]]]

-----------------------------------------------------------------------------
(***************************************************************************)
(* Reconciliation (streams/CurrentAssignmentBuilder), one step of a member *)
(* towards its target. "owned" is None when the heartbeat did not report   *)
(* its tasks. KIP-1071's blocking rule: "An active task is assigned as     *)
(* soon as no other client owns it anymore" (held active by any member, or *)
(* as standby / warm-up on the member's own process); "Newly assigned      *)
(* standby and warm-up tasks await that any member with the same processId *)
(* owning that task (as active or standby) confirms revocation". A member's *)
(* own holdings count too. Streams recomputes an UNREVOKED member from     *)
(* epoch + 1; 4.5 (KAFKA-19779) records the epoch it finished revoking at. *)
(***************************************************************************)
Overlaps(owned, pending) == owned = None \/ \E r \in Roles : owned[r] \cap pending[r] # {}

Moved(m, epoch, state, assigned, pending, rev) ==
    [m EXCEPT !.state = state, !.epoch = epoch, !.previousEpoch = m.epoch, !.assigned = assigned,
              !.pendingRevocation = pending, !.revocationEpoch = rev]

NextAssignment(m, epoch, targetEpoch, target, owned, blocked, rev) ==
    LET kept == [r \in Roles |-> m.assigned[r] \cap target[r]]
        revoke == [r \in Roles |-> m.assigned[r] \ kept[r]]
        wanted == [r \in Roles |-> target[r] \ kept[r]]
        assign == [r \in Roles |-> wanted[r] \ blocked[r]]
        unreleased == \E r \in Roles : wanted[r] \cap blocked[r] # {}
        state == IF unreleased THEN "UNRELEASED" ELSE "STABLE"
    IN IF Union(revoke) # {} /\ Overlaps(owned, revoke)
       THEN Moved(m, epoch, "UNREVOKED", kept, revoke, rev)
       ELSE Moved(m, targetEpoch, state, [r \in Roles |-> kept[r] \cup assign[r]], NoTasks, rev)

Blocked(g, id) ==
    LET HeldBy(x, r) == g.members[x].assigned[r] \cup g.members[x].pendingRevocation[r]
        anywhere == UNION {HeldBy(x, "active") : x \in DOMAIN g.members}
        mine == {x \in DOMAIN g.members : Proc(x[1]) = Proc(id[1])}
        process == UNION {HeldBy(x, r) : x \in mine, r \in Roles}
    IN [active |-> anywhere \cup UNION {HeldBy(x, r) : x \in mine, r \in {"standby", "warmup"}},
        standby |-> process, warmup |-> process]

Reconciled(g, id, m, owned, rules) ==
    LET target == TargetOf(g, id)
        te == g.assignmentEpoch
        blocked == Blocked(g, id)
    IN CASE m.state = "STABLE" ->
              IF m.epoch = te THEN m ELSE NextAssignment(m, m.epoch, te, target, owned, blocked, m.revocationEpoch)
         [] m.state = "UNREVOKED" ->
              IF Overlaps(owned, m.pendingRevocation) THEN m
              ELSE NextAssignment(m, m.epoch + 1, te, target, owned, blocked,
                                  IF rules.tracksRevocationEpoch THEN m.epoch ELSE m.revocationEpoch)
         [] m.state = "UNRELEASED" -> NextAssignment(m, m.epoch, te, target, owned, blocked, m.revocationEpoch)

-----------------------------------------------------------------------------
(***************************************************************************)
(* The coordinator's answer to one StreamsGroupHeartbeat                    *)
(* (GroupCoordinatorService#streamsGroupHeartbeat, then                     *)
(* GroupMetadataManager#streamsGroupHeartbeat): the group after it, the    *)
(* response, the SHUTDOWN_APPLICATION requester after it and the internal  *)
(* topics to create.                                                        *)
(***************************************************************************)
\* the owned tasks a heartbeat reports: a join reports none (empty lists); a heartbeat at a
\* positive epoch its three lists, unless it leaves one null (then it reports nothing)
Owned(r) == IF r.joining THEN NoTasks ELSE IF r.epoch > 0 /\ r.unsent = {} THEN r.owned ELSE None

\* the lag levels of its TaskOffsets / TaskEndOffsets (sent with warm-ups only): a restored
\* standby or warm-up task is caught up (0), any other one behind (1)
Lags(r) ==
    IF Warmups > 0 /\ ~r.joining /\ r.epoch > 0
    THEN [t \in r.owned.standby \cup r.owned.warmup |-> IF t \in r.caught THEN 0 ELSE 1]
    ELSE NoFn

\* throwIfStreamsGroupHeartbeatRequestIsInvalid, the rules a client here can break:
\* "Topology can only be provided when (re-)joining." (a join at another epoch than 0), and
\* (shipped) "If one task-type is non-null, all must be non-null."
Invalid(r, rules) ==
    \/ r.joining /\ r.epoch # 0
    \/ rules.taskListsAllOrNone /\ ~r.joining /\ r.epoch > 0 /\ r.unsent \notin {{}, Roles}

Outcome(g, error, epoch, tasks, statuses, sd, create) ==
    [group |-> g, error |-> error, epoch |-> epoch, tasks |-> tasks, statuses |-> statuses,
     shutdown |-> sd, create |-> create]

\* nothing is written (the exception aborts the handler)
ErrorOutcome(g, error) == Outcome(g, error, 0, None, <<>>, shutdown, {})

\* removeStreamsMember: "The group epoch is bumped: When a member joins or leaves the group.
\* When a member is fenced or removed from the group by the group coordinator." Its assignment,
\* target entry and metadata go; SHUTDOWN_APPLICATION is forgotten once the group is empty.
RemoveMember(g, id) ==
    [g EXCEPT !.members = Drop(@, id), !.target = Drop(@, id), !.epoch = @ + 1]
ShutdownAfter(g, sd) == IF DOMAIN g.members = {} THEN None ELSE sd

Fence(g, id, rules) ==
    IF rules.fencedRemovesMember
    THEN LET g1 == RemoveMember(g, id)
         IN Outcome(g1, "FENCED_MEMBER_EPOCH", 0, None, <<>>, ShutdownAfter(g1, shutdown), {})
    ELSE ErrorOutcome(g, "FENCED_MEMBER_EPOCH")

\* throwIfStreamsGroupMemberEpochIsInvalid, with the lost-response rule: an older epoch is
\* accepted only as the previous one, with every reported task still assigned
EpochFenced(m, e, owned) ==
    \/ e > m.epoch
    \/ e < m.epoch /\ (e # m.previousEpoch \/ owned = None \/ ~SubsetOf(owned, m.assigned))

NewMember == [topologyEpoch |-> -1, state |-> "STABLE", epoch |-> 0, previousEpoch |-> -1,
              assigned |-> NoTasks, pendingRevocation |-> NoTasks, revocationEpoch |-> -1]

\* Steps 4-9: member metadata, topology configuration, the group-epoch bump, a new target
\* assignment, reconciliation, the response. old: the member before (None: it joins).
Update(orig, g, id, old, m0, topology, r, rules) ==
    LET m == IF r.joining THEN [m0 EXCEPT !.topologyEpoch = r.topologyEpoch] ELSE m0
        configured == Configure(topology)
        ready == configured.status = ""
        invalidTasks == ready /\ OutsideTopology(r)
        validated == IF ready THEN topology.epoch ELSE -1
        lags == Lags(r)
        metadata == Metadata(topology)
        \* KIP: the group epoch is bumped "When a member joins or leaves the group", "When a
        \* member updates its topology metadata, rack ID, client tags or process ID", "When the
        \* partition metadata is updated", "When a member with an assigned warm-up task reports
        \* a task changelog offset and task changelog end offset whose difference is less than
        \* acceptable.recovery.lag", "When an assignment configuration for the group is
        \* updated"; Kafka also for a newly validated topology epoch
        bump == \/ old = None
                \/ old.topologyEpoch # m.topologyEpoch
                \/ g.topology # None /\ topology # g.topology
                \/ metadata # g.metadata
                \/ \E t \in m.assigned.warmup \cap TargetOf(g, id).warmup : t \in DOMAIN lags /\ lags[t] <= 0
                \/ Configs # g.configs
                \/ validated # g.validatedEpoch
        g1 == [g EXCEPT !.topology = topology, !.metadata = metadata, !.members = Put(@, id, m),
                        !.epoch = IF bump THEN @ + 1 ELSE @,
                        !.validatedEpoch = IF bump THEN validated ELSE @,
                        !.configs = IF bump THEN Configs ELSE @]
        \* "Every time the group epoch is bumped, a new task assignment is computed"
        g2 == IF g1.epoch > g1.assignmentEpoch
              THEN [g1 EXCEPT !.target = NewTarget(g1, ready, Proc(id[1]), lags, rules), !.assignmentEpoch = g1.epoch]
              ELSE g1
        m1 == Reconciled(g2, id, m, Owned(r), rules)
        g3 == [g2 EXCEPT !.members = Put(@, id, m1)]
        sd == IF r.shutdown THEN id ELSE shutdown
        \* statuses in Kafka's order: "If the topology epoch in the request is less than the
        \* topology epoch of the group, set state STALE_TOPOLOGY", the configuration's,
        \* SHUTDOWN_APPLICATION (to every member until the group is empty)
        statuses == (IF m1.topologyEpoch < topology.epoch THEN <<"STALE_TOPOLOGY">> ELSE <<>>)
                    \o (IF ready THEN <<>> ELSE <<configured.status>>)
                    \o (IF sd # None THEN <<"SHUTDOWN_APPLICATION">> ELSE <<>>)
        \* the task lists on join or when the assigned tasks changed ("Null if unchanged since
        \* last heartbeat"; unlike KIP-848's consumer path there is no full-request case)
        changed == r.epoch = 0 \/ old = None \/ old.assigned # m1.assigned
    IN IF invalidTasks THEN ErrorOutcome(orig, "INVALID_REQUEST")
       ELSE Outcome(g3, "", m1.epoch, IF changed THEN m1.assigned ELSE None, statuses, sd, configured.create)

\* Step 2 (epoch 0): "Look up or create the group", the topology-epoch decision, "Creates the
\* member"; a known member rejoining starts over with nothing assigned (KAFKA-19233's fix);
\* unfixed, its rejoin meets the member-epoch check
Join(g, id, r, rules) ==
    LET base == IF g.dead THEN NewGroup ELSE g
        top == TopologyOf(r.topologyEpoch, r.redeployed)
        d == Decide(rules, top, base.topology)
        topology == IF d.kind \in {"INITIALIZE", "UPDATE"} THEN top ELSE base.topology
        known == id \in DOMAIN base.members
        k == IF known THEN base.members[id] ELSE NewMember
    IN IF d.kind = "REJECT" THEN ErrorOutcome(g, d.error)
       ELSE IF known /\ ~rules.epoch0RejoinResets
       THEN IF EpochFenced(k, 0, NoTasks) THEN Fence(base, id, rules)
            ELSE Update(g, base, id, k, k, topology, r, rules)
       ELSE Update(g, base, id, IF known THEN k ELSE None,
                   [k EXCEPT !.state = "STABLE", !.epoch = 0, !.previousEpoch = -1,
                             !.assigned = NoTasks, !.pendingRevocation = NoTasks],
                   topology, r, rules)

\* Step 3: "GROUP_ID_NOT_FOUND is returned if the group ID does not exist anymore"; "If the
\* member does not exist, returns UNKNOWN_MEMBER_ID"; a leave (-1) removes it; "Checks whether
\* the member epoch matches ... FENCED_MEMBER_EPOCH is returned otherwise"
Existing(g, id, r, rules) ==
    IF g.dead THEN ErrorOutcome(g, "GROUP_ID_NOT_FOUND")
    ELSE IF id \notin DOMAIN g.members THEN ErrorOutcome(g, "UNKNOWN_MEMBER_ID")
    ELSE IF r.epoch < 0
    THEN LET g1 == RemoveMember(g, id)
             \* "A flag to request shutdown of the whole application (only if the member epoch
             \* is the group leave epoch)" (KAFKA-19190's fix)
             sd == IF r.shutdown /\ rules.leaveRecordsShutdown THEN id ELSE shutdown
         IN Outcome(g1, "", -1, None, <<>>, ShutdownAfter(g1, sd), {})
    ELSE IF EpochFenced(g.members[id], r.epoch, Owned(r)) THEN Fence(g, id, rules)
    ELSE Update(g, g, id, g.members[id], g.members[id], g.topology, r, rules)

Heartbeat(g, id, r, rules) ==
    IF Invalid(r, rules) THEN ErrorOutcome(g, "INVALID_REQUEST")
    ELSE IF r.epoch = 0 THEN Join(g, id, r, rules)
    ELSE Existing(g, id, r, rules)

-----------------------------------------------------------------------------
(***************************************************************************)
(* The Streams client's member (StreamsMembershipManager,                   *)
(* StreamsGroupHeartbeatRequestManager)                                     *)
(***************************************************************************)
\* leaveGroupOnClose's heartbeat: epoch -1, no tasks (a shutdown request may ride on it)
LeaveRequest(c, sd) ==
    [epoch |-> -1, owned |-> NoTasks, topologyEpoch |-> c.topologyEpoch, shutdown |-> sd, caught |-> {},
     joining |-> FALSE, unsent |-> {}, redeployed |-> FALSE]

\* The heartbeat it sends now: joining, epoch 0, no tasks ("ActiveTasks, StandbyTasks and
\* WarmupTasks have to be non-null and empty when joining"), its topology; leaving, epoch -1;
\* otherwise its epoch, the tasks it owns and (with warm-ups) their offsets. With
\* rules.sendAllTaskLists FALSE (KAFKA-20870) a list unchanged since last sent is left null.
RequestOf(c, rules) ==
    IF c.status = "JOINING"
    THEN [epoch |-> c.epoch, owned |-> NoTasks, topologyEpoch |-> c.topologyEpoch, shutdown |-> c.shutdown,
          caught |-> {}, joining |-> TRUE, unsent |-> {}, redeployed |-> c.redeployed]
    ELSE IF c.status = "LEAVING" THEN LeaveRequest(c, FALSE)
    ELSE [epoch |-> c.epoch, owned |-> c.owned, topologyEpoch |-> c.topologyEpoch, shutdown |-> c.shutdown,
          caught |-> c.caught, joining |-> FALSE, redeployed |-> FALSE,
          unsent |-> IF ~rules.sendAllTaskLists /\ c.sent # None THEN {x \in Roles : c.owned[x] = c.sent[x]} ELSE {}]

\* onHeartbeatRequestGenerated: a leave heartbeat, once sent, ends the membership (the client
\* is down, to restart, or stopped for good); KAFKA-20870's client remembers the lists it sent
AfterSend(c, r, rules) ==
    IF r.epoch = -1 /\ ~r.joining
    THEN [c EXCEPT !.status = IF c.shutdown THEN "STOPPED" ELSE "DOWN", !.epoch = 0, !.request = r]
    ELSE IF ~rules.sendAllTaskLists THEN [c EXCEPT !.request = r, !.sent = r.owned]
    ELSE [c EXCEPT !.request = r]

\* leaveGroupOnClose: clear the assignment, then the leave heartbeat; a restart follows with te
Close(c, te) == [c EXCEPT !.status = "LEAVING", !.owned = NoTasks, !.caught = {}, !.topologyEpoch = te]

\* onHeartbeatSuccess / onHeartbeatFailure. A negative epoch answers a leave heartbeat
\* (ignored since KAFKA-19335's fix); FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID:
\* transitionToFenced (onAllTasksLost, epoch 0, rejoin); any other error is fatal;
\* SHUTDOWN_APPLICATION: close and never restart; the task lists: maybeReconcile revokes
\* (closes) owned - assigned before it assigns, so the next heartbeat reports them gone.
OnResponse(c0, rep, rules) ==
    LET c == [c0 EXCEPT !.reply = None]
    IN IF rep.error = "" /\ rep.epoch < 0
       THEN IF rules.ignoreNegativeEpochResponse THEN c ELSE [c EXCEPT !.epoch = rep.epoch]
       ELSE IF rep.error \in {"FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"}
       THEN [c EXCEPT !.status = "JOINING", !.epoch = 0, !.owned = NoTasks, !.caught = {}, !.sent = None]
       ELSE IF rep.error # "" THEN [c EXCEPT !.status = "FAILED", !.owned = NoTasks, !.caught = {}]
       ELSE IF "SHUTDOWN_APPLICATION" \in {rep.statuses[i] : i \in DOMAIN rep.statuses}
       THEN [c EXCEPT !.status = "LEAVING", !.owned = NoTasks, !.caught = {}, !.shutdown = TRUE]
       ELSE LET e == [c EXCEPT !.status = "MEMBER", !.epoch = rep.epoch]
            IN IF rep.tasks = None THEN e
               ELSE [e EXCEPT !.owned = rep.tasks, !.caught = @ \cap (rep.tasks.standby \cup rep.tasks.warmup)]

\* a MEMBER client at the target assignment epoch, running exactly its target, judged after it
\* reads the response it has in flight, if any
Converged(cs, s) ==
    LET c == IF cs[s].reply # None THEN OnResponse(cs[s], cs[s].reply, Rules) ELSE cs[s]
        id == <<s, c.incarnation>>
    IN /\ c.status = "MEMBER"
       /\ ~group.dead /\ id \in DOMAIN group.members
       /\ c.epoch = group.assignmentEpoch
       /\ group.members[id].state = "STABLE" /\ group.members[id].epoch = group.assignmentEpoch
       /\ c.owned = TargetOf(group, id)

\* the round monitor (step.py's _monitor): a round ends once every running client has read the
\* response to a heartbeat it sent in the round
Monitor(s, cs, w) ==
    LET b == beaten \cup ({s} \cap fresh)
        want == {x \in Slots : Running(cs[x])}
    IN IF w # {} THEN [calm |-> 0, beaten |-> {}, fresh |-> {}]
       ELSE IF want \subseteq b THEN [calm |-> IF calm + 1 < K THEN calm + 1 ELSE K, beaten |-> {}, fresh |-> {}]
       ELSE [calm |-> calm, beaten |-> b, fresh |-> fresh]

\* the newest topology epoch any client runs (a rolling update is under way below it)
Newest == LET es == {clients[s].topologyEpoch : s \in Slots} IN CHOOSE e \in es : \A x \in es : x <= e

\* a disturbance: the convergence monitor starts over
Disturbed == calm' = 0 /\ beaten' = {} /\ fresh' = {}

\* the group after removing a member by a timer (session or rebalance timeout)
Removed(id) ==
    LET g1 == RemoveMember(group, id) IN group' = g1 /\ shutdown' = ShutdownAfter(g1, shutdown)

-----------------------------------------------------------------------------
(* Actions: one per model action kind *)

\* the client sends its heartbeat
SendWith(s, rules) ==
    /\ Running(clients[s]) /\ Idle(clients[s])
    /\ clients' = [clients EXCEPT ![s] = AfterSend(@, RequestOf(@, rules), rules)]
    /\ fresh' = fresh \cup {s}
    /\ UNCHANGED <<group, shutdown, topics, creating, budget, calm, beaten, wedged, marks>>

Send(s) == SendWith(s, Rules)

\* the coordinator handles it and answers; the broker sends a CreateTopics for the missing
\* internal topics, "only one such request in-flight at a time" (Kafka 4.2+, apache/kafka PR
\* #20663; 4.1 sends one on every heartbeat, which leaves the topics in flight as they are)
HandleWith(s, rules) ==
    /\ clients[s].request # None
    /\ LET c == clients[s]
           r == c.request
           out == Heartbeat(group, IdOf(s), r, rules)
           after == out.group
           \* the response to a leave heartbeat reaches only a client that rejoined meanwhile
           waiting == Running(c) /\ (r.epoch >= 0 \/ c.status = "JOINING")
           ready == GroupState(group) = "NOT_READY" /\ GroupState(after) \notin {"NOT_READY", "EMPTY", "DEAD"}
           promoted == /\ ~group.dead /\ ~after.dead /\ group.target # after.target
                       /\ \E id \in DOMAIN after.target : TargetOf(group, id).warmup \cap after.target[id].active # {}
       IN /\ group' = after
          /\ shutdown' = out.shutdown
          /\ creating' = [t \in DOMAIN creating \cup out.create |->
                              IF t \in DOMAIN creating THEN creating[t] ELSE topics[Source(t[2])]]
          /\ clients' = [clients EXCEPT ![s].request = None,
                                        ![s].reply = IF waiting
                                                     THEN [error |-> out.error, epoch |-> out.epoch,
                                                           tasks |-> out.tasks, statuses |-> out.statuses]
                                                     ELSE None]
          /\ marks' = marks \cup (IF ready THEN {"BECAME_READY"} ELSE {}) \cup (IF promoted THEN {"WARMUP_PROMOTED"} ELSE {})
          \* a leave heartbeat asking for the shutdown changes the membership: a new round
          /\ IF r.epoch < 0 /\ r.shutdown THEN Disturbed ELSE UNCHANGED <<calm, beaten, fresh>>
    /\ UNCHANGED <<topics, budget, wedged>>

Handle(s) == HandleWith(s, Rules)

\* the client reads the response
DeliverWith(s, rules) ==
    /\ clients[s].reply # None
    /\ LET c == OnResponse(clients[s], clients[s].reply, rules)
           cs == [clients EXCEPT ![s] = c]
           w == IF s \in wedged /\ (Converged(cs, s) \/ c.status # "MEMBER") THEN wedged \ {s} ELSE wedged
           mon == Monitor(s, cs, w)
       IN /\ clients' = cs
          /\ wedged' = w
          /\ calm' = mon.calm /\ beaten' = mon.beaten /\ fresh' = mon.fresh
    /\ UNCHANGED <<group, shutdown, topics, creating, budget, marks>>

Deliver(s) == DeliverWith(s, Rules)

\* a client that is down starts again: a new incarnation (a new member id), joining
Restart(s) ==
    /\ clients[s].status = "DOWN" /\ clients[s].request = None
    /\ clients' = [clients EXCEPT ![s] = NewClient(@.incarnation + 1, @.topologyEpoch, @.redeployed)]
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, topics, creating, budget, wedged, marks>>

\* KIP-1071 (Topology updates): the rolling update goes on: a client behind the newest topology
\* epoch closes, to restart with it
Bounce(s) ==
    /\ clients[s].status \in {"MEMBER", "JOINING"} /\ Idle(clients[s])
    /\ clients[s].topologyEpoch < Newest
    /\ clients' = [clients EXCEPT ![s] = Close(@, Newest)]
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, topics, creating, budget, wedged, marks>>

\* the session of a member whose client is gone (an old incarnation, a client not running)
\* times out (streamsGroupSessionTimeoutExpired)
Expire(s) ==
    /\ ~group.dead
    /\ \E id \in DOMAIN group.members :
          /\ id[1] = s /\ (id[2] # clients[s].incarnation \/ ~Running(clients[s]))
          /\ Removed(id)
    /\ Disturbed
    /\ UNCHANGED <<topics, creating, clients, budget, wedged, marks>>

(***************************************************************************)
(* The rebalance timer (scheduleStreamsGroupRebalanceTimeout) of a member   *)
(* that must revoke but cannot learn of it: its response was lost, and the *)
(* coordinator sends tasks only when they change. The member is removed.  *)
(***************************************************************************)
RebalanceTimeout(s) ==
    /\ ~group.dead
    /\ IdOf(s) \in DOMAIN group.members
    /\ Running(clients[s])
    /\ group.members[IdOf(s)].state = "UNREVOKED"
    /\ s \in wedged
    /\ Removed(IdOf(s))
    /\ Disturbed
    /\ UNCHANGED <<topics, creating, clients, budget, wedged, marks>>

\* the CreateTopics for the internal topics completes
TopicsCreated ==
    /\ DOMAIN creating # {}
    /\ topics' = [t \in DOMAIN topics \cup DOMAIN creating |-> IF t \in DOMAIN creating THEN creating[t] ELSE topics[t]]
    /\ creating' = NoFn
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, clients, budget, wedged, marks>>

\* a client's standby and warm-up tasks finish restoring (the next heartbeat's offsets show it)
CatchUp(s) ==
    /\ Warmups > 0 /\ clients[s].status = "MEMBER"
    /\ (clients[s].owned.standby \cup clients[s].owned.warmup) \ clients[s].caught # {}
    /\ clients' = [clients EXCEPT ![s].caught = clients[s].owned.standby \cup clients[s].owned.warmup]
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, topics, creating, budget, wedged, marks>>

\* fault: the response is lost (the client sends its next heartbeat as before)
LoseResponse(s) ==
    /\ "lose_response" \in Faults /\ budget > 0
    /\ clients[s].reply # None
    /\ clients' = [clients EXCEPT ![s].reply = None]
    /\ wedged' = wedged \cup {s}
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, topics, creating, marks>>

\* fault: the session of a live member times out; its client learns of it at its next heartbeat
SessionTimeout(s) ==
    /\ "session_timeout" \in Faults /\ budget > 0
    /\ Running(clients[s]) /\ ~group.dead /\ IdOf(s) \in DOMAIN group.members
    /\ Removed(IdOf(s))
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<topics, creating, clients, wedged, marks>>

\* fault: the client's process dies (a request in flight still arrives; its response is lost)
Crash(s) ==
    /\ "crash" \in Faults /\ budget > 0
    /\ Running(clients[s])
    /\ clients' = [clients EXCEPT ![s].status = "DOWN", ![s].epoch = 0, ![s].owned = NoTasks,
                                  ![s].caught = {}, ![s].reply = None]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, topics, creating, wedged, marks>>

\* a deleted source topic is created again (with its first partition count)
CreateTopic ==
    /\ Source(0) \notin DOMAIN topics
    /\ topics' = [t \in DOMAIN topics \cup {Source(0)} |-> IF t = Source(0) THEN Partitions[1] ELSE topics[t]]
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, creating, clients, budget, wedged, marks>>

\* operation: the first source topic is deleted (the group goes NOT_READY, MISSING_SOURCE_TOPICS),
\* or, stateless, it gains a partition (one more task)
TopicChange ==
    /\ "topic_change" \in Operations /\ budget > 0 /\ Source(0) \in DOMAIN topics
    /\ \/ topics' = [t \in DOMAIN topics \ {Source(0)} |-> topics[t]]
       \/ /\ CanAddPartition /\ topics[Source(0)] = Partitions[1]
          /\ topics' = [topics EXCEPT ![Source(0)] = @ + 1]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, creating, clients, wedged, marks>>

\* an operation on a member (the caller checks op \in Operations first): spends the budget,
\* disturbs the monitor
Operate(s, c) ==
    /\ clients' = [clients EXCEPT ![s] = c]
    /\ budget' = budget - 1
    /\ Disturbed
    /\ UNCHANGED <<group, shutdown, topics, creating, wedged, marks>>

OnlyMember(s) == clients[s].status = "MEMBER" /\ Idle(clients[s])

\* operation: KIP-1071's rolling topology update starts: a client closes to restart with
\* topology epoch + 1 (while every client runs the same topology epoch)
TopologyUpdate(s) ==
    /\ "topology_update" \in Operations /\ budget > 0 /\ OnlyMember(s)
    /\ \A x \in Slots : clients[x].topologyEpoch = clients[s].topologyEpoch
    /\ Operate(s, Close(clients[s], clients[s].topologyEpoch + 1))

\* operation: the application asks for SHUTDOWN_APPLICATION on its next heartbeat
ShutdownRequest(s) ==
    /\ "shutdown_request" \in Operations /\ budget > 0
    /\ clients[s].status = "MEMBER" /\ ~clients[s].shutdown /\ shutdown = None
    /\ Operate(s, [clients[s] EXCEPT !.shutdown = TRUE])

\* operation: a client closes to restart with the same topology (a rolling bounce)
Roll(s) ==
    /\ "roll" \in Operations /\ budget > 0 /\ OnlyMember(s)
    /\ Operate(s, Close(clients[s], clients[s].topologyEpoch))

\* operation: a client closes to restart with another topology under the same topology epoch
\* (state stores added or removed: a redeploy without an epoch bump, KAFKA-21370)
Redeploy(s) ==
    /\ "redeploy" \in Operations /\ budget > 0 /\ OnlyMember(s) /\ ~clients[s].redeployed
    /\ Operate(s, [Close(clients[s], clients[s].topologyEpoch) EXCEPT !.redeployed = TRUE])

\* operation: onPollTimerExpired: the member sends its leave heartbeat and, once the application
\* polls again, rejoins with the same member id (maybeRejoinStaleMember), its tasks lost
PollTimeout(s) ==
    /\ "poll_timeout" \in Operations /\ budget > 0 /\ OnlyMember(s)
    /\ Operate(s, [clients[s] EXCEPT !.status = "JOINING", !.epoch = 0, !.owned = NoTasks,
                                   !.caught = {}, !.request = LeaveRequest(clients[s], FALSE), !.sent = None])

\* operation: a StreamThread's uncaught-exception handler asks for SHUTDOWN_APPLICATION and the
\* client closes at once: the request rides on its leave heartbeat (KAFKA-19190)
ShutdownLeave(s) ==
    /\ "shutdown_leave" \in Operations /\ budget > 0 /\ OnlyMember(s) /\ ~clients[s].shutdown /\ shutdown = None
    /\ Operate(s, [clients[s] EXCEPT !.status = "STOPPED", !.epoch = 0, !.owned = NoTasks,
                                     !.caught = {}, !.shutdown = TRUE, !.request = LeaveRequest(clients[s], TRUE),
                                     !.sent = None])

Next ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
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

Spec == Init /\ [][Next]_vars

\* TLC's CONSTRAINT: the scope's bound (the model's within_bounds)
StateConstraint == group.epoch < MaxEpoch

-----------------------------------------------------------------------------
(* Invariants, named as the model's properties *)

Live == {s \in Slots : Running(clients[s]) /\ ~group.dead /\ IdOf(s) \in DOMAIN group.members}
Members(g) == IF g.dead THEN {} ELSE DOMAIN g.members

\* KIP-1071 (Reconciliation): "An active task is assigned as soon as no other client owns it
\* anymore, that is, once the previous owner (if any) has confirmed the revocation of the
\* corresponding active task." Claim: no task runs as active on two live clients at once.
no_task_active_twice ==
    \A s, t \in Live : s # t => clients[s].owned.active \cap clients[t].owned.active = {}

\* KIP-1071 (Assignment): "A stateful task (in the various roles) cannot be assigned to two
\* clients with the same processId." Claim: on no process is a task held as active by one member
\* and as standby or warm-up by one (current assignment), nor so targeted.
standby_not_with_active ==
    \A p \in {Proc(id[1]) : id \in Members(group)} :
        LET ms == {id \in Members(group) : Proc(id[1]) = p}
            active == UNION {group.members[id].assigned.active \cup group.members[id].pendingRevocation.active : id \in ms}
            copies == UNION {group.members[id].assigned.standby \cup group.members[id].assigned.warmup : id \in ms}
            tActive == UNION {TargetOf(group, id).active : id \in ms}
            tCopies == UNION {TargetOf(group, id).standby \cup TargetOf(group, id).warmup : id \in ms}
        IN active \cap copies = {} /\ tActive \cap tCopies = {}

\* KIP-1071: "all members will get an empty assignment when the group is in NOT_READY state".
\* Claim: in NOT_READY the target assignment gives every member nothing.
not_ready_assigns_nothing ==
    GroupState(group) = "NOT_READY" => \A id \in DOMAIN group.target : group.target[id] = NoTasks

\* KIP-1071: "The group epoch is bumped: When a member joins or leaves the group"; "Every time the
\* group epoch is bumped, a new task assignment is computed". Removing the last member bumps the
\* group epoch and no heartbeat is left to compute a target (Kafka's removeStreamsMember), so the
\* model narrows the claim: in EMPTY no target entry is left.
empty_epochs_equal ==
    GroupState(group) = "EMPTY" => DOMAIN group.target = {}

\* KIP-1071 (Reconciliation): "Ultimately, each member will converge to their target epoch and
\* assignment." Claim (bounded liveness): with membership, topology epochs and topics quiet,
\* after K full heartbeat rounds every running client is at the target epoch running its target
\* tasks, and the group is STABLE.
MembershipStable ==
    /\ \A s \in Slots : clients[s].status \notin {"DOWN", "LEAVING", "FAILED"}
    /\ \A s, t \in Slots : clients[s].topologyEpoch = clients[t].topologyEpoch
    /\ DOMAIN creating = {} /\ Source(0) \in DOMAIN topics
    /\ \A id \in Members(group) : clients[id[1]].incarnation = id[2] /\ Running(clients[id[1]])

converges_within_k ==
    (calm >= K /\ MembershipStable) =>
        (/\ \A s \in Slots : Running(clients[s]) => Converged(clients, s)
         /\ (\E s \in Slots : Running(clients[s])) => GroupState(group) = "STABLE")

\* a step in which the coordinator handled slot s's heartbeat (the only step that takes a
\* request off the wire), and the response it sent: the one the client keeps, else (a response
\* that reaches nobody) the handler's
Handled(s) == clients[s].request # None /\ clients'[s].request = None
Response(s) == IF clients'[s].reply # None THEN clients'[s].reply
               ELSE Heartbeat(group, IdOf(s), clients[s].request, Rules)

\* the error the profile's validation and topology-epoch decision table prescribe (a join is
\* never fenced by its member epoch)
Prescribed(g, id, r) ==
    IF Invalid(r, Rules) THEN "INVALID_REQUEST"
    ELSE IF r.epoch = 0
    THEN Decide(Rules, TopologyOf(r.topologyEpoch, r.redeployed), IF g.dead THEN None ELSE g.topology).error
    ELSE IF g.dead THEN "GROUP_ID_NOT_FOUND"
    ELSE IF id \notin DOMAIN g.members THEN "UNKNOWN_MEMBER_ID"
    ELSE IF r.epoch < 0 THEN ""
    ELSE IF EpochFenced(g.members[id], r.epoch, Owned(r)) THEN "FENCED_MEMBER_EPOCH"
    ELSE IF Configure(g.topology).status = "" /\ OutsideTopology(r) THEN "INVALID_REQUEST"
    ELSE ""

\* Step claims
\* KIP-1071 (Reconciliation): "The member must first confirm revocation of these active tasks by
\* removing them from the set of active tasks sent in the heartbeat request"; "Now, active tasks
\* will be incrementally assigned to the member." Claim: a task the coordinator newly assigns as
\* active to a member is held by no other member.
revoke_before_reassign ==
    group' # group =>
        \A id \in Members(group') :
            LET before == IF id \in Members(group) THEN group.members[id].assigned.active ELSE {}
                new == group'.members[id].assigned.active \ before
            IN \A o \in Members(group') \ {id} :
                   new \cap (group'.members[o].assigned.active \cup group'.members[o].pendingRevocation.active) = {}

\* KIP-1071 (Topology updates): "members with a topology epoch that does not correspond to the
\* group's topology epoch will not get any new tasks assigned". Claim: a member behind the
\* group's topology epoch gets no task, in a role, that its previous target did not give it.
stale_topology_no_new_tasks ==
    (group' # group /\ ~group'.dead /\ group'.topology # None) =>
        \A id \in DOMAIN group'.members :
            group'.members[id].topologyEpoch < group'.topology.epoch =>
                LET old == IF id \in Members(group) THEN TargetOf(group, id) ELSE NoTasks
                IN SubsetOf(TargetOf(group', id), old)

\* KIP-1071: "In NOT_READY, all heartbeats will be handled as usual ... all members will get an
\* empty assignment". Claim: a response sent while the group is NOT_READY carries no task.
not_ready_responses_empty ==
    \A s \in Slots :
        (Handled(s) /\ GroupState(group') = "NOT_READY") =>
            (Response(s).tasks = None \/ Union(Response(s).tasks) = {})

\* KIP-1071 (MemberEpoch): "0 to join the group"; the member epoch "will be then maintained by the
\* server, incremented as the member reconciles"; "It will be reset to 0 if the member gets
\* fenced". Claims: an incarnation's epoch never decreases except to 0; a member's epoch at the
\* coordinator never decreases except to 0 (a rejoin).
member_epoch_never_decreases ==
    /\ \A s \in Slots : clients'[s].incarnation = clients[s].incarnation /\ clients'[s].epoch < clients[s].epoch
                           => clients'[s].epoch = 0
    /\ group' # group =>
           \A id \in Members(group) \cap Members(group') :
               group'.members[id].epoch < group.members[id].epoch => group'.members[id].epoch \in {0, -2}

\* KIP-1071 (Request Validation): "ActiveTasks, StandbyTasks and WarmupTasks have to be non-null
\* and empty when joining (member epoch is 0)". Claims: a join heartbeat carries epoch 0, and a
\* client sending epoch 0 runs no task; a member handled at epoch 0 holds nothing pending
\* revocation afterwards.
join_epoch_is_rejoin ==
    \A s \in Slots :
        /\ (clients[s].request = None /\ clients'[s].request # None) =>
               /\ clients'[s].request.joining => clients'[s].request.epoch = 0
               /\ clients'[s].request.epoch = 0 => clients'[s].owned = NoTasks
        /\ (Handled(s) /\ clients[s].request.epoch = 0 /\ IdOf(s) \in Members(group')) =>
               group'.members[IdOf(s)].pendingRevocation = NoTasks

\* KIP-1071 (Request Validation, Request Handling): each failed check answers with its own error:
\* "INVALID_REQUEST is returned should the request not obey the following invariants", "If ER<EG,
\* fail with STREAMS_TOPOLOGY_FENCED", "If the member does not exist, returns UNKNOWN_MEMBER_ID",
\* "FENCED_MEMBER_EPOCH is returned otherwise". Claim: every response carries the error the
\* profile's validation and decision table prescribe (a join is never fenced).
error_as_profile_prescribes ==
    \A s \in Slots : Handled(s) => Response(s).error = Prescribed(group, IdOf(s), clients[s].request)

\* KIP-1071 (Status): "4 - SHUTDOWN_APPLICATION - A client requested the shutdown of the whole
\* application." Claim: once a member has requested the shutdown, every successful response to a
\* member of the group carries SHUTDOWN_APPLICATION.
shutdown_reaches_every_member ==
    \A s \in Slots :
        (/\ Handled(s) /\ (shutdown # None \/ clients[s].request.shutdown)
         /\ Response(s).error = "" /\ clients[s].request.epoch >= 0)
        => "SHUTDOWN_APPLICATION" \in {Response(s).statuses[i] : i \in DOMAIN Response(s).statuses}

\* KIP-1071 (StreamsGroupHeartbeatRequest): "A flag to request shutdown of the whole application
\* (only if the member epoch is the group leave epoch)". Claim: once the coordinator accepts a
\* heartbeat asking for the shutdown (a leave too), it keeps a requester while the group has members.
shutdown_request_kept ==
    \A s \in Slots :
        (Handled(s) /\ clients[s].request.shutdown /\ Response(s).error = "" /\ Members(group') # {})
        => shutdown' # None

\* KIP-1071 (Assignment): "Each warm-up task that has reached acceptable.recovery.lag must be
\* turned into an active task or a standby task, or be unassigned from the member." Claim: a new
\* target computed in a heartbeat that reports a warm-up task of the member's target caught up no
\* longer has that task as the member's warm-up.
warmup_caught_up_resolved ==
    \A s \in Slots :
        (Handled(s) /\ ~group.dead /\ ~group'.dead /\ group'.assignmentEpoch # group.assignmentEpoch) =>
            LET lags == Lags(clients[s].request)
                kept == TargetOf(group, IdOf(s)).warmup \cap TargetOf(group', IdOf(s)).warmup
            IN \A t \in kept : ~(t \in DOMAIN lags /\ lags[t] <= 0)

\* For TLC
\* the step claims as one temporal property (MCStreamsGroup.cfg: PROPERTY StepClaims)
StepClaimsAction ==
    /\ revoke_before_reassign /\ stale_topology_no_new_tasks /\ not_ready_responses_empty
    /\ member_epoch_never_decreases /\ join_epoch_is_rejoin /\ error_as_profile_prescribes
    /\ shutdown_reaches_every_member /\ shutdown_request_kept /\ warmup_caught_up_resolved
StepClaims == [][StepClaimsAction]_vars

\* Liveness under fairness (groupcheck/liveness.py's settles_under_fairness): once faults stop,
\* the group converges. Converged is the model's converged_group, "settled but for heartbeats in
\* flight": every client that is not out for good (STOPPED, FAILED) is Converged and the group is
\* STABLE, or no such client is left.
GroupConverged ==
    LET live == {s \in Slots : clients[s].status \notin {"STOPPED", "FAILED"}}
    IN live = {} \/ (GroupState(group) = "STABLE" /\ \A s \in live : Converged(clients, s))

\* WF_vars(Handle(s)), stated without ENABLED: TLC 2.15 evaluates ENABLED Handle(s) by expanding
\* the handler's LET definitions without caching and takes minutes per state. Handle is enabled
\* (and changes vars) exactly when a request is on the wire, and its steps are those that take the
\* request off it (Handled), so this is WF_vars(Handle(s)) as written: <>[]ENABLED => []<>step.
HandleFair(s) == []<>(clients[s].request = None) \/ []<><<Handled(s)>>_vars

\* weak fairness per (step kind, client slot) on every step that is neither a fault nor an
\* operation (both spend the finite Budget, so faults stop in every behaviour); the
\* coordinator's topic steps are one instance each
Fairness ==
    /\ \A s \in Slots : WF_vars(Send(s)) /\ HandleFair(s) /\ WF_vars(Deliver(s))
    /\ \A s \in Slots : WF_vars(Restart(s)) /\ WF_vars(Bounce(s)) /\ WF_vars(Expire(s))
    /\ \A s \in Slots : WF_vars(RebalanceTimeout(s)) /\ WF_vars(CatchUp(s))
    /\ WF_vars(CreateTopic) /\ WF_vars(TopicsCreated)

FairSpec == Init /\ [][Next]_vars /\ Fairness

\* the claim (PROPERTY of MCStreamsGroupLiveness.cfg): every fair behaviour converges again
\* and again (after the last fault it converges, and after any later step that unsettles it)
SettlesUnderFairness == []<>GroupConverged

\* the same claim for a config of INIT and NEXT (MCStreamsGroupLiveness.cfg): TLC checks the
\* fairness as the property's premise
FairSettles == Fairness => SettlesUnderFairness

\* Witnesses
\* a rolling topology update finished: the group's topology epoch is above 0, every client runs
\* it at its target, and the group is STABLE
topology_update_completes ==
    /\ ~group.dead /\ group.topology # None /\ group.topology.epoch > 0 /\ GroupState(group) = "STABLE"
    /\ \A s \in Slots : clients[s].topologyEpoch = group.topology.epoch /\ Converged(clients, s)

\* a new target assignment made a member's warm-up task its active task
warmup_promoted == "WARMUP_PROMOTED" \in marks

\* the group left NOT_READY for a ready state (its internal topics created)
not_ready_then_ready == "BECAME_READY" \in marks
=============================================================================
