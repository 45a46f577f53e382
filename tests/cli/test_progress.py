"""The progress line's estimator: seconds per item and the ETA are timed from the first item
that did work, so a slow start (the embedded model loading) does not inflate the first ETA."""

from __future__ import annotations

from calibrant.cli.progress import ETA_AFTER, STALL_S, Tracker


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_slow_start_does_not_inflate_the_eta() -> None:
    clock = Clock()
    t = Tracker(total=100, what="items", loading="loading the embedded model", clock=clock)
    clock.now += 90  # the model loads and the first item is judged: 90 s
    t.advance()
    assert t.per_item() is None and t.eta() is None  # one item says nothing of the rate
    assert "ETA" not in t.status() and "s/item" not in t.status()
    for _ in range(ETA_AFTER):  # then 10 s an item
        clock.now += 10
        t.advance()
    assert t.per_item() == 10.0
    assert t.eta() == (100 - 1 - ETA_AFTER) * 10.0  # not (96 x 30 s / item, the load counted)
    assert t.status() == "4/100 items · 2m00s elapsed · 10.0 s/item · ETA 16m00s"


def test_no_eta_until_enough_items_are_timed() -> None:
    clock = Clock()
    t = Tracker(total=50, what="items", clock=clock)
    for n in range(ETA_AFTER):
        clock.now += 5
        t.advance()
        assert t.eta() is None, n
    assert t.per_item() == 5.0  # shown as soon as one item after the first is timed
    clock.now += 5
    t.advance()
    assert t.eta() == 46 * 5.0


def test_cached_items_are_counted_but_not_timed() -> None:
    clock = Clock()
    t = Tracker(total=20, what="items", clock=clock)
    for _ in range(10):
        t.advance(cached=True)  # served from the store: no time
    assert t.done == 10 and t.per_item() is None and t.eta() is None
    clock.now += 30
    t.advance()  # the first that did work: the start-up, not timed
    for _ in range(ETA_AFTER):
        clock.now += 2
        t.advance()
    assert t.per_item() == 2.0
    assert t.eta() == (20 - 10 - 1 - ETA_AFTER) * 2.0


def test_the_loading_note_shows_while_waiting_and_until_the_first_item_that_did_work() -> None:
    clock = Clock()
    t = Tracker(total=3, what="items", loading="loading the embedded model", clock=clock)
    assert "loading" not in t.status()  # nothing has waited yet
    clock.now += STALL_S
    assert "loading the embedded model" in t.status()
    t.advance(cached=True)
    assert "loading" not in t.status()  # an answer from the store just came
    clock.now += 7
    assert "loading the embedded model" in t.status()  # the store stopped; the model loads
    t.advance()
    assert "loading" not in t.status()
    assert t.status() == "2/3 items · 8s elapsed · 1 cached"
