"""A run of the store as a request reads it: found by id or prefix (404 otherwise), and, read
by a user, counted as that user having read the judge's verdict on every labeling item its
report names. Shared by /api/runs and /api/reports (a module of its own, so no route module
imports another)."""

from __future__ import annotations

from fastapi import Request

from ..ops.catalog import NotFound
from ..store.runs import RunDetail, Runs
from ..store.users import User
from ..store.views import record_report_read

__all__ = ["run_detail", "read_run"]


def run_detail(request: Request, run_id: str) -> RunDetail:
    """A run by id (or an unambiguous prefix of at least 4 characters); 404 otherwise."""
    found = Runs(request.app.state.engine).detail(run_id) if len(run_id) >= 4 else None
    if found is None:
        raise NotFound(
            f"no run '{run_id}' in the store (give its id or an unambiguous prefix of 4 or more "
            "characters; GET /api/runs lists them)"
        )
    return found


def read_run(request: Request, run_id: str, user: User) -> RunDetail:
    """The run, as `user` reads it: the judge's verdict on every labeling item its report
    names counts as read by `user` from now on."""
    run = run_detail(request, run_id)
    record_report_read(request.app.state.engine, user.name, run.json_data(), f"run {run.id}")
    return run
