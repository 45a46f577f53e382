"""/api/runs: the runs recorded in the store (by the CLI, the service's jobs, the workers) and
the report each produced. Adjudicators and admins read them."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request

from ..store.runs import RunDetail, RunKind, Runs
from .api_models import RunOut
from .catalog import NotFound
from .security import require
from .users import User

__all__ = ["router", "run_detail"]

router = APIRouter(prefix="/api/runs", tags=["runs and reports"])


def run_detail(request: Request, run_id: str) -> RunDetail:
    """A run by id (or an unambiguous prefix of at least 4 characters); 404 otherwise."""
    found = Runs(request.app.state.engine).detail(run_id) if len(run_id) >= 4 else None
    if found is None:
        raise NotFound(
            f"no run '{run_id}' in the store (give its id or an unambiguous prefix of 4 or more "
            "characters; GET /api/runs lists them)"
        )
    return found


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
    return [RunOut(**r.as_json()) for r in runs]


@router.get("/{run_id}", response_model=RunDetail, response_model_exclude_unset=True)
def get_run(
    run_id: str,
    request: Request,
    _: User = Depends(require("adjudicator")),  # noqa: B008
) -> RunDetail:
    """One run: its provenance (judge configuration, rubric, sampling, seed, options) and the
    report it produced (null while it runs or when it failed), as `calibrant runs show`."""
    return run_detail(request, run_id)
