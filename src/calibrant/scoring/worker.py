"""`calibrant worker` (and `serve --worker`): take jobs from the store's procrastinate queue —
score batches and the service's jobs — and put back on the queue the jobs of workers that stopped
sending heartbeats (killed, machine lost)."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING

from ..store import Store
from .judge_loop import JudgeLoop
from .queue import TASK, Tasks, _app, _ensure_schema, conninfo, heartbeat_seconds, stall_seconds

if TYPE_CHECKING:
    from procrastinate.jobs import Job

__all__ = ["run_worker"]

_RESCUE_LOCK = 0x63616C72  # "calr": one worker at a time retries the jobs of stalled workers
log = logging.getLogger("calibrant.queue")


def run_worker(
    url: str,
    concurrency: int,
    *,
    tasks: Tasks | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Take score jobs (and the jobs of `tasks`) until SIGTERM or Ctrl-C, or until `stop` is
    set when run in a thread (jobs in hand are finished first), retrying the jobs of workers
    that stopped sending heartbeats. The score task's work is `tasks[TASK]`; every task finds
    the worker's store (opened once, closed when the worker stops) in its job context."""
    info = conninfo(url)
    _ensure_schema(info)
    app = _app(info, tasks)
    # each task once: a worker's `tasks` name TASK too, and a task listed twice had its stalled
    # jobs retried twice, the second time possibly after a live worker had just taken the job
    names = list(dict.fromkeys([TASK, *(tasks or {})]))
    beat = heartbeat_seconds()
    stall = stall_seconds()

    async def retry_once(job: Job) -> None:
        try:
            await app.job_manager.retry_job(job)
        except Exception as exc:  # its worker finished it after all: nothing to retry
            why = " ".join(str(exc).split())
            log.warning("job %s of a stalled worker was not retried: %s", job.id, why)
        else:
            log.warning("retrying job %s of a stalled worker", job.id)

    async def rescue() -> None:
        import psycopg

        # one rescuer at a time: two workers retrying the same stalled job could otherwise put
        # it back on the queue a second time after a live worker had taken it
        async with await psycopg.AsyncConnection.connect(info, autocommit=True) as conn:
            while True:
                await asyncio.sleep(beat)
                try:
                    got = await (
                        await conn.execute("SELECT pg_try_advisory_lock(%s)", (_RESCUE_LOCK,))
                    ).fetchone()
                    if not (got and got[0]):
                        continue
                    try:
                        stalled = {
                            job.id: job
                            for name in names
                            for job in await app.job_manager.get_stalled_jobs(
                                task_name=name, seconds_since_heartbeat=stall
                            )
                        }
                        for job in stalled.values():
                            await retry_once(job)
                    finally:
                        await conn.execute("SELECT pg_advisory_unlock(%s)", (_RESCUE_LOCK,))
                except Exception as exc:  # the next round tries again
                    log.warning("stalled-job check failed: %s", " ".join(str(exc).split()))

    async def stopper(worker: asyncio.Task[None]) -> None:
        while stop is not None and not stop.is_set():
            await asyncio.sleep(0.2)
        worker.cancel()  # procrastinate stops taking jobs and finishes those in hand

    async def main(judge_loop: JudgeLoop, store: Store) -> None:
        async with app.open_async():
            side = [asyncio.create_task(rescue())]
            worker = asyncio.create_task(
                app.run_worker_async(
                    concurrency=concurrency,
                    wait=True,
                    update_heartbeat_interval=beat,
                    stalled_worker_timeout=stall,
                    install_signal_handlers=stop is None,
                    fetch_job_polling_interval=min(1.0, beat),
                    additional_context={"judge_loop": judge_loop, "store": store},
                )
            )
            if stop is not None:
                side.append(asyncio.create_task(stopper(worker)))
            try:
                await worker
            except asyncio.CancelledError:
                if stop is None or not stop.is_set():
                    raise
            finally:
                for task in side:
                    task.cancel()
                await asyncio.gather(*side, return_exceptions=True)

    judge_loop = JudgeLoop()
    try:
        with Store.open(url) as store:  # the worker's one store, closed when it stops
            asyncio.run(main(judge_loop, store))
    finally:
        judge_loop.close()  # after the jobs in hand: litellm's logging drained, nothing pending
