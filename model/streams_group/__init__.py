"""KIP-1071 streams groups: the StreamsGroupHeartbeat RPC, group / assignment / member
epochs on the shared epoch core (``model/epochs/``), topology epochs and fencing,
NOT_READY states, reconciliation of active, standby and warm-up tasks.

Built in steps (issue 9): ``state`` holds the RPC's messages; request validation,
the topology-epoch decision table, the coordinator, the member and ``MODEL`` follow.
"""
