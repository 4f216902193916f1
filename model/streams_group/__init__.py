"""KIP-1071 streams groups: the StreamsGroupHeartbeat RPC, group / assignment / member
epochs on the shared epoch core (``model/epochs/``), topology epochs and fencing,
NOT_READY states, reconciliation of active, standby and warm-up tasks.

In progress (issue 9): see README.md for what exists and what comes next.
"""
