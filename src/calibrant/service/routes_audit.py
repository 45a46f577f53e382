"""/api/audits, /api/agreement-over-time and /api/monitor: the service's face of `calibrant
audit`, `calibrant agreement-over-time` and `calibrant monitor` (the operations are `audit`'s and
`monitor`'s). Admins draw audits; adjudicators
and admins read the agreement: an annotator never sees what the judge said of an item."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..contracts.reports import AgreementOverTimeReport, AuditReport, MonitorReport
from .api_labels import ID_PATTERN
from .audit import AuditOptions, agreement_over_time, draw_audit
from .monitor import MonitorOptions, monitor_report
from .security import require
from .users import User

__all__ = ["pages", "router"]

router = APIRouter(prefix="/api", tags=["audit"])
MAX_SEED = 2**32 - 1
"""Largest seed taken (a seed is a whole number from 0, as the command line's)."""


class AuditIn(BaseModel):
    """An audit sample to draw (as `calibrant audit`'s options)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    score_run: str = Field(
        min_length=4, max_length=64, pattern=r"^[0-9a-f]+$", description="Score run id or prefix."
    )
    queue: str = Field(
        min_length=1, max_length=200, pattern=ID_PATTERN, description="A new workbench queue."
    )
    rate: float | None = Field(default=None, description="Share of the run, in (0, 1].")
    count: int | None = Field(default=None, description="Number of transcripts.")
    seed: int = Field(default=0, ge=0, le=MAX_SEED, description="Random seed of the draw.")
    per_case: int = 2
    stratify_by: list[Annotated[str, Field(max_length=200, pattern=ID_PATTERN)]] | None = None
    dry_run: bool = False


class AuditOut(AuditReport):
    """The audit drawn: its report, and the audit run recording it (null on a dry run)."""

    run_id: str | None = Field(description="The audit run in the store; null on a dry run.")


@router.post("/audits", response_model=AuditOut)
async def post_audit(
    request: Request,
    body: AuditIn,
    user: User = Depends(require("admin")),  # noqa: B008
) -> AuditOut:
    """Draw an audit sample of a score run into a new blind queue (admin); the audit as
    `calibrant audit --json` prints it. Bad options: 400, a queue already holding items: 409;
    nothing is written then."""
    options = AuditOptions(
        score_run=body.score_run,
        queue=body.queue,
        seed=body.seed,
        rate=body.rate,
        count=body.count,
        per_case=body.per_case,
        stratify_by=None if body.stratify_by is None else tuple(body.stratify_by),
        dry_run=body.dry_run,
    )
    engine = request.app.state.engine
    result = await run_in_threadpool(lambda: draw_audit(engine, options, by=user.name))
    return AuditOut.model_validate({"run_id": result.run_id, **result.report})


@router.get("/agreement-over-time", response_model=AgreementOverTimeReport)
async def get_agreement_over_time(
    request: Request,
    window: str = Query(default="week", pattern="^(day|week|month)$"),
    judge: str | None = Query(default=None, max_length=100, pattern=r"^[A-Za-z0-9:]+$"),
    seed: int = Query(default=0, ge=0, le=MAX_SEED, description="Bootstrap seed."),
    resamples: int = Query(default=2000, ge=100, le=20000),
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> AgreementOverTimeReport:
    """The judge against the experts on audited items per judge version and window (as
    `calibrant agreement-over-time --json`)."""
    engine = request.app.state.engine
    report = await run_in_threadpool(
        lambda: agreement_over_time(
            engine, window=window, judge=judge, seed=seed, n_resamples=resamples
        )
    )
    return AgreementOverTimeReport.model_validate(report)


@router.get("/monitor", response_model=MonitorReport)
async def get_monitor(
    request: Request,
    window: str = Query(default="week", pattern="^(day|week|month)$"),
    judge: str | None = Query(default=None, max_length=100, pattern=r"^[A-Za-z0-9:]+$"),
    alpha: float = Query(default=0.05, gt=0, lt=1),
    seed: int = Query(default=0, ge=0, le=MAX_SEED, description="Bootstrap seed."),
    resamples: int = Query(default=2000, ge=100, le=20000),
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> MonitorReport:
    """The drift monitor of a judge version (as `calibrant monitor --json`): the anchors it
    reads are those `calibrant monitor --anchors` recorded; the service calls no model here."""
    engine = request.app.state.engine
    options = MonitorOptions(
        judge=judge, window=window, alpha=alpha, seed=seed, n_resamples=resamples
    )
    report = await run_in_threadpool(lambda: monitor_report(engine, options))
    return MonitorReport.model_validate(report)


pages = APIRouter(tags=["audit"])


@pages.get("/monitor", response_class=HTMLResponse, include_in_schema=False)
async def monitor_page(
    request: Request,
    window: str = Query(default="week", pattern="^(day|week|month)$"),
    judge: str | None = Query(default=None, max_length=100, pattern=r"^[A-Za-z0-9:]+$"),
    resamples: int = Query(default=2000, ge=100, le=20000),
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> HTMLResponse:
    """The monitor's page: per criterion kappa per window with its interval, the gate's bar
    and the alarms (the report of GET /api/monitor, drawn)."""
    from ..reports.monitor_html import monitor_page as page

    engine = request.app.state.engine
    options = MonitorOptions(judge=judge, window=window, n_resamples=resamples)
    report = await run_in_threadpool(lambda: monitor_report(engine, options))
    return HTMLResponse(page(report))
