"""Scoring past one machine: a batch is cut into jobs on a procrastinate queue kept in the same
PostgreSQL as the store, and any number of `calibrant worker` processes take jobs from it.

A job names its transcripts (file, and line for JSON Lines), never carries their text. Its
worker judges them through `judge_transcripts`, whose claims in the store keep two processes
from paying twice for one item, and writes their score rows at their batch positions (a rerun
of a job overwrites the same rows). A worker killed mid-job stops sending heartbeats; the other
workers see it as stalled after `stall_seconds()` and put its job back in the queue, where the
retry asks the model only for the items the store has no answer for. The job that writes the
batch's last row builds the run's report from the store (no model call) and finishes the run.
This module is the queue's plumbing; what a job does is the score operation's
(`calibrant.ops.score.score_chunk`), given to the worker by whoever starts it."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..contracts.reports.base import Strict
from ..contracts.reports.score_parts import ScoredTranscript
from ..errors import CalibrantError, ConfigError
from ..settings import get_settings

__all__ = [
    "TASK",
    "QueueStatus",
    "chunk_refs",
    "conninfo",
    "defer",
    "enqueue_batch",
    "queue_status",
    "load_refs",
    "score_round",
    "run_queue",
    "stall_seconds",
]

TASK = "calibrant.score_chunk"
_SCHEMA_LOCK = 0x63616C71  # "calq": one process applies procrastinate's schema at a time
log = logging.getLogger("calibrant.queue")


def heartbeat_seconds() -> float:
    """How often a worker says it is alive: $CALIBRANT_WORKER_HEARTBEAT_S, default 10 s."""
    return get_settings().worker_heartbeat_s


def stall_seconds() -> float:
    """A worker silent this long is taken as dead and its jobs are retried (3 heartbeats)."""
    return 3 * heartbeat_seconds()


def run_queue(run_id: str) -> str:
    return f"calibrant-{run_id[:20]}"  # NOTIFY channel names are at most 63 bytes


def conninfo(url: str) -> str:
    """The libpq URL for the store's SQLAlchemy URL (driver suffix dropped); one clear error on
    anything but PostgreSQL."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme not in ("postgresql", "postgres"):
        raise ConfigError(
            "the job queue (`score --queue`, `calibrant worker`, `serve --worker`) needs the "
            "store on PostgreSQL: set "
            "CALIBRANT_DATABASE_URL to a postgresql:// URL (the store is SQLite now)"
        )
    return urlunsplit(("postgresql", *parts[1:]))


def _ensure_schema(info: str) -> None:
    """Apply procrastinate's schema once per database schema (idempotent, serialized)."""
    try:
        import psycopg
        from procrastinate.schema import SchemaManager
    except ImportError as exc:
        raise ConfigError(
            f"the job queue needs the `postgres` extra (pip install 'calibrant[postgres]'): {exc}"
        ) from None

    try:
        with psycopg.connect(info, autocommit=True) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
            try:
                found = conn.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
                if found is None or found[0] is None:
                    conn.execute(SchemaManager.get_schema())
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))
    except psycopg.Error as exc:
        from ..store.db import redact_url

        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"cannot open the job queue at {redact_url(info)}: {first}") from None


Tasks = Mapping[str, Callable[..., Any]]


def _retry() -> Any:
    import procrastinate

    return procrastinate.RetryStrategy(max_attempts=3, wait=2)


def _app(info: str, tasks: Tasks | None = None) -> Any:
    """The queue, knowing the score task and `tasks` (name -> function). A worker gives the
    score task's work as `tasks[TASK]` (`calibrant.ops.score.score_chunk`, called with the
    worker's store); every task gets the job's context (the worker's store in it)."""
    import procrastinate

    tasks = dict(tasks or {})
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=info))
    app.task(name=TASK, retry=_retry(), pass_context=True)(_chunk_task(tasks.pop(TASK, None)))
    for name, func in tasks.items():
        app.task(name=name, pass_context=True)(func)
    return app


# -- enqueue ------------------------------------------------------------------------------------


def chunk_refs(sources: Iterator[str], size: int) -> Iterator[list[list[Any]]]:
    """Cut the batch's sources (`path` or `path:line`) into jobs of `size` refs, each ref
    [source as printed, absolute path, line or None]."""
    chunk: list[list[Any]] = []
    for source in sources:
        path, line = source, None
        head, sep, tail = source.rpartition(":")
        if sep and tail.isdigit() and head.endswith(".jsonl"):
            path, line = head, int(tail)
        chunk.append([source, str(Path(path).resolve()), line])
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def enqueue_batch(url: str, run_id: str, sources: Iterator[str], chunk: int) -> int:
    """Defer one job per `chunk` transcripts of run `run_id`; returns the number of jobs."""
    info = conninfo(url)
    _ensure_schema(info)
    app = _app(info)

    async def defer() -> int:
        async with app.open_async():
            deferrer = app.tasks[TASK].configure(queue=run_queue(run_id))
            jobs = [
                {"run_id": run_id, "start": n * chunk, "refs": refs}
                for n, refs in enumerate(chunk_refs(sources, chunk))
            ]
            await deferrer.batch_defer_async(*jobs)
            return len(jobs)

    return asyncio.run(defer())


def defer(url: str, tasks: Tasks, name: str, *, queue: str, **kwargs: Any) -> int:
    """Put one job of task `name` (one of `tasks`) on the queue; returns its queue id."""
    info = conninfo(url)
    _ensure_schema(info)
    app = _app(info, tasks)

    async def put() -> int:
        async with app.open_async():
            return int(await app.tasks[name].configure(queue=queue).defer_async(**kwargs))

    return asyncio.run(put())


# -- the job ------------------------------------------------------------------------------------


def load_refs(refs: list[list[Any]]) -> list[tuple[str, Any]]:
    """(source, transcript) of each ref, read again from its file (and line)."""
    from ..files import load_transcript, transcript_from_line

    out = []
    for source, path, line in refs:
        p = Path(path)
        if line is None:
            out.append((source, load_transcript(p)))
            continue
        with p.open("rb") as fh:
            for n, raw in enumerate(fh, start=1):
                if n == line:
                    out.append((source, transcript_from_line(p, n, raw.decode("utf-8"))))
                    break
            else:
                raise CalibrantError(f"{path}: line {line} is gone since the batch was queued")
    return out


ChunkWork = Callable[..., Any]


def _chunk_task(work: ChunkWork | None) -> Callable[..., int]:
    """The score task around `work(store, run_id, start, refs, judge_loop)`; when a job fails
    for the last time (no retry left), its run is marked failed with the reason, so `score
    --wait` and `runs show` say why instead of waiting forever."""

    def score_chunk(context: Any, run_id: str, start: int, refs: list[list[Any]]) -> int:
        extra = context.additional_context
        store = extra["store"]
        try:
            if work is None:
                raise CalibrantError("this process queues score jobs; it does not run them")
            return int(work(store, run_id, start, refs, extra.get("judge_loop")))
        except Exception as exc:
            if _retry().get_retry_decision(exception=exc, job=context.job) is None:
                _fail_run(store, run_id, start, len(refs), context.job.attempts + 1, exc)
            raise

    return score_chunk


def _fail_run(store: Any, run_id: str, start: int, n: int, attempts: int, exc: Exception) -> None:
    from ..judge.client import redact_secrets
    from ..store.runs import Runs

    what = str(exc) if isinstance(exc, CalibrantError) else f"{type(exc).__name__}: {exc}"
    what = " ".join(redact_secrets(what).split())[:400]
    reason = (
        f"the job for transcripts {start + 1}-{start + n} failed on each of its {attempts} "
        f"attempt(s): {what}"
    )
    try:
        runs = Runs(store.engine)
        detail = runs.detail(run_id)
        if detail is not None and detail.status == "running":
            runs.finish(run_id, {"error": reason}, status="failed")
        log.error("run %s failed: %s", run_id, reason)
    except Exception as store_exc:  # the job's own failure is what procrastinate records
        log.error("run %s: could not record its failure (%s): %s", run_id, store_exc, reason)


def score_round(
    batch: list[tuple[str, Any]],
    *,
    resolved: tuple[Any, Any, Any, int],
    summary: Any,
    store: Any,
    run_id: str,
    start: int,
    on_done: Callable[[Any, bool], None] | None = None,
    judge_loop: Any = None,
) -> list[ScoredTranscript]:
    """Judge one round of (source, transcript) of a queued score run, add it to `summary` and
    store its score rows at positions `start`...; returns the rows. `judge_loop`: a worker's
    one event loop for every model call (see judge_loop)."""
    from ..judge.runner import judge_transcripts, judge_transcripts_async
    from ..safety import check_transcript
    from ..store.runs import Runs

    config, rubric, policy, conc = resolved
    judging: dict[str, Any] = {
        "rubric": rubric,
        "config": config,
        "store": store,
        "concurrency": conc,
        "policy": policy,
        "on_done": on_done,
    }
    transcripts = [t for _, t in batch]
    if judge_loop is not None:
        run = judge_loop.run(judge_transcripts_async(transcripts, **judging))
    else:
        run = judge_transcripts(transcripts, **judging)
    rows = [
        summary.add(source, t, check_transcript(t, source=source), j, cached=False)
        for (source, t), j in zip(batch, run.judgments, strict=True)
    ]
    Runs(store.engine).add_scores(run_id, [r.json_data() for r in rows], start=start)
    return rows


# -- progress -----------------------------------------------------------------------------------


class QueueStatus(Strict):
    """Where a queued score run is: its rows scored, and its jobs by status."""

    run_id: str
    status: str
    transcripts: int
    scored: int
    jobs: dict[str, int]
    error: str | None = None  # why the run failed, when it did

    @property
    def settled(self) -> bool:
        """No job left to do or in hand."""
        return not (self.jobs.get("todo", 0) or self.jobs.get("doing", 0))


def queue_status(store: Any, run_id: str) -> QueueStatus:
    """Where queued run `run_id` is: its rows, and its jobs by status."""
    import psycopg

    from ..store.runs import Runs

    info = conninfo(store.url)
    runs = Runs(store.engine)
    detail = runs.detail(run_id)
    if detail is None or "queue" not in detail.arguments:
        raise CalibrantError(f"no queued score run '{run_id}' in the store")
    _ensure_schema(info)
    with psycopg.connect(info) as conn:
        rows = conn.execute(
            "SELECT status::text, count(*) FROM procrastinate_jobs WHERE queue_name = %s "
            "GROUP BY status",
            (run_queue(detail.id),),
        ).fetchall()
    return QueueStatus(
        run_id=detail.id,
        status=detail.status,
        transcripts=int(str(detail.arguments["transcripts"])),
        scored=len(runs.scores(detail.id)),
        jobs={str(s): int(n) for s, n in sorted(rows)},
        error=detail.error,
    )


def dumps(status: QueueStatus) -> str:
    return json.dumps(status.json_data(), sort_keys=True)
