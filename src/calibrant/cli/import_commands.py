"""`calibrant import chat|otel|tau-bench FILES --out DIR`: traces in, one transcript per trace.
Thin: the options, `importers.import_traces`, its summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .app import app
from .import_options import FORMAT_HELP, import_group
from .option_group import GROUP

if TYPE_CHECKING:
    from ..importers import ImportOptions

__all__ = ["FORMAT_HELP", "import_traces"]


@app.command("import")
@import_group
def import_traces(options: ImportOptions = GROUP) -> None:
    """Turn agent traces you already have into transcripts of any installed domain, their
    records taken only from your system-of-record snapshots (never from what the agent's tools
    answered)."""
    from ..importers import import_traces as run

    typer.echo(run(options).summary())
