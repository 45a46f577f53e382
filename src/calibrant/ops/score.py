"""`score`, written once: judge new, unlabeled transcripts, safety beside communication, with
pass rates corrected by the judge's calibration. The command line and the service's score job
call `score`; `score --queue` calls `enqueue`, the queue's workers `score_chunk`, and the run's
report is built by `finish_queued` — every path through the same inputs check, calibration
choice, score rows and summary."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError, ConfigError
from .batch import BatchHooks, BatchOptions, submit_batches
from .common import Hooks, OpResult, ResolvedJudge

if TYPE_CHECKING:
    from ..contracts import Judgment
    from ..contracts.reports import ScoreReport  # noqa: F401 (the result's model)
    from ..paths import FileList
    from ..scoring.calibration_choice import ChosenCalibration
    from ..store import Store
    from ..store.runs import Runs

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


@dataclass(frozen=True)
class ScoreOptions:
    """A batch to score. `judge`: the judge, resolved; `calibration`: None (no correction),
    `latest`, a calibrate run id, or (with `calibration_files`) a calibration report file;
    `submit`: judge through the provider's batch API first (no live model call)."""

    paths: tuple[str, ...]
    judge: ResolvedJudge
    calibration: str | None = None
    calibration_files: bool = True
    submit: bool = False
    poll_s: float = 30.0


@dataclass(frozen=True)
class QueueOptions:
    """A batch to queue for `calibrant worker` processes: `judge_options` is how the workers
    resolve the judge again (the options given, as JSON), `chunk` transcripts per job."""

    score: ScoreOptions
    judge_options: dict[str, Any] = field(default_factory=dict)
    chunk: int = 50


@dataclass(frozen=True)
class ChunkOptions:
    """One queued job of run `run_id`: its transcripts (refs, see `chunk_refs`) from `start`."""

    run_id: str
    start: int
    refs: tuple[tuple[str, str, int | None], ...]


@dataclass(frozen=True)
class ScoreHooks(Hooks):
    """`on_inputs(files, total)`: the batch is valid (before the first model call);
    `on_row(row)`: each transcript's score row, in order; `after_round()`: a round is written;
    `batch`: how the provider batches are followed (`ScoreOptions.submit`)."""

    on_inputs: Callable[[FileList, int], None] | None = None
    on_row: Callable[[dict[str, Any]], None] | None = None
    after_round: Callable[[], None] | None = None
    batch: BatchHooks = field(default_factory=BatchHooks)


@dataclass(frozen=True)
class ScoreResult(OpResult["ScoreReport"]):
    """The run, its report, and how many transcripts it scored."""

    KIND = "score"

    transcripts: int = 0


def _calibration(options: ScoreOptions, runs: Runs) -> tuple[ChosenCalibration | None, str | None]:
    """The calibration that corrects, and (without one) the latest one there is, to name it."""
    from ..scoring.calibration_choice import choose_calibration, latest_hint

    config = options.judge[0]
    chosen = choose_calibration(
        options.calibration, runs=runs, config=config, files=options.calibration_files
    )
    return chosen, None if chosen is not None else latest_hint(runs, config)


def _inputs(store: Store, options: ScoreOptions, hooks: ScoreHooks) -> tuple[FileList, int]:
    """Every transcript valid before the first model call, a chunk at a time. A unit (file, or
    JSON Lines line) whose bytes the store has read before is known valid: no parse."""
    from ..domains import same_domain
    from ..scoring.inputs import find_inputs
    from ..scoring.units import Known, Unit, validate_units

    files = find_inputs(list(options.paths))
    rubric = options.judge[1]

    def in_rubric_domain(u: Unit, k: Known) -> None:  # one domain per run: the rubric's
        same_domain(
            u.path,
            k.domain,
            expected=rubric.domain,
            expected_from=f"rubric '{rubric.rubric_id}'",
            line=u.line,
        )

    total = validate_units(files, store, check=in_rubric_domain)
    if total == 0:
        raise CalibrantError("no transcript found in the given paths")
    if hooks.on_inputs is not None:
        hooks.on_inputs(files, total)
    return files, total


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
                k.safety["violated"],
                k.safety["harness_error"],
                j,
                cached=from_store,
            )
            rows.append(row)
            if hooks.on_row is not None:
                hooks.on_row(row)
        runs.add_scores(run_id, rows, start=scored)
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
    report = summary.report(chosen, available=available)
    report["run_id"] = run_id
    runs.finish(run_id, report)
    return ScoreResult(run_id=run_id, report=report, transcripts=total)


# -- the queue: `score --queue`, its workers, `score --wait` -------------------------------------


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
    return ScoreResult(run_id=run_id, report={"jobs": jobs}, transcripts=total)


def _judge_of(detail: dict[str, Any]) -> ResolvedJudge:
    """The run's judge, resolved again from its stored options; refused if its version moved."""
    from ..judge.config import JudgeOptions, resolve_judge

    opts = detail["arguments"]["queue"]["judge_options"]
    config, rubric, policy, conc = resolve_judge(JudgeOptions(**opts))
    if config.hash != detail["judge_hash"]:
        raise ConfigError(
            f"run {detail['id']}: the judge resolves to another version here "
            f"({config.hash[:19]}, the run used {detail['judge_hash'][:19]})"
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
    detail = runs.get(options.run_id)
    if detail is None or detail["kind"] != "score":
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
    report: dict[str, Any] = {}
    total = int(detail["arguments"]["transcripts"])
    if len(runs.scores(options.run_id)) >= total and detail["status"] == "running":
        report = finish_queued(store, options.run_id)
    return ScoreResult(run_id=options.run_id, report=report, transcripts=len(rows))


def finish_queued(store: Store, run_id: str) -> dict[str, Any]:
    """Build a queued run's report from the store (every answer is there: no model call),
    record it and return it. Repeating it gives the same report."""
    from ..safety import check_transcript
    from ..scoring.calibration_choice import choose_calibration, latest_hint
    from ..scoring.queue import chunk_refs, load_refs
    from ..scoring.summary import ScoreSummary
    from ..store.runs import Runs

    runs = Runs(store.engine)
    detail = runs.get(run_id)
    if detail is None:
        raise CalibrantError(f"no run '{run_id}' in the store")
    config, rubric, _, _ = _judge_of(detail)
    q = detail["arguments"]["queue"]
    chosen = choose_calibration(
        q.get("calibration_file") or q.get("calibration_run"), runs=runs, config=config
    )
    started = datetime.fromisoformat(detail["started_at"])
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
        chosen, available=None if chosen is not None else latest_hint(runs, config)
    )
    report["run_id"] = run_id
    runs.finish(run_id, report)
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
    detail = Runs(store.engine).get(st.run_id)
    report = detail["report"] if detail else None
    if report is None:  # all rows are in but no worker recorded the report: build it here
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
