"""Finding: the witness ``warmup_promoted`` cannot be reached in any scope.

The witness is marked when one delivered response turns a task the client runs as a
warm-up into an active task (``step.py``, ``deliver``: ``c.owned[2] & new.owned[0]``).
Reconciliation never does that in one response: the target that promotes a caught-up
warm-up moves the task from the warm-up role to the active role, and per role
(``model/epochs/reconcile.py``, ``difference`` / ``_next``) the warm-up copy is then
*pending revocation*; since the member's heartbeat reports owning it, the member goes
UNREVOKED and its response carries its kept tasks only, without the warm-up. The active
task comes in a later response, once a heartbeat reports the warm-up gone (and the old
owner has revoked it: the blocking rule). So the promotion does happen, as "revoke the
warm-up, then assign the active", but the one-response mark never fires. Reaching the
witness needs a change to how it is observed (e.g. remember which tasks a client has
warmed up), not a larger scope.
"""
from __future__ import annotations

from groupcheck.checker import bfs
from model.streams_group import MODEL
from model.streams_group.scope import StreamsGroupScope as S
from model.streams_group.step import actions, settled, step
from model.streams_group.world import MEMBER, WARMUP_PROMOTED

WARM = S(processes=2, stateful=True, warmups=1)


def test_bfs_assigns_and_restores_warm_ups_but_never_marks_a_promotion():
    restored = []

    def on_state(state):
        if any(c.owned[2] & c.caught for c in state.clients):
            restored.append(state)

    report = bfs(MODEL, WARM, on_state=on_state)
    assert report.complete and report.violation is None
    assert restored, "no client ever ran a caught-up warm-up"
    assert report.witnessed["warmup_promoted"] is False


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
        assert not state.marks & WARMUP_PROMOTED
    assert settled(WARM, state)
    # the warm-up is dropped in one response (nothing gained), the task comes back active later
    assert history[0] == (0, 0, warm)
    assert history[1] == (0, 0, 0)
    assert history[-1][0] & warm == warm
