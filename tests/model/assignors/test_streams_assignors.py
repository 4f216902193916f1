"""The Streams task assignors (model/assignors/streams_tasks.py): ``sticky``
(StickyTaskAssignor's aim), ``learner`` (seed 002's warm-up design) and ``spread`` over
stream threads. Clients are Streams instances; tasks are bitmasks (T1 is bit 0)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from groupcheck.model.assignors.streams_tasks import Client, learner, spread, sticky
from groupcheck.model.partitions import count

T1, T2, T3, T4 = 1, 2, 4, 8


def client(instance: int, *, prev: int = 0, owned: int | None = None, standby: int = 0, learning: int = 0,
           ready: int = 0, leaving: bool = False, new: bool = False) -> Client:
    """A client; ``owned`` defaults to ``prev`` (a COOPERATIVE member still runs its tasks)."""
    return Client(instance=instance, prev=prev, owned=prev if owned is None else owned, standby=standby,
                  learning=learning, ready=ready, leaving=leaving, new=new)


def assert_partition(actives, tasks: int) -> None:
    """Every task active on exactly one client."""
    union = 0
    for a in actives:
        assert not union & a, f"{union:b} & {a:b}"
        union |= a
    assert union == tasks


# ------------------------------------------------------------------------------ sticky

def test_sticky_keeps_previous_owners_up_to_the_fair_share():
    clients = [client(0, prev=T1 | T2 | T3), client(1, prev=T4), client(2)]
    p = sticky(clients, T1 | T2 | T3 | T4, 0)
    assert p.active == (T1 | T2, T4, T3)    # 4 tasks / 3 clients: one may keep 2
    assert p.standby == (0, 0, 0) and p.learning == (0, 0, 0)


def test_sticky_is_sticky_when_already_balanced():
    clients = [client(0, prev=T2), client(1, prev=T1)]
    assert sticky(clients, T1 | T2, 0).active == (T2, T1)


def test_sticky_running_owner_beats_a_previous_one():
    clients = [client(0, prev=T1, owned=0), client(1, prev=T1)]
    assert sticky(clients, T1 | T2, 0).active == (T2, T1)


def test_sticky_gives_leaving_clients_nothing():
    clients = [client(0, prev=T1 | T2, leaving=True), client(1), client(2)]
    p = sticky(clients, T1 | T2 | T3, 1)
    assert p.active[0] == 0 and p.standby[0] == 0
    assert_partition(p.active, T1 | T2 | T3)


def test_sticky_standbys_prefer_previous_holders():
    clients = [client(0, prev=T1), client(1, prev=T2), client(2, standby=T1)]
    p = sticky(clients, T1 | T2, 1)
    assert p.active == (T1, T2, 0)
    assert p.standby == (T2, 0, T1)            # T1's to its holder S3, though S2 is lower-numbered


clients_lists = st.integers(1, 4).flatmap(lambda n: st.lists(st.builds(
    Client, st.just(0), st.integers(0, 15), st.integers(0, 15), st.integers(0, 15), st.integers(0, 15),
    st.integers(0, 15), st.booleans(), st.booleans()), min_size=n, max_size=n))


PROPERTY = settings(max_examples=80, deadline=None)


def renumber(clients: list[Client]) -> list[Client]:
    return [c._replace(instance=i) for i, c in enumerate(clients)]


@PROPERTY
@given(clients_lists, st.integers(0, 3))
def test_sticky_is_a_balanced_partition_of_the_tasks(clients, replicas):
    clients = renumber(clients)
    tasks = T1 | T2 | T3 | T4
    p = sticky(clients, tasks, replicas)
    assert_partition(p.active, tasks)
    for c in range(len(clients)):
        assert not p.standby[c] & p.active[c]
    stay = [c for c, cl in enumerate(clients) if not cl.leaving] or list(range(len(clients)))
    loads = [count(p.active[c]) for c in stay]
    assert max(loads) - min(loads) <= 1
    assert all(p.active[c] == 0 for c in range(len(clients)) if c not in stay)


# ------------------------------------------------------------------------------ learner

def test_a_new_instance_gets_a_learner_not_the_active():
    """Seed 002: learners are picked "out of heaviest loaded instances" for "new-coming
    instances"; the active stays where it runs."""
    clients = [client(0, prev=T1 | T2), client(1, new=True)]
    p = learner(clients, T1 | T2, 0, leader=0)
    assert p.active == (T1 | T2, 0)
    assert p.learning == (0, T1)               # the donor's lowest-numbered task


def test_a_ready_learner_gets_the_active_only_when_nobody_still_runs_it():
    """Seed 002: "if given task is currently active, reassignment must happen only to workers
    who are declared ready to serve this task"."""
    still_running = [client(0, prev=T1 | T2), client(1, learning=T1, ready=T1)]
    p = learner(still_running, T1 | T2, 0, leader=0)
    assert p.active == (T1 | T2, 0) and p.learning == (0, T1)
    revoked = [client(0, prev=T1 | T2, owned=T2), client(1, learning=T1, ready=T1)]
    p = learner(revoked, T1 | T2, 0, leader=0)
    assert p.active == (T2, T1) and p.learning == (0, 0)


def test_an_unready_learner_does_not_take_the_active():
    clients = [client(0, prev=T1 | T2, owned=T2), client(1, learning=T1)]
    p = learner(clients, T1 | T2, 0, leader=0)
    assert p.active == (T1 | T2, 0)            # the previous owner keeps it
    assert p.learning == (0, T1)               # and the learner stays


def test_a_leaving_instances_tasks_are_learned_by_the_staying_ones():
    """Seed 002's scale-down: every task of a leaving instance is learned by the instances
    that stay; it keeps running them until then."""
    clients = [client(0, prev=T1 | T2 | T3, leaving=True), client(1), client(2)]
    p = learner(clients, T1 | T2 | T3, 0, leader=1)
    assert p.active == (T1 | T2 | T3, 0, 0)
    assert p.learning[0] == 0
    assert p.learning[1] | p.learning[2] == T1 | T2 | T3
    assert not p.learning[1] & p.learning[2]


def test_orphaned_tasks_go_to_an_unready_learner_first():
    """Seed 002's active order: ready learner, previous owner, "unready learner tasks
    owners", "instances with standby tasks", "resource available instances"."""
    clients = [client(0, standby=T1), client(1, learning=T1), client(2)]
    assert learner(clients, T1, 0, leader=0).active == (0, T1, 0)
    clients = [client(0), client(1), client(2, standby=T1)]
    assert learner(clients, T1, 0, leader=0).active == (0, 0, T1)
    clients = [client(0, prev=T2), client(1), client(2)]
    assert learner(clients, T1 | T2, 0, leader=0).active == (T2, T1, 0)   # the least loaded


def test_learner_standbys_avoid_the_learners_instance():
    clients = [client(0, prev=T1), client(1, learning=T1), client(2)]
    p = learner(clients, T1, 2, leader=0)
    assert p.active == (T1, 0, 0) and p.learning == (0, T1, 0)
    assert p.standby == (0, 0, T1)             # two replicas wanted; only S3 is free


@PROPERTY
@given(clients_lists, st.integers(0, 3), st.data())
def test_learner_never_puts_a_standby_or_learner_with_the_active(clients, replicas, data):
    clients = renumber(clients)
    tasks = T1 | T2 | T3 | T4
    leader = data.draw(st.integers(0, len(clients) - 1))
    p = learner(clients, tasks, replicas, leader)
    assert_partition(p.active, tasks)
    for c, cl in enumerate(clients):
        assert not p.standby[c] & (p.active[c] | p.learning[c])
        assert not p.learning[c] & p.active[c]
        if cl.leaving:
            assert p.standby[c] == 0 and p.learning[c] == 0
    for t in range(4):
        holders = sum(p.standby[c] >> t & 1 for c in range(len(clients)))
        assert holders <= replicas


# ------------------------------------------------------------------------------ spread over threads

def test_spread_keeps_a_threads_tasks_and_fills_the_least_loaded():
    assert spread(T1 | T2 | T3, [T1, 0]) == [T1 | T3, T2]
    assert spread(T1 | T2, [T1 | T2, 0]) == [T1, T2]         # share 1 each: T2 moves
    assert spread(T1 | T2, [T2, T1]) == [T2, T1]
    assert spread(0, [T1, T2]) == [0, 0]
    assert spread(T1 | T2 | T3, [0]) == [T1 | T2 | T3]


@PROPERTY
@given(st.integers(0, 255), st.lists(st.integers(0, 255), min_size=1, max_size=3))
def test_spread_is_a_balanced_partition(tasks, prev):
    out = spread(tasks, prev)
    assert len(out) == len(prev)
    assert_partition(out, tasks)
    loads = [count(m) for m in out]
    assert max(loads) - min(loads) <= 1
