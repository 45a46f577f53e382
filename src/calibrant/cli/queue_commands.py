"""`calibrant worker`: several machines score one batch (`calibrant score --queue`, whose
operation is `calibrant.ops.score`) and run the service's jobs through a procrastinate queue on
the store's PostgreSQL."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from .app import app


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

    from ..ops.jobrun import service_tasks
    from ..ops.score import queue_tasks
    from ..scoring.queue import conninfo
    from ..scoring.worker import run_worker
    from ..store import Store, database_url

    url = database_url()
    conninfo(url)
    Store.open(url).close()  # the store's own tables, migrated, before the first job
    logging.basicConfig(level=logging.WARNING, format="calibrant worker: %(message)s")
    logging.getLogger("calibrant.queue").setLevel(logging.INFO)
    Console(stderr=True).print(f"worker ready (concurrency {concurrency})", highlight=False)
    run_worker(url, concurrency, tasks={**queue_tasks(), **service_tasks()})
