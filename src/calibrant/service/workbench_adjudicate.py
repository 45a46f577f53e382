"""The workbench's adjudication pages: the items with disagreements, and one item's labels
given without naming their raters, where an adjudicator decides each criterion."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from ..contracts import CANT_TELL
from ..errors import InputError
from ..store import adjudication as adj
from ..store import labeling as lab
from ..store.users import User
from ..store.views import record_views
from .workbench_pages import (
    _choices,
    _form,
    _item_and_rubric,
    _page,
    _PageError,
    _see_other,
    _transcript_context,
    _user,
)

router = APIRouter(include_in_schema=False)


@router.get("/adjudicate")
def adjudicate_list(request: Request) -> HTMLResponse:
    user = _user(request, "adjudicator")
    engine = request.app.state.engine
    rows = adj.disagreements(engine, for_adjudicator=user.name)
    record_views(engine, user.name, (d.item for d in rows))
    alias = lab.aliases(engine, (d.item for d in rows))
    shown = sorted(((alias[d.item], d) for d in rows), key=lambda x: (x[0], x[1].criterion))
    return _page(request, "adjudicate_list.html", user, title="Adjudicate", rows=shown)


def _adjudicate_page(
    request: Request, user: User, item_id: str, status: int = 200, error: str | None = None
) -> HTMLResponse:
    engine = request.app.state.engine
    item, rubric = _item_and_rubric(engine, item_id, user)
    disputes = []
    for d in adj.disagreements(engine, item=item.id, for_adjudicator=user.name, by_id=True):
        c = rubric.criterion(d.criterion)
        choices = [x for x in _choices(c) if x[0] != CANT_TELL]
        disputes.append((d, c, choices))
    record_views(engine, user.name, [item.id] if disputes else [])
    return _page(
        request,
        "adjudicate_item.html",
        user,
        status,
        error,
        title=f"Adjudicate {item.alias}",
        disputes=disputes,
        **_transcript_context(item)._asdict(),
    )


@router.get("/adjudicate/{item_id:path}")
def adjudicate_page(request: Request, item_id: str) -> HTMLResponse:
    user = _user(request, "adjudicator")
    try:
        return _adjudicate_page(request, user, item_id)
    except lab.NotFound as exc:
        raise _PageError(404, str(exc), user) from None


@router.post("/adjudicate/{item_id:path}")
async def adjudicate_submit(request: Request, item_id: str) -> Response:
    user = _user(request, "adjudicator")
    form = await _form(request, user)
    engine = request.app.state.engine

    def decide() -> bool:
        adj.adjudicate(
            engine,
            item=item_id,
            criterion=form.get("criterion", ""),
            label=form.get("label", ""),
            reason=form.get("reason", ""),
            by=user.name,
            by_id=user.can("admin"),
        )
        more = adj.disagreements(
            engine, item=item_id, for_adjudicator=user.name, by_id=user.can("admin")
        )
        return bool(more)

    try:
        more = await run_in_threadpool(decide)
    except (InputError, lab.Conflict) as exc:
        status, why = (422, exc.detail) if isinstance(exc, InputError) else (409, str(exc))
        return await run_in_threadpool(_adjudicate_page, request, user, item_id, status, why)
    return _see_other(f"/adjudicate/{quote(item_id)}" if more else "/adjudicate")
