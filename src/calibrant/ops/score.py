"""`score`, written once: judge new, unlabeled transcripts, safety beside communication, with
pass rates corrected by the judge's calibration. The command line and the service's score job
call `score`; `score --queue` calls `enqueue`, the queue's workers `score_chunk`, and the run's
report is built by `finish_queued` — every path through the same inputs check, calibration
choice, score rows and summary.

The run's options, hooks and result and its inputs check are in `score_inputs`, the queue's
paths in `score_queue`; both re-exported here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from .batch import BatchOptions, submit_batches
from .score_inputs import (
    ChunkOptions,
    QueueOptions,
    ScoreHooks,
    ScoreOptions,
    ScoreResult,
    _calibration,
    _inputs,
)
from .score_queue import enqueue, finish_queued, queue_tasks, score_chunk, wait

if TYPE_CHECKING:
    from ..contracts import Judgment
    from ..store import Store

__all__ = [
    "ChunkOptions",
    "QueueOptions",
    "ScoreHooks",
    "ScoreOptions",
    "ScoreResult",
    "enqueue",
    "finish_queued",
    "queue_tasks",
    "score",
    "score_chunk",
    "wait",
]

BATCH = 128  # transcripts per round (two rounds in memory at most): bounded, not by the input


def score(store: Store, options: ScoreOptions, hooks: ScoreHooks | None = None) -> ScoreResult:
    """Score the batch: a score run in the store, its rows, its report. Answers are stored as
    they come: a rerun after a crash asks only for what is missing."""
    from ..judge.openai_batch import unanswered
    from ..judge.runner import judge_rounds
    from ..scoring.summary import ScoreSummary
    from ..scoring.units import chunks, iter_units, know_units, parse_unit
    from ..store.runs import Runs

    hooks = hooks or ScoreHooks()
    config, rubric, policy, conc = options.judge
    runs = Runs(store.engine)
    chosen, available = _calibration(options, runs)
    files, total = _inputs(store, options, hooks)
    batches = []
    if options.submit:  # every answer the batch API gives is in the store before scoring
        batch = BatchOptions(
            paths=options.paths, config=config, rubric=rubric, poll_s=options.poll_s
        )
        batches = submit_batches(store, batch, files, hooks.batch)
    batched = {th for b in batches for th in b.transcript_hashes}
    summary = ScoreSummary(rubric, config)
    run_id = runs.start(
        "score",
        judge=config,
        arguments={
            "paths": list(options.paths),
            "transcripts": total,
            "calibration": None if chosen is None else chosen.source,
            **({"batch_runs": [b.run_id for b in batches]} if options.submit else {}),
        },
    )
    scored = 0
    judge_hash = config.hash

    def rounds(progress: Any) -> Iterator[tuple[Any, list[Any], list[str]]]:
        """(what to write, transcripts to ask about, their hashes), a round at a time; answers
        already stored are taken here and never parsed for."""
        for chunk in chunks(iter_units(files), BATCH):
            known = know_units(chunk, store)
            cached = store.final_many(judge_hash, [k.transcript_hash for k in known])
            if options.submit:  # no live call: what the batch did not answer is its failure
                for k in known:
                    if (k.transcript_hash, 0) not in cached:
                        cached[(k.transcript_hash, 0)] = store.get(
                            k.transcript_hash, judge_hash, 0
                        ) or unanswered(k.transcript_id, k.transcript_hash, config)
            asks: list[Any] = []  # transcripts, or loaders run once an item gets its slot
            hashes = []
            for u, k in zip(chunk, known, strict=True):
                if (k.transcript_hash, 0) in cached:
                    progress.advance(cached=True)
                else:  # a JSON file is read again by its loader; a line keeps its bytes
                    raw = u.raw if u.line is not None else b""
                    asks.append(k.transcript or partial(parse_unit, replace(u, raw=raw)))
                    hashes.append(k.transcript_hash)
                k.transcript = None  # the payload keeps what to write, not transcripts
                u.raw = b""
            yield (chunk, known, cached), asks, hashes

    def write_round(payload: Any, got: list[tuple[Judgment, bool]]) -> None:
        nonlocal scored
        chunk, known, cached = payload
        answers = iter(got)
        rows = []
        for u, k in zip(chunk, known, strict=True):
            hit = cached.get((k.transcript_hash, 0))
            # an answer a provider batch of this run just gave is this run's (its cost too)
            fresh = hit is not None and k.transcript_hash in batched
            j, from_store = (hit, not fresh) if hit is not None else next(answers)
            row = summary.add_known(
                u.source,
                k.transcript_id,
                k.safety.violated,
                k.safety.harness_error,
                j,
                cached=from_store,
            )
            rows.append(row)
            if hooks.on_row is not None:
                hooks.on_row(row)
        runs.add_scores(run_id, [r.json_data() for r in rows], start=scored)
        scored += len(rows)
        if hooks.after_round is not None:
            hooks.after_round()  # e.g. what this round freed is not kept resident

    try:
        hooks.run(run_id)
        with hooks.progress("transcripts scored", total) as progress:
            judge_rounds(
                rounds(progress),
                write_round,
                rubric=rubric,
                config=config,
                store=store,
                concurrency=conc,
                policy=policy,
                on_done=hooks.answered(progress),
            )
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    report = summary.report(chosen, available=available, run_id=run_id).json_data()
    runs.finish(run_id, report)
    return ScoreResult(run_id=run_id, report=ScoreResult.model_of(report), transcripts=total)
