"""Progress for long work: n/total, elapsed, seconds per item and an ETA, on stderr. On a
terminal it is a live bar that disappears when done; elsewhere (a log, CI) it is a plain line
every 10% or 30 seconds, so a long run is never silent. Answers served from the store are counted
as such, and the first slow step (loading the embedded model) is named only once the served
answers stop coming and no answer has needed the model yet: a run served wholly from the store
never says it is loading a model it does not load.

The rate behind seconds per item and the ETA is timed from the first item that did work to the
latest: the first item carries the start-up (loading a model, evaluating a long prompt once,
opening connections), which the items after it do not pay: a mean that counted it made the
first ETAs of an embedded-judge run hours long for a run of minutes (issue 35). No rate is shown
before the first item after it, and no ETA before `ETA_AFTER` of them."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["ETA_AFTER", "Tracker", "track", "duration"]

ETA_AFTER = 3
"""Items timed after the first item that did work before an ETA is shown."""

STALL_S = 1.0  # no item finished for this long, none by the model yet: the model is loading


def duration(seconds: float) -> str:
    """A short human duration: 42s, 3m05s, 1h02m."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


@dataclass
class Tracker:
    """Counts finished items and times the ones that did work (items served from a cache finish
    at once and would make the estimate lie), from the first one on (see the module)."""

    total: int | None
    what: str
    loading: str | None = None  # shown while waiting for the first item that does work
    done: int = 0
    worked: int = 0
    clock: Callable[[], float] = time.monotonic
    started: float | None = None  # when the tracker was made (the elapsed time's origin)
    warm: float | None = None  # when the first item that did work finished
    listener: Callable[[Tracker], None] | None = None
    last: float | None = None  # when the last item finished (or the tracker was made)

    def __post_init__(self) -> None:
        if self.started is None:
            self.started = self.clock()
        if self.last is None:
            self.last = self.started

    @property
    def cached(self) -> int:
        return self.done - self.worked

    def advance(self, *, cached: bool = False) -> None:
        """One more item finished (`cached`: it was served without doing the work)."""
        self.done += 1
        self.last = self.clock()
        if not cached:
            self.worked += 1
            if self.warm is None:
                self.warm = self.last
        if self.listener is not None:
            self.listener(self)

    def waiting_for_work(self) -> bool:
        """The loading step is under way: items remain, none has been done by the model yet,
        and nothing has finished for STALL_S (answers from the store come without a pause)."""
        remaining = self.total is None or self.done < self.total
        last = self.last if self.last is not None else self.clock()
        stalled = self.clock() - last >= STALL_S
        return bool(self.loading) and remaining and self.worked == 0 and stalled

    def set_total(self, total: int) -> None:
        self.total = total
        if self.listener is not None:
            self.listener(self)

    def elapsed(self) -> float:
        return self.clock() - (self.started if self.started is not None else self.clock())

    def timed(self) -> int:
        """Items that did work after the first one: the ones the rate is measured on."""
        return max(self.worked - 1, 0)

    def per_item(self) -> float | None:
        """Seconds per item that did work, timed after the first (None before one is)."""
        if self.warm is None or not self.timed():
            return None
        return (self.clock() - self.warm) / self.timed()

    def eta(self) -> float | None:
        """Seconds left at the timed rate; None until `ETA_AFTER` items are timed."""
        mean = self.per_item()
        if mean is None or self.total is None or self.timed() < ETA_AFTER:
            return None
        return max(self.total - self.done, 0) * mean

    def status(self) -> str:
        parts = [f"{self.done}/{self.total if self.total is not None else '?'} {self.what}"]
        parts.append(f"{duration(self.elapsed())} elapsed")
        mean, eta = self.per_item(), self.eta()
        if self.cached:
            parts.append(f"{self.cached} cached")
        if self.waiting_for_work():
            parts.append(str(self.loading))
        if mean is not None:
            parts.append(f"{mean:.1f} s/item")
        if eta is not None and self.total is not None and self.done < self.total:
            parts.append(f"ETA {duration(eta)}")
        return " · ".join(parts)


@contextmanager
def track(
    what: str, *, total: int | None = None, loading: str | None = None, quiet: bool = False
) -> Iterator[Tracker]:
    """A progress display on stderr for the duration of the block."""
    tracker = Tracker(total=total, what=what, loading=loading)
    console = Console(stderr=True)
    if quiet:
        yield tracker
        return
    if console.is_terminal:
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[extra]}"),
        )
        with Progress(*columns, console=console, transient=True, refresh_per_second=4) as bar:
            task = bar.add_task(what, total=total, extra="")

            def show(t: Tracker) -> None:
                extra = " · ".join(t.status().split(" · ")[2:])  # after "n/total" and elapsed
                bar.update(task, completed=t.done, total=t.total, extra=extra)

            tracker.listener = show
            show(tracker)
            with _every(0.25, lambda: show(tracker)):  # the loading note shows while it waits
                yield tracker
        return
    last = {"at": time.monotonic(), "tenth": 0}

    def log(t: Tracker) -> None:  # plain lines for logs: every 10% or 30 s
        tenth = t.done * 10 // t.total if t.total else 0
        if tenth > last["tenth"] or time.monotonic() - last["at"] >= 30:
            last["at"], last["tenth"] = time.monotonic(), tenth
            print(t.status(), file=sys.stderr, flush=True)

    tracker.listener = log
    said: list[bool] = []

    def say_loading() -> None:  # said once, when the wait begins, never for a run the store serves
        if not said and tracker.waiting_for_work():
            said.append(True)
            print(f"{what}: {tracker.loading}", file=sys.stderr, flush=True)

    with _every(0.25, say_loading):
        yield tracker


@contextmanager
def _every(seconds: float, tick: Callable[[], None]) -> Iterator[None]:
    """Call `tick` every `seconds` in a daemon thread for the duration of the block."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(seconds):
            tick()

    thread = threading.Thread(target=loop, name="calibrant-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
