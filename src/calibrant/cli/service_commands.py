"""`calibrant serve` (the HTTP API and the workbench) and `calibrant users` (accounts)."""

from __future__ import annotations

import importlib
import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .app import app

users_app = typer.Typer(
    help="Accounts of the service: experts and API clients.", no_args_is_help=True
)
app.add_typer(users_app, name="users")


@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port.")] = 8000,
    max_body_mb: Annotated[
        float,
        typer.Option(
            "--max-body-mb",
            min=0.001,
            help="Largest request body accepted, in MiB (1 MiB = 1,048,576 bytes).",
        ),
    ] = 10.0,
    worker: Annotated[
        bool,
        typer.Option(
            "--worker",
            help="Also run a queue worker in the service, for background jobs (PostgreSQL).",
        ),
    ] = False,
    worker_concurrency: Annotated[
        int, typer.Option("--worker-concurrency", min=1, help="Jobs the worker runs at once.")
    ] = 1,
    session_hours: Annotated[
        float,
        typer.Option(
            "--session-hours",
            min=0.01,
            help="How long a workbench login lasts (then the expert logs in again).",
        ),
    ] = 12.0,
) -> None:
    """Run the service: the HTTP API under /api/ (OpenAPI at /openapi.json) and the experts'
    workbench at /, on the store named by CALIBRANT_DATABASE_URL (default ./calibrant.db).
    Background jobs (POST /api/jobs) need a PostgreSQL store and a worker: `--worker` here, or
    `calibrant worker` processes."""
    # The service is started by its module's name, the way uvicorn names an app: the CLI runs
    # the service but never builds on its code (cli and service are independent, lint-imports)
    service = importlib.import_module("calibrant.service.serve")
    service.serve(
        host=host,
        port=port,
        max_body_bytes=int(max_body_mb * 1024 * 1024),
        worker=worker_concurrency if worker else 0,
        session_hours=session_hours,
    )


@users_app.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="Account name (the expert id in labels).")],
    role: Annotated[
        str, typer.Option("--role", help="annotator, adjudicator or admin.")
    ] = "annotator",
) -> None:
    """Create an account and print its token, once: only its hash is stored."""
    from ..store import make_engine
    from ..store.users import Users

    token = Users(make_engine()).add(name, role)
    typer.echo(token)
    typer.echo(
        f"calibrant: user {name!r} ({role}) created; the token above is shown only now",
        err=True,
    )


@users_app.command("token")
def users_token(name: Annotated[str, typer.Argument(help="Account name.")]) -> None:
    """Give an account a new token (the old one and its workbench sessions stop working) and
    print it, once."""
    from ..store import make_engine
    from ..store.users import Users

    typer.echo(Users(make_engine()).rotate(name))


@users_app.command("disable")
def users_disable(name: Annotated[str, typer.Argument(help="Account name.")]) -> None:
    """Stop an account's token and workbench sessions from working (`users token` enables it
    again with a new one)."""
    from ..store import make_engine
    from ..store.users import Users

    Users(make_engine()).disable(name)
    typer.echo(f"calibrant: user {name!r} disabled", err=True)


@users_app.command("list")
def users_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Every account: name, role, created, disabled, live workbench sessions (never a token
    or a session id)."""
    from ..store import make_engine
    from ..store.sessions import Sessions
    from ..store.users import Users

    engine = make_engine()
    live = Sessions(engine).counts()
    rows: list[dict[str, Any]] = [
        {
            "name": r.name,
            "role": r.role,
            "created_at": r.created_at.isoformat(),
            "disabled": r.disabled,
            "sessions": live.get(r.name, 0),
        }
        for r in Users(engine).list()
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="Accounts", title_justify="left")
    for col in ("name", "role", "created", "disabled", "sessions"):
        table.add_column(col)
    for r in rows:
        disabled = "yes" if r["disabled"] else ""
        table.add_row(r["name"], r["role"], r["created_at"][:16], disabled, str(r["sessions"]))
    Console().print(table)
