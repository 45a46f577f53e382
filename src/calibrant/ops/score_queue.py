"""The score queue: `score --queue` records the run and defers its jobs (`enqueue`), the queue's
workers judge a job each (`score_chunk`, the task `queue_tasks` gives them), the job that writes
the last row builds the run's report (`finish_queued`) and `score --wait` follows the run
(`wait`): the same inputs check, calibration choice, score rows and summary as `score`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError, ConfigError
from .common import ResolvedJudge
from .score_inputs import (
    ChunkOptions,
    QueueOptions,
    ScoreHooks,
    ScoreResult,
    _calibration,
    _inputs,
)

if TYPE_CHECKING:
    from ..contracts.reports import ScoreReport
    from ..store import Store
    from ..store.run_info import RunDetail

__all__ = ["enqueue", "finish_queued", "queue_tasks", "score_chunk", "wait"]


def enqueue(store: Store, options: QueueOptions, hooks: ScoreHooks | None = None) -> ScoreResult:
    """Record the run and defer its jobs on the store's PostgreSQL; the result has no report
    yet (the queue's last job builds it: `finish_queued`)."""
    from ..scoring.inputs import iter_transcripts
    from ..scoring.queue import conninfo, enqueue_batch
    from ..store.runs import Runs

    hooks = hooks or ScoreHooks()
    conninfo(store.url)  # refuse SQLite before writing anything
    judge_options = dict(options.judge_options)
    if judge_options.get("rubric") is not None:
        judge_options["rubric"] = str(Path(judge_options["rubric"]).resolve())
    runs = Runs(store.engine)
    chosen, _ = _calibration(options.score, runs)
    files, total = _inputs(store, options.score, hooks)
    run_id = runs.start(
        "score",
        judge=options.score.judge[0],
        arguments={
            "paths": list(options.score.paths),
            "transcripts": total,
            "calibration": None if chosen is None else chosen.source,
            "queue": {
                "chunk": options.chunk,
                "judge_options": judge_options,
                "calibration_file": None if chosen is None else chosen.file,
                "calibration_run": None if chosen is None else chosen.run_id,
            },
        },
        process=False,  # the queue's workers carry it on after this process exits
    )
    try:
        jobs = enqueue_batch(
            store.url, run_id, (s for s, _ in iter_transcripts(files)), options.chunk
        )
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    return ScoreResult(run_id=run_id, transcripts=total, jobs=jobs)


def _queue_options(detail: RunDetail) -> Any:
    """The queue's options `enqueue` recorded in the run's arguments (JSON, its own shape)."""
    return detail.arguments["queue"]


def _judge_of(detail: RunDetail) -> ResolvedJudge:
    """The run's judge, resolved again from its stored options; refused if its version moved."""
    from ..judge.config import JudgeOptions, resolve_judge

    opts = _queue_options(detail)["judge_options"]
    config, rubric, policy, conc = resolve_judge(JudgeOptions(**opts))
    if config.hash != detail.judge_hash:
        raise ConfigError(
            f"run {detail.id}: the judge resolves to another version here "
            f"({config.hash[:19]}, the run used {(detail.judge_hash or '')[:19]})"
        )
    return config, rubric, policy, conc


def score_chunk(store: Store, options: ChunkOptions, *, judge_loop: Any = None) -> ScoreResult:
    """One queued job: judge its transcripts, store their score rows at their positions (a rerun
    overwrites the same rows); the job that writes the batch's last row finishes the run.
    `judge_loop`: a worker's one event loop for every model call."""
    import logging

    from ..scoring.queue import load_refs, score_round
    from ..scoring.summary import ScoreSummary
    from ..store.runs import Runs

    runs = Runs(store.engine)
    detail = runs.detail(options.run_id)
    if detail is None or detail.kind != "score":
        raise CalibrantError(f"no score run {options.run_id} in the store")
    resolved = _judge_of(detail)
    rows = score_round(
        load_refs([list(r) for r in options.refs]),
        resolved=resolved,
        summary=ScoreSummary(resolved[1], resolved[0]),
        store=store,
        run_id=options.run_id,
        start=options.start,
        judge_loop=judge_loop,
    )
    logging.getLogger("calibrant.queue").info(
        "run %s: %d transcript(s) from %d scored", options.run_id, len(rows), options.start
    )
    total = int(str(detail.arguments["transcripts"]))
    if len(runs.scores(options.run_id)) >= total and detail.status == "running":
        report = finish_queued(store, options.run_id)
        return ScoreResult(run_id=options.run_id, report=report, transcripts=len(rows))
    return ScoreResult(run_id=options.run_id, transcripts=len(rows))  # not the last round


def finish_queued(store: Store, run_id: str) -> ScoreReport:
    """Build a queued run's report from the store (every answer is there: no model call),
    record it and return it. Repeating it gives the same report."""
    from ..safety import check_transcript
    from ..scoring.calibration_choice import choose_calibration, latest_hint
    from ..scoring.queue import chunk_refs, load_refs
    from ..scoring.summary import ScoreSummary
    from ..store.runs import Runs

    runs = Runs(store.engine)
    detail = runs.detail(run_id)
    if detail is None:
        raise CalibrantError(f"no run '{run_id}' in the store")
    config, rubric, _, _ = _judge_of(detail)
    q = _queue_options(detail)
    chosen = choose_calibration(
        q.get("calibration_file") or q.get("calibration_run"), runs=runs, config=config
    )
    started = datetime.fromisoformat(detail.started_at)
    if started.tzinfo is None:  # stored as naive UTC
        started = started.replace(tzinfo=UTC)
    summary = ScoreSummary(rubric, config)
    for row in runs.scores(run_id):
        ((source, t),) = load_refs(next(chunk_refs(iter([row.source]), 1)))
        j = store.get(row.transcript_hash, config.hash, 0)
        if j is None:
            raise CalibrantError(f"run {run_id}: no stored judgment for {row.source}")
        cached = j.created_at < started  # answered before the run: no cost to this run
        summary.add(source, t, check_transcript(t, source=source), j, cached=cached)
    report = summary.report(
        chosen,
        available=None if chosen is not None else latest_hint(runs, config),
        run_id=run_id,
    )
    runs.finish(run_id, report.json_data())
    return report


def wait(
    store: Store,
    run_id: str,
    *,
    on_status: Callable[[Any], None] | None = None,
    poll_s: float = 1.0,
) -> ScoreResult:
    """Follow a queued run until every job is done; its report (built here when every row is
    in but no worker recorded it). `on_status` hears each look at the queue."""
    import time

    from ..contracts.reports import ScoreReport
    from ..scoring.queue import queue_status
    from ..store.runs import Runs

    while True:
        st = queue_status(store, run_id)
        if on_status is not None:
            on_status(st)
        if st.status == "failed":
            raise CalibrantError(
                f"run {st.run_id} failed: {st.error or 'no reason recorded'}; fix it and queue "
                "the batch again (answers already stored are not asked again)"
            )
        if st.status != "running" or (st.settled and st.scored >= st.transcripts):
            break
        if st.settled:  # jobs that failed for good: the run cannot complete
            raise CalibrantError(
                f"run {st.run_id}: {st.transcripts - st.scored} transcript(s) not scored and no "
                "job left (see the workers' output); queue the batch again to finish it"
            )
        time.sleep(poll_s)
    detail = Runs(store.engine).detail(st.run_id)
    stored = None if detail is None else detail.report
    if isinstance(stored, dict):  # a report this calibrant cannot read: it says why
        stored = ScoreResult.model_of(stored)
    if isinstance(stored, ScoreReport):
        report = stored
    else:  # all rows are in but no worker recorded the report: build it here
        report = finish_queued(store, st.run_id)
    return ScoreResult(run_id=st.run_id, report=report, transcripts=st.transcripts)


def _chunk_work(store: Store, run_id: str, start: int, refs: list[list[Any]], loop: Any) -> int:
    refs_t = tuple((str(s), str(p), None if n is None else int(n)) for s, p, n in refs)
    done = score_chunk(store, ChunkOptions(run_id, start, refs_t), judge_loop=loop)
    return done.transcripts


def queue_tasks() -> dict[str, Callable[..., Any]]:
    """The score task's work, for `calibrant worker` and `serve --worker` (see run_worker)."""
    from ..scoring.queue import TASK

    return {TASK: _chunk_work}
