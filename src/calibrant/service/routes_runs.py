"""/api/runs: the runs recorded in the store (by the CLI, the service's jobs, the workers) and
the report each produced. Adjudicators and admins read them. A report names transcripts and
shows what the judge said of them: reading one counts as having read the judge's verdict on
every labeling item it names (`views`), whose label or decision by the reader is then refused."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request

from ..store.runs import RunDetail, RunKind, Runs
from ..store.users import User
from .api_models import RunOut
from .run_reads import read_run
from .security import require

__all__ = ["router"]

router = APIRouter(prefix="/api/runs", tags=["runs and reports"])


@router.get("", response_model=list[RunOut])
def get_runs(
    request: Request,
    kind: RunKind | None = Query(default=None, description="Only runs of this kind."),  # noqa: B008
    limit: int = Query(default=50, ge=1, le=1000, description="How many, newest first."),  # noqa: B008
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> list[RunOut]:
    """Runs, newest first: kind, status, who, when, judge version and rubric (as `calibrant
    runs list --json`)."""
    runs = Runs(request.app.state.engine).recent(kind=kind, limit=limit)
    return [RunOut(**r.json_data()) for r in runs]


@router.get("/{run_id}", response_model=RunDetail, response_model_exclude_unset=True)
def get_run(
    run_id: str,
    request: Request,
    user: User = Depends(require("adjudicator")),  # noqa: B008
) -> RunDetail:
    """One run: its provenance (judge configuration, rubric, sampling, seed, options) and the
    report it produced (null while it runs or when it failed), as `calibrant runs show`.
    Reading it counts as having read the judge's verdict on every labeling item it names: the
    reader's label or decision on them is refused from then on (409)."""
    return read_run(request, run_id, user)
