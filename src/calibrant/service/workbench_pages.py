"""What every page of the workbench shares: the security headers, rendering a template as a
page or the error page, the signed-in user and the role a page needs, a form read with its CSRF
token checked, and an item shown with its transcript, rubric and evidence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment
from markupsafe import Markup, escape
from sqlalchemy import Engine

from ..contracts import CANT_TELL, NOT_APPLICABLE, Criterion, Rubric
from ..domains import EvidenceItem, UntrustedText
from ..judge.evidence import DomainRecords, conversation_items, phrasing, records_for_rater
from ..judge.fence import quoted_spans
from ..store import labeling as lab
from ..store.users import User
from .security import check_csrf, csrf_token, optional_user

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


class TranscriptContext(NamedTuple):
    """What the label and adjudicate pages show of an item (their templates' names)."""

    item: lab.Item
    records: DomainRecords | None
    records_from: str  # what the pack calls its trusted records (a pack that builds evidence)
    evidence: list[EvidenceItem]
    conversation: list[UntrustedText]


def _transcript_context(item: lab.Item) -> TranscriptContext:
    """What an expert sees of an item: its alias, the records and the conversation; never the
    transcript id, the case, its title or expected outcome, the agent or the run. Another
    domain's records come as a table by kind, before and at the end, of the acting tenant's
    records only."""
    t = item.transcript
    records, evidence = records_for_rater(t)
    return TranscriptContext(
        item=item,
        records=records,
        records_from=" ".join(phrasing(t.domain).records.split()),
        evidence=evidence,
        conversation=conversation_items(t),
    )
