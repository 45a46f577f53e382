"""Judging many transcripts: bounded concurrency, and a cache so the same (transcript, judge,
sample) is never sent to a model twice once the model has answered.

Crash safety: each answer is committed to the store before its concurrency slot is reused, so a
killed process loses only the calls in flight. Concurrency across processes: before asking the
model, a process claims the item in the store (an atomic upsert with a lease it renews while it
works); an item another live process holds is waited for, then read from the cache. A claim
whose lease ran out, or whose owner on this host has ended, is taken over. SIGTERM drains like
Ctrl-C: calls in flight are cancelled, answers already received are kept, claims are released."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..contracts import JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..errors import Terminated
from ..store import Store, new_owner
from .client import judge_once
from .llm_setup import get_litellm
from .reliability import RetryPolicy

__all__ = ["JudgeRun", "judge_transcripts", "claim_lease_seconds"]

LEASE_ENV = "CALIBRANT_CLAIM_LEASE_S"
DEFAULT_LEASE_S = 120.0
POLL_S = 0.2  # how often an item held by another process is looked at again


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


def claim_lease_seconds() -> float:
    """How long a claim lasts without renewal: $CALIBRANT_CLAIM_LEASE_S, default 120 s."""
    raw = os.environ.get(LEASE_ENV)
    try:
        value = float(raw) if raw else DEFAULT_LEASE_S
    except ValueError:
        value = DEFAULT_LEASE_S
    return value if value > 0 else DEFAULT_LEASE_S


def judge_transcripts(
    transcripts: Sequence[Transcript],
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    concurrency: int = 4,
    samples: int = 1,
    policy: RetryPolicy | None = None,
    seed: int = 0,
    on_done: Callable[[Judgment, bool], None] | None = None,
    hashes: Sequence[str] | None = None,
) -> JudgeRun:
    """Judge every transcript `samples` times; cached answers are reused, not re-asked.
    `hashes` (the transcripts' content hashes, if the caller has them) saves recomputing them."""
    terminated: list[bool] = []
    run = JudgeRun(judgments=[], from_cache=0, model_calls=0)
    try:
        # the coroutine fills `run` and returns None: no result repr in any asyncio log
        asyncio.run(
            _judge_all(
                transcripts,
                run=run,
                rubric=rubric,
                config=config,
                store=store,
                concurrency=concurrency,
                samples=samples,
                policy=policy or RetryPolicy(),
                seed=seed,
                on_done=on_done,
                hashes=hashes,
                terminated=terminated,
            )
        )
        return run
    except (asyncio.CancelledError, KeyboardInterrupt):
        # calls cancelled inside litellm leave coroutines it never awaited: not the user's concern
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        if terminated:
            raise Terminated() from None
        raise


async def _judge_all(
    transcripts: Sequence[Transcript],
    *,
    run: JudgeRun,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    concurrency: int,
    samples: int,
    policy: RetryPolicy,
    seed: int,
    on_done: Callable[[Judgment, bool], None] | None,
    hashes: Sequence[str] | None,
    terminated: list[bool],
) -> None:
    if config.rubric_hash != rubric.content_hash:
        raise ValueError("the judge configuration names another rubric")
    gate = asyncio.Semaphore(max(1, concurrency))
    rng = random.Random(seed)
    litellm = None
    if hashes is None:
        hashes = [content_hash(t) for t in transcripts]
    judge_hash = config.hash
    cached = await asyncio.to_thread(store.final_many, judge_hash, hashes)
    owner = new_owner()
    lease_s = claim_lease_seconds()

    def hit(j: Judgment) -> Judgment:
        run.from_cache += 1
        if on_done:
            on_done(j, True)
        return j

    async def one(t: Transcript, th: str, i: int) -> Judgment:
        nonlocal litellm
        while True:
            async with gate:
                got = await asyncio.to_thread(store.claim, th, judge_hash, i, owner, lease_s)
                if isinstance(got, Judgment):  # another process answered it meanwhile
                    return hit(got)
                if got:
                    if litellm is None:
                        litellm = get_litellm()
                    j = await judge_once(
                        t,
                        rubric=rubric,
                        config=config,
                        sample_index=i,
                        policy=policy,
                        litellm=litellm,
                        rng=rng,
                        transcript_hash=th,
                    )
                    run.model_calls += j.attempts
                    # durable before the slot is reused (a thread finishes its commit even if
                    # this task is cancelled meanwhile)
                    await asyncio.to_thread(store.finish, j, owner)
                    if on_done:
                        on_done(j, False)
                    return j
            await asyncio.sleep(POLL_S)  # held by another live process: wait outside the gate

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(lease_s / 4)
            await asyncio.to_thread(store.renew, owner, lease_s)

    results: list[Any] = [None] * (len(transcripts) * samples)
    todo: list[tuple[int, Transcript, str, int]] = []
    for n, (t, th) in enumerate(zip(transcripts, hashes, strict=True)):
        for i in range(samples):
            found = cached.get((th, i))
            if found is not None:
                results[n * samples + i] = hit(found)
            else:
                todo.append((n * samples + i, t, th, i))
    if not todo:
        run.judgments = results
        return

    loop = asyncio.get_running_loop()
    main = asyncio.current_task()

    def on_sigterm() -> None:
        terminated.append(True)
        if main is not None:
            main.cancel()

    watching = _watch_sigterm(loop, on_sigterm)
    beat = asyncio.create_task(heartbeat())
    tasks = [asyncio.create_task(one(t, th, i)) for _, t, th, i in todo]
    try:
        done = await asyncio.gather(*tasks)
    finally:
        for task in (*tasks, beat):
            task.cancel()
        await asyncio.gather(*tasks, beat, return_exceptions=True)
        await asyncio.to_thread(store.release_all, owner)
        if watching:
            loop.remove_signal_handler(signal.SIGTERM)
    for (slot, *_), j in zip(todo, done, strict=True):
        results[slot] = j
    run.judgments = results


def _watch_sigterm(loop: asyncio.AbstractEventLoop, handler: Callable[[], None]) -> bool:
    """Route SIGTERM to `handler` while the run lasts (main thread only)."""
    try:
        loop.add_signal_handler(signal.SIGTERM, handler)
    except (ValueError, RuntimeError, NotImplementedError):
        return False
    return True
