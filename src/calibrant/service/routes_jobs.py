"""/api/jobs: calibrations, judge runs, scoring batches and comparisons as background jobs on
the store's job queue (PostgreSQL only). Admins start and cancel them; adjudicators read."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request

from ..ops import jobs
from ..store.users import User
from .api_models import JobOut
from .security import require

__all__ = ["router"]

router = APIRouter(prefix="/api/jobs", tags=["jobs"])
Status = Literal["queued", "running", "finished", "failed", "cancelling", "cancelled"]


@router.post(
    "",
    status_code=202,
    responses={409: {"description": "The store is SQLite: jobs need PostgreSQL."}},
    response_model=JobOut,
)
def post_job(
    request: Request,
    job: jobs.JobRequest = Body(),  # noqa: B008
    user: User = Depends(require("admin")),  # noqa: B008
) -> JobOut:
    """Start a job: `calibrate`, `judge`, `score` or `compare`, with the options of the
    command of that name (judges are stored judge versions, or recorded verdicts uploaded or
    on the server; paths are on the server; a calibration's gold may be a labeled workbench
    queue). Every input is checked before it is queued. Answers 202 with the queued job."""
    engine = request.app.state.engine
    if engine.dialect.name != "postgresql":
        raise HTTPException(status_code=409, detail=jobs.SQLITE_REFUSAL)
    from ..ops.jobrun import enqueue

    row = jobs.create(engine, job, user.name)
    enqueue(engine, request.app.state.database_url, row.id)
    return jobs.job_info(jobs.get(engine, row.id))


@router.get("")
def get_jobs(
    request: Request,
    status: Status | None = Query(default=None, description="Only jobs in this state."),  # noqa: B008
    limit: int = Query(default=100, ge=1, le=1000, description="How many, newest first."),  # noqa: B008
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> list[JobOut]:
    """Jobs, newest first: kind, state, who started it, the run it produced, its error."""
    rows = jobs.list_jobs(request.app.state.engine, status=status, limit=limit)
    return [jobs.job_info(r) for r in rows]


@router.get("/{job_id}")
def get_job(
    job_id: str,
    request: Request,
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> JobOut:
    """One job: its state (queued, running, finished, failed, cancelling, cancelled), its run
    id (GET /api/runs/{id} gives the report) and its error, if it failed."""
    return jobs.job_info(jobs.get(request.app.state.engine, job_id))


@router.post("/{job_id}/cancel")
def cancel_job(
    job_id: str,
    request: Request,
    _: User = Depends(require("admin")),  # noqa: B008
) -> JobOut:
    """Cancel a job: a queued one at once, a running one at the judge's next answer
    (`cancelling` until then). 409 for a job already finished or failed."""
    return jobs.job_info(jobs.cancel(request.app.state.engine, job_id))
