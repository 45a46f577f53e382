"""`calibrant import chat|otel|tau-bench FILES --out DIR`: traces in, one transcript per trace.
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
    "(or JSONL, one export per line), one transcript per trace id. tau-bench: tau-bench and "
    "tau2-bench trajectory files as published (task -> case, trial, the benchmark's reward in "
    "the provenance)."
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
            "default: the case's domain, else that of files naming none.",
        ),
    ] = None,
    case: Annotated[
        Path | None, typer.Option("--case", help="Case contract (YAML) the traces ran.")
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases",
            help="Folder of case contracts (YAML): each trace gets the case its case id "
            "names (calibrant.case in its metadata, or --case-map).",
        ),
    ] = None,
    case_map: Annotated[
        Path | None,
        typer.Option(
            "--case-map",
            help="JSON or YAML object: trace id -> case id (overrides calibrant.case).",
        ),
    ] = None,
    no_contract: Annotated[
        bool,
        typer.Option(
            "--no-contract",
            help="Import a trace no case contract matches with its end state not judged "
            "(end_state_matches_contract: not_applicable) instead of refusing it.",
        ),
    ] = False,
    tool_call_text: Annotated[
        str,
        typer.Option(
            "--tool-call-text",
            help="Whether the customer saw text the agent sent in the same message as a tool "
            "call: shown (default: it counts as said to the customer) or hidden.",
        ),
    ] = "shown",
    snapshots: Annotated[
        Path | None,
        typer.Option(
            "--snapshots",
            help="Folder of system-of-record snapshots: TRACE_ID/before.json and after.json "
            "(files naming no domain: see calibrant schema snapshot; another domain: its "
            "pack's snapshot format), read by an evaluator identity.",
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
                "cases": cases,
                "case_map": case_map,
                "no_contract": no_contract,
                "tool_call_text": tool_call_text,
                "snapshots": snapshots,
                "before": before,
                "after": after,
                "tenant": tenant,
                "agent_principal": agent_principal,
                "agent": agent,
            }
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "--" + str(err["loc"][0]).replace("_", "-") if err["loc"] else "options"
        raise CalibrantError(f"{name}: {err['msg']}; see calibrant import --help") from None
    typer.echo(run(options).summary())
