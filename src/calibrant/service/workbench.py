"""The experts' workbench: server-rendered pages (Jinja2, autoescaped) to log in, label the
items of a queue and adjudicate disagreements. One small script of the app's own
(/workbench.js, the only script the Content-Security-Policy allows) adds keyboard labeling to
the labeling page; without it the forms and links do the same.

Blind: the labeling page shows the transcript, the rubric and the expert's own labels, never
another expert's label or a judge's verdict. The adjudication page shows the labels given
without naming their raters. An expert reaches an item by its alias only (a transcript id in
the URL is answered as any unknown name), and lists come in the aliases' random order. Every
form carries the session's CSRF token."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from ..contracts import CANT_TELL, NOT_APPLICABLE, Criterion, Rubric
from ..errors import InputError
from ..judge.evidence import conversation_items, phrasing, records_for_rater
from ..judge.fence import quoted_spans
from ..store import adjudication as adj
from ..store import labeling as lab
from ..store.users import User
from ..store.views import record_views
from .security import COOKIE, check_csrf, csrf_token, optional_user

__all__ = ["install"]

router = APIRouter(include_in_schema=False)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class _LoginFirst(Exception):
    pass


class _PageError(Exception):
    """Shown as the error page (a person is reading, not a program)."""

    def __init__(self, status: int, message: str, user: User | None) -> None:
        super().__init__(message)
        self.status = status
        self.user = user


def _env(request: Request) -> Environment:
    env: Environment = request.app.state.templates
    return env


def _page(
    request: Request,
    template: str,
    user: User | None,
    status: int = 200,
    error: str | None = None,
    **context: Any,
) -> HTMLResponse:
    html = (
        _env(request)
        .get_template(template)
        .render(
            user=user,
            csrf=csrf_token(request) if user else "",
            message=None,
            error=error,
            **context,
        )
    )
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def _see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303, headers=SECURITY_HEADERS)


def _user(request: Request, role: str = "annotator") -> User:
    user = optional_user(request)
    if user is None:
        raise _LoginFirst
    if not user.can(role):
        raise _PageError(403, f"This page needs the {role} role.", user)
    return user


def page_user(role: str) -> Callable[[Request], User]:
    """A dependency for pages a person reads: the signed-in account with `role` or above; not
    signed in sends the browser to the login page, a lesser role gets the error page."""

    def dependency(request: Request) -> User:
        return _user(request, role)

    return dependency


def _same_site(request: Request) -> None:
    """403 for a form posted from another site: with the SameSite cookie and the CSRF token, a
    third guard, and the only one the login form has. Browsers say where a form came from in
    Sec-Fetch-Site; one too old to send it still sends Origin, checked against our host."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        if site not in ("same-origin", "none"):
            raise HTTPException(403, "forms are accepted only from the workbench's own pages")
        return
    origin = request.headers.get("origin")
    hosts = {request.headers.get("host"), request.headers.get("x-forwarded-host")}
    if origin is not None and urlsplit(origin).netloc not in hosts - {None}:
        raise HTTPException(403, "forms are accepted only from the workbench's own pages")


async def _form(request: Request, user: User) -> dict[str, str]:
    _same_site(request)
    form = await request.form()
    values = {k: v for k, v in form.items() if isinstance(v, str)}
    check_csrf(request, values.get("csrf"))
    return values


def _choices(c: Criterion) -> list[tuple[str, str, str]]:
    """(form value, name, description) of each label a rater may give on `c`."""
    out = [(str(lv.value), f"{lv.name} ({lv.value})", lv.description) for lv in c.scale.levels]
    if c.not_applicable_when:
        out.append((NOT_APPLICABLE, "Not applicable", c.not_applicable_when))
    out.append((CANT_TELL, "Can't tell", "The records do not let me decide."))
    return out


def _item_and_rubric(engine: Engine, item_id: str, user: User) -> tuple[lab.Item, Rubric]:
    item = lab.get_item(engine, item_id, by_id=user.can("admin"))
    return item, lab.stored_rubric(engine, item.rubric_hash)[1]


def _evidence(text: str) -> Markup:
    """A trusted line's text (or a record's value) for the page: escaped, each value quoted in it
    (fence.quoted(): what a tool, the agent or a file wrote) in a span marked untrusted."""
    return Markup("").join(
        Markup('<span class="quoted" title="quoted as given: untrusted">{}</span>').format(piece)
        if is_quoted
        else escape(piece)
        for piece, is_quoted in quoted_spans(text)
    )


def _transcript_context(item: lab.Item) -> dict[str, Any]:
    """What an expert sees of an item: its alias, the records and the conversation; never the
    transcript id, the case, its title or expected outcome, the agent or the run. Another
    domain's records come as a table by kind, before and at the end, of the acting tenant's
    records only."""
    t = item.transcript
    records, evidence = records_for_rater(t)
    return {
        "item": item,
        "records": records,
        # what the pack calls its trusted records (for a pack that builds its own evidence)
        "records_from": " ".join(phrasing(t.domain).records.split()),
        "evidence": evidence,
        "conversation": conversation_items(t),
    }


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
        **_transcript_context(item),
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


# ---- adjudication ------------------------------------------------------------------------


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
        **_transcript_context(item),
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
