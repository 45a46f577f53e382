"""Time that a test moves itself, so nothing waits on the wall clock.

`FakeClock` is handed where calibrant takes a clock (`Store(engine, clock=...)`,
`Runs(engine, clock=...)`): a lease runs out when the test says so.

`virtual_time(coro)` runs a coroutine on an event loop whose clock jumps ahead whenever every
task is waiting on a timer: `asyncio.sleep(0.5)` and `wait_for(..., 0.2)` take no real time, in
the order and at the virtual moments they would have in real time. Work handed to threads
(`asyncio.to_thread`, the store's writes) takes no virtual time: while any of it runs, the loop
waits for it for real instead of jumping ahead, as if the thread were instant."""

from __future__ import annotations

import asyncio
import selectors
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["FakeClock", "virtual_time"]

T = TypeVar("T")


class FakeClock:
    """Unix seconds that move only by `advance` (start: an arbitrary fixed moment)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class _VirtualSelector(selectors.DefaultSelector):
    """The loop's selector: a wait with a timeout returns at once, the loop's clock moved on by
    that timeout, unless I/O is ready or threads are still working for the loop."""

    def __init__(self, loop: _VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None or self._loop.threads_busy():
            return super().select(None)  # a thread's end (or I/O) wakes the loop
        self._loop.virtual += timeout
        return []


class _VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self.virtual = 0.0
        self._busy = 0
        self._busy_lock = threading.Lock()
        super().__init__(_VirtualSelector(self))

    def time(self) -> float:
        return self.virtual

    def threads_busy(self) -> bool:
        with self._busy_lock:
            return self._busy > 0

    def run_in_executor(self, executor: Any, func: Any, *args: Any) -> asyncio.Future[Any]:
        with self._busy_lock:
            self._busy += 1

        def done(_: Future[Any] | asyncio.Future[Any]) -> None:
            with self._busy_lock:
                self._busy -= 1

        fut = super().run_in_executor(executor, func, *args)
        fut.add_done_callback(done)
        return fut


def virtual_time(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to its end on a loop with virtual time (see the module)."""
    loop = _VirtualTimeLoop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()
