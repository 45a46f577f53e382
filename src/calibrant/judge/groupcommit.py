"""Group commit: the claims and answers of one run, written to the store in groups.

Every task of a run hands its claim (before asking) and its answer (once the model answered) to
one `StoreWriter` and waits. A single writer task stores, in a worker thread, every answer that
arrived since its last write (one transaction), then claims every item that asked since (one
transaction), and wakes each waiting task with its own result. A task's wait for its answer
ends only once that answer's transaction is committed, so the crash promise holds as with one
transaction per answer: each answer is durable before its concurrency slot is reused, and a
killed process loses only the calls in flight. What changes is the cost: a burst of answers
(many calls started together end together) costs two transactions and one thread hop, not two
of each per answer, and the event loop is not kept waiting for the GIL by a crowd of threads.

A task cancelled while it waits (Ctrl-C, SIGTERM) stops waiting, but what it handed over is
still written: `close()` waits for the writer to finish, so answers received are kept."""

from __future__ import annotations

import asyncio
from typing import Any

from ..contracts import Judgment
from ..store import Store

__all__ = ["StoreWriter"]

Key = tuple[str, int]  # (transcript hash, sample index)


class StoreWriter:
    """Claims and answers of one owner under one judge, written in groups (see the module)."""

    def __init__(self, store: Store, judge_hash: str, owner: str, lease_s: float) -> None:
        self.store, self.judge_hash, self.owner, self.lease_s = store, judge_hash, owner, lease_s
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
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        queue.append((item, fut))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._drain())
        return fut

    async def _drain(self) -> None:
        while self._answers or self._claims:
            answers, self._answers = self._answers, []
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
        """Wait until everything handed over is written (errors were given to the waiters)."""
        while self._task is not None and not self._task.done():
            await asyncio.gather(asyncio.shield(self._task), return_exceptions=True)
