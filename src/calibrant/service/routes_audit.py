"""/api/audits and /api/agreement-over-time: the service's face of `calibrant audit` and
`calibrant agreement-over-time` (the operations are `audit`'s). Admins draw audits; adjudicators
and admins read the agreement: an annotator never sees what the judge said of an item."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..contracts.reports import AgreementOverTimeReport, AuditReport
from .api_labels import ID_PATTERN
from .audit import AuditOptions, agreement_over_time, draw_audit
from .security import require
from .users import User

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["audit"])


class AuditIn(BaseModel):
    """An audit sample to draw (as `calibrant audit`'s options)."""

    model_config = ConfigDict(extra="forbid")

    score_run: str = Field(
        min_length=4, max_length=64, pattern=r"^[0-9a-f]+$", description="Score run id or prefix."
    )
    queue: str = Field(
        min_length=1, max_length=200, pattern=ID_PATTERN, description="A new workbench queue."
    )
    rate: float | None = Field(default=None, description="Share of the run, in (0, 1].")
    count: int | None = Field(default=None, description="Number of transcripts.")
    seed: int = 0
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
    seed: int = 0,
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
