"""Who is asking, and may they: bearer tokens (API clients) or the workbench's session cookie
(experts; a server-side session, `sessions`), roles, CSRF tokens for forms, and a cap on
request bodies.

No token ever appears in a URL, a log line or a page: the API takes it in the Authorization
header; the workbench's login form takes it once and answers with an HttpOnly, SameSite=Strict
cookie holding a session id, never the token."""

from __future__ import annotations

import copy
import hmac
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Depends, HTTPException, Request

from ..store.sessions import Sessions
from ..store.users import User, Users

__all__ = [
    "COOKIE",
    "RedactTokens",
    "log_config",
    "BodyLimit",
    "csrf_token",
    "check_csrf",
    "current_user",
    "optional_user",
    "require",
]

COOKIE = "calibrant_session"


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def optional_user(request: Request) -> User | None:
    """The account behind the request's bearer token or live session cookie, or None."""
    token = _bearer(request)
    if token:
        users: Users = request.app.state.users
        return users.authenticate(token)
    cookie = request.cookies.get(COOKIE)
    if not cookie:
        return None
    sessions: Sessions = request.app.state.sessions
    found = sessions.lookup(cookie)
    if found is None:
        return None
    request.state.via_cookie = True
    request.state.csrf = found.csrf
    return found.user


def current_user(request: Request) -> User:
    """The authenticated account; 401 without a valid token."""
    user = optional_user(request)
    if user is None:
        raise HTTPException(
            status_code=401,
            detail="authentication required: send 'Authorization: Bearer <token>' "
            "(`calibrant users add` makes one)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return user


def require(role: str) -> Callable[..., User]:
    """A dependency: the authenticated account, if its role is `role` or above (else 403). A
    write made with the workbench's cookie (not a bearer token) must also carry the session's
    CSRF token in the X-CSRF-Token header (else 403), whatever the route."""

    def dependency(request: Request, user: User = Depends(current_user)) -> User:  # noqa: B008
        if not user.can(role):
            raise HTTPException(status_code=403, detail=f"this needs the {role} role")
        if request.method not in ("GET", "HEAD") and getattr(request.state, "via_cookie", False):
            check_csrf(request, request.headers.get("x-csrf-token"))
        return user

    return dependency


def csrf_token(request: Request) -> str:
    """The form token of the request's workbench session (random, made at login, its own for
    each session), or "" without one."""
    return str(getattr(request.state, "csrf", ""))


def check_csrf(request: Request, submitted: str | None) -> None:
    """403 unless a form posted with the session cookie carries the session's CSRF token."""
    # bytes: compare_digest refuses (TypeError) a str with a non-ASCII character
    expected = csrf_token(request).encode()
    if (
        not expected
        or not submitted
        or not hmac.compare_digest(expected, submitted.encode("utf-8", "replace"))
    ):
        raise HTTPException(status_code=403, detail="missing or wrong CSRF token: reload the page")


ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: a request body over `max_bytes` gets 413 before the app reads it (by its
    Content-Length, or while a chunked body streams in); a URL with a NUL gets 400."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._nul_in_url(scope):  # no store can look it up (PostgreSQL refuses it)
            await _reject(send, 400, "a NUL character in the URL")
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                await _reject(send, 400, "bad Content-Length header")
                return
            if too_big:
                await _reject(send, 413, self._message())
                return
        seen = 0
        started = False

        async def limited_receive() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge(self._message())
            return message

        async def tracking_send(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _reject(send, 413, self._message())

    @staticmethod
    def _nul_in_url(scope: dict[str, Any]) -> bool:
        return "\x00" in scope.get("path", "") or b"%00" in scope.get("query_string", b"").lower()

    def _message(self) -> str:
        return f"request body over the limit of {self.max_bytes} bytes (`serve --max-body-mb`)"


class _TooLarge(HTTPException):
    """Raised while the app reads a body (chunked) past the limit: an HTTPException, so that a
    body parser which turns other errors into 400 lets it through as 413."""

    def __init__(self, message: str) -> None:
        super().__init__(status_code=413, detail=message)


async def _reject(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


_TOKEN = re.compile(r"cal_[A-Za-z0-9_\-]+")


class RedactTokens(logging.Filter):
    """A log filter: a token a client put where it does not belong (a URL's query string, say)
    is written as cal_[redacted]."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = _TOKEN.sub("cal_[redacted]", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                _TOKEN.sub("cal_[redacted]", a) if isinstance(a, str) else a for a in record.args
            )
        return True


def log_config(base: dict[str, Any]) -> dict[str, Any]:
    """uvicorn's logging configuration `base` with every handler behind RedactTokens."""
    config = copy.deepcopy(base)
    config.setdefault("filters", {})["redact_tokens"] = {"()": RedactTokens}
    for handler in config.get("handlers", {}).values():
        handler.setdefault("filters", []).append("redact_tokens")
    return config
