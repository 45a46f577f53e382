"""One event loop, in its own thread, for every model call of a queue worker.

procrastinate runs each job of a synchronous task in a thread of its own; judging with
`asyncio.run` there gave every job its own event loop, two at once with `--concurrency 2`.
litellm keeps one background logging worker per process, bound to one loop: when a second loop
took it over, the first loop's worker task lost its last reference while still waiting and was
garbage-collected ("Task was destroyed but it is pending!", and "cannot reuse already awaited
coroutine" from litellm's logging). Here all jobs submit their judging to one long-lived loop,
so litellm only ever sees that loop; closing it drains litellm's logging first."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["JudgeLoop"]

T = TypeVar("T")


class JudgeLoop:
    """A running event loop in a daemon thread; `run` executes a coroutine on it from any
    other thread and returns its result (or raises its exception)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="calibrant-judge-loop", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self, timeout_s: float = 30.0) -> None:
        """Drain litellm's background logging, cancel whatever else is left, stop the loop."""
        from ..judge.llm_setup import drain_litellm

        async def finish() -> None:
            await drain_litellm()
            current = asyncio.current_task()
            rest = [t for t in asyncio.all_tasks() if t is not current]
            for t in rest:
                t.cancel()
            await asyncio.gather(*rest, return_exceptions=True)
            await self.loop.shutdown_asyncgens()

        try:
            asyncio.run_coroutine_threadsafe(finish(), self.loop).result(timeout_s)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout_s)
            if not self._thread.is_alive():
                self.loop.close()
