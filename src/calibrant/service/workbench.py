"""The experts' workbench: server-rendered pages (Jinja2, autoescaped) to log in, label the
items of a queue and adjudicate disagreements. One small script of the app's own
(/workbench.js, the only script the Content-Security-Policy allows) adds keyboard labeling to
the labeling page; without it the forms and links do the same.

Blind: the labeling page shows the transcript, the rubric and the expert's own labels, never
another expert's label or a judge's verdict. The adjudication page shows the labels given
without naming their raters. An expert reaches an item by its alias only (a transcript id in
the URL is answered as any unknown name), and lists come in the aliases' random order. Every
form carries the session's CSRF token.

What every page shares is in `workbench_pages`, the adjudication pages in `workbench_adjudicate`;
here the login, the assets and the labeling pages, and `install`."""

from __future__ import annotations

from importlib import resources
from urllib.parse import quote

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.concurrency import run_in_threadpool

from ..errors import InputError
from ..store import adjudication as adj
from ..store import labeling as lab
from ..store.users import User
from .security import COOKIE, optional_user
from .workbench_adjudicate import router as adjudication
from .workbench_pages import (
    _choices,
    _evidence,
    _form,
    _item_and_rubric,
    _LoginFirst,
    _page,
    _PageError,
    _same_site,
    _see_other,
    _transcript_context,
    _user,
    page_user,
)

__all__ = ["install", "page_user"]

router = APIRouter(include_in_schema=False)

# ---- login -------------------------------------------------------------------------------


@router.get("/login")
def login_page(request: Request) -> HTMLResponse:
    return _page(request, "login.html", None, title="Log in")


@router.post("/login")
async def login(request: Request) -> Response:
    _same_site(request)
    form = await request.form()
    token = str(form.get("token") or "").strip()
    user = await run_in_threadpool(request.app.state.users.authenticate, token)
    if user is None:
        error = "That token is not valid."
        return _page(request, "login.html", None, 401, error, title="Log in")
    # a new session at every login; the one this browser had (if any) ends
    sessions = request.app.state.sessions
    old = request.cookies.get(COOKIE)
    session_id = await run_in_threadpool(lambda: sessions.start(user, replacing=old))
    response = _see_other("/")
    response.set_cookie(
        COOKIE,
        session_id,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    user = optional_user(request)
    if user is not None:
        await _form(request, user)
        await run_in_threadpool(request.app.state.sessions.end, request.cookies[COOKIE])
    response = _see_other("/login")
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


def _asset(name: str, media_type: str) -> Response:
    text = resources.files("calibrant.service").joinpath(f"templates/{name}").read_text()
    headers = {"Cache-Control": "max-age=300", "X-Content-Type-Options": "nosniff"}
    return Response(text, media_type=media_type, headers=headers)


@router.get("/workbench.css")
def stylesheet() -> Response:
    return _asset("workbench.css", "text/css")


@router.get("/workbench.js")
def script() -> Response:
    """The labeling page's keys (static: it reads the page, carries no data of its own)."""
    return _asset("workbench.js", "text/javascript")


# ---- labeling ----------------------------------------------------------------------------


@router.get("/")
def home(request: Request) -> HTMLResponse:
    user = _user(request)
    engine = request.app.state.engine
    open_count = (
        len(adj.disagreements(engine, for_adjudicator=user.name)) if user.can("adjudicator") else 0
    )
    return _page(
        request,
        "home.html",
        user,
        title="My queues",
        queues=lab.queues_of(engine, user.name),
        open_disagreements=open_count,
    )


def _label_page(
    request: Request, user: User, item_id: str, status: int = 200, error: str | None = None
) -> HTMLResponse:
    engine = request.app.state.engine
    item, rubric = _item_and_rubric(engine, item_id, user)
    mine = {
        x.criterion: (str(x.label), x.note)
        for x in lab.labels_of(engine, rater=user.name, item=item.id, by_id=True)
    }
    choices = {c.id: _choices(c) for c in rubric.criteria}
    return _page(
        request,
        "label.html",
        user,
        status,
        error,
        title=f"Label {item.alias}",
        rubric=rubric,
        choices=choices,
        keys=max(len(x) for x in choices.values()),
        mine=mine,
        place=lab.place_in_queue(engine, user.name, item.queue, item.alias),
        **_transcript_context(item)._asdict(),
    )


@router.get("/label/{item_id:path}")
def label_page(request: Request, item_id: str) -> HTMLResponse:
    user = _user(request)
    try:
        return _label_page(request, user, item_id)
    except lab.NotFound as exc:
        raise _PageError(404, str(exc), user) from None


@router.post("/label/{item_id:path}")
async def label_submit(request: Request, item_id: str) -> Response:
    user = _user(request)
    form = await _form(request, user)
    engine = request.app.state.engine

    def save() -> str | None:
        item, rubric = _item_and_rubric(engine, item_id, user)
        missing = [c.title for c in rubric.criteria if not form.get(f"label.{c.id}")]
        if missing:
            raise InputError(lab.BODY, f"choose a label for: {', '.join(missing)}")
        lab.save_labels(
            engine,
            user.name,
            item_id,
            [
                (c.id, form[f"label.{c.id}"], form.get(f"note.{c.id}", "").strip() or None)
                for c in rubric.criteria
            ],
            by_id=user.can("admin"),
        )
        # save and next: the next item not finished after this one (round the queue)
        return lab.place_in_queue(engine, user.name, item.queue, item.alias).skip

    try:
        following = await run_in_threadpool(save)
    except (InputError, lab.Conflict) as exc:
        status, why = (422, exc.detail) if isinstance(exc, InputError) else (409, str(exc))
        return await run_in_threadpool(_label_page, request, user, item_id, status, why)
    return _see_other(f"/label/{quote(following)}" if following else "/")


def install(app: FastAPI) -> None:
    """Add the workbench pages to `app` (templates are loaded from the package, once)."""
    app.state.templates = Environment(
        loader=PackageLoader("calibrant.service", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
    )
    app.state.templates.filters["evidence"] = _evidence

    async def login_first(_: Request, __: Exception) -> Response:
        return _see_other("/login")

    async def page_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, _PageError)
        title = {403: "Not allowed", 404: "Not found"}.get(exc.status, "Error")
        return _page(request, "error.html", exc.user, exc.status, str(exc), title=title)

    app.add_exception_handler(_LoginFirst, login_first)
    app.add_exception_handler(_PageError, page_error)
    app.include_router(router)
    app.include_router(adjudication)
