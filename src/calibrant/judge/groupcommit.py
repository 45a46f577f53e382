"""Group commit: the claims and answers of one run, written to the store in groups.

Every task of a run hands its claim (before asking) and its answer (once the model answered) to
one `StoreWriter` and waits. A single writer task stores, in a worker thread, every answer that
arrived since its last write and claims the items that asked since (on SQLite in one
transaction, see `Store.finish_and_claim`), and wakes each waiting task with its own result. A
task's wait for its answer ends only once that answer's transaction is committed, so the crash
promise holds as with one transaction per answer: each answer is durable before its
concurrency slot is reused, and a killed process loses only the calls in flight.

Two things make the groups large:

- claims are written ahead, in batches: a claim waits until `claim_batch` of them are queued,
  or until the run is `hungry` (few claimed items left waiting for a slot), or rides along with
  the next answers, so the next items are claimed long before a slot frees;
- answers are committed by wave. The calls that start between two answer commits form one
  wave (the slots one commit freed, taken at once by the items waiting for them), and with a
  steady model they answer together about one latency later. An answer lingers until the
  other calls of its wave have answered too, or `group` answers are queued — `linger_share`
  of its call's latency at most (`linger_s` at most), and never once none of them is in
  flight — so a wave stays one transaction, and the slots it frees start the next wave
  together. Without this, answers arriving a few milliseconds apart (each costs the event loop
  milliseconds of litellm's parsing) went one transaction each.

What a group costs: its first answer waits for its last, and the slots it frees relaunch one
after the other on the event loop, so each call's slot is held about (group size x the loop's
time per call) longer, a few milliseconds per answer in the group. `group` bounds that: with
concurrency C, a third of C (32 calls: groups of about 10, ~100 transactions per 1,000 answers,
~40 ms per slot, about 4% of a 1 s call; see benchmarks/results/hotpath.md).

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
        linger_share: float = 0.1,
        group: int = 1,
    ) -> None:
        self.store, self.judge_hash, self.owner, self.lease_s = store, judge_hash, owner, lease_s
        self.claim_batch = max(1, claim_batch)
        self.hungry = hungry or (lambda: True)
        self.linger_s, self.linger_share, self.group = linger_s, linger_share, max(1, group)
        self._answers: list[tuple[tuple[Judgment, int], asyncio.Future[Any]]] = []
        self._claims: list[tuple[Key, asyncio.Future[Any]]] = []
        self._task: asyncio.Task[None] | None = None
        self._flying: dict[int, int] = {}  # wave -> its calls in flight
        self._landed: asyncio.Event | None = None  # set when a call of a wave ends
        self.wave = 0  # answer groups committed so far: the current wave's number
        self.writes = 0  # groups written (for tests and benchmarks)

    def launch(self) -> int:
        """A call starts: it joins the current wave, whose number is returned."""
        w = self.wave
        self._flying[w] = self._flying.get(w, 0) + 1
        return w

    def landed(self, wave: int) -> None:
        """A call of `wave` ended (answered, failed or cancelled)."""
        left = self._flying.get(wave, 0) - 1
        if left > 0:
            self._flying[wave] = left
        else:
            self._flying.pop(wave, None)
        if self._landed is not None:
            self._landed.set()

    async def claim(self, transcript_hash: str, sample_index: int) -> Judgment | bool:
        """The cached answer, True (this owner holds the item now) or False (another live
        process holds it): `Store.claim`, grouped with the other tasks' claims."""
        fut = self._submit(self._claims, (transcript_hash, sample_index))
        result: Judgment | bool = await fut
        return result

    async def finish(self, judgment: Judgment, wave: int = -1) -> None:
        """Returns once `judgment` (the answer of a call of `wave`) is committed and this
        owner's claim on it dropped."""
        await self._submit(self._answers, (judgment, wave))

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
        """Wait while calls of the waves of the answers queued are still in flight, until
        `group` answers are queued (at most `linger_share` of the first answer's latency,
        `linger_s` at most)."""
        loop = asyncio.get_running_loop()
        (first, _), _ = self._answers[0]
        deadline = loop.time() + min(self.linger_s, self.linger_share * first.latency_ms / 1000)
        if self._landed is None:
            self._landed = asyncio.Event()
        while (left := deadline - loop.time()) > 0 and len(self._answers) < self.group:
            waves = {w for (_, w), _ in self._answers}
            if not any(w in self._flying for w in waves):
                return
            self._landed.clear()
            try:
                await asyncio.wait_for(self._landed.wait(), left)
            except TimeoutError:
                return

    async def _drain(self) -> None:
        while self._answers or self._claims_due():
            if self._answers and self.linger_s > 0:
                await self._linger()
            answers, self._answers = self._answers, []
            claims: list[tuple[Key, asyncio.Future[Any]]] = []
            if self._claims and (answers or self._claims_due()):
                claims, self._claims = self._claims, []  # claims ride along with answers
            try:
                got = await asyncio.to_thread(
                    self._write, [j for (j, _), _ in answers], [k for k, _ in claims]
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
            if answers:
                self.wave += 1  # the slots these answers free start the next wave
            for _, fut in answers:
                if not fut.done():
                    fut.set_result(None)
            if answers and claims:
                # the slots just freed start their next calls before the items just claimed
                # build their prompts (a loop pass: the answers' tasks free their slots, whose
                # waiters are then queued ahead of the claims' tasks)
                try:
                    await asyncio.sleep(0)
                except asyncio.CancelledError:
                    for _, fut in claims:
                        fut.cancel()
                    raise
            for key, fut in claims:
                if not fut.done():
                    fut.set_result(got[key])

    def _write(self, answers: list[Judgment], keys: list[Key]) -> dict[Key, Judgment | bool]:
        # answers first: an item answered in this very group is found answered by its claim
        return self.store.finish_and_claim(self.judge_hash, answers, keys, self.owner, self.lease_s)

    async def close(self) -> None:
        """Wait until everything handed over is written (errors were given to the waiters);
        claims still queued are dropped (their tasks were cancelled: nothing to ask)."""
        while self._task is not None and not self._task.done():
            await asyncio.gather(asyncio.shield(self._task), return_exceptions=True)
        for _, fut in self._claims:
            fut.cancel()
        self._claims = []
