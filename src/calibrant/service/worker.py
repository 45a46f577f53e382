"""`calibrant serve --worker`: a queue worker inside the service process, in its own thread,
taking the service's jobs and queued score batches like `calibrant worker` does."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

__all__ = ["worker_lifespan"]

log = logging.getLogger("calibrant.service")


def worker_lifespan(url: str, concurrency: int) -> Any:
    """A lifespan that runs a worker while the service runs; on shutdown the worker stops
    taking jobs and finishes those in hand."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from ..ops.jobrun import service_tasks
        from ..ops.score import queue_tasks
        from ..scoring.queue import conninfo
        from ..scoring.worker import run_worker

        conninfo(url)  # one clear error on SQLite, before the service starts
        stop = threading.Event()

        def work() -> None:
            try:
                run_worker(url, concurrency, tasks={**queue_tasks(), **service_tasks()}, stop=stop)
            except Exception:
                log.exception("the in-process worker stopped")

        thread = threading.Thread(target=work, name="calibrant-worker", daemon=True)
        thread.start()
        log.warning("in-process worker started (concurrency %d)", concurrency)
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=30)

    return lifespan
