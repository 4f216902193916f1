"""The witness ``warmup_promoted``: a new target assignment turns a member's caught-up
warm-up task into its active task (KIP-1071: a caught-up warm-up "must be turned into an
active task or a standby task, or be unassigned"), and how reconciliation then hands it
over: never in one response. Per role (``model/epochs/reconcile.py``, ``difference`` /
``_next``) the warm-up copy is *pending revocation* once the target moves the task to the
active role; since the member's heartbeat reports owning it, the member goes UNREVOKED and
its response carries its kept tasks only. The active task comes in a later response, once
a heartbeat reports the warm-up gone and the old owner has revoked it (the blocking rule).
The witness is therefore marked on the target, where the promotion is decided (``step.py``,
``_promoted``); an earlier version marked it on one response and was never reached.
"""
from __future__ import annotations

from groupcheck.checker import bfs
from groupcheck.model.streams_group import MODEL
from groupcheck.model.streams_group.scope import StreamsGroupScope as S
from groupcheck.model.streams_group.step import actions, settled, step
from groupcheck.model.streams_group.world import MEMBER, WARMUP_PROMOTED

WARM = S(processes=2, stateful=True, warmups=1)


def test_bfs_reaches_a_warm_up_promoted_in_the_target():
    restored = []

    def on_state(state):
        if any(c.owned[2] & c.caught for c in state.clients):
            restored.append(state)

    report = bfs(MODEL, WARM, on_state=on_state)
    assert report.complete and report.violation is None
    assert restored, "no client ever ran a caught-up warm-up"
    assert report.witnessed["warmup_promoted"] is True


def test_a_caught_up_warm_up_is_revoked_first_then_assigned_active():
    found = []

    def on_state(state):
        for s, c in enumerate(state.clients):
            if (not found and c.status == MEMBER and c.owned[2] & c.caught
                    and c.request is None and c.reply is None):
                found.append((state, s))

    bfs(MODEL, WARM, on_state=on_state)
    state, s = found[0]
    warm = state.clients[s].owned[2]
    history = [state.clients[s].owned]
    for i in range(60):       # protocol steps only, round robin, until settled
        if settled(WARM, state):
            break
        enabled = [a for a in actions(WARM, state) if a.kind in ("send", "handle", "deliver")]
        state, _ = step(WARM, state, enabled[i % len(enabled)])
        if state.clients[s].owned != history[-1]:
            history.append(state.clients[s].owned)
    assert settled(WARM, state)
    assert state.marks & WARMUP_PROMOTED
    # the warm-up is dropped in one response (nothing gained), the task comes back active later
    assert history[0] == (0, 0, warm)
    assert history[1] == (0, 0, 0)
    assert history[-1][0] & warm == warm
