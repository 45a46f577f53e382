"""`calibrant worker`, and the queue side of `calibrant score` (--queue, --wait): several
machines score one batch through a procrastinate queue on the store's PostgreSQL."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ..errors import CalibrantError
from .app import app

CHUNK = 50  # transcripts per job by default


def enqueue(
    *,
    files: Any,
    paths: list[Path],
    total: int,
    config: Any,
    options: dict[str, Any],
    cal_source: str | None,
    calibration_file: str | None,
    calibration_run: str | None,
    chunk: int,
) -> None:
    """Record the run, defer its jobs, print the run id (stdout) and how to follow it."""
    from ..scoring.inputs import iter_transcripts
    from ..scoring.queue import conninfo, enqueue_batch
    from ..store import database_url, make_engine
    from ..store.runs import Runs

    url = database_url()
    conninfo(url)  # refuse SQLite before writing anything
    if options.get("rubric") is not None:
        options["rubric"] = str(Path(options["rubric"]).resolve())
    runs = Runs(make_engine(url))
    run_id = runs.start(
        "score",
        judge=config,
        arguments={
            "paths": [str(p) for p in paths],
            "transcripts": total,
            "calibration": cal_source,
            "queue": {
                "chunk": chunk,
                "judge_options": options,
                "calibration_file": calibration_file,
                "calibration_run": calibration_run,
            },
        },
        process=False,  # the queue's workers carry it on after this command exits
    )
    try:
        jobs = enqueue_batch(url, run_id, (s for s, _ in iter_transcripts(files)), chunk)
    except BaseException:
        runs.finish(run_id, None, status="failed")
        raise
    Console(stderr=True).print(
        f"queued {total} transcript(s) as {jobs} job(s) of run {run_id}; start workers with "
        f"`calibrant worker`, follow with `calibrant score --wait {run_id}`",
        highlight=False,
    )
    typer.echo(run_id)


def wait(run_id: str, *, as_json: bool, poll_s: float = 1.0) -> None:
    """Follow a queued run until every job is done; print its summary (as `score` does)."""
    from ..scoring.queue import finish_run, queue_status
    from ..store import database_url
    from .score_commands import render_score_summary

    url = database_url()
    err = Console(stderr=True)
    last = None
    while True:
        st = queue_status(url, run_id)
        line = f"run {st.run_id}: {st.scored}/{st.transcripts} scored; jobs " + (
            ", ".join(f"{k} {v}" for k, v in sorted(st.jobs.items())) or "none"
        )
        if line != last:
            err.print(line, highlight=False)
            last = line
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
    from ..store import make_engine
    from ..store.runs import Runs

    detail = Runs(make_engine(url)).get(st.run_id)
    report = detail["report"] if detail else None
    if report is None:  # all rows are in but no worker recorded the report: build it here
        report = finish_run(st.run_id)
    if as_json:
        typer.echo(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        render_score_summary(Console(), report)
    if not report["judge_outcomes"].get("verdict"):
        raise typer.Exit(3)


@app.command()
def worker(
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Jobs worked on at once (default 1).")
    ] = 1,
) -> None:
    """Score queued batches (`calibrant score --queue`) and run the service's background jobs
    (POST /api/jobs) from the store's PostgreSQL until stopped (SIGTERM or Ctrl-C: jobs in
    hand are finished first). Jobs of a worker that stops
    sending heartbeats (killed, machine lost) are retried by the others; answers already in the
    store are not asked again."""
    import logging

    from ..scoring.queue import conninfo
    from ..scoring.worker import run_worker
    from ..service.jobrun import service_tasks
    from ..store import database_url, make_engine

    url = database_url()
    conninfo(url)
    make_engine(url)  # the store's own tables, migrated, before the first job
    logging.basicConfig(level=logging.WARNING, format="calibrant worker: %(message)s")
    logging.getLogger("calibrant.queue").setLevel(logging.INFO)
    Console(stderr=True).print(f"worker ready (concurrency {concurrency})", highlight=False)
    run_worker(url, concurrency, tasks=service_tasks())
