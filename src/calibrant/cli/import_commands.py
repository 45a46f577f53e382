"""`calibrant import chat|otel FILES --out DIR`: production traces in, one transcript per trace.
Thin: the options, `importers.import_traces`, its summary line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import CalibrantError
from .app import app

FORMAT_HELP = (
    "chat: OpenAI chat-completions conversations (a JSON file of {messages} or a list, or JSONL "
    "with one conversation and its id per line). otel: OpenTelemetry GenAI spans as OTLP JSON "
    "(or JSONL, one export per line), one transcript per trace id."
)


@app.command("import")
def import_traces(
    fmt: Annotated[str, typer.Argument(metavar="FORMAT", help=FORMAT_HELP)],
    files: Annotated[
        list[Path], typer.Argument(metavar="FILES", help="Trace files (.json or .jsonl).")
    ],
    out: Annotated[
        Path,
        typer.Option("--out", help="New folder: one transcript JSON per trace (as trials write)."),
    ],
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain",
            help="Domain of the transcripts: an installed domain pack (calibrant domains list); "
            "default: the case's domain, else refunds.",
        ),
    ] = None,
    case: Annotated[
        Path | None, typer.Option("--case", help="Case contract (YAML) the traces ran.")
    ] = None,
    snapshots: Annotated[
        Path | None,
        typer.Option(
            "--snapshots",
            help="Folder of system-of-record snapshots: TRACE_ID/before.json and after.json "
            "(refunds: see calibrant schema snapshot; another domain: its pack's snapshot "
            "format), read by an evaluator identity.",
        ),
    ] = None,
    before: Annotated[
        Path | None, typer.Option("--before", help="Snapshot before the trace (one trace only).")
    ] = None,
    after: Annotated[
        Path | None, typer.Option("--after", help="Snapshot after the trace (one trace only).")
    ] = None,
    tenant: Annotated[
        str | None,
        typer.Option(
            "--tenant", help="Tenant the agent acts for (else calibrant.tenant, the case)."
        ),
    ] = None,
    agent_principal: Annotated[
        str | None,
        typer.Option(
            "--agent-principal",
            help="The agent's identity in your system (else calibrant.agent_principal).",
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="Agent name in the provenance (default imported:FORMAT)."),
    ] = None,
) -> None:
    """Turn agent traces you already have into transcripts of any installed domain, their
    records taken only from your system-of-record snapshots (never from what the agent's tools
    answered)."""
    from pydantic import ValidationError

    from ..importers import FORMATS, ImportOptions
    from ..importers import import_traces as run

    if fmt not in FORMATS:
        raise CalibrantError(f"FORMAT {fmt}: unknown; the formats are {', '.join(FORMATS)}")
    try:
        options = ImportOptions.model_validate(
            {
                "format": fmt,
                "paths": files,
                "out": out,
                "domain": domain,
                "case": case,
                "snapshots": snapshots,
                "before": before,
                "after": after,
                "tenant": tenant,
                "agent_principal": agent_principal,
                "agent": agent,
            }
        )
    except ValidationError as exc:
        raise CalibrantError(f"invalid options: {exc.errors()[0]['msg']}") from None
    typer.echo(run(options).summary())
