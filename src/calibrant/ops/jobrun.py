"""Running a service job in a worker: the same operations as the CLI commands
(`calibrant.ops`), on the worker's store, a run in the runs table, and the job's state in its
row.

A job taken again after its worker died (kill -9, lost machine: the queue retries the jobs of
silent workers) starts over; the judge's answers stored by the first attempt are read from the
store, not asked again, and the first attempt's unfinished run is marked failed. A job asked to
stop (cancelling) stops at the judge's next answer."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine

from ..errors import CalibrantError, InputError
from ..store import Store
from . import jobs
from .catalog import resolve_stored_judge
from .job_inputs import (
    calibrate_judge,
    compare_sides,
    gold_of,
    server_files,
    server_gold,
    without_content,
)

__all__ = ["enqueue", "run_job", "run_service_job", "service_tasks", "JobCancelled"]

log = logging.getLogger("calibrant.jobs")
CANCEL_CHECK_S = 0.5


class JobCancelled(Exception):  # noqa: N818  (a request, not a failure)
    """The job was asked to stop."""


def service_tasks() -> dict[str, Callable[..., Any]]:
    """The queue tasks of the service, for `calibrant worker` and `serve --worker`."""
    return {jobs.JOB_TASK: run_service_job}


def enqueue(engine: Engine, url: str, job_id: str) -> None:
    """Put a recorded job on the queue; if the queue cannot take it, the job is failed."""
    from ..scoring.queue import defer

    try:
        defer(url, service_tasks(), jobs.JOB_TASK, queue=jobs.JOB_QUEUE, job_id=job_id)
    except BaseException as exc:
        jobs.set_status(
            engine,
            job_id,
            "failed",
            when=("queued",),
            error=f"not queued: {exc}"[:2000],
            finished_at=datetime.now(UTC),
        )
        raise


class _Watch:
    """Remembers the run a job records, and stops the job when it is asked to (checked at most
    every CANCEL_CHECK_S, at each answer of the judge)."""

    def __init__(self, engine: Engine, job_id: str) -> None:
        self.engine, self.job_id = engine, job_id
        self.checked = 0.0

    def run(self, run_id: str) -> None:
        jobs.record_run(self.engine, self.job_id, run_id)
        self.check(force=True)

    def check(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.checked < CANCEL_CHECK_S:
            return
        self.checked = now
        if jobs.get(self.engine, self.job_id).status in ("cancelling", "cancelled"):
            raise JobCancelled()

    def done(self, *_: Any) -> None:
        self.check()


def run_service_job(context: Any, job_id: str) -> None:
    """The queue task: run job `job_id` on the worker's store and record how it ended."""
    run_job(context.additional_context["store"], job_id)


def run_job(store: Store, job_id: str) -> None:
    """Run job `job_id` and record how it ended, in `store`."""
    from ..store.runs import Runs

    engine = store.engine
    try:
        row = jobs.get(engine, job_id)
    except CalibrantError:
        log.warning("job %s is not in the store: nothing to do", job_id)
        return
    if row.status in ("cancelling", "cancelled"):
        jobs.set_status(
            engine, job_id, "cancelled", when=("cancelling",), finished_at=datetime.now(UTC)
        )
        return
    now = datetime.now(UTC)
    if not jobs.set_status(engine, job_id, "running", when=("queued",), started_at=now):
        if row.status != "running":  # finished, failed: a duplicate delivery
            return
        log.warning("job %s: its worker stopped; starting it again", job_id)
        if row.run_id:  # the first attempt's run will never finish
            found = Runs(engine).detail(row.run_id)
            if found is not None and found.status in ("running", "interrupted"):
                Runs(engine).finish(row.run_id, None, status="failed")
    watch = _Watch(engine, job_id)
    params = json.loads(row.params)
    try:
        run_id = KINDS[row.kind](store, params, watch)
    except JobCancelled:
        jobs.set_status(
            engine,
            job_id,
            "cancelled",
            when=("running", "cancelling"),
            finished_at=datetime.now(UTC),
        )
        return
    except InputError as exc:  # a file on the server is not quoted to the job's readers
        if exc.path != "params":
            exc = without_content(exc, f"`calibrant {row.kind}` with the job's options")
        _failed(engine, job_id, str(exc))
        return
    except CalibrantError as exc:
        _failed(engine, job_id, str(exc))
        return
    except Exception as exc:  # a bug: the job says so; the worker goes on
        log.exception("job %s failed", job_id)
        _failed(engine, job_id, f"internal error (a bug): {type(exc).__name__}: {exc}")
        return
    jobs.set_status(
        engine,
        job_id,
        "finished",
        when=("running", "cancelling"),
        run_id=run_id,
        finished_at=datetime.now(UTC),
    )


def _failed(engine: Engine, job_id: str, error: str) -> None:
    jobs.set_status(
        engine,
        job_id,
        "failed",
        when=("running", "cancelling"),
        error=error[:2000],
        finished_at=datetime.now(UTC),
    )


# -- the kinds ----------------------------------------------------------------------------------


def _hooks(watch: _Watch) -> Any:
    from .common import Hooks

    return Hooks(on_run=watch.run, on_done=watch.done)


def _calibrate(store: Store, p: dict[str, Any], watch: _Watch) -> str:
    from ..agreement.gate_settings import GATE_DEFAULTS, GateSettings
    from ..calibration import Settings
    from .calibrate import CalibrateOptions, calibrate

    split = None if p["split"] == "all" else p["split"]
    settings = Settings(
        seed=p["seed"],
        n_resamples=p["resamples"],
        gate=GateSettings(
            min_lower=p["min_lower"],
            min_coverage=p["min_coverage"],
            use_ceiling=not p["no_ceiling"],
            min_items=p["min_items"],
            min_cases=p.get("min_cases", GATE_DEFAULTS.min_cases),
            min_expert_cases=p.get("min_expert_cases", GATE_DEFAULTS.min_expert_cases),
            margin=p.get("margin", GATE_DEFAULTS.margin),
        ),
    )
    with ExitStack() as stack:  # a queue's gold folder lives while the run does
        gold, source = gold_of(store.engine, p, stack)
        resolved, recorded = calibrate_judge(store.engine, p, gold)
        options = CalibrateOptions(
            gold,
            split=split,
            settings=settings,
            resolved=resolved,
            source=source,
            recorded=recorded,
        )
        return calibrate(store, options, _hooks(watch)).run_id


def _judge(store: Store, p: dict[str, Any], watch: _Watch) -> str:
    from .judge import JudgeOpOptions, judge

    options = JudgeOpOptions(
        paths=server_files(p["paths"], "paths"),
        judge=resolve_stored_judge(store.engine, p["judge"]),
        samples=p["samples"],
    )
    return judge(store, options, _hooks(watch)).run_id


def _score(store: Store, p: dict[str, Any], watch: _Watch) -> str:
    from .score import ScoreHooks, ScoreOptions, score

    options = ScoreOptions(
        paths=server_files(p["paths"], "paths"),
        judge=resolve_stored_judge(store.engine, p["judge"]),
        calibration=p.get("calibration_run"),
        calibration_files=False,
    )
    return score(store, options, ScoreHooks(on_run=watch.run, on_done=watch.done)).run_id


def _compare(store: Store, p: dict[str, Any], watch: _Watch) -> str:
    from .compare import CompareOptions, compare

    judge_a, judge_b, name_a, name_b = compare_sides(store.engine, p)
    options = CompareOptions(
        name_a=name_a,
        name_b=name_b,
        judge_a=judge_a,
        judge_b=judge_b,
        gold=server_gold(p),
        split=p["split"],
        seed=p["seed"],
        resamples=p["resamples"],
        min_cases=p.get("min_cases"),
    )
    return compare(store, options, _hooks(watch)).run_id


KINDS: dict[str, Callable[[Store, dict[str, Any], _Watch], str]] = {
    "calibrate": _calibrate,
    "judge": _judge,
    "score": _score,
    "compare": _compare,
}
