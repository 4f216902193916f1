"""model.epochs.rounds: slot sets and the heartbeat-round monitor both epoch protocols share."""
from typing import NamedTuple

from groupcheck.model.epochs.rounds import add_slot, drop_slot, has_slot, response_read, slot_set


class Monitor(NamedTuple):
    calm: int
    beaten: int
    fresh: int
    wedged: int = 0


def test_slot_sets_name_slots_not_bits():
    s = add_slot(add_slot(0, 0), 2)
    assert (has_slot(s, 0), has_slot(s, 1), has_slot(s, 2)) == (1, 0, 1)
    assert drop_slot(s, 2) == add_slot(0, 0) and drop_slot(s, 1) == s
    assert slot_set([True, False, True]) == s


def test_a_round_ends_when_every_running_client_read_a_response_to_a_fresh_heartbeat():
    clients = ("up", "down", "up")

    def running(c):
        return c == "up"
    fresh = slot_set([True, False, True])
    half = response_read(Monitor(calm=1, beaten=0, fresh=fresh), 0, clients, running, True, k=5)
    assert half == (1, add_slot(0, 0), fresh)
    whole = response_read(Monitor(calm=1, beaten=half[1], fresh=fresh), 2, clients, running, True, k=5)
    assert whole == (2, 0, 0)
    capped = response_read(Monitor(calm=5, beaten=half[1], fresh=fresh), 2, clients, running, True, k=5)
    assert capped[0] == 5


def test_a_response_that_does_not_count_or_a_wedged_slot_ends_no_round():
    clients, running = ("up",), (lambda c: True)
    assert response_read(Monitor(calm=1, beaten=0, fresh=1), 0, clients, running, False, k=5) == (1, 0, 1)
    assert response_read(Monitor(calm=3, beaten=0, fresh=1, wedged=1), 0, clients, running, True, k=5) == (0, 0, 0)
    assert response_read(Monitor(calm=1, beaten=0, fresh=0), 0, clients, running, True, k=5) == (1, 0, 0)
