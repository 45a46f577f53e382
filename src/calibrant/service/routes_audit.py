"""/api/audits, /api/agreement-over-time and /api/monitor: the service's face of `calibrant
audit`, `calibrant agreement-over-time` and `calibrant monitor` (the operations are `audit`'s and
`monitor`'s). Admins draw audits; adjudicators
and admins read the agreement: an annotator never sees what the judge said of an item, and
whoever reads it (the drawn audit's answer, the agreement over time) may no longer label or
adjudicate the items it names (`views`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..contracts.reports import AgreementOverTimeReport, AuditReport, MonitorReport
from ..ops.audit import (
    MAX_COUNT,
    MAX_PER_CASE,
    MAX_SEED,
    AuditOptions,
    agreement_over_time,
    draw_audit,
)
from ..ops.monitor import MonitorOptions, monitor_report
from ..store.users import User
from ..store.views import record_report_read
from .api_models import ID_PATTERN
from .security import require

__all__ = ["pages", "router"]

router = APIRouter(prefix="/api", tags=["audit"])


class AuditIn(BaseModel):
    """An audit sample to draw (as `calibrant audit`'s options)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    score_run: str = Field(
        min_length=4,
        max_length=64,
        pattern=r"^([0-9a-f]+|latest)$",
        description="Score run id or prefix, or latest (the newest finished score run).",
    )
    queue: str = Field(
        min_length=1, max_length=200, pattern=ID_PATTERN, description="A new workbench queue."
    )
    rate: float | None = Field(
        default=None, gt=0, le=1, allow_inf_nan=False, description="Share of the run, in (0, 1]."
    )
    count: int | None = Field(
        default=None, ge=1, le=MAX_COUNT, description="Number of transcripts."
    )
    seed: int = Field(
        default=0, ge=0, le=MAX_SEED, description="The draw's seed (the same seed, the same draw)."
    )
    per_case: int = Field(
        default=2, ge=1, le=MAX_PER_CASE, description="At most this many items of one case."
    )
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
    `calibrant audit --json` prints it. An option out of its range: 422 naming it; another bad
    option: 400; a queue already holding items, or a sample holding no transcript the
    workbench does not hold already: 409. The queue's items and the audit run are written in
    one transaction: nothing is written on any error."""
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
    where = f"run {result.run_id}" if result.run_id else "a dry run of an audit"
    data = result.report.json_data()
    await run_in_threadpool(record_report_read, engine, user.name, data, where)
    return AuditOut.model_validate({"run_id": result.run_id, **data})


@router.get("/agreement-over-time", response_model=AgreementOverTimeReport)
async def get_agreement_over_time(
    request: Request,
    window: str = Query(default="week", pattern="^(day|week|month)$"),
    judge: str | None = Query(default=None, max_length=100, pattern=r"^[A-Za-z0-9:]+$"),
    seed: int = Query(default=0, ge=0, le=MAX_SEED, description="Bootstrap seed."),
    resamples: int = Query(default=2000, ge=100, le=20000),
    user: User = Depends(require("adjudicator")),  # noqa: B008
) -> AgreementOverTimeReport:
    """The judge against the experts on audited items per judge version and window (as
    `calibrant agreement-over-time --json`). It names each audited item with the judge's
    label: reading it counts as having read the judge's verdict on them (their label or
    decision by the reader is refused from then on, 409)."""
    engine = request.app.state.engine
    report = await run_in_threadpool(
        lambda: agreement_over_time(
            engine, window=window, judge=judge, seed=seed, n_resamples=resamples
        )
    )
    where = "the agreement over time"
    await run_in_threadpool(record_report_read, engine, user.name, report.json_data(), where)
    return report


@router.get("/monitor", response_model=MonitorReport)
async def get_monitor(
    request: Request,
    window: str = Query(default="week", pattern="^(day|week|month)$"),
    judge: str | None = Query(default=None, max_length=100, pattern=r"^[A-Za-z0-9:]+$"),
    alpha: float = Query(default=0.05, gt=0, lt=1),
    seed: int = Query(default=0, ge=0, le=MAX_SEED, description="Bootstrap seed."),
    resamples: int = Query(default=2000, ge=100, le=20000),
    reference_windows: int = Query(
        default=4, ge=1, le=520, description="Rule 2's reference: the first windows of traffic."
    ),
    min_anchor_cases: int = Query(
        default=10, ge=2, le=100_000, description="The smallest anchor set rule 3 runs on."
    ),
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> MonitorReport:
    """The drift monitor of a judge version (as `calibrant monitor --json`): the anchors it
    reads are those `calibrant monitor --anchors` recorded; the service calls no model here."""
    engine = request.app.state.engine
    options = MonitorOptions(
        judge=judge,
        window=window,
        alpha=alpha,
        seed=seed,
        n_resamples=resamples,
        reference_windows=reference_windows,
        min_anchor_cases=min_anchor_cases,
    )
    return await run_in_threadpool(lambda: monitor_report(engine, options))


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
