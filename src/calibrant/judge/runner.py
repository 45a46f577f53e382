"""Judging many transcripts: bounded concurrency, and a cache so the same (transcript, judge,
sample) is never sent to a model twice once the model has answered.

Crash safety: each answer is committed to the store before its concurrency slot is reused, so a
killed process loses only the calls in flight. Concurrency across processes: before asking the
model, a process claims the item in the store (an atomic upsert with a lease it renews while it
works); an item another live process holds is waited for, then read from the cache. A claim
whose lease ran out, or whose owner on this host has ended, is taken over. Answers are written
in groups (the calls that started together, `groupcommit`), with the next claims in the same
transaction; a process holds at most 3 x concurrency claims: the items being asked, as many
next ones, read and prompted ahead, and as many queued to be claimed along with the next
answers. SIGTERM drains like Ctrl-C: calls in flight are cancelled, answers already received
are kept, claims are released.

One item's claim, call and commit, and the run's draining, are `asker`'s; here the run over
transcripts, or over a stream of rounds."""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from ..contracts import JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..errors import Terminated
from ..store import Store
from ..store.claims import claim_lease_seconds
from .asker import JudgeRun, Loader, _Asker
from .reliability import RetryPolicy

__all__ = [
    "JudgeRun",
    "judge_transcripts",
    "judge_transcripts_async",
    "judge_rounds",
    "claim_lease_seconds",
]

P = TypeVar("P")


# a run allocates many short-lived containers per call (litellm's response and logging objects):
# the youngest generation is collected every 10,000 net allocations instead of 700
RUN_GC_THRESHOLD = (10_000, 10, 10)
_gc_depth = 0


@contextmanager
def quiet_gc() -> Iterator[None]:
    """While a run lasts, the collector leaves alone what existed before it (the imported
    modules, litellm's price map, the parsed inputs: `gc.freeze`) and runs less often
    (`RUN_GC_THRESHOLD`); both are undone at the end. Without this, ~1,000 model calls cost
    ~1,800 collections, each walking the import-time heap again (about 3 s of CPU)."""
    global _gc_depth
    _gc_depth += 1
    if _gc_depth > 1:  # a run inside a run: the outer one set things up
        try:
            yield
        finally:
            _gc_depth -= 1
        return
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*RUN_GC_THRESHOLD)
    try:
        yield
    finally:
        _gc_depth -= 1
        gc.set_threshold(*before)
        gc.unfreeze()


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
    first_sample: int = 0,
) -> JudgeRun:
    """Judge every transcript `samples` times; cached answers are reused, not re-asked.
    `hashes` (the transcripts' content hashes, if the caller has them) saves recomputing them.
    `first_sample`: the sample numbers are `first_sample` .. `first_sample + samples - 1` (the
    drift monitor's anchors ask again under a sample number of their own per window)."""
    terminated: list[bool] = []
    try:
        with quiet_gc():
            return asyncio.run(
                judge_transcripts_async(
                    transcripts,
                    rubric=rubric,
                    config=config,
                    store=store,
                    concurrency=concurrency,
                    samples=samples,
                    policy=policy,
                    seed=seed,
                    on_done=on_done,
                    hashes=hashes,
                    terminated=terminated,
                    first_sample=first_sample,
                )
            )
    except (asyncio.CancelledError, KeyboardInterrupt):
        # calls cancelled inside litellm leave coroutines it never awaited: not the user's concern
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        if terminated:
            raise Terminated() from None
        raise


async def judge_transcripts_async(
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
    terminated: list[bool] | None = None,
    first_sample: int = 0,
) -> JudgeRun:
    """`judge_transcripts` on the running event loop: for a process that keeps one loop for
    all its model calls (the queue worker: litellm's background logging is bound to one loop
    and must not see it change under it). `terminated` gets True appended on SIGTERM (when the
    loop runs in the main thread)."""
    run = JudgeRun(judgments=[], from_cache=0, model_calls=0)
    await _judge_all(
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
        terminated=[] if terminated is None else terminated,
        first_sample=first_sample,
    )
    return run


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
    first_sample: int = 0,
) -> None:
    asker = _Asker(
        run=run,
        rubric=rubric,
        config=config,
        store=store,
        concurrency=concurrency,
        policy=policy,
        seed=seed,
        on_done=on_done,
    )
    asker.run_terminated = terminated
    if hashes is None:
        hashes = [content_hash(t) for t in transcripts]
    cached = await asyncio.to_thread(store.final_many, config.hash, hashes)
    results: list[Any] = [None] * (len(transcripts) * samples)
    todo: list[tuple[int, Transcript, str, int]] = []
    for n, (t, th) in enumerate(zip(transcripts, hashes, strict=True)):
        for i in range(samples):
            found = cached.get((th, first_sample + i))
            if found is not None:
                results[n * samples + i] = asker.hit(found)
            else:
                todo.append((n * samples + i, t, th, first_sample + i))
    if not todo:
        run.judgments = results
        return
    tasks = [asyncio.create_task(asker.one(t, th, i)) for _, t, th, i in todo]
    done: list[tuple[Judgment, bool]] = []

    async def work() -> None:
        done.extend(await asyncio.gather(*tasks))

    await asker.guarded(work(), tasks)
    for (slot, *_), (j, _cached) in zip(todo, done, strict=True):
        results[slot] = j
    run.judgments = results


Round = tuple[P, Sequence[Transcript | Loader], Sequence[str]]


def judge_rounds(
    rounds: Iterator[Round[P]],
    on_round: Callable[[P, list[tuple[Judgment, bool]]], None],
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    concurrency: int = 4,
    policy: RetryPolicy | None = None,
    seed: int = 0,
    on_done: Callable[[Judgment, bool], None] | None = None,
) -> JudgeRun:
    """Judge a stream of rounds (payload, transcripts or their loaders, their content hashes;
    one sample each)
    in one event loop: the next round is read, and its items queued behind the concurrency
    gate, while the current one is still being asked, so `concurrency` calls stay in flight
    across round boundaries. `on_round(payload, [(judgment, from_store)])` runs for each round
    in order once all its answers are in. At most two rounds are held in memory. Reading a
    round and `on_round` run in a worker thread (the event loop keeps serving calls)."""
    terminated: list[bool] = []
    run = JudgeRun(judgments=[], from_cache=0, model_calls=0)
    asker = _Asker(
        run=run,
        rubric=rubric,
        config=config,
        store=store,
        concurrency=concurrency,
        policy=policy or RetryPolicy(),
        seed=seed,
        on_done=on_done,
    )
    asker.run_terminated = terminated
    tasks: list[asyncio.Task[Any]] = []

    async def work() -> None:
        pending: deque[tuple[P, list[asyncio.Task[tuple[Judgment, bool]]]]] = deque()
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2:
                item: Round[P] | None = await asyncio.to_thread(next, rounds, None)
                if item is None:
                    exhausted = True
                    break
                payload, ts, hs = item
                mine = [
                    asyncio.create_task(asker.one(t, th, 0)) for t, th in zip(ts, hs, strict=True)
                ]
                tasks.extend(mine)
                pending.append((payload, mine))
            if not pending:
                return
            first, mine = pending.popleft()
            got = list(await asyncio.gather(*mine))
            done = set(mine)
            tasks[:] = [t for t in tasks if t not in done]
            await asyncio.to_thread(on_round, first, got)

    try:
        with quiet_gc():
            asyncio.run(asker.guarded(work(), tasks))
        return run
    except (asyncio.CancelledError, KeyboardInterrupt):
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        if terminated:
            raise Terminated() from None
        raise
