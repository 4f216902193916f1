"""The role ``streams-assignor``: Kafka Streams' pluggable task assignor (KIP-924,
``org.apache.kafka.streams.processor.assignment.TaskAssignor#assign(ApplicationState)``,
Kafka 3.8+) as the placement the model's Streams leader runs.

Version negotiation, the AssignmentInfo encoding, the spread over stream threads and
cooperative withholding stay Kafka's code (``model/streams_classic/leader.py``); only the
placement of active and standby tasks on Kafka Streams clients is the target's.

    claims.py     the per-invocation claims (KIP-924's AssignmentError codes, and more)
    recorder.py   the model's round <-> the assign argument and answer; ``conform_model``
    scenarios.py  the streams scopes the role is driven through, and what each excludes
    targets.py    reference:streams-sticky, --assignor pkg.mod:Class, --adapter CMD
    role.py       the role as the driver (``driver.py``) runs it
"""
