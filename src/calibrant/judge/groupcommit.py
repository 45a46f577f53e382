"""Group commit: the claims and answers of one run, written to the store in groups.

Every task of a run hands its claim (before asking) and its answer (once the model answered) to
one `StoreWriter` and waits. A single writer task stores, in a worker thread, every answer that
arrived since its last write (one transaction), then claims the items that asked since (one
transaction), and wakes each waiting task with its own result. A task's wait for its answer
ends only once that answer's transaction is committed, so the crash promise holds as with one
transaction per answer: each answer is durable before its concurrency slot is reused, and a
killed process loses only the calls in flight.

Two things make the groups large when answers trickle in rather than arrive in one burst:

- claims are written ahead, in batches: a claim waits until `claim_batch` of them are queued,
  or until the run is `hungry` (few claimed items left waiting for a slot), so the next items
  are claimed long before a slot frees, not one by one as each answer commits;
- an answer lingers: the writer keeps collecting answers for as long as more keep arriving
  (each within `gap_s` of the last, `linger_s` at most, and never once no call is in flight),
  so the answers of calls that ended together go in one transaction.

A task cancelled while it waits (Ctrl-C, SIGTERM) stops waiting, but what it handed over is
still written: `close()` waits for the writer to finish, so answers received are kept."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..contracts import Judgment
from ..store import Store

__all__ = ["StoreWriter"]

Key = tuple[str, int]  # (transcript hash, sample index)


class StoreWriter:
    """Claims and answers of one owner under one judge, written in groups (see the module)."""

    def __init__(
        self,
        store: Store,
        judge_hash: str,
        owner: str,
        lease_s: float,
        *,
        claim_batch: int = 1,
        hungry: Callable[[], bool] | None = None,
        linger_s: float = 0.0,
        gap_s: float = 0.002,
        in_flight: Callable[[], int] | None = None,
    ) -> None:
        self.store, self.judge_hash, self.owner, self.lease_s = store, judge_hash, owner, lease_s
        self.claim_batch = max(1, claim_batch)
        self.hungry = hungry or (lambda: True)
        self.linger_s, self.gap_s = linger_s, gap_s
        self.in_flight = in_flight or (lambda: 0)
        self._answers: list[tuple[Judgment, asyncio.Future[Any]]] = []
        self._claims: list[tuple[Key, asyncio.Future[Any]]] = []
        self._task: asyncio.Task[None] | None = None
        self.writes = 0  # groups written (for tests and benchmarks)

    async def claim(self, transcript_hash: str, sample_index: int) -> Judgment | bool:
        """The cached answer, True (this owner holds the item now) or False (another live
        process holds it): `Store.claim`, grouped with the other tasks' claims."""
        fut = self._submit(self._claims, (transcript_hash, sample_index))
        result: Judgment | bool = await fut
        return result

    async def finish(self, judgment: Judgment) -> None:
        """Returns once `judgment` is committed and this owner's claim on it dropped."""
        await self._submit(self._answers, judgment)

    def _submit(self, queue: list[tuple[Any, asyncio.Future[Any]]], item: Any) -> Any:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        queue.append((item, fut))
        self.poke()
        return fut

    def poke(self) -> None:
        """Start the writer if it has something due (the runner calls this when the run may
        have become hungry for claims)."""
        if (self._task is None or self._task.done()) and (self._answers or self._claims_due()):
            self._task = asyncio.get_running_loop().create_task(self._drain())

    def _claims_due(self) -> bool:
        return bool(self._claims) and (len(self._claims) >= self.claim_batch or self.hungry())

    async def _linger(self) -> None:
        """Wait while answers keep coming (each within gap_s of the last, linger_s at most)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.linger_s
        seen = len(self._answers)
        while self.in_flight() > 0 and loop.time() < deadline:
            await asyncio.sleep(self.gap_s)
            if len(self._answers) == seen:
                return
            seen = len(self._answers)

    async def _drain(self) -> None:
        while self._answers or self._claims_due():
            if self._answers and self.linger_s > 0:
                await self._linger()
            answers, self._answers = self._answers, []
            claims: list[tuple[Key, asyncio.Future[Any]]] = []
            if self._claims_due():
                claims, self._claims = self._claims, []
            try:
                got = await asyncio.to_thread(
                    self._write, [j for j, _ in answers], [k for k, _ in claims]
                )
            except BaseException as exc:
                for _, fut in (*answers, *claims):
                    if not fut.done():
                        if isinstance(exc, asyncio.CancelledError):
                            fut.cancel()
                        else:
                            fut.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                continue
            self.writes += 1
            for _, fut in answers:
                if not fut.done():
                    fut.set_result(None)
            for key, fut in claims:
                if not fut.done():
                    fut.set_result(got[key])

    def _write(self, answers: list[Judgment], keys: list[Key]) -> dict[Key, Judgment | bool]:
        # answers first: an item answered in this very group is found answered by its claim
        self.store.finish_many(answers, self.owner)
        return self.store.claim_many(self.judge_hash, keys, self.owner, self.lease_s)

    async def close(self) -> None:
        """Wait until everything handed over is written (errors were given to the waiters);
        claims still queued are dropped (their tasks were cancelled: nothing to ask)."""
        while self._task is not None and not self._task.done():
            await asyncio.gather(asyncio.shield(self._task), return_exceptions=True)
        for _, fut in self._claims:
            fut.cancel()
        self._claims = []
