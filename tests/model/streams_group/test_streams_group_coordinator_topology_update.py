"""KIP-1071 "Topology updates", the A/B/C example, through heartbeats: 3 processes, 9
stateless tasks, one thread each; C leaves and rejoins with topology epoch 1, then B.
"members with a topology epoch that does not correspond to the group's topology epoch will
not get any new tasks assigned". Every heartbeat is also checked to replay (the driver)."""
from groupcheck.model.streams_group.state import ERRORS, STALE_TOPOLOGY
from tests.helpers.streams_group_clients import Client, World, fresh, stateless
from groupcheck.model.streams_group.coordinator import Cluster

ALL = (1 << 9) - 1


def active_once(w):
    """No task is held active (assigned or pending revocation) by two members at once."""
    seen = 0
    for m in w.group.members:
        held = m.assigned[0] | m.pending_revocation[0]
        assert not held & seen, "a task is active on two members"
        seen |= held
    return seen


class NoNewTasksForStale:
    """A stale member's active tasks only shrink from the moment it becomes stale."""

    def __init__(self):
        self.cap = {}

    def __call__(self, w):
        active_once(w)
        for m in w.group.members:
            if w.group.topology and m.topology_epoch < w.group.topology.epoch:
                cap = self.cap.setdefault(m.member_id, m.assigned[0])
                assert m.assigned[0] & ~cap == 0, f"stale {m.member_id} got a new task"
                self.cap[m.member_id] = m.assigned[0]


def test_topology_update_example_kip_1071():
    w = World(fresh(), Cluster((("in", 9),)), "kip-1071")
    a, b, c = (Client(x, "p" + x, stateless(0)) for x in "ABC")
    check = NoNewTasksForStale()
    w.converge([a, b, c], check=check)
    assert sorted(bin(x.owned[0]).count("1") for x in (a, b, c)) == [3, 3, 3]
    w.leave(c)                                              # C shuts down to update
    w.converge([a, b], check=check)
    assert a.owned[0] | b.owned[0] == ALL
    c.topology = stateless(1)                               # C rejoins with #1
    out = w.beat(c)
    assert out.response.error_code == 0 and w.group.topology.epoch == 1
    w.converge([a, b, c], check=check)
    assert {x.member_id: bin(x.owned[0]).count("1") for x in (a, b, c)} == {"A": 3, "B": 3, "C": 3}
    assert a.owned[0] | b.owned[0] | c.owned[0] == ALL
    assert w.beat(a).response.status[0].status_code == STALE_TOPOLOGY
    a_tasks = a.owned[0]
    w.leave(b)                                              # B shuts down; A cannot take new tasks
    w.converge([a, c], check=check)
    assert a.owned[0] == a_tasks and c.owned[0] == ALL & ~a_tasks
    b.topology = stateless(1)                               # B comes back with #1
    w.converge([a, b, c], check=check)
    assert a.owned[0] == a_tasks and b.owned[0] and c.owned[0]
    assert a.owned[0] | b.owned[0] | c.owned[0] == ALL == active_once(w)
    assert w.beat(b).response.status is None                # B is current: no STALE_TOPOLOGY


def test_topology_update_example_kafka_4_1_refuses_the_update():
    w = World(fresh(), Cluster((("in", 9),)), "kafka-4.1")
    a, b, c = (Client(x, "p" + x, stateless(0)) for x in "ABC")
    w.converge([a, b, c])
    w.leave(c)
    w.converge([a, b])
    c.topology = stateless(1)
    out = w.beat(c)
    assert out.response.error_code == ERRORS["INVALID_REQUEST"] and out.records == ()
    assert out.response.error_message == "Topology updates are not supported yet."
    assert w.group.topology.epoch == 0
