------------------------------ MODULE Delivery ------------------------------
(***************************************************************************)
(* The record layer (issue 30): partition logs, the application's cursors  *)
(* and its offset commits, as operators over values (no variables). The    *)
(* same file is in specs/consumer/ and specs/consumer_group/ (a test holds  *)
(* them byte-equal); each protocol's spec keeps the variables (logs, apps) *)
(* and says when each operator runs. It mirrors groupcheck's               *)
(* model/delivery/ (state.py, app.py, claims.py); a member is the int the   *)
(* protocol chooses, a generation the classic generation or the KIP-848    *)
(* member epoch, a set of offsets or partitions a set (the model's masks). *)
(*                                                                         *)
(* A Log is [end, committed, base, fetcher, done, excused]: records         *)
(* 0..end-1 exist; committed is the group's offset (NoOffset: none); base   *)
(* where the group last started by auto.offset.reset; fetcher the member    *)
(* that last initialised a position from OffsetFetch (0: none); done the    *)
(* offsets processed by an owner; excused those whose redelivery a fault    *)
(* excuses. An App is [cursors, commit, reply, waiting]: cursors, partition *)
(* -> [position, processed, unfetchable, revoking] (a SubscriptionState     *)
(* entry: [processed, position) was returned by poll, not processed yet);   *)
(* commit the OffsetCommit in flight (NoValue: none), [member, generation, *)
(* offsets: partition -> offset, purpose]; reply the answer not read yet   *)
(* (NoValue: none; "" accepted, else the error's name); waiting "",        *)
(* "prepare", "reconcile" or "commit". NoValue as an App: no process.      *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    NoValue,        \* a TLC model value: "no value" (no request, no reply, no application)
    Records,        \* TRUE: the record layer is on (scope records); FALSE: logs and apps stay NoValue
    MaxRecords,     \* records per partition the run may produce
    CommitPolicy,   \* "auto", "sync-on-revoke", "after-processing" or "none"
    OffsetReset     \* auto.offset.reset: "earliest" or "latest"

NoOffset == -1      \* OffsetFetch's INVALID_OFFSET; as a position: INITIALIZING
Accepted == ""      \* an OffsetCommit answer without error

NewLog == [end |-> 0, committed |-> NoOffset, base |-> 0, fetcher |-> 0, done |-> {}, excused |-> {}]
NewCursor == [position |-> NoOffset, processed |-> NoOffset, unfetchable |-> FALSE, revoking |-> FALSE]
NewApp == [cursors |-> [p \in {} |-> NewCursor], commit |-> NoValue, reply |-> NoValue, waiting |-> ""]

\* the partitions the application has cursors on
Owns(app) == IF app = NoValue THEN {} ELSE DOMAIN app.cursors

\* the application is inside poll(): it processed every record poll gave it and owes no
\* commitSync (policy after-processing commits before polling again)
InPoll(app) ==
    /\ app # NoValue /\ app.waiting # "commit"
    /\ \A p \in DOMAIN app.cursors : app.cursors[p].processed = app.cursors[p].position

\* the offsets of p poll returned and the application has not processed yet
Held(app, p) == IF p \in Owns(app) THEN app.cursors[p].processed .. app.cursors[p].position - 1 ELSE {}

\* no commit of the application's own under way (none in flight, no answer unread)
IdleCommit(app) == app.commit = NoValue /\ app.reply = NoValue

Produce1(logs, p) == [logs EXCEPT ![p].end = @ + 1]

\* OffsetFetch: the committed offset, or auto.offset.reset (which becomes the log's base);
\* member becomes the fetcher. [position, log]
Start(log, member) ==
    IF log.committed # NoOffset
    THEN [position |-> log.committed, log |-> [log EXCEPT !.fetcher = member]]
    ELSE LET pos == IF OffsetReset = "earliest" THEN 0 ELSE log.end
         IN [position |-> pos, log |-> [log EXCEPT !.fetcher = member, !.base = pos]]

CanPoll(app, logs, p) ==
    /\ p \in Owns(app) /\ InPoll(app) /\ ~app.cursors[p].unfetchable
    /\ app.cursors[p].position = NoOffset \/ app.cursors[p].position < logs[p].end

\* one poll() on p: initialise the position if needed, then return one record if there is
\* one. [app, logs]
PollCursor(app, logs, p, member) ==
    LET c0 == app.cursors[p]
        st == Start(logs[p], member)
        init == c0.position = NoOffset
        c1 == IF init THEN [c0 EXCEPT !.position = st.position, !.processed = st.position] ELSE c0
        log == IF init THEN st.log ELSE logs[p]
        c2 == IF c1.position < log.end THEN [c1 EXCEPT !.position = @ + 1] ELSE c1
    IN [app |-> [app EXCEPT !.cursors[p] = c2], logs |-> [logs EXCEPT ![p] = log]]

CanProcess(app, p) == p \in Owns(app) /\ app.cursors[p].processed < app.cursors[p].position

\* the application processes the next record it holds of p. [app, logs]
ProcessCursor(app, logs, p) ==
    LET o == app.cursors[p].processed
    IN [app |-> [app EXCEPT !.cursors[p].processed = o + 1],
        logs |-> [logs EXCEPT ![p].done = @ \cup {o}]]

\* processing offset o now processes it twice with no fault to excuse it
Redelivered(log, o) == o \in log.done /\ o \notin log.excused

\* onPartitionsAssigned: a cursor awaiting its position for each partition of P it has none on
Assigned(app, P) ==
    [app EXCEPT !.cursors = [p \in DOMAIN @ \cup P |-> IF p \in DOMAIN app.cursors THEN app.cursors[p] ELSE NewCursor]]

\* the cursors of P are gone
Revoked(app, P) == [app EXCEPT !.cursors = [p \in DOMAIN @ \ P |-> app.cursors[p]]]

\* a fault struck the holder of P: a later redelivery of what was processed on them is excused
Excuse(logs, P) == [p \in DOMAIN logs |-> IF p \in P THEN [logs[p] EXCEPT !.excused = @ \cup logs[p].done] ELSE logs[p]]

\* a zombie processed offset o of p: its redelivery is excused
ExcuseOffset(logs, p, o) == [logs EXCEPT ![p].excused = @ \cup {o}]

\* onPartitionsLost: the cursors of P dropped without a commit, and excused. [app, logs]
Lost(app, logs, P) == [app |-> Revoked(app, P), logs |-> Excuse(logs, P \cap Owns(app))]

\* the revocation of P started: revoking, and unfetchable when pause (the reference)
MarkRevoking(app, P, pause) ==
    [app EXCEPT !.cursors = [p \in DOMAIN @ |->
        IF p \in P THEN [app.cursors[p] EXCEPT !.revoking = TRUE, !.unfetchable = @ \/ pause] ELSE app.cursors[p]]]

\* an OffsetCommit of the cursors of P that have a position: their processed offsets
\* (processed: the application's commitSync) or positions (allConsumed(): the auto-commit);
\* NoValue when there is no such cursor
CommitRequest(app, member, generation, purpose, processed, P) ==
    LET ps == {p \in DOMAIN app.cursors \cap P : app.cursors[p].position # NoOffset}
    IN IF ps = {} THEN NoValue
       ELSE [member |-> member, generation |-> generation, purpose |-> purpose,
             offsets |-> [p \in ps |-> IF processed THEN app.cursors[p].processed ELSE app.cursors[p].position]]

\* the first phase of a revocation with auto-commit: mark P, send req, wait in phase waiting
RevokeCommit(app, P, req, waiting, pause) ==
    [MarkRevoking(app, P, pause) EXCEPT !.commit = req, !.waiting = IF req # NoValue THEN waiting ELSE ""]

\* the coordinator's answer error to req: accepted stores each offset as committed
ApplyCommit(logs, req, error) ==
    IF error # Accepted THEN logs
    ELSE [p \in DOMAIN logs |-> IF p \in DOMAIN req.offsets THEN [logs[p] EXCEPT !.committed = req.offsets[p]] ELSE logs[p]]

\* the partitions req commits
CommittedSet(req) == IF req = NoValue THEN {} ELSE DOMAIN req.offsets

\* the application processed a record whose offset is not committed yet
KilledBeforeCommit(logs, app) ==
    app # NoValue /\ \E p \in DOMAIN app.cursors : app.cursors[p].processed > logs[p].committed

\* a new owner's OffsetFetch started it exactly after what was processed: every record from
\* base below start done, none above
CleanHandover(before, after, start) ==
    /\ before.fetcher \notin {0, after.fetcher}
    /\ after.committed = start
    /\ after.base .. start - 1 \subseteq after.done
    /\ \A o \in after.done : o < start

-----------------------------------------------------------------------------
(* The claims, named as the model's (model/delivery/claims.py). A holder is *)
(* [member, live, app]; holders a function slot -> holder.                  *)

\* Note: Using automatic offset commits can also give you "at-least-once" delivery, but the
\* requirement is that you must consume all data returned from each call to poll(Duration)
\* before any subsequent calls, or before closing the consumer. If you fail to do either of
\* these, it is possible for the committed offset to get ahead of the consumed position, which
\* results in missing records. (Kafka's KafkaConsumer javadoc, "Offsets and Consumer Position")
\* Claim: every record from base to below the committed offset was processed by an owner, or
\* is held by a live client that will process it.
NoRecordLost(logs, holders) ==
    \A p \in DOMAIN logs :
        logs[p].committed > logs[p].base =>
            \A o \in logs[p].base .. logs[p].committed - 1 :
                o \in logs[p].done \/ \E h \in DOMAIN holders : holders[h].live /\ o \in Held(holders[h].app, p)

\* the cursors a step fetched from or processed: [h, p] with a cursor on p before and after
\* whose position or processed moved
Moves(prev, holders) ==
    {hp \in UNION {{<<h, p>> : p \in Owns(holders[h].app)} : h \in DOMAIN holders} :
        LET h == hp[1]
            p == hp[2]
            old == prev[h].app
            new == holders[h].app.cursors[p]
        IN /\ p \in Owns(old)
           /\ new.position > old.cursors[p].position \/ new.processed > old.cursors[p].processed}

\* It is recommended that offsets should be committed in this callback to either Kafka or a
\* custom offset store to prevent duplicate data. (Kafka's ConsumerRebalanceListener
\* #onPartitionsRevoked) Used in this way Kafka provides what is often called "at-least-once"
\* delivery guarantees, as each record will likely be delivered one time but in failure cases
\* could be duplicated. (KafkaConsumer javadoc, "Manual Offset Control")
\* Claim: a record processed in this step was not processed before, unless a fault struck
\* since (excused). The caller leaves out policy "none", which redelivers by design.
NoDuplicateWithoutFailure(prevLogs, prev, holders) ==
    \A hp \in Moves(prev, holders) :
        LET old == prev[hp[1]].app.cursors[hp[2]]
            new == holders[hp[1]].app.cursors[hp[2]]
        IN old.processed # NoOffset =>
               \A o \in old.processed .. new.processed - 1 : ~Redelivered(prevLogs[hp[2]], o)

\* The point of this is for the group coordinator to fence against zombie commit requests,
\* that is, commit requests that include an offset for a partition that was since reassigned to
\* a different member. If such a guard was not in place, a zombie offset commit may overwrite
\* offsets of the new owner (KAFKA-19779); "when consumer's being kicked out of the group, since
\* it no longer owns the partitions the commit call would doom to fail" (KIP-429).
\* Claim: an accepted commit's partitions were last fetched by nobody or by the committer.
\* answered: the set of [req, error] the coordinator answered in the step.
CommitsFencedAfterHandover(prevLogs, answered) ==
    \A a \in answered :
        a.error = Accepted => \A p \in DOMAIN a.req.offsets : prevLogs[p].fetcher \in {0, a.req.member}

\* In eager rebalancing, it will always be called at the start of a rebalance and after the
\* consumer stops fetching data. (Kafka's ConsumerRebalanceListener#onPartitionsRevoked) "we mark
\* the partitions as "pending revocation," which stops the Fetcher from sending new fetches or
\* returning data from previous fetches to the user." (ConsumerCoordinator
\* #maybeMarkPartitionsPendingRevocation)
\* Claim: no record of a partition whose revocation started is returned to or processed by the
\* application.
FetchStopsAtRevocation(prev, holders) ==
    \A hp \in Moves(prev, holders) : ~prev[hp[1]].app.cursors[hp[2]].revoking
=============================================================================
