"""Judging many transcripts: bounded concurrency, and a cache so the same (transcript, judge,
sample) is never sent to a model twice once the model has answered."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..contracts import JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..store import Store
from .client import judge_once
from .llm_setup import get_litellm
from .reliability import RetryPolicy

__all__ = ["JudgeRun", "judge_transcripts", "FLUSH_EVERY"]

FLUSH_EVERY = 32  # judgments per store transaction


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
) -> JudgeRun:
    """Judge every transcript `samples` times; cached answers are reused, not re-asked."""
    return asyncio.run(
        _judge_all(
            transcripts,
            rubric=rubric,
            config=config,
            store=store,
            concurrency=concurrency,
            samples=samples,
            policy=policy or RetryPolicy(),
            seed=seed,
            on_done=on_done,
        )
    )


async def _judge_all(
    transcripts: Sequence[Transcript],
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    concurrency: int,
    samples: int,
    policy: RetryPolicy,
    seed: int,
    on_done: Callable[[Judgment, bool], None] | None,
) -> JudgeRun:
    if config.rubric_hash != rubric.content_hash:
        raise ValueError("the judge configuration names another rubric")
    gate = asyncio.Semaphore(max(1, concurrency))
    rng = random.Random(seed)
    litellm = None
    run = JudgeRun(judgments=[], from_cache=0, model_calls=0)
    hashes = [content_hash(t) for t in transcripts]
    cached = await asyncio.to_thread(store.final_many, config.hash, hashes)
    pending: list[Judgment] = []  # written behind, in batches, off the event loop

    async def flush() -> None:
        batch = pending[:]
        pending.clear()
        await asyncio.to_thread(store.put_many, batch)

    async def one(t: Transcript, th: str, i: int) -> Judgment:
        nonlocal litellm
        hit = cached.get((th, i))
        if hit is not None:
            run.from_cache += 1
            if on_done:
                on_done(hit, True)
            return hit
        async with gate:
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
        pending.append(j)
        if len(pending) >= FLUSH_EVERY:
            await flush()
        if on_done:
            on_done(j, False)
        return j

    tasks = [
        one(t, th, i) for t, th in zip(transcripts, hashes, strict=True) for i in range(samples)
    ]
    try:
        run.judgments = list(await asyncio.gather(*tasks))
    finally:  # answers already paid for are kept even if the run is interrupted
        if pending:
            await asyncio.to_thread(store.put_many, pending[:])
    return run
