"""The service's FastAPI application: built by a factory (nothing happens at import), on the same
store as the CLI. Routes are thin: parse, call one function of the core, render."""

from __future__ import annotations

import logging
import math
from datetime import timedelta
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .. import __version__
from ..errors import CalibrantError, InputError
from ..ops.catalog import Conflict, NotFound
from ..store import database_url as default_database_url
from ..store import make_engine
from ..store.sessions import DEFAULT_TTL, Sessions
from ..store.users import User, Users
from . import api_labels, workbench
from .api_models import HealthOut, MeOut
from .security import BodyLimit, current_user

__all__ = ["create_app", "DEFAULT_MAX_BODY_BYTES"]

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
log = logging.getLogger("calibrant.service")


def _text(value: object) -> str:
    """A message as valid UTF-8: input echoed in it may hold lone surrogates (a YAML escape
    like "\\ud800"), which no JSON response can carry; they become U+FFFD."""
    text = str(value)
    if text.isascii():
        return text
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _clean(value: Any) -> Any:
    """`value` (decoded JSON) with every string made valid UTF-8 by `_text`, and every number
    JSON cannot write (NaN, Infinity: what `NaN` or `1e309` in a body decode to) as its name."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_text(k): _clean(v) for k, v in value.items()}
    return value


def create_app(
    database_url: str | None = None,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    worker: int = 0,
    session_hours: float = DEFAULT_TTL.total_seconds() / 3600,
) -> FastAPI:
    """The service on the store at `database_url` (default: CALIBRANT_DATABASE_URL, else
    ./calibrant.db). The store is opened (and migrated) here, once. `worker` > 0 runs a queue
    worker of that concurrency inside the service (PostgreSQL only)."""
    url = database_url or default_database_url()
    lifespan = _worker_lifespan(url, worker)
    app = FastAPI(
        lifespan=lifespan,
        title="calibrant",
        version=__version__,
        summary="Calibrate an LLM judge of agent communication against expert labels.",
        openapi_url="/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    _open_store(app, url, session_hours=session_hours, max_body_bytes=max_body_bytes)
    _install_error_handlers(app)
    _install_routes(app)
    return app


def _worker_lifespan(url: str, worker: int) -> Any:
    """The lifespan running a queue worker of concurrency `worker` inside the service (None for
    none); refused on SQLite before anything is opened."""
    if not worker:
        return None
    from ..scoring.queue import conninfo
    from .worker import worker_lifespan

    conninfo(url)  # refused on SQLite before anything is opened
    return worker_lifespan(url, worker)


def _open_store(app: FastAPI, url: str, *, session_hours: float, max_body_bytes: int) -> None:
    """The store at `url` (opened and migrated once), its users and sessions on `app.state`,
    and the middleware refusing a body over `max_body_bytes`."""
    engine = make_engine(url)
    app.state.engine = engine
    app.state.database_url = url
    app.state.users = Users(engine)
    app.state.sessions = Sessions(engine, timedelta(hours=session_hours))
    app.state.max_body_bytes = max_body_bytes
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)


def _install_error_handlers(app: FastAPI) -> None:
    """calibrant's errors as HTTP answers: bad input 422 (with its line and field), not found
    404, a conflict 409, any other user error 400; every message valid UTF-8."""

    @app.exception_handler(InputError)
    async def _input_error(_: Request, exc: InputError) -> JSONResponse:
        body: dict[str, Any] = {"detail": _text(exc)}
        if exc.line is not None:
            body["line"] = exc.line
        if exc.field is not None:
            body["field"] = _text(exc.field)
        return JSONResponse(status_code=422, content=body)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer, but one that can carry input with lone surrogates
        return JSONResponse(
            status_code=422, content={"detail": _clean(jsonable_encoder(exc.errors()))}
        )

    @app.exception_handler(NotFound)
    async def _not_found(_: Request, exc: NotFound) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": _text(exc)})

    @app.exception_handler(Conflict)
    async def _conflict(_: Request, exc: Conflict) -> JSONResponse:
        return JSONResponse(status_code=409, content={"detail": _text(exc)})

    @app.exception_handler(CalibrantError)
    async def _user_error(_: Request, exc: CalibrantError) -> JSONResponse:
        return JSONResponse(status_code=400, content={"detail": _text(exc)})


def _install_routes(app: FastAPI) -> None:
    """The API and the workbench's pages, in the order the OpenAPI document lists them."""
    api_labels.install(app)
    workbench.install(app)

    @app.get("/api/health", tags=["service"])
    def health() -> HealthOut:
        """Liveness: no authentication, no store access."""
        return HealthOut(status="ok", version=__version__)

    @app.get("/api/me", tags=["service"])
    def me(user: User = Depends(current_user)) -> MeOut:  # noqa: B008
        """The account the token belongs to."""
        return MeOut(name=user.name, role=user.role)

    from . import routes_audit, routes_catalog, routes_jobs, routes_reports, routes_runs

    for module in (routes_catalog, routes_jobs, routes_runs, routes_reports, routes_audit):
        app.include_router(module.router)
    app.include_router(routes_audit.pages)
