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
are kept, claims are released."""

from __future__ import annotations

import asyncio
import gc
import random
import signal
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ..contracts import JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..errors import Terminated
from ..store import Store, new_owner
from ..store.claims import claim_lease_seconds
from .client import ask, prepare_call
from .groupcommit import StoreWriter
from .llm_setup import configure_model, endpoint_kwargs
from .model_names import check_route
from .reliability import RetryPolicy

__all__ = [
    "JudgeRun",
    "judge_transcripts",
    "judge_transcripts_async",
    "judge_rounds",
    "claim_lease_seconds",
]

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
P = TypeVar("P")
Loader = Callable[[], Transcript]


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


def _watch_sigterm(loop: asyncio.AbstractEventLoop, handler: Callable[[], None]) -> bool:
    """Route SIGTERM to `handler` while the run lasts (main thread only)."""
    try:
        loop.add_signal_handler(signal.SIGTERM, handler)
    except (ValueError, RuntimeError, NotImplementedError):
        return False
    return True
