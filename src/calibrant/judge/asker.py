"""One judge run's shared machinery: each item claimed in the store, asked (through the
concurrency gate, with retries), and its answer committed before its slot is reused; the claims'
heartbeat; SIGTERM and Ctrl-C draining the run (runner.py says how the whole run behaves)."""

from __future__ import annotations

import asyncio
import random
import signal
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..contracts import JudgeConfig, Judgment, Rubric, Transcript
from ..store import Store, new_owner
from ..store.claims import claim_lease_seconds
from .client import ask, prepare_call
from .groupcommit import StoreWriter
from .llm_setup import configure_model, endpoint_kwargs
from .model_names import check_route
from .reliability import RetryPolicy

POLL_S = 0.2  # how often an item held by another process is looked at again
# how long at most an answer waits for the other calls of its wave, to share their commit: a
# twentieth of its call's latency, 0.2 s at most (it waits only while some are in flight, and
# until a group of a third of the concurrency is queued)
LINGER_SHARE = 0.05
LINGER_S = 0.2
# claims held at most, per slot: the call in flight, the next item's (claimed, its prompt built)
# and one queued to be claimed along with the next answers (so claims need no transaction of
# their own while answers keep coming)
AHEAD = 3


Loader = Callable[[], Transcript]


@dataclass
class JudgeRun:
    """Judgments in input order (transcript-major, then sample), and what it cost to get them."""

    judgments: list[Judgment]
    from_cache: int
    model_calls: int

    def outcomes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for j in self.judgments:
            out[j.outcome] = out.get(j.outcome, 0) + 1
        return out

    def __repr__(self) -> str:  # a short repr: never thousands of judgments in a log
        return (
            f"JudgeRun(judgments={len(self.judgments)}, from_cache={self.from_cache}, "
            f"model_calls={self.model_calls})"
        )


class _Asker:
    """What every task of one run shares: the concurrency gate, the claim owner and its lease,
    the retry policy and its random source; `one` gets one item's answer (claimed, asked,
    stored before its slot is reused) and says whether it came from the store."""

    def __init__(
        self,
        *,
        run: JudgeRun,
        rubric: Rubric,
        config: JudgeConfig,
        store: Store,
        concurrency: int,
        policy: RetryPolicy,
        seed: int,
        on_done: Callable[[Judgment, bool], None] | None,
    ) -> None:
        if config.rubric_hash != rubric.content_hash:
            raise ValueError("the judge configuration names another rubric")
        self.run, self.rubric, self.config, self.store = run, rubric, config, store
        self.gate = asyncio.Semaphore(max(1, concurrency))
        # claimed: asking, or next (prompt built), or queued to be claimed with the next answers
        self.ahead = asyncio.Semaphore(AHEAD * max(1, concurrency))
        self.rng = random.Random(seed)
        self.policy = policy
        self.on_done = on_done
        self.litellm: Any = None
        self.judge_hash = config.hash
        self.owner = new_owner()
        self.lease_s = claim_lease_seconds()
        c = max(1, concurrency)
        self.waiting = 0  # items claimed, prompt built, waiting for a slot
        self.writer = StoreWriter(
            store,
            self.judge_hash,
            self.owner,
            self.lease_s,
            claim_batch=c,
            hungry=lambda: self.waiting < max(1, c // 4),
            linger_s=LINGER_S,
            linger_share=LINGER_SHARE,
            group=max(1, c // 3),
        )
        self.run_terminated: list[bool] = []

    def hit(self, j: Judgment) -> Judgment:
        self.run.from_cache += 1
        if self.on_done:
            self.on_done(j, True)
        return j

    async def one(self, t: Transcript | Loader, th: str, i: int) -> tuple[Judgment, bool]:
        """`t` may be a loader: then the transcript is read only once the item holds its claim,
        so waiting items hold no parsed transcript. Claimed items are read and their prompt
        built ahead of a free slot (at most `concurrency` of them), so a slot is busy only
        while the model works and the answer is being committed."""
        while True:
            async with self.ahead:
                got = await self.writer.claim(th, i)
                if isinstance(got, Judgment):  # another process answered it meanwhile
                    return self.hit(got), True
                if got:
                    if self.litellm is None:  # once per run, before its first call
                        litellm = configure_model(self.config.model)
                        base = endpoint_kwargs(self.config.model, self.config.endpoint)
                        check_route(litellm, self.config.model, base.get("api_base"))
                        self.litellm = litellm
                    # the transcript lives only while its prompt is built: the items waiting
                    # for a slot, and those in flight, hold their prompts, not the transcripts
                    call = prepare_call(
                        t if isinstance(t, Transcript) else t(),
                        rubric=self.rubric,
                        config=self.config,
                        sample_index=i,
                        policy=self.policy,
                        transcript_hash=th,
                        judge_hash=self.judge_hash,
                    )
                    self.waiting += 1
                    try:
                        await self.gate.acquire()
                    finally:
                        self.waiting -= 1
                        self.writer.poke()  # fewer items wait: claim the next ones if due
                    try:
                        wave = self.writer.launch()
                        try:
                            j = await ask(
                                call,
                                rubric=self.rubric,
                                config=self.config,
                                policy=self.policy,
                                litellm=self.litellm,
                                rng=self.rng,
                            )
                        finally:
                            self.writer.landed(wave)
                        self.run.model_calls += j.attempts
                        # committed before the slot is reused (the writer finishes the commit
                        # even if this task is cancelled meanwhile)
                        await self.writer.finish(j, wave)
                    finally:
                        self.gate.release()
                    if self.on_done:
                        self.on_done(j, False)
                    return j, False
            await asyncio.sleep(POLL_S)  # held by another live process: wait outside the gate

    async def heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 4)
            await asyncio.to_thread(self.store.renew, self.owner, self.lease_s)

    async def guarded(self, work: Awaitable[None], tasks: list[asyncio.Task[Any]]) -> None:
        """Run `work` with the heartbeat and SIGTERM draining; on any exit cancel `tasks`
        (the caller's item tasks) and release this run's claims."""
        loop = asyncio.get_running_loop()
        main = asyncio.current_task()

        def on_sigterm() -> None:
            self.run_terminated.append(True)
            # the calls about to be cancelled inside litellm leave coroutines it never awaited,
            # reported as they unwind (before the `finally` below): not the user's concern
            warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
            if main is not None:
                main.cancel()

        watching = _watch_sigterm(loop, on_sigterm)
        beat = asyncio.create_task(self.heartbeat())
        try:
            await work
        finally:
            if any(not task.done() for task in tasks):
                # calls cancelled inside litellm leave coroutines it never awaited: not the
                # user's concern (an error ended the run, or it was interrupted)
                warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
            for task in (*tasks, beat):
                task.cancel()
            await asyncio.gather(*tasks, beat, return_exceptions=True)
            await self.writer.close()  # answers handed over are committed before claims go
            await asyncio.to_thread(self.store.release_all, self.owner)
            if watching:
                loop.remove_signal_handler(signal.SIGTERM)


def _watch_sigterm(loop: asyncio.AbstractEventLoop, handler: Callable[[], None]) -> bool:
    """Route SIGTERM to `handler` while the run lasts (main thread only)."""
    try:
        loop.add_signal_handler(signal.SIGTERM, handler)
    except (ValueError, RuntimeError, NotImplementedError):
        return False
    return True
